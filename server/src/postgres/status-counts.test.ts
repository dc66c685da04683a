import { afterEach, describe, expect, it } from 'vitest';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';
import { openTestDatabase } from '../test-support/test-database.js';

// Schema version 7 keeps the tickets per status in ticket_counts (a trigger), which /counts and the big
// list totals read instead of counting every row, and indexes the rows the start-up looks for. This
// file runs in the `postgres` test project only (vitest.config.ts).

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** What the tickets table holds, counted row by row: the truth the kept numbers must match. */
async function counted(sql: ReturnType<typeof openTestDatabase>) {
  const rows = await sql<{ mode: string; status: string; n: number }[]>`
    SELECT mode, status, count(*)::int AS n FROM tickets GROUP BY mode, status ORDER BY mode, status`;
  return rows.map((r) => `${r.mode} ${r.status} ${r.n}`);
}
async function kept(sql: ReturnType<typeof openTestDatabase>) {
  const rows = await sql<{ mode: string; status: string; n: number }[]>`
    SELECT mode, status, n::int AS n FROM ticket_counts WHERE n <> 0 ORDER BY mode, status`;
  return rows.map((r) => `${r.mode} ${r.status} ${r.n}`);
}

const setStatus = async (s: TestServer, id: string, status: string, key = s.keys.sk) => {
  const res = await s.call('POST', '/status', { key, json: { ticket_id: id, status } });
  expect(res.status, res.text).toBe(200);
};

describe('tickets per status (schema version 7)', () => {
  it('are counted at the migration from version 6, then kept by every create, status change and delete', async () => {
    const a = await startServer();
    cleanup.push(() => a.close());
    const t = [];
    for (let i = 0; i < 5; i++) t.push(await createTicket(a, { subject: `ticket ${i}` }));
    await setStatus(a, t[0]!.id, 'closed');
    await setStatus(a, t[1]!.id, 'closed');
    await setStatus(a, t[2]!.id, 'pending');
    const inTest = await createTicket(a, {}, a.keys.pkTest);
    const sql = openTestDatabase(a.databaseUrl!);
    cleanup.push(() => sql.end());
    // As version 6 left it (version 8 changes the trigger of version 7: both go again, and so does
    // version 9's index).
    await sql.unsafe(`
      DROP TRIGGER tickets_counted ON tickets;
      DROP FUNCTION ticket_counts_follow();
      DROP TABLE ticket_counts;
      DROP INDEX tickets_unsearchable;
      DROP INDEX logs_at;
      DELETE FROM schema_migrations WHERE version >= 7;
    `);

    const b = await startServer({ keys: a.keys, databaseUrl: a.databaseUrl! });
    cleanup.push(() => b.close({ keepData: true }));
    expect(await kept(sql)).toEqual(['live closed 2', 'live open 2', 'live pending 1', 'test open 1']);
    const counts = (await b.call('GET', '/counts')).body;
    expect(counts.statuses).toEqual({ answered: 0, closed: 2, open: 2, pending: 1 });
    expect([counts.views.all, counts.views.open, counts.views.closed]).toEqual([5, 3, 2]);
    const total = async (query: string, key = b.keys.sk) =>
      (await b.call('GET', `/list?${query}`, { key })).body.total as number;
    expect([await total('view=closed'), await total('view=open'), await total(''), await total('status=open')]).toEqual(
      [2, 3, 5, 2],
    );

    // Writes on the migrated database: the kept numbers follow in the writing transactions.
    const more = await createTicket(b);
    await setStatus(b, t[3]!.id, 'closed');
    await setStatus(b, t[0]!.id, 'open'); // reopened
    await setStatus(b, t[4]!.id, 'open'); // no change of status
    await setStatus(b, inTest.id, 'closed', b.keys.skTest);
    expect((await b.call('DELETE', `/delete?ticket_id=${t[1]!.id}`)).status).toBe(200);
    expect((await b.call('DELETE', `/delete?ticket_id=${more.id}`)).status).toBe(200);
    expect(await kept(sql)).toEqual(await counted(sql));
    expect(await kept(sql)).toEqual(['live closed 1', 'live open 2', 'live pending 1', 'test closed 1']);
    expect((await b.call('GET', '/counts')).body.statuses).toEqual({ answered: 0, closed: 1, open: 2, pending: 1 });
    expect([await total('view=closed'), await total('view=open'), await total('status=pending')]).toEqual([1, 3, 1]);
    expect(await total('view=closed', b.keys.skTest)).toBe(1);
  });

  it("let the start-up's look for rows without a search document use an index, not read every row", async () => {
    const s = await startServer();
    cleanup.push(() => s.close());
    await createTicket(s);
    const sql = openTestDatabase(s.databaseUrl!);
    cleanup.push(() => sql.end());
    // A table this small is read whole whatever the indexes: the planner is told to avoid that, so the
    // plan shows whether an index can answer the look (PgTicketStore.refreshRows) at all.
    const plan = await sql.begin(async (tx) => {
      await tx`SET LOCAL enable_seqscan = off`;
      const rows = await tx.unsafe(`EXPLAIN SELECT mode, data FROM tickets WHERE search_doc IS NULL LIMIT 500`);
      return rows.map((r) => r['QUERY PLAN'] as string).join('\n');
    });
    expect(plan).toContain('tickets_unsearchable');
  });
});
