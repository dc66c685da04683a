import { afterEach, describe, expect, it } from 'vitest';
import { signedInAgent } from '../test-support/agents.js';
import { eventually } from '../test-support/receiver.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';
import { openTestDatabase } from '../test-support/test-database.js';

// The tickets per status, which /counts and the big list totals read instead of counting every row:
// kept by a trigger in ticket_counts from schema version 7, and from version 13 summed from the rows
// of ticket_view_counts (version 12) that writers append. Version 7 also indexes the rows the start-up
// looks for. This file runs in the `postgres` test project only (vitest.config.ts).

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
    SELECT mode, status, sum(n)::int AS n FROM ticket_view_counts WHERE waiting IS NOT NULL
    GROUP BY mode, status HAVING sum(n) <> 0 ORDER BY mode, status`;
  return rows.map((r) => `${r.mode} ${r.status} ${r.n}`);
}

/** The views' numbers (schema 12) counted from the rows, and as kept by the trigger: per status, agent, waiting, mention. */
async function viewsCounted(sql: ReturnType<typeof openTestDatabase>) {
  const rows = await sql<{ line: string }[]>`
    SELECT line FROM (
      SELECT concat_ws(' ', mode, status, coalesce(agent_id, '-'), coalesce(waiting_us, false), count(*)) AS line
        FROM tickets GROUP BY mode, status, agent_id, coalesce(waiting_us, false)
      UNION ALL
      SELECT concat_ws(' ', mode, status, 'mentions', m, count(*)) FROM tickets, unnest(mentions) AS m
        GROUP BY mode, status, m
      UNION ALL
      SELECT concat_ws(' ', mode, status, 'due', left(due_at, 10), count(*)) FROM tickets WHERE due_at IS NOT NULL
        GROUP BY mode, status, left(due_at, 10)) x
    ORDER BY line`;
  return rows.map((r) => r.line);
}
async function viewsKept(sql: ReturnType<typeof openTestDatabase>) {
  const rows = await sql<{ line: string }[]>`
    SELECT line FROM (
      SELECT concat_ws(' ', mode, status, coalesce(agent_id, '-'), waiting, sum(n)) AS line
        FROM ticket_view_counts WHERE waiting IS NOT NULL
        GROUP BY mode, status, agent_id, waiting HAVING sum(n) <> 0
      UNION ALL
      SELECT concat_ws(' ', mode, status, 'mentions', mentioned, sum(n)) FROM ticket_view_counts
        WHERE mentioned IS NOT NULL GROUP BY mode, status, mentioned HAVING sum(n) <> 0
      UNION ALL
      SELECT concat_ws(' ', mode, status, 'due', due_day, sum(n)) FROM ticket_view_counts
        WHERE due_day IS NOT NULL GROUP BY mode, status, due_day HAVING sum(n) <> 0) x
    ORDER BY line`;
  return rows.map((r) => r.line);
}

const setStatus = async (s: TestServer, id: string, status: string, key = s.keys.sk) => {
  const res = await s.call('POST', '/status', { key, json: { ticket_id: id, status } });
  expect(res.status, res.text).toBe(200);
};

describe('tickets per status (schema versions 7 and 13)', () => {
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
    // version 9's index, the columns and indexes of versions 10 and 11, version 12's table and version
    // 13's sequences, with version 5's counter back).
    await sql.unsafe(`
      DROP TRIGGER tickets_view_counted ON tickets;
      DROP FUNCTION ticket_view_counts_follow();
      DROP TABLE ticket_view_counts;
      DROP INDEX tickets_due_status;
      DROP SEQUENCE ticket_numbers_live, ticket_numbers_test;
      CREATE TABLE ticket_numbers (mode text PRIMARY KEY, last int NOT NULL);
      INSERT INTO ticket_numbers (mode, last) SELECT mode, max(number) FROM tickets GROUP BY mode;
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

  it("let the start's log line and a status's removal count from the kept sums, reading no ticket row", async () => {
    const first = await startServer({ env: { TICKETING_SCHEDULER_SECONDS: '0' } });
    cleanup.push(() => first.close({ keepData: true }));
    for (let i = 0; i < 3; i++) await createTicket(first, { subject: `live ${i}` });
    await createTicket(first, { subject: 'test' }, first.keys.pkTest);
    await first.close({ keepData: true });
    const sql = openTestDatabase(first.databaseUrl!);
    cleanup.push(() => sql.end());
    // A kept +1 with no row behind it (nothing writes one so): a count from the sums says 4, one that
    // read the rows would say 3. At a million tickets reading them took 250 ms of every start.
    await sql`INSERT INTO ticket_view_counts (mode, status, agent_id, waiting, n) VALUES ('live', 'pending', NULL, false, 1)`;
    const s = await startServer({
      env: { TICKETING_SCHEDULER_SECONDS: '0' },
      keys: first.keys,
      databaseUrl: first.databaseUrl!,
    });
    cleanup.push(() => s.close());
    const started = s.logs
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; tickets?: unknown })
      .find((l) => l.msg === 'started');
    expect(started?.tickets).toEqual({ live: 4, test: 1 });
    // Removing a status some ticket has is refused (409 status_in_use), counted the same way.
    const statuses = [
      { id: 'open', name: 'Open' },
      { id: 'closed', name: 'Closed', closed: true },
    ];
    const removed = await s.call('POST', '/admin?r=statuses', { json: { statuses } });
    expect([removed.status, removed.body.error?.code]).toEqual([409, 'status_in_use']);
    expect(removed.body.error.message).toContain('pending');
    // A status named like an Object method holds no ticket: it is removed (409 when its count was read
    // off the object's prototype).
    const all = (await s.call('GET', '/admin?r=statuses')).body.statuses as object[];
    const added = await s.call('POST', '/admin?r=statuses', {
      json: { statuses: [...all, { id: 'constructor', name: 'Odd' }] },
    });
    expect(added.status).toBe(200);
    expect((await s.call('POST', '/admin?r=statuses', { json: { statuses: all } })).status).toBe(200);
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
    // As version 9 left it: the snooze and the mentions only in the list view's jsonb (and version
    // 12's numbers, made from those columns, go with them).
    await sql.unsafe(`
      DROP TRIGGER tickets_view_counted ON tickets;
      DROP FUNCTION ticket_view_counts_follow();
      DROP TABLE ticket_view_counts;
      DROP INDEX tickets_due_status;
      DELETE FROM schema_migrations WHERE version = 12;
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
    expect(await viewsKept(sql)).toEqual(await viewsCounted(sql));

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
    expect(await viewsKept(sql)).toEqual(await viewsCounted(sql));
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

  it("answer /counts and the views' totals from indexes, reading no ticket row but the few the clock moves", async () => {
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
    // Since schema 12 the views' numbers are summed from ticket_view_counts; what moves with time is
    // counted from rows: the snoozes that have not ended (below) and today's deadlines (at a million
    // tickets by an index-only scan of tickets_due_status: BENCHMARKS.md; on a table this small the
    // planner takes any index).
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

describe("the views' numbers kept by a trigger (schema version 12)", () => {
  it('are folded by lists by status alone, for a client that never asks an inbox view or /counts (schema 13)', async () => {
    const s = await startServer({ env: { TICKETING_SCHEDULER_SECONDS: '0' } });
    cleanup.push(() => s.close());
    for (let i = 0; i < 3; i++) await createTicket(s, { subject: `kept ${i}` });
    const sql = openTestDatabase(s.databaseUrl!);
    cleanup.push(() => sql.end());
    // 400 writes' worth of rows, each +1 and -1 of a status moved back and forth: the sums stay.
    await sql`
      INSERT INTO ticket_view_counts (mode, status, agent_id, waiting, n)
      SELECT 'live', 'pending', NULL, false, CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END FROM generate_series(1, 800) AS i`;
    const rows = async () => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM ticket_view_counts`)[0]!.n;
    expect(await rows()).toBeGreaterThan(800);
    const open = await s.call('GET', '/list?status=open');
    expect([open.status, open.body.total]).toEqual([200, 3]);
    await eventually(async () => (await rows()) < 10, 5000, 'the rows to be folded');
    expect((await s.call('GET', '/list?status=open')).body.total).toBe(3);
    expect(await kept(sql)).toEqual(['live open 3']);
  });

  it('stay exact under crossing writes on two instances, folded while they run, at every time of day', async () => {
    // One clock for both instances, moved by the test: deadlines fall on several days (UTC).
    let now = new Date('2026-11-20T09:00:00.000Z');
    const clock = () => now;
    const a = await startServer({ clock });
    cleanup.push(() => a.close());
    const b = await startServer({ keys: a.keys, databaseUrl: a.databaseUrl!, clock });
    cleanup.push(() => b.close({ keepData: true }));
    const sql = openTestDatabase(a.databaseUrl!);
    cleanup.push(() => sql.end());
    const sla = await a.call('POST', '/admin?r=sla', {
      json: {
        enabled: true,
        business_hours_only: false,
        first_response_minutes: { low: 2880, normal: 1440, high: 240, urgent: 60 },
        resolution_minutes: { low: 10080, normal: 4320, high: 1440, urgent: 600 },
      },
    });
    expect(sla.status, sla.text).toBe(200);
    const password = 'correct horse battery'; // signedInAgent's
    const grace = await signedInAgent(a, { name: 'Grace Hopper' });
    const asGrace = { key: null, headers: { Cookie: grace.cookie, 'X-CSRF-Token': grace.csrf } };
    // A session ends when idle for long: signed in again each time the clock jumps.
    const signIn = async () => {
      const res = await a.call('POST', '/session', { key: null, json: { email: grace.agent.email, password } });
      expect(res.status, res.text).toBe(200);
      asGrace.headers = { Cookie: res.headers.getSetCookie()[0]!.split(';')[0]!, 'X-CSRF-Token': res.body.csrf_token };
    };

    // Tickets over three days, on both instances, of every priority.
    const t: { id: string; email: string }[] = [];
    const priorities = ['low', 'normal', 'high', 'urgent'];
    for (let i = 0; i < 24; i++) {
      now = new Date(Date.parse('2026-11-20T09:00:00.000Z') + i * 3 * 3_600_000);
      const s = i % 2 ? b : a;
      const made = await createTicket(s, { subject: `ticket ${i}`, email: `c${i}@example.com` });
      if (i % 4) {
        const p = await s.call('POST', '/priority', { json: { ticket_id: made.id, priority: priorities[i % 4] } });
        expect(p.status, p.text).toBe(200);
      }
      t.push(made);
    }
    now = new Date('2026-11-22T23:10:00.000Z');
    await signIn();

    // Crossing writes on both instances, eight at a time, with /counts read on both between them:
    // every write appends its +1 and -1 rows, and a read past 256 rows folds them (compactViewCounts)
    // while other writes are on their way.
    const writes: (() => Promise<{ status: number; text: string }>)[] = [];
    for (let round = 0; round < 6; round++)
      t.forEach((ticket, i) => {
        const s = (i + round) % 2 ? a : b;
        const later = new Date(now.getTime() + (round + 1) * 3_600_000).toISOString();
        const kind = (i * 7 + round) % 8;
        if (kind === 0)
          writes.push(() => s.call('POST', '/reply', { json: { ticket_id: ticket.id, message: 'answered' } }));
        if (kind === 1)
          writes.push(() =>
            s.call('POST', '/reply', {
              key: s.keys.pk,
              json: { ticket_id: ticket.id, message: 'me again', email: ticket.email },
            }),
          );
        if (kind === 2)
          writes.push(() =>
            s.call('POST', '/reply', {
              json: { ticket_id: ticket.id, message: 'over to you, @Grace Hopper', internal: true },
            }),
          );
        if (kind === 3)
          writes.push(() => s.call('POST', '/assign', { json: { ticket_id: ticket.id, agent_id: grace.agent.id } }));
        if (kind === 4)
          writes.push(() => s.call('POST', '/assign', { json: { ticket_id: ticket.id, agent_id: null } }));
        if (kind === 5) writes.push(() => s.call('POST', '/snooze', { json: { ticket_id: ticket.id, until: later } }));
        if (kind === 6)
          writes.push(() =>
            s.call('POST', '/status', { json: { ticket_id: ticket.id, status: round % 2 ? 'closed' : 'pending' } }),
          );
        if (kind === 7)
          writes.push(() => s.call('POST', '/status', { json: { ticket_id: ticket.id, status: 'open' } }));
      });
    const reads: Promise<{ status: number }>[] = [];
    for (let i = 0; i < writes.length; i += 8) {
      const batch = writes.slice(i, i + 8).map((w) => w());
      reads.push(a.call('GET', '/counts', asGrace), b.call('GET', '/counts', asGrace));
      for (const w of await Promise.all(batch)) expect(w.status, w.text).toBeLessThan(300);
    }
    for (const r of await Promise.all(reads)) expect(r.status).toBe(200);
    expect(await viewsKept(sql)).toEqual(await viewsCounted(sql));

    // The views as the old statement counted them, row by row, at this clock.
    const truth = async () => {
      const at = now.toISOString();
      const soon = new Date(now.getTime() + 4 * 3_600_000).toISOString();
      const [r] = await sql<Record<string, number>[]>`
        SELECT
          count(*) FILTER (WHERE waiting_us AND (snoozed_until IS NULL OR snoozed_until <= ${at}))::int AS needs_reply,
          count(*) FILTER (WHERE snoozed_until > ${at})::int AS snoozed,
          count(*) FILTER (WHERE agent_id IS NULL)::int AS unassigned,
          count(*) FILTER (WHERE agent_id = ${grace.agent.id})::int AS mine,
          count(*) FILTER (WHERE mentions @> ARRAY[${grace.agent.id}]::text[])::int AS mentions,
          count(*) FILTER (WHERE due_at < ${at})::int AS overdue,
          count(*) FILTER (WHERE due_at >= ${at} AND due_at < ${soon})::int AS due_soon
        FROM tickets WHERE mode = 'live' AND status <> 'closed'`;
      return r!;
    };
    const views = async (s: TestServer) => {
      const res = await s.call('GET', '/counts', asGrace);
      expect(res.status, res.text).toBe(200);
      const { needs_reply, snoozed, unassigned, mine, mentions, overdue, due_soon } = res.body.views;
      return { needs_reply, snoozed, unassigned, mine, mentions, overdue, due_soon };
    };
    const totals = async (s: TestServer) => {
      const out: Record<string, number> = {};
      for (const view of ['needs_reply', 'snoozed', 'unassigned', 'mine', 'mentions', 'overdue', 'due_soon'])
        out[view] = (await s.call('GET', `/list?view=${view}&limit=1`, asGrace)).body.total;
      return out;
    };
    // Before and after midnight, and later as snoozes end and deadlines pass.
    const seen = { needs_reply: 0, snoozed: 0, unassigned: 0, mine: 0, mentions: 0, overdue: 0, due_soon: 0 };
    for (const at of [
      '2026-11-22T23:10:00.000Z',
      '2026-11-23T00:00:00.000Z',
      '2026-11-23T02:30:00.000Z',
      '2026-11-24T13:00:00.000Z',
    ]) {
      now = new Date(at);
      await signIn();
      const expected = await truth();
      for (const [k, n] of Object.entries(expected)) seen[k as keyof typeof seen] += n;
      for (const s of [a, b]) {
        expect(await views(s), `${at}`).toEqual(expected);
        expect(await totals(s), `${at}`).toEqual(expected);
      }
    }
    // Every view was tested on something, not only zero against zero.
    for (const [view, n] of Object.entries(seen)) expect(n, view).toBeGreaterThan(0);

    // The rows were folded: far fewer than the writes appended (two or more each).
    const rows = async () => (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM ticket_view_counts`)[0]!.n;
    expect(writes.length).toBeGreaterThan(140);
    expect(await rows()).toBeLessThan(256);
    expect(await viewsKept(sql)).toEqual(await viewsCounted(sql));
  });
});
