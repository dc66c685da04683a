import { afterEach, describe, expect, it } from 'vitest';
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

    const small = await SearchWordStats.sample(sql, 'live');
    expect(small.tickets).toBe(5);
    // `kettle:*` finds kettle and kettlebell: three tickets. The customers' words come in too.
    expect([small.matches('kettle'), small.matches('kettlebell'), small.matches('quokka')]).toEqual([3, 1, 1]);
    expect(small.matches('zebra')).toBe(0);
    expect((await SearchWordStats.sample(sql, 'test')).matches('quokka')).toBe(3);

    // 6,000 tickets more, copies of the five (the trigger counts them in ticket_view_counts): over the
    // 5,000 counted whole, so pages are sampled and the counts scaled by tickets per sampled ticket.
    await sql`
      INSERT INTO tickets SELECT (jsonb_populate_record(t, jsonb_build_object('id', 'tkt_copy' || g || t.number, 'number', 100000 + g * 10 + t.number % 10))).*
      FROM tickets t, generate_series(1, 1200) g WHERE t.mode = 'live'`;
    const large = await SearchWordStats.sample(sql, 'live');
    expect(large.tickets).toBe(6005);
    // 3,603 tickets hold a kettle word and 1,201 quokka; a sample of most of the pages, scaled, is
    // within a tenth of it.
    expect(large.matches('kettle')).toBeGreaterThan(3603 * 0.9);
    expect(large.matches('kettle')).toBeLessThan(3603 * 1.1);
    expect(large.matches('quokka')).toBeGreaterThan(1201 * 0.9);
    expect(large.matches('quokka')).toBeLessThan(1201 * 1.1);
    expect(large.matches('zebra')).toBe(0);
  });
});
