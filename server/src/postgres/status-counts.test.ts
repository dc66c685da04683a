import { afterEach, describe, expect, it } from 'vitest';
import { signedInAgent } from '../test-support/agents.js';
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
    // As version 6 left it (version 8 changes the trigger of version 7: both go again, and so do
    // version 9's index and the columns and indexes of versions 10 and 11).
    await sql.unsafe(`
      DROP TRIGGER tickets_counted ON tickets;
      DROP FUNCTION ticket_counts_follow();
      DROP TABLE ticket_counts;
      DROP INDEX tickets_unsearchable;
      DROP INDEX logs_at;
      DROP INDEX tickets_views;
      DROP INDEX tickets_mentions;
      DROP INDEX tickets_snoozed;
      ALTER TABLE tickets DROP COLUMN snoozed_until, DROP COLUMN mentions;
      DROP INDEX tickets_report;
      ALTER TABLE tickets DROP COLUMN created_ms, DROP COLUMN responded_ms, DROP COLUMN closed_ms,
        DROP COLUMN rated_ms, DROP COLUMN score;
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

describe("the views' index (schema version 10)", () => {
  it('fills the snooze and mentions columns at the migration from version 9, and /counts stays exact under writes on two instances', async () => {
    const a = await startServer();
    cleanup.push(() => a.close());
    const grace = await signedInAgent(a, { name: 'Grace Hopper' });
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const t = [];
    for (let i = 0; i < 6; i++) t.push(await createTicket(a, { subject: `ticket ${i}` }));
    const note = (s: TestServer, id: string) =>
      s.call('POST', '/reply', { json: { ticket_id: id, message: 'over to you, @Grace Hopper', internal: true } });
    const snooze = (s: TestServer, id: string) => s.call('POST', '/snooze', { json: { ticket_id: id, until: later } });
    expect((await note(a, t[0]!.id)).status).toBe(201);
    expect((await snooze(a, t[1]!.id)).status).toBe(200);
    const sql = openTestDatabase(a.databaseUrl!);
    cleanup.push(() => sql.end());
    // As version 9 left it: the snooze and the mentions only in the list view's jsonb.
    await sql.unsafe(`
      DROP INDEX tickets_views;
      DROP INDEX tickets_mentions;
      DROP INDEX tickets_snoozed;
      ALTER TABLE tickets DROP COLUMN snoozed_until, DROP COLUMN mentions;
      DELETE FROM schema_migrations WHERE version = 10;
    `);

    const b = await startServer({ keys: a.keys, databaseUrl: a.databaseUrl! });
    cleanup.push(() => b.close({ keepData: true }));
    // The columns hold what each row's list view holds (the old way of reading them), for every row.
    const disagreeing = async () =>
      (
        await sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM tickets
          WHERE snoozed_until IS DISTINCT FROM item->>'snoozed_until'
            OR coalesce(mentions, '{}') IS DISTINCT FROM
               ARRAY(SELECT jsonb_array_elements_text(coalesce(item->'mentions', '[]')))`
      )[0]!.n;
    expect(await disagreeing()).toBe(0);
    const [filled] = await sql<{ snoozed: number; mentioned: number }[]>`
      SELECT count(snoozed_until)::int AS snoozed, count(mentions)::int AS mentioned FROM tickets`;
    expect(filled).toEqual({ snoozed: 1, mentioned: 1 });
    const countsAs = async (s: TestServer) => {
      const res = await s.call('GET', '/counts', {
        key: null,
        headers: { Cookie: grace.cookie, 'X-CSRF-Token': grace.csrf },
      });
      expect(res.status, res.text).toBe(200);
      const v = res.body.views;
      return {
        needs_reply: v.needs_reply,
        snoozed: v.snoozed,
        mentions: v.mentions,
        mine: v.mine,
        unassigned: v.unassigned,
      };
    };
    expect(await countsAs(b)).toEqual({ needs_reply: 5, snoozed: 1, mentions: 1, mine: 0, unassigned: 6 });

    // Writes on both instances at once: notes, snoozes, assignments and closes, crossing.
    const writes = await Promise.all([
      note(a, t[2]!.id),
      note(b, t[3]!.id),
      snooze(b, t[2]!.id),
      snooze(a, t[4]!.id),
      a.call('POST', '/assign', { json: { ticket_id: t[5]!.id, agent_id: grace.agent.id } }),
      b.call('POST', '/assign', { json: { ticket_id: t[3]!.id, agent_id: grace.agent.id } }),
      b.call('POST', '/status', { json: { ticket_id: t[0]!.id, status: 'closed' } }),
    ]);
    for (const w of writes) expect(w.status, w.text).toBeLessThan(300);
    expect(await disagreeing()).toBe(0);
    // t0 closed; t1, t2, t4 asleep; t2, t3 mention Grace; t3, t5 hers; a note is no answer to the
    // customer: t3 and t5 still need one.
    const expected = { needs_reply: 2, snoozed: 3, mentions: 2, mine: 2, unassigned: 3 };
    expect(await countsAs(a)).toEqual(expected);
    expect(await countsAs(b)).toEqual(expected);
    const total = async (s: TestServer, view: string) =>
      (
        await s.call('GET', `/list?view=${view}`, {
          key: null,
          headers: { Cookie: grace.cookie, 'X-CSRF-Token': grace.csrf },
        })
      ).body.total as number;
    for (const s of [a, b])
      expect({
        needs_reply: await total(s, 'needs_reply'),
        snoozed: await total(s, 'snoozed'),
        mentions: await total(s, 'mentions'),
        mine: await total(s, 'mine'),
        unassigned: await total(s, 'unassigned'),
      }).toEqual(expected);
  });

  it("answer /counts and the views' totals by an index-only scan, reading no ticket row", async () => {
    const s = await startServer();
    cleanup.push(() => s.close());
    await createTicket(s);
    const sql = openTestDatabase(s.databaseUrl!);
    cleanup.push(() => sql.end());
    // Index-only scans skip the rows of pages the visibility map marks all-visible, which autovacuum does.
    await sql`VACUUM tickets`;
    // A table this small is read whole whatever the indexes: the planner is told to avoid that. The
    // statements are /counts' and needs_reply's total (PgTicketStore.counts and count) as they reach the database.
    const plan = (query: string, bitmaps = false) =>
      sql.begin(async (tx) => {
        await tx`SET LOCAL enable_seqscan = off`;
        await tx.unsafe(`SET LOCAL ${bitmaps ? 'enable_indexscan' : 'enable_bitmapscan'} = off`);
        const rows = await tx.unsafe(query);
        return rows.map((r) => r['QUERY PLAN'] as string).join('\n');
      });
    const now = new Date().toISOString();
    const counts = await plan(`EXPLAIN SELECT
        count(*) FILTER (WHERE waiting_us AND (snoozed_until IS NULL OR snoozed_until <= '${now}')),
        count(*) FILTER (WHERE snoozed_until > '${now}'),
        count(*) FILTER (WHERE agent_id IS NULL),
        count(*) FILTER (WHERE agent_id = 'agt_x'),
        count(*) FILTER (WHERE mentions @> ARRAY['agt_x']),
        count(*) FILTER (WHERE due_at < '${now}')
      FROM tickets WHERE mode = 'live' AND status = ANY('{open,pending,answered}'::text[])`);
    expect(counts).toContain('Index Only Scan using tickets_views');
    const needsReply = await plan(`EXPLAIN SELECT count(*) FROM tickets WHERE mode = 'live'
      AND status = ANY('{open,pending,answered}'::text[]) AND waiting_us
      AND (snoozed_until IS NULL OR snoozed_until <= '${now}')`);
    expect(needsReply).toContain('Index Only Scan using tickets_views');
    // The mentions view's condition can be answered by the GIN index of mentions (read by bitmap scans
    // only; on a million tickets the planner takes it for the view's page: BENCHMARKS.md).
    const mentions = await plan(`EXPLAIN SELECT id FROM tickets WHERE mentions @> ARRAY['agt_x']::text[]`, true);
    expect(mentions).toContain('tickets_mentions');
    // So can the snoozed view's (by its partial index of the few snoozed tickets). With one row, an index
    // holding every row (the report's, schema 11) costs the planner as little: the table gets 500 more,
    // none snoozed, as a shop's are.
    await sql`
      INSERT INTO tickets SELECT (jsonb_populate_record(t, jsonb_build_object('id', 'tkt_copy' || g, 'number', 5000 + g))).*
      FROM tickets t, generate_series(1, 500) g`;
    await sql`VACUUM ANALYZE tickets`;
    const snoozed = await plan(`EXPLAIN SELECT id FROM tickets WHERE mode = 'live' AND snoozed_until > '${now}'`);
    expect(snoozed).toContain('tickets_snoozed');
  });
});
