import { afterEach, describe, expect, it } from 'vitest';
import { pgRelay } from '../test-support/pg-relay.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

// Each instance serves tickets from memory while they are unchanged (postgres/pg-ticket-store.ts).
// Two servers on one PostgreSQL database, as behind a load balancer: what one acknowledged, the other
// must never answer with the copy it held before. This file runs in the `postgres` test project only.

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function twoInstances(): Promise<[TestServer, TestServer]> {
  const env = { TICKETING_SCHEDULER_SECONDS: '0' };
  const a = await startServer({ env });
  cleanup.push(() => a.close());
  const b = await startServer({ env, keys: a.keys, databaseUrl: a.databaseUrl! });
  cleanup.push(() => b.close({ keepData: true })); // the database is a's, dropped when a closes
  return [a, b];
}

/** `a`, and `b` whose every connection to the database (its change feed's too) goes through a relay. */
async function relayedSecond(listenersDelayMs?: number) {
  const env = { TICKETING_SCHEDULER_SECONDS: '0' };
  const a = await startServer({ env });
  cleanup.push(() => a.close());
  const relay = await pgRelay(a.databaseUrl!, { listenersDelayMs });
  cleanup.push(() => new Promise((ok) => relay.server.close(() => ok())));
  const b = await startServer({ env, keys: a.keys, databaseUrl: relay.url });
  cleanup.push(() => b.close({ keepData: true }));
  return { a, b, turns: relay.turns };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const messages = (body: { replies: { message: string }[] }) => body.replies.map((r) => r.message);

describe('a ticket held in memory by several instances', () => {
  it('is served with one round trip to the database: the key throttle read is the proof it is current', async () => {
    const { a, b, turns } = await relayedSecond();
    const t = await createTicket(a);
    const reply = await a.call('POST', '/reply', { json: { ticket_id: t.id, message: 'held' } });
    expect(reply.status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await b.call('GET', `/ticket?id=${t.id}`)).status).toBe(200);
    const counts: number[] = [];
    for (let i = 0; i < 9; i++) {
      const before = turns();
      const res = await b.call('GET', `/ticket?id=${t.id}`);
      expect(res.status).toBe(200);
      expect(messages(res.body)).toEqual(['held']);
      counts.push(turns() - before);
    }
    // The failed-key throttle's read, on the change feed's connection, and nothing else. Before, a
    // statement of its own checked the held copy's version: 2.
    expect(median(counts)).toBe(1);
  });

  it('is not served stale when the notice of a change from the other instance is slow to arrive', async () => {
    // What the database sends b's listening connections arrives 400 ms late: a writer's 201 reaches
    // the client long before b hears of the change. A held copy served on "nothing heard yet" would
    // be stale here.
    const { a, b } = await relayedSecond(400);
    const t = await createTicket(a);
    const sent: string[] = [];
    for (let i = 0; i < 6; i++) {
      expect(messages((await b.call('GET', `/ticket?id=${t.id}`)).body)).toEqual(sent);
      expect(messages((await b.call('GET', `/ticket?id=${t.id}`)).body)).toEqual(sent);
      const message = `slow ${i}`;
      expect((await a.call('POST', '/reply', { json: { ticket_id: t.id, message } })).status).toBe(201);
      sent.push(message);
      expect(messages((await b.call('GET', `/ticket?id=${t.id}`)).body)).toEqual(sent);
    }
  });

  it('is never served stale by one instance right after the other answered a change with 201', async () => {
    const [a, b] = await twoInstances();
    const t = await createTicket(a);
    const sent: string[] = [];
    for (let i = 0; i < 40; i++) {
      // b holds the ticket as it is (read twice: the second read is served from what b holds) ...
      expect(messages((await b.call('GET', `/ticket?id=${t.id}`)).body)).toEqual(sent);
      expect(messages((await b.call('GET', `/ticket?id=${t.id}`)).body)).toEqual(sent);
      // ... a changes it, and b is asked the moment a has answered, before a NOTIFY need have arrived.
      const message = `reply ${i}`;
      const written = await a.call('POST', '/reply', { json: { ticket_id: t.id, message } });
      expect(written.status).toBe(201);
      sent.push(message);
      const onB = await b.call('GET', `/ticket?id=${t.id}`);
      expect(onB.status).toBe(200);
      expect(messages(onB.body)).toEqual(sent);
      // A change that adds no reply: the priority, as a itself answered it.
      const priority = (['low', 'high', 'urgent', 'normal'] as const)[i % 4];
      expect((await a.call('POST', '/priority', { json: { ticket_id: t.id, priority } })).status).toBe(200);
      expect((await b.call('GET', `/ticket?id=${t.id}`)).body.priority).toBe(priority);
    }
  });

  it('serves every acknowledged reply while both instances write and read one ticket at once', async () => {
    const [a, b] = await twoInstances();
    const t = await createTicket(a);
    const acknowledged = new Set<string>();
    const stale: string[] = [];
    // Writers on both instances; after each 201, readers on both must see that reply.
    await Promise.all(
      Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; i < 8; i++) {
          const message = `writer ${w} reply ${i}`;
          const writer = (w + i) % 2 ? b : a;
          const res = await writer.call('POST', '/reply', { json: { ticket_id: t.id, message } });
          expect(res.status).toBe(201);
          acknowledged.add(message);
          const seen = [...acknowledged];
          const reads = await Promise.all([a, b, a, b].map((s) => s.call('GET', `/ticket?id=${t.id}`)));
          for (const r of reads) {
            const got = new Set(messages(r.body));
            for (const m of seen) if (!got.has(m)) stale.push(m);
          }
        }
      }),
    );
    expect(stale).toEqual([]);
    for (const s of [a, b])
      expect(messages((await s.call('GET', `/ticket?id=${t.id}`)).body).sort()).toEqual([...acknowledged].sort());
  });

  it('is gone from the other instance as soon as one deleted it', async () => {
    const [a, b] = await twoInstances();
    const t = await createTicket(a);
    expect((await b.call('GET', `/ticket?id=${t.id}`)).status).toBe(200);
    expect((await b.call('GET', `/ticket?id=${t.id}`)).status).toBe(200);
    expect((await a.call('DELETE', `/delete?ticket_id=${t.id}`)).status).toBe(200);
    const onB = await b.call('GET', `/ticket?id=${t.id}`);
    expect(onB.status).toBe(404);
    expect(onB.body.error.code).toBe('ticket_not_found');
  });
});
