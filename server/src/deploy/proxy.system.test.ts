import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChild, type ChildServer } from '../test-support/child-server.js';
import { eventually } from '../test-support/receiver.js';
import { makeKeys, ticketInput } from '../test-support/server.js';
import { freePort } from '../test-support/smtp.js';
import { parseUnit, serviceEnvironment } from '../test-support/systemd-unit.js';

// Needs Debian's systemd (systemd-analyze), nginx and caddy: .ci/run installs them; `pnpm test:system`.
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const deployFile = (name: string) => readFile(join(ROOT, 'deploy', name), 'utf8');
const keys = makeKeys();
let work: string;
let server: ChildServer;
const children: ChildProcess[] = [];

/** A request through the proxy from a chosen loopback address (127.0.0.0/8 is all this machine). */
function call(
  port: number,
  method: string,
  path: string,
  options: { from?: string; key?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((ok, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        localAddress: options.from ?? '127.0.0.1',
        headers: {
          Host: 'support.example.com',
          ...(options.key ? { Authorization: `Bearer ${options.key}` } : {}),
          ...options.headers,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => ok({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', fail);
    req.end(options.body);
  });
}

/** Waits until something accepts connections on the port. */
const listening = (port: number) =>
  eventually(
    () =>
      new Promise<boolean>((ok) => {
        const socket = createServer().listen(port, '127.0.0.1');
        socket.on('listening', () => socket.close(() => ok(false)));
        socket.on('error', () => ok(true));
      }),
    15_000,
    `a listener on port ${port}`,
  );

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

describe('deploy/ticketing.service', () => {
  it('passes systemd-analyze verify', async () => {
    const { stdout, stderr } = await run('systemd-analyze', ['verify', join(ROOT, 'deploy', 'ticketing.service')]);
    expect(stdout + stderr).toBe('');
  });
});

describe('behind nginx, with the configuration of docs/deploy.md', () => {
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    const upstream = new URL(server.url).port;
    const site = (await deployFile('nginx.conf'))
      .replace('listen 80;', `listen 127.0.0.1:${port};`)
      .replace('listen [::]:80;', '')
      .replace('server 127.0.0.1:3000;', `server 127.0.0.1:${upstream};`)
      .replace('/var/log/nginx/ticketing.access.log', join(work, 'nginx', 'ticketing.access.log'));
    expect(site).toContain(`server 127.0.0.1:${upstream};`);
    const prefix = join(work, 'nginx');
    await mkdir(prefix);
    await writeFile(join(prefix, 'site.conf'), site);
    await writeFile(
      join(prefix, 'nginx.conf'),
      `daemon off;
${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log;
events { worker_connections 64; }
http {
  access_log ${prefix}/access.log;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  include ${prefix}/site.conf;
}
`,
    );
    const args = ['-p', prefix, '-c', join(prefix, 'nginx.conf')];
    await run('nginx', [...args, '-t']);
    const nginx = spawn('nginx', args, { stdio: 'ignore' });
    children.push(nginx);
    await listening(port);
  });

  it('passes requests through, with nginx’s request id', async () => {
    const health = await call(port, 'GET', '/health');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ status: 'ok' });
    const me = await call(port, 'GET', '/v1/me', { key: keys.sk });
    expect(JSON.parse(me.body).portal.public_url).toBe('https://support.example.com');
    expect(me.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/); // $request_id, kept by the server
    // nginx's own log line for the request ends with the same id (nginx writes it when the request ends).
    await expect
      .poll(async () => readFile(join(work, 'nginx', 'ticketing.access.log'), 'utf8').catch(() => ''))
      .toContain(`"GET /v1/me HTTP/1.1" 200`);
    const line = (await readFile(join(work, 'nginx', 'ticketing.access.log'), 'utf8'))
      .split('\n')
      .find((l) => l.includes('GET /v1/me '));
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
      {
        env: { ...process.env, XDG_DATA_HOME: join(work, 'caddy-data'), XDG_CONFIG_HOME: join(work, 'caddy-config') },
      },
    );
    expect(stdout).toContain('Valid configuration');
  });

  it('passes the client’s real address and drops a forged one (its site served over plain HTTP here)', async () => {
    const port = await freePort();
    const upstream = new URL(server.url).port;
    // No certificate authority can be reached here: the same site block, on a plain HTTP address.
    const file = (await deployFile('Caddyfile'))
      .replace('support.example.com {', `{\n\tadmin off\n}\nhttp://support.example.com:${port} {\n\tbind 127.0.0.1`)
      .replace('reverse_proxy 127.0.0.1:3000', `reverse_proxy 127.0.0.1:${upstream}`);
    const config = join(work, 'Caddyfile');
    await writeFile(config, file);
    const caddy = spawn('caddy', ['run', '--config', config, '--adapter', 'caddyfile'], {
      stdio: 'ignore',
      env: { ...process.env, XDG_DATA_HOME: join(work, 'caddy-data'), XDG_CONFIG_HOME: join(work, 'caddy-config') },
    });
    children.push(caddy);
    await listening(port);
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
