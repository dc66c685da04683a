import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../test-support/receiver.js';
import { createTicket, startServer, ticketInput } from '../test-support/server.js';
import { createTestDatabase, dropTestDatabase } from '../test-support/test-database.js';

// The quick check of a lost database, in the `postgres` project: the server reaches its database
// through a TCP relay on loopback that the test cuts (every connection ended, new ones refused) and
// mends, the network between them as a stand-in. The long run (outage.long.test.ts) stops a real
// PostgreSQL under two instances.

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A relay to `target`: cut() ends its connections and refuses new ones until mend(). */
async function relay(target: URL) {
  let cut = false;
  const open = new Set<Socket>();
  const server = createServer((client) => {
    if (cut) return void client.destroy();
    const upstream = new (client.constructor as typeof Socket)();
    upstream.connect(Number(target.port), target.hostname);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(a);
      a.on('data', (d) => b.write(d));
      a.on('error', () => b.destroy());
      a.on('close', () => {
        open.delete(a);
        b.destroy();
      });
    }
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = new URL(target);
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    cut() {
      cut = true;
      for (const s of open) s.destroy();
    },
    mend() {
      cut = false;
    },
    close: () => new Promise((ok) => server.close(ok)),
  };
}

describe('the database out of reach', () => {
  it('answers 503 unavailable with Retry-After within seconds, keeps what it holds, and writes again once it is back', async () => {
    const db = await createTestDatabase();
    cleanup.push(() => dropTestDatabase(db.name));
    const link = await relay(new URL(db.url));
    cleanup.push(link.close);
    const s = await startServer({ databaseUrl: link.url, env: { TICKETING_SCHEDULER_SECONDS: '0' } });
    cleanup.push(() => s.close({ keepData: true }));
    await createTicket(s);

    link.cut();
    const answers = [];
    for (let i = 0; i < 6; i++) {
      const began = performance.now();
      const res = await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput() });
      answers.push({ status: res.status, code: res.body.error?.code, retryAfter: res.headers.get('retry-after') });
      expect(performance.now() - began).toBeLessThan(3000);
    }
    expect(answers).toEqual(answers.map(() => ({ status: 503, code: 'unavailable', retryAfter: '5' })));
    const ready = await s.call('GET', `${s.url}/ready`, { key: null });
    expect(ready.status).toBe(503);
    expect(ready.body.checks.store).toEqual({ ok: false, error: 'database_unreachable' });
    await eventually(() => s.logs.some((l) => l.includes('"msg":"database unreachable"')), 10_000, 'the outage logged');
    // Once it knows: what the server holds still answers (the configuration, for a key it was given).
    expect((await s.call('GET', '/meta', { key: s.keys.pk })).status).toBe(200);

    link.mend();
    await eventually(
      async () => (await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput() })).status === 201,
      10_000,
      'a write after the return',
    );
    expect((await s.call('GET', `${s.url}/ready`, { key: null })).status).toBe(200);
    expect(s.logs.filter((l) => l.includes('"msg":"database unreachable"'))).toHaveLength(1);
    expect(s.logs.filter((l) => l.includes('"msg":"database reachable again"'))).toHaveLength(1);
    // (Per-request 503s of a lost database are not logged each: the two lines above tell it.)
    expect(s.logs.filter((l) => l.includes('"level":50') && l.includes('"reqId"'))).toEqual([]);
  });
});
