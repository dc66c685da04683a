import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChild, type ChildServer } from '../test-support/child-server.js';
import { startThrowawayPostgres } from '../test-support/postgres-setup.js';
import {
  caddySite,
  call,
  nginxSite,
  startCaddy,
  startNginx,
  type ProxyAnswer,
  type RunningProxy,
} from '../test-support/proxies.js';
import { eventually } from '../test-support/receiver.js';
import { makeKeys, ticketInput } from '../test-support/server.js';
import { freePort } from '../test-support/smtp.js';
import { parseUnit, serviceEnvironment } from '../test-support/systemd-unit.js';

// A rolling restart (issue 33): two instances of deploy/ticketing@.service on one PostgreSQL behind
// nginx, then Caddy, each with the guide's configuration; under load (creates, reads, 4 MB uploads)
// one instance is stopped with SIGTERM and started again, then the other. No request may fail, and
// every acknowledged create must be stored.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFile(join(ROOT, path), 'utf8');
const keys = makeKeys();
let work: string;
let pg: Awaited<ReturnType<typeof startThrowawayPostgres>>;
let env: Record<string, string>;
const ports: string[] = [];
const instances: ChildServer[] = [];
const proxies: RunningProxy[] = [];

async function startInstance(i: number) {
  instances[i] = await startChild({ ...env, TICKETING_PORT: ports[i]! }, 30_000, { built: true });
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'ticketing-rolling-'));
  pg = await startThrowawayPostgres();
  ports.push(String(await freePort()), String(await freePort()));
  // The template's environment (its port is the instance's name) and the guide's /etc/ticketing/env,
  // with the database, a data directory and the keys of this test.
  const unit = serviceEnvironment(parseUnit(await read('deploy/ticketing@.service')), await read('docs/deploy.md'));
  expect(unit.TICKETING_PORT).toBe('%i');
  env = {
    ...unit,
    TICKETING_DATA_DIR: join(work, 'data'),
    TICKETING_DATABASE_URL: pg.url,
    TICKETING_KEYS: Object.values(keys).join(','),
    TICKETING_RATE_LIMIT: 'off', // the load comes from one address
    TICKETING_QUOTA_UPLOAD_MB_PER_HOUR: '1000000',
    TICKETING_STOP_GRACE_SECONDS: '5', // the server's default (the test helper's is 0)
  };
  await startInstance(0);
  await startInstance(1);
}, 120_000);

afterAll(async () => {
  for (const p of proxies) p.process.kill('SIGTERM');
  for (const i of instances) i?.proc.kill('SIGKILL');
  await Promise.all(instances.map((i) => i?.exited));
  await pg?.remove();
  await rm(work, { recursive: true, force: true });
});

/** A 4 MB attachment's create, as multipart bytes. */
async function bigCreate() {
  const form = new FormData();
  for (const [k, v] of Object.entries(ticketInput({ subject: '4 MB' }))) form.append(k, v as string);
  form.append('attachments[]', new Blob([Buffer.alloc(4 * 1024 * 1024, 'a')]), 'big.log');
  const encoded = new Response(form);
  return { body: Buffer.from(await encoded.arrayBuffer()), type: encoded.headers.get('content-type')! };
}

/**
 * Load through the proxy until `stop` is called: workers that create a ticket, read it back and read
 * /v1/meta, and one that uploads 4 MB attachments; every answer that is not the expected one (or a
 * failed connection) is an error. Keep-alive connections, as browsers hold them.
 */
function load(port: number, host: string, big: { body: Buffer; type: string }) {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const errors: string[] = [];
  const created: string[] = [];
  let answers = 0;
  let running = true;
  const expectStatus = async (what: string, want: number, answer: Promise<ProxyAnswer>) => {
    try {
      const res = await answer;
      answers++;
      if (res.status !== want) errors.push(`${what}: ${res.status} ${res.body.slice(0, 200)}`);
      return res.status === want ? res : undefined;
    } catch (err) {
      errors.push(`${what}: ${(err as Error).message}`);
      return undefined;
    }
  };
  const json = { 'Content-Type': 'application/json', Host: host };
  const worker = async (n: number) => {
    while (running) {
      const input = ticketInput({ subject: `load ${n}` });
      const res = await expectStatus(
        'POST /v1/create',
        201,
        call(port, 'POST', '/v1/create', { key: keys.pk, headers: json, body: JSON.stringify(input), agent }),
      );
      if (res) {
        const id = (JSON.parse(res.body) as { id: string }).id;
        created.push(id);
        const q = `/v1/ticket?id=${id}&email=${encodeURIComponent(input.email)}`;
        await expectStatus(
          'GET /v1/ticket',
          200,
          call(port, 'GET', q, { key: keys.pk, headers: { Host: host }, agent }),
        );
      }
      await expectStatus(
        'GET /v1/meta',
        200,
        call(port, 'GET', '/v1/meta', { key: keys.pk, headers: { Host: host }, agent }),
      );
    }
  };
  const uploader = async () => {
    while (running) {
      const res = await expectStatus(
        'POST /v1/create (4 MB)',
        201,
        call(port, 'POST', '/v1/create', {
          key: keys.pk,
          headers: { 'Content-Type': big.type, 'Content-Length': String(big.body.length), Host: host },
          body: big.body,
          agent,
        }),
      );
      if (res) created.push((JSON.parse(res.body) as { id: string }).id);
    }
  };
  const all = Promise.all([...Array.from({ length: 6 }, (_, n) => worker(n)), uploader()]);
  return {
    errors,
    created,
    answers: () => answers,
    async stop() {
      running = false;
      await all;
      agent.destroy();
    },
  };
}

/** SIGTERM to one instance, then the other, each started again and ready before the next goes. */
async function rollingRestart() {
  for (const i of [0, 1]) {
    const old = instances[i]!;
    old.proc.kill('SIGTERM');
    expect(await old.exited).toBe(0);
    await startInstance(i);
    await eventually(
      async () => (await fetch(`${instances[i]!.url}/ready`).catch(() => undefined))?.status === 200,
      20_000,
      `instance ${i} to be ready`,
    );
    await new Promise((ok) => setTimeout(ok, 2000)); // the proxy's health check sees it again
  }
}

/** Every acknowledged create is stored: the list, read from one instance, holds each id. */
async function storedIds() {
  const ids = new Set<string>();
  for (let offset = 0; ; offset += 200) {
    const res = await fetch(`${instances[0]!.url}/v1/list?limit=200&offset=${offset}`, {
      headers: { Authorization: `Bearer ${keys.sk}` },
    });
    const page = (await res.json()) as { data: { id: string }[]; total: number };
    for (const t of page.data) ids.add(t.id);
    if (offset + 200 >= page.total) return ids;
  }
}

async function restartUnderLoad(port: number, host: string) {
  const traffic = load(port, host, await bigCreate());
  await eventually(() => traffic.answers() >= 30, 30_000, 'the load to run');
  await rollingRestart();
  await traffic.stop();
  expect(traffic.errors).toEqual([]);
  expect(traffic.created.length).toBeGreaterThan(20);
  const stored = await storedIds();
  expect(traffic.created.filter((id) => !stored.has(id))).toEqual([]);
  return traffic;
}

describe('a rolling restart of two instances', () => {
  it('behind nginx with deploy/nginx.conf loses no request and no acknowledged create', async () => {
    const conf = await read('deploy/nginx.conf');
    const nginx = await startNginx(work, (port, prefix) =>
      nginxSite(conf, port, ports, join(prefix, 'ticketing.access.log')),
    );
    proxies.push(nginx);
    const traffic = await restartUnderLoad(nginx.port, 'support.example.com');
    console.log(`nginx: ${traffic.answers()} answers, ${traffic.created.length} creates, 0 errors`);
  }, 240_000);

  it('behind Caddy with deploy/Caddyfile loses no request and no acknowledged create', async () => {
    const file = await read('deploy/Caddyfile');
    const caddy = await startCaddy(work, (port) => caddySite(file, port, ports));
    proxies.push(caddy);
    const traffic = await restartUnderLoad(caddy.port, `support.example.com:${caddy.port}`);
    console.log(`Caddy: ${traffic.answers()} answers, ${traffic.created.length} creates, 0 errors`);
  }, 240_000);
});
