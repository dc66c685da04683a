import { existsSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ioError, setFaultInjector } from '../store/faults.js';
import { LAYOUT } from '../store/layout.js';
import { eventually } from '../test-support/receiver.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';
import { cutOffTestDatabase, reopenTestDatabase } from '../test-support/test-database.js';

let now = new Date('2026-11-23T10:00:00Z').getTime();
const clock = () => new Date(now);
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  setFaultInjector(undefined);
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function server(): Promise<TestServer> {
  const s = await startServer({
    clock,
    env: { TICKETING_SCHEDULER_SECONDS: '0', TICKETING_WEBHOOKS_ALLOW_LOCAL: 'on' },
  });
  cleanup.push(() => s.close());
  return s;
}

const probe = (s: TestServer, path: string, method = 'GET') => s.call(method, `${s.url}${path}`, { key: null });

describe('/health and /ready', () => {
  it('answer without a key, in small JSON that is never cached', async () => {
    const s = await server();
    const health = await probe(s, '/health');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok', version: s.running.deps.version });
    expect(health.headers.get('cache-control')).toBe('no-store');
    expect(health.headers.get('content-type')).toMatch(/^application\/json/);

    const ready = await probe(s, '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { store: { ok: true }, outbox: { ok: true, pending: 0 } } });
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect(ready.text.length).toBeLessThan(200);
    // The probe is written and removed again, not left in the data directory.
    expect(existsSync(join(s.dataDir, LAYOUT.readyProbe))).toBe(false);

    const post = await probe(s, '/ready', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(post.body.error.code).toBe('method_not_allowed');
    expect((await probe(s, '/health', 'HEAD')).status).toBe(200);
  });

  it('/ready names the store when the data directory stops taking writes (or the database goes away), and recovers', async () => {
    const s = await server();
    expect((await probe(s, '/ready')).status).toBe(200);
    if (s.databaseUrl) await cutOffTestDatabase(s.databaseUrl);
    else
      setFaultInjector((op) => {
        if (op !== 'fsync-dir') throw ioError('EROFS', op);
      });
    // Within the cache window the last answer stands: probes do not cost two fsyncs each.
    // (A database cut off fails the outbox's check at once: it cannot be read.)
    if (!s.databaseUrl) expect((await probe(s, '/ready')).status).toBe(200);
    now += 2000;
    const down = await probe(s, '/ready');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({
      status: 'not_ready',
      // Without its database the outbox cannot be read either.
      failing: s.databaseUrl ? ['store', 'outbox'] : ['store'],
      checks: { store: { ok: false, error: s.databaseUrl ? 'database_unreachable' : 'EROFS' } },
    });
    expect(down.text).not.toContain(s.dataDir); // no paths to an anonymous caller
    expect((await probe(s, '/health')).status).toBe(200); // the process still answers
    expect(s.logs.some((l) => l.includes('"msg":"not ready"'))).toBe(true);

    setFaultInjector(undefined);
    if (s.databaseUrl) await reopenTestDatabase(s.databaseUrl);
    now += 2000;
    expect((await probe(s, '/ready')).status).toBe(200);
  });

  it('/ready names the outbox when a due delivery hangs for minutes, and recovers once it moves', async () => {
    // A webhook receiver that takes requests and answers only when told.
    const held: ServerResponse[] = [];
    const hook = createServer((req, res) => {
      req.resume();
      held.push(res);
    });
    await new Promise<void>((ok) => hook.listen(0, '127.0.0.1', ok));
    cleanup.push(
      () =>
        new Promise<void>((ok) => {
          hook.closeAllConnections();
          hook.close(() => ok());
        }),
    );
    const s = await server();
    const modules = ['kb', 'uploads', 'rating', 'close_request'].map((name) => ({ name, enabled: true }));
    const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hooks`;
    await s.call('POST', '/admin?r=modules', {
      json: {
        modules: [
          ...modules,
          {
            name: 'webhooks',
            enabled: true,
            settings: { url, secret: 'whsec_0123456789abcdef', events: ['ticket.created'] },
          },
        ],
      },
    });
    await createTicket(s);
    await eventually(() => held.length === 1, 5000, 'the delivery to arrive');

    const inFlight = await probe(s, '/ready');
    expect(inFlight.status).toBe(200); // a delivery on its way is not a stuck one
    expect(inFlight.body.checks.outbox).toEqual({ ok: true, pending: 1 });

    now += 6 * 60_000;
    const stuck = await probe(s, '/ready');
    expect(stuck.status).toBe(503);
    expect(stuck.body.failing).toEqual(['outbox']);
    expect(stuck.body.checks.outbox).toEqual({ ok: false, error: 'jobs_overdue', pending: 1, overdue: 1 });

    held[0]!.writeHead(200).end('{}');
    await s.running.deps.outbox.idle();
    expect(await s.running.deps.outbox.pending()).toEqual([]);
    expect((await probe(s, '/ready')).status).toBe(200);
  });
});
