import { afterEach, describe, expect, it } from 'vitest';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';
import { openTestDatabase } from '../test-support/test-database.js';

// Issue 32: each request's writes are one transaction, and the ticket_counts trigger (schema 7) locks
// one counter row per (mode, status) it changes. Two /bulk requests moving tickets between statuses in
// crossing orders took those rows in opposite orders across their statements: PostgreSQL aborted one
// with 40P01 (deadlock_detected) and its client got 500. `postgres` project only.

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const bulk = (s: TestServer, ids: string[], status: string) =>
  s.call('POST', '/bulk', { key: s.keys.sk, json: { ticket_ids: ids, set: { status } } });

/** A request's answer, or what went wrong with it, as one line to compare. */
function outcome(what: string, res: { status: number; text: string; body: any }) {
  const failed = (res.body?.results as { ok: boolean }[] | undefined)?.some((r) => !r.ok);
  return res.status === 200 && !failed ? 'ok' : `${what}: ${res.status} ${res.text.slice(0, 200)}`;
}

const ROUNDS = 50;

describe('writes crossing each other on PostgreSQL (issue 32)', () => {
  it('answer 200 to two /bulk requests moving tickets between statuses in crossing orders, with single-ticket writes beside them, and the counts stay true', async () => {
    const s = await startServer();
    cleanup.push(() => s.close());
    const [a, b, c, d, e] = [
      await createTicket(s),
      await createTicket(s),
      await createTicket(s),
      await createTicket(s),
      await createTicket(s),
    ].map((t) => t.id) as [string, string, string, string, string];

    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // A open, B and C closed, D pending: set one after the other, nothing crosses here.
      for (const [ids, status] of [
        [[a], 'open'],
        [[b, c], 'closed'],
        [[d], 'pending'],
      ] as const) {
        const res = await bulk(s, [...ids], status);
        expect(outcome('set-up', res)).toBe('ok');
      }
      // The first takes open, pending (A) then closed, pending (B); the second closed, open (C) then
      // open, pending (D): without one order for the whole transaction, each waits for the other.
      // Beside them a ticket of its own changes status, and a new one is created (both single
      // statements that touch the counters).
      const answers = await Promise.all([
        bulk(s, [a, b], 'pending'),
        bulk(s, [c, d], 'open'),
        s.call('POST', '/status', { key: s.keys.sk, json: { ticket_id: e, status: round % 2 ? 'open' : 'closed' } }),
        s.call('POST', '/create', {
          key: s.keys.pk,
          json: { name: 'Ada', email: 'ada@example.com', subject: `round ${round}`, message: 'Hello' },
        }),
      ]);
      const what = ['bulk 1', 'bulk 2', 'status', 'create'];
      const expected = [200, 200, 200, 201];
      answers.forEach((res, i) => {
        const line = res.status === expected[i] ? outcome(what[i]!, { ...res, status: 200 }) : outcome(what[i]!, res);
        if (line !== 'ok') failures.push(`round ${round}, ${line}`);
      });
    }
    expect(failures, `${failures.length} of ${ROUNDS * 4} requests failed`).toEqual([]);

    // The kept numbers equal the rows counted one by one, and /counts says the same.
    const sql = openTestDatabase(s.databaseUrl!);
    cleanup.push(() => sql.end());
    const counted = await sql<{ line: string }[]>`
      SELECT mode || ' ' || status || ' ' || count(*) AS line FROM tickets GROUP BY mode, status ORDER BY mode, status`;
    const kept = await sql<{ line: string }[]>`
      SELECT mode || ' ' || status || ' ' || n AS line FROM ticket_counts WHERE n <> 0 ORDER BY mode, status`;
    expect(kept.map((r) => r.line)).toEqual(counted.map((r) => r.line));
    const statuses = (await s.call('GET', '/counts')).body.statuses as Record<string, number>;
    expect(Object.values(statuses).reduce((x, y) => x + y, 0)).toBe(5 + ROUNDS);
    expect([statuses.pending, statuses.open! + statuses.closed! >= 2]).toEqual([2, true]);
    // PostgreSQL looks for a deadlock after deadlock_timeout (1 s) of waiting: each one found costs that.
  }, 180_000);

  it('answer 200 to two /bulk requests naming the same tickets in opposite orders, each in the order it named them', async () => {
    const s = await startServer();
    cleanup.push(() => s.close());
    const [a, b] = [(await createTicket(s)).id, (await createTicket(s)).id] as [string, string];
    const failures: string[] = [];
    for (let round = 0; round < 20; round++) {
      const [one, two] = await Promise.all([
        s.call('POST', '/bulk', { key: s.keys.sk, json: { ticket_ids: [a, b], set: { priority: 'high' } } }),
        s.call('POST', '/bulk', { key: s.keys.sk, json: { ticket_ids: [b, a], set: { priority: 'low' } } }),
      ]);
      for (const line of [outcome('bulk 1', one!), outcome('bulk 2', two!)])
        if (line !== 'ok') failures.push(`round ${round}, ${line}`);
      if (one!.status === 200) expect(one!.body.results.map((r: { id: string }) => r.id)).toEqual([a, b]);
      if (two!.status === 200) expect(two!.body.results.map((r: { id: string }) => r.id)).toEqual([b, a]);
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('answer 503 unavailable with Retry-After, never 500, when PostgreSQL still ends one of two crossing writes (merges into each other)', async () => {
    const s = await startServer();
    cleanup.push(() => s.close());
    const answers: { status: number; retryAfter: string | null; code?: string }[] = [];
    // Each merge changes its target, then its source: A into B and B into A lock the two rows in
    // opposite orders. Rounds until PostgreSQL has ended one (most rounds do), at most 20.
    for (let round = 0; round < 20 && !answers.some((x) => x.status === 503); round++) {
      const [a, b] = [(await createTicket(s)).id, (await createTicket(s)).id];
      for (const res of await Promise.all([
        s.call('POST', '/merge', { key: s.keys.sk, json: { ticket_id: a, into_id: b } }),
        s.call('POST', '/merge', { key: s.keys.sk, json: { ticket_id: b, into_id: a } }),
      ]))
        answers.push({ status: res.status, retryAfter: res.headers.get('retry-after'), code: res.body?.error?.code });
    }
    expect(answers.filter((x) => x.status >= 500 && x.status !== 503)).toEqual([]);
    const ended = answers.filter((x) => x.status === 503);
    expect(ended.length).toBeGreaterThan(0);
    expect(ended.every((x) => x.code === 'unavailable' && x.retryAfter === '1')).toBe(true);
  }, 120_000);
});
