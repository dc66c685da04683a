import { afterEach, describe, expect, it } from 'vitest';
import { pgRelay } from '../test-support/pg-relay.js';
import { eventually } from '../test-support/receiver.js';
import { createTicket, startServer } from '../test-support/server.js';
import { openTestDatabase } from '../test-support/test-database.js';
import { SearchWordStats } from './search-stats.js';

// The words' counts /v1/search on PostgreSQL chooses its plan by (pg-ticket-store.ts search), counted by
// PostgreSQL's ts_stat: every ticket of a small mode, a sample of pages of a large one, scaled up. This
// file runs in the `postgres` test project only (vitest.config.ts).

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('the words counted for search on PostgreSQL', () => {
  it("counts every ticket of a small mode exactly, and scales a sample of a large one's", async () => {
    const s = await startServer({ env: { TICKETING_RATE_LIMIT: 'off', TICKETING_SCHEDULER_SECONDS: '0' } });
    cleanup.push(() => s.close());
    for (const subject of ['Kettle leaks', 'Kettle hums', 'Kettlebell order', 'A quokka mug', 'Refund'])
      await createTicket(s, { subject }, s.keys.sk);
    // Test mode's words are not live mode's.
    for (let i = 0; i < 3; i++) await createTicket(s, { subject: 'Quokka in test mode' }, s.keys.skTest);
    const sql = openTestDatabase(s.databaseUrl!);
    cleanup.push(() => sql.end());
    /** `times` copies of each ticket of `mode` (the trigger counts them), numbered from `from` on. */
    const copies = (mode: string, times: number, from: number) => sql`
      INSERT INTO tickets SELECT (jsonb_populate_record(t, jsonb_build_object(
          'id', 'tkt_' || mode || g || t.number, 'number', ${from} + g * 10 + t.number % 10))).*
      FROM tickets t, generate_series(1, ${times}) g WHERE t.mode = ${mode}`;

    const small = await SearchWordStats.sample(sql, 'live');
    expect(small.tickets).toBe(5);
    // `kettle:*` finds kettle and kettlebell: three tickets. The customers' words come in too.
    expect([small.matches('kettle'), small.matches('kettlebell'), small.matches('quokka')]).toEqual([3, 1, 1]);
    expect(small.matches('zebra')).toBe(0);
    expect((await SearchWordStats.sample(sql, 'test')).matches('quokka')).toBe(3);

    // 6,000 tickets more, copies of the five (the trigger counts them in ticket_view_counts): over the
    // 5,000 counted whole, so pages are sampled and the counts scaled by tickets per sampled ticket.
    await copies('live', 1200, 100000);
    const large = await SearchWordStats.sample(sql, 'live');
    expect(large.tickets).toBe(6005);
    // 3,603 tickets hold a kettle word and 1,201 quokka; a sample of most of the pages, scaled, is
    // within a tenth of it.
    expect(large.matches('kettle')).toBeGreaterThan(3603 * 0.9);
    expect(large.matches('kettle')).toBeLessThan(3603 * 1.1);
    expect(large.matches('quokka')).toBeGreaterThan(1201 * 0.9);
    expect(large.matches('quokka')).toBeLessThan(1201 * 1.1);
    expect(large.matches('zebra')).toBe(0);

    // Test mode grows to 5,103 tickets beside 6,005 live ones: a minority of the table, whose share of
    // random pages would be most of them; its newest 5,000 are read instead, and scaled.
    await copies('test', 1700, 200000);
    const minority = await SearchWordStats.sample(sql, 'test');
    expect(minority.tickets).toBe(5103);
    expect(minority.matches('quokka')).toBeGreaterThan(5103 * 0.9);
    expect(minority.matches('quokka')).toBeLessThan(5103 * 1.1);
    expect(minority.matches('kettle')).toBe(0);
  });

  it('are counted once the port is open, before any search', async () => {
    const first = await startServer({ env: { TICKETING_SCHEDULER_SECONDS: '0' } });
    cleanup.push(() => first.close({ keepData: true }));
    await createTicket(first, { subject: 'Kettle leaks' }, first.keys.sk);
    const relay = await pgRelay(first.databaseUrl!, { record: true });
    cleanup.push(() => new Promise((ok) => relay.server.close(ok)));
    const s = await startServer({
      env: { TICKETING_SCHEDULER_SECONDS: '0' },
      keys: first.keys,
      databaseUrl: relay.url,
    });
    cleanup.push(() => s.close({ keepData: true }));
    // No search was asked: the words are counted all the same, so the first search need not wait.
    await eventually(() => relay.said('ts_stat'), 5000, 'the words counted');
    const found = await s.call('GET', '/search?q=kettle');
    expect(found.body).toMatchObject({ total: 1 });
  });
});
