import { Agent, request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startChild, type ChildServer } from '../test-support/child-server.js';
import { eventually } from '../test-support/receiver.js';
import { makeKeys, ticketInput } from '../test-support/server.js';

// SIGTERM on an instance behind a balancer (issue 33): /ready says 503 at once, the port stays open
// while requests come, requests in flight finish, and an idle server still stops at once.

const keys = makeKeys();
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function start(graceSeconds: string, dataDir?: string): Promise<ChildServer & { dir: string }> {
  const dir = dataDir ?? (await mkdtemp(join(tmpdir(), 'ticketing-grace-')));
  if (!dataDir) cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const child = await startChild({
    TICKETING_DATA_DIR: dir,
    TICKETING_KEYS: Object.values(keys).join(','),
    TICKETING_LOG_LEVEL: 'info',
    TICKETING_RATE_LIMIT: 'off',
    TICKETING_STOP_GRACE_SECONDS: graceSeconds,
  });
  cleanup.push(async () => {
    child.proc.kill('SIGKILL');
    await child.exited;
  });
  return { ...child, dir };
}

/** One request on a connection of its own (as a proxy opens one), answered as status and body. */
function call(
  url: string,
  method: string,
  path: string,
  options: { key?: string; body?: Buffer; type?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((ok, fail) => {
    const req = request(`${url}${path}`, {
      method,
      agent: false,
      headers: {
        ...(options.key ? { Authorization: `Bearer ${options.key}` } : {}),
        ...(options.body ? { 'Content-Type': options.type!, 'Content-Length': options.body.length } : {}),
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => ok({ status: res.statusCode!, body }));
    });
    req.on('error', fail);
    req.end(options.body);
  });
}

/** A /create with a 4 MB attachment, as multipart bytes. */
async function bigCreate(subject: string) {
  const form = new FormData();
  for (const [k, v] of Object.entries(ticketInput({ subject }))) form.append(k, v as string);
  form.append('attachments[]', new Blob([Buffer.alloc(4 * 1024 * 1024, 'a')]), 'big.log');
  const encoded = new Response(form);
  return { body: Buffer.from(await encoded.arrayBuffer()), type: encoded.headers.get('content-type')! };
}

const logged = (child: ChildServer) =>
  child
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg: string; reason?: string; ms?: number });

describe('SIGTERM with a grace', () => {
  it('answers /ready 503 at once, serves new connections while requests come, finishes a 4 MB upload in flight', async () => {
    const child = await start('30');
    // A 4 MB upload whose first half is on its way when the signal comes.
    const upload = await bigCreate('4 MB across the signal');
    const inFlight = request(`${child.url}/v1/create`, {
      method: 'POST',
      agent: false,
      headers: {
        Authorization: `Bearer ${keys.pk}`,
        'Content-Type': upload.type,
        'Content-Length': upload.body.length,
      },
    });
    const answerInFlight = new Promise<{ status: number; body: string }>((ok, fail) => {
      inFlight.on('response', (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => ok({ status: res.statusCode!, body }));
      });
      inFlight.on('error', fail);
    });
    inFlight.write(upload.body.subarray(0, upload.body.length / 2));

    // Requests keep coming, each on a new connection, as a balancer that has not noticed yet sends them.
    const statuses: number[] = [];
    let load = true;
    const loop = (async () => {
      while (load) {
        statuses.push(
          await call(child.url, 'GET', '/v1/me', { key: keys.sk }).then(
            (r) => r.status,
            () => 0,
          ),
        );
        await new Promise((ok) => setTimeout(ok, 50));
      }
    })();
    await eventually(() => statuses.length >= 3, 10_000, 'the load to run');

    const signalled = performance.now();
    child.proc.kill('SIGTERM');
    await eventually(() => child.output().includes('"msg":"stopping"'), 10_000, 'the server to begin stopping');
    const ready = await call(child.url, 'GET', '/ready');
    const readyMs = performance.now() - signalled;
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ status: 'not_ready', failing: ['shutdown'] });
    expect(readyMs).toBeLessThan(5000); // "at once": well before the 30 s grace; the port is still open

    // New connections are still served: a ticket created now is acknowledged, 4 MB attachment and all.
    const during = await bigCreate('created in the grace');
    const created = await call(child.url, 'POST', '/v1/create', { key: keys.pk, ...during });
    expect(created.status, created.body).toBe(201);
    const before = statuses.length;
    await eventually(() => statuses.length >= before + 3, 10_000, 'more requests in the grace');

    // The upload in flight finishes.
    inFlight.end(upload.body.subarray(upload.body.length / 2));
    const answer = await answerInFlight;
    expect(answer.status, answer.body).toBe(201);
    expect(JSON.parse(answer.body).attachments[0].size).toBe(4 * 1024 * 1024);

    // Every request of the load was answered 200 so far; once it stops, the port closes (quiet).
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    load = false;
    await loop;
    expect(await child.exited).toBe(0);
    expect(logged(child).find((l) => l.msg === 'port closed')).toMatchObject({ reason: 'quiet' });
    await expect(call(child.url, 'GET', '/health')).rejects.toThrow();

    // Both tickets are stored.
    const after = await start('0', child.dir);
    const list = await call(after.url, 'GET', '/v1/list', { key: keys.sk });
    const subjects = (JSON.parse(list.body) as { data: { subject: string }[] }).data.map((t) => t.subject);
    expect(subjects.sort()).toEqual(['4 MB across the signal', 'created in the grace']);
  });

  it('stops an idle server within a second, a keep-alive connection left open and the grace at 30 s', async () => {
    const child = await start('30');
    const agent = new Agent({ keepAlive: true });
    cleanup.push(async () => agent.destroy());
    for (let i = 0; i < 3; i++) {
      await new Promise<void>((ok, fail) =>
        request(`${child.url}/v1/me`, { agent, headers: { Authorization: `Bearer ${keys.sk}` } }, (res) => {
          res.resume();
          res.on('end', ok);
        })
          .on('error', fail)
          .end(),
      );
    }
    await new Promise((ok) => setTimeout(ok, 1000)); // idle: nothing comes in
    const signalled = performance.now();
    child.proc.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    const ms = performance.now() - signalled;
    expect(ms).toBeLessThan(1000);
    expect(logged(child).find((l) => l.msg === 'port closed')).toMatchObject({ reason: 'quiet' });
  });

  it('keeps the port open until a balancer probing /ready has heard 503, then closes it', async () => {
    const child = await start('30');
    const probes: { at: number; status: number }[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        const status = await call(child.url, 'GET', '/ready').then(
          (r) => r.status,
          () => 0,
        );
        probes.push({ at: performance.now(), status });
        await new Promise((ok) => setTimeout(ok, 1000)); // a balancer's interval
      }
    })();
    await eventually(() => probes.length >= 1, 10_000, 'a first probe');
    child.proc.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    const exitedAt = performance.now();
    probing = false;
    await prober;
    const told = probes.find((p) => p.status === 503);
    expect(told, JSON.stringify(probes)).toBeDefined();
    expect(told!.at).toBeLessThan(exitedAt);
    // Closed once told and quiet, long before the 30 s grace.
    expect(logged(child).find((l) => l.msg === 'port closed')).toMatchObject({ reason: 'quiet' });
    expect(logged(child).find((l) => l.msg === 'port closed')!.ms).toBeLessThan(10_000);
  });
});
