import { execFile, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChild, type ChildServer } from '../test-support/child-server.js';
import { caddyEnv, caddySite, call, nginxSite, startCaddy, startNginx } from '../test-support/proxies.js';
import { makeKeys, ticketInput } from '../test-support/server.js';
import { parseUnit, serviceEnvironment } from '../test-support/systemd-unit.js';

// Needs Debian's systemd (systemd-analyze), nginx and caddy: .ci/run installs them; `pnpm test:system`.
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const deployFile = (name: string) => readFile(join(ROOT, 'deploy', name), 'utf8');
const keys = makeKeys();
let work: string;
let server: ChildServer;
const children: ChildProcess[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'ticketing-proxy-'));
  // The server as the unit starts it: dist/main.js with the unit's environment and the guide's
  // /etc/ticketing/env (data directory and port of this test's own).
  const env = serviceEnvironment(
    parseUnit(await deployFile('ticketing.service')),
    await readFile(join(ROOT, 'docs', 'deploy.md'), 'utf8'),
  );
  server = await startChild(
    {
      ...env,
      TICKETING_DATA_DIR: join(work, 'data'),
      TICKETING_PORT: '0',
      TICKETING_KEYS: Object.values(keys).join(','),
    },
    20_000,
    { built: true },
  );
  const blocklist = await fetch(`${server.url}/v1/admin?r=blocklists`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${keys.sk}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ ips: ['127.0.0.2'] }),
  });
  expect(blocklist.status).toBe(200);
});
afterAll(async () => {
  for (const c of children) c.kill('SIGTERM');
  server?.proc.kill('SIGTERM');
  await server?.exited;
  await rm(work, { recursive: true, force: true });
});

describe('deploy/ticketing.service and ticketing@.service', () => {
  it('passes systemd-analyze verify', async () => {
    const { stdout, stderr } = await run('systemd-analyze', ['verify', join(ROOT, 'deploy', 'ticketing.service')]);
    expect(stdout + stderr).toBe('');
  });

  it('passes systemd-analyze verify as an instance of the template (ticketing@3001)', async () => {
    // An instance is verified from the template beside it, with %i filled in.
    const dir = join(work, 'units');
    await cp(join(ROOT, 'deploy', 'ticketing@.service'), join(dir, 'ticketing@.service'));
    const { stdout, stderr } = await run('systemd-analyze', ['verify', join(dir, 'ticketing@3001.service')]);
    expect(stdout + stderr).toBe('');
  });
});

describe('behind nginx, with the configuration of docs/deploy.md', () => {
  let port: number;
  let log: string;
  beforeAll(async () => {
    const upstream = new URL(server.url).port;
    const conf = await deployFile('nginx.conf');
    const nginx = await startNginx(work, (listen, prefix) => {
      log = join(prefix, 'ticketing.access.log');
      // One instance here: the second upstream line goes, as the guide says for a single one.
      return nginxSite(conf, listen, [upstream], log);
    });
    children.push(nginx.process);
    port = nginx.port;
  });

  it('passes requests through, with nginx’s request id', async () => {
    const health = await call(port, 'GET', '/health');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ status: 'ok' });
    const me = await call(port, 'GET', '/v1/me', { key: keys.sk });
    expect(JSON.parse(me.body).portal.public_url).toBe('https://support.example.com');
    expect(me.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/); // $request_id, kept by the server
    // nginx's own log line for the request ends with the same id (nginx writes it when the request ends).
    await expect.poll(async () => readFile(log, 'utf8').catch(() => '')).toContain(`"GET /v1/me HTTP/1.1" 200`);
    const line = (await readFile(log, 'utf8')).split('\n').find((l) => l.includes('GET /v1/me '));
    expect(line).toMatch(new RegExp(` ${me.headers['x-request-id']}$`));
    expect((await call(port, 'GET', '/docs')).status).toBe(200);
  });

  it('lets a ticket with a 5 MB attachment through', async () => {
    const form = new FormData();
    for (const [k, v] of Object.entries(ticketInput())) form.append(k, v as string);
    form.append('attachments[]', new Blob([Buffer.alloc(5 * 1024 * 1024, 'a')]), 'big.txt');
    const encoded = new Response(form);
    const body = Buffer.from(await encoded.arrayBuffer());
    const res = await call(port, 'POST', '/v1/create', {
      key: keys.pk,
      body,
      headers: { 'Content-Type': encoded.headers.get('content-type')!, 'Content-Length': String(body.length) },
    });
    expect(res.status, res.body).toBe(201);
    expect(JSON.parse(res.body).attachments[0].size).toBe(5 * 1024 * 1024);
  });

  it('gives the server the client’s real address, which a client cannot forge (TICKETING_TRUST_PROXY=on)', async () => {
    const create = (from: string, headers: Record<string, string> = {}) =>
      call(port, 'POST', '/v1/create', {
        from,
        key: keys.pk,
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(ticketInput()),
      });
    // 127.0.0.2 is on the blocklist: the server sees it through nginx, not nginx's own address.
    expect(JSON.parse((await create('127.0.0.2')).body).error.code).toBe('blocked');
    // A forged X-Forwarded-For does not get it past.
    const forged = await create('127.0.0.2', { 'X-Forwarded-For': '198.51.100.7' });
    expect(JSON.parse(forged.body).error.code).toBe('blocked');
    // Nor does naming the blocked address get someone else blocked.
    expect((await create('127.0.0.1', { 'X-Forwarded-For': '127.0.0.2' })).status).toBe(201);
  });
});

describe('behind Caddy, with the Caddyfile of docs/deploy.md', () => {
  it('is a valid configuration', async () => {
    const { stdout } = await run(
      'caddy',
      ['validate', '--config', join(ROOT, 'deploy', 'Caddyfile'), '--adapter', 'caddyfile'],
      { env: caddyEnv(work) },
    );
    expect(stdout).toContain('Valid configuration');
  });

  it('passes the client’s real address and drops a forged one (its site served over plain HTTP here)', async () => {
    const upstream = new URL(server.url).port;
    const file = await deployFile('Caddyfile');
    const caddy = await startCaddy(work, (port) => caddySite(file, port, [upstream]));
    children.push(caddy.process);
    const port = caddy.port;
    const create = (from: string, headers: Record<string, string> = {}) =>
      call(port, 'POST', '/v1/create', {
        from,
        key: keys.pk,
        headers: { 'Content-Type': 'application/json', Host: `support.example.com:${port}`, ...headers },
        body: JSON.stringify(ticketInput()),
      });
    expect(JSON.parse((await create('127.0.0.2')).body).error.code).toBe('blocked');
    expect(JSON.parse((await create('127.0.0.2', { 'X-Forwarded-For': '198.51.100.7' })).body).error.code).toBe(
      'blocked',
    );
    expect((await create('127.0.0.1', { 'X-Forwarded-For': '127.0.0.2' })).status).toBe(201);
  });
});
