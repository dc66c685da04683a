import { afterEach, describe, expect, it } from 'vitest';
import { createTicket, startServer } from '../test-support/server.js';

// /v1/search on PostgreSQL bounds a common query's work (at a million tickets ranking every match of
// two common words took 23-42 s and ended in the statement timeout): a query whose words are all
// common ranks only its newest 500 matches and says so with `total_capped`; a rare word is still found
// and counted exactly, through the GIN index, however old its ticket.

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('search of a common word on PostgreSQL', () => {
  it('ranks the newest 500 matches with total_capped, and still finds a rare word exactly', async () => {
    const s = await startServer({ env: { TICKETING_RATE_LIMIT: 'off', TICKETING_SCHEDULER_SECONDS: '0' } });
    cleanup.push(() => s.close());
    const oldest = await createTicket(s, { subject: 'Kettle and a quokka' }, s.keys.sk);
    const made: string[] = [oldest.id];
    for (let batch = 0; batch < 52; batch++) {
      const ids = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const t = await createTicket(s, { subject: `Kettle ${batch * 10 + i}` }, s.keys.sk);
          return t.id as string;
        }),
      );
      made.push(...ids);
    }
    const first = await s.call('GET', '/search?q=kettle&limit=100');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total: 500, total_capped: true });
    expect(first.body.data).toHaveLength(100);
    const found = new Set(made);
    for (const t of first.body.data as { id: string }[]) expect(found.has(t.id)).toBe(true);
    // The pages end with the 500th.
    const last = await s.call('GET', `/search?q=kettle&limit=100&cursor=${Buffer.from('o400').toString('base64url')}`);
    expect(last.body).toMatchObject({ total: 500, total_capped: true, next_cursor: null });
    expect(last.body.data).toHaveLength(100);
    // A rare word: exact, uncapped, the oldest ticket included.
    const rare = await s.call('GET', '/search?q=quokka');
    expect(rare.body).toMatchObject({ total: 1, data: [{ id: oldest.id }], next_cursor: null });
    expect(rare.body.total_capped).toBeUndefined();
    const both = await s.call('GET', '/search?q=kettle%20quok');
    expect(both.body).toMatchObject({ total: 1, data: [{ id: oldest.id }] });
  });
});
