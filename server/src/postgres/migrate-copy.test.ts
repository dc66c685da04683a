import { appendFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { randomToken } from '../model/ids.js';
import { runCli } from '../test-support/cli.js';
import { createTicket, startServer } from '../test-support/server.js';
import { storedTickets } from '../test-support/stored-tickets.js';
import { createTestDatabase, dropTestDatabase, openTestDatabase } from '../test-support/test-database.js';

// `ticketing migrate --to` reads a data directory a batch at a time: a store of any size, with an audit
// log of any length, is copied completely and exactly within a small, fixed memory. This file runs in
// the `postgres` test project only (vitest.config.ts).

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const SEEDED = 3000;
/** The copy's V8 heap limit: a store and log read whole need several times this. */
const HEAP_MB = 96;
/** Audit lines of about 330 bytes: 33 MB of log, a few times that once read and parsed whole. */
const AUDIT_LINES = 100_000;

/** The record as the database keeps it: its Idempotency-Keys live in their own table. */
const asStored = (text: string) => {
  const { idempotency: _keys, ...rest } = JSON.parse(text) as Record<string, unknown>;
  return rest;
};

describe('ticketing migrate --to, streamed', () => {
  it('copies 3,000 tickets and a 33 MB audit log with a 96 MB heap, every ticket field by field and every line in order', async () => {
    const source = await startServer({ files: true });
    cleanup.push(() => rm(source.dataDir, { recursive: true, force: true }));
    await createTicket(source, { subject: 'made through the API' });
    await source.close({ keepData: true });
    // Tickets in the server's file format, numbered with gaps, with replies and notes; and the number
    // of a deleted ticket above them all, which the database must never give again.
    const dir = join(source.dataDir, 'live', 'tickets');
    for (let i = 0; i < SEEDED; i++) {
      const id = `tkt_${randomToken(20)}`;
      const at = new Date(Date.parse('2026-01-01T00:00:00Z') + i * 60_000).toISOString();
      const replies = Array.from({ length: i % 5 }, (_, r) => ({
        id: `rpl_${randomToken(20)}`,
        message: `Reply ${r} to ${i}: the parcel left the warehouse. `.repeat(1 + (i % 7)),
        from_customer: r % 2 === 1,
        author: r % 2 ? null : 'Grace',
        created_at: at,
        attachments: [],
        ...(r === 2 ? { internal: true, ...(i % 10 === 4 ? { mentions: ['agt_grace'] } : {}) } : {}),
      }));
      const ticket = {
        id,
        number: 2000 + i * 2,
        subject: `Order ${i}: ünïcödé and "quotes" \\ backslash`,
        message: `Where is my teapot ${i}? `.repeat(1 + (i % 11)),
        name: `Customer ${i}`,
        email: `customer${i}@example.com`,
        status: ['open', 'pending', 'closed'][i % 3],
        priority: 'normal',
        category: null,
        fields: { order: i, gift: i % 2 === 0 },
        page_url: null,
        agent_id: null,
        tags: i % 4 ? [] : ['vip'],
        close_request: null,
        rating: i % 3 === 2 ? { score: 1 + (i % 5), comment: null, rated_at: at } : null,
        replies,
        attachments: [],
        due_at: null,
        ...(i % 3 === 1 && i % 7 === 0 ? { snoozed_until: '2099-01-01T00:00:00.000Z' } : {}),
        closed_at: i % 3 === 2 ? at : null,
        created_at: at,
        updated_at: at,
      };
      writeFileSync(join(dir, `${id}.json`), JSON.stringify(ticket));
    }
    writeFileSync(join(source.dataDir, 'live', 'last-deleted-number'), '9000\n');
    const line = (i: number) =>
      JSON.stringify({
        id: `aud_${String(i).padStart(20, '0')}`,
        at: '2026-01-01T00:00:00.000Z',
        actor: { kind: 'secret', prefix: 'sk_live_SSSS' },
        action: 'ticket.created',
        target: `tkt_${'x'.repeat(20)}`,
        details: { note: 'y'.repeat(140) },
      });
    const lines: string[] = [];
    for (let i = 0; i < AUDIT_LINES; i++) lines.push(line(i));
    appendFileSync(join(source.dataDir, 'audit.jsonl'), `${lines.join('\n')}\n{"cut by a crash`);
    const before = await storedTickets(source.dataDir);
    expect(before.size).toBe(SEEDED + 1);

    const db = await createTestDatabase();
    cleanup.push(() => dropTestDatabase(db.name));
    const moved = await runCli(['migrate', '--to', db.url], {
      TICKETING_DATA_DIR: source.dataDir,
      NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}`,
    });
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toMatch(new RegExp(`tickets:live +${SEEDED + 1}\\n`));

    // Every ticket, field by field (the database's jsonb has its own key order, so compared parsed).
    const after = await storedTickets({ dataDir: source.dataDir, databaseUrl: db.url });
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [id, text] of before) expect(JSON.parse(after.get(id)!), id).toEqual(asStored(text));
    const sql = openTestDatabase(db.url);
    cleanup.push(() => sql.end());
    // The audit log: the server's own lines, then every seeded one in order; the cut line left out.
    const audit = await sql<{ id: string }[]>`
      SELECT entry->>'id' AS id FROM logs WHERE log = 'audit' ORDER BY seq`;
    const seeded = audit.slice(-AUDIT_LINES).map((r) => r.id);
    expect(seeded.length).toBe(AUDIT_LINES);
    expect(seeded.every((id, i) => id === `aud_${String(i).padStart(20, '0')}`)).toBe(true);
    const [kept] = await sql<{ entry: unknown }[]>`
      SELECT entry FROM logs WHERE log = 'audit' AND entry->>'id' = ${`aud_${String(77).padStart(20, '0')}`}`;
    expect(kept!.entry).toEqual(JSON.parse(line(77)));
    // The views' own columns (schema 10) are filled as the server fills them: snoozes and mentions.
    const [views] = await sql<{ snoozed: number; mentioned: number }[]>`
      SELECT count(*) FILTER (WHERE snoozed_until IS NOT NULL)::int AS snoozed,
        count(*) FILTER (WHERE mentions @> ARRAY['agt_grace'])::int AS mentioned FROM tickets`;
    const seededWhere = (test: (i: number) => boolean) =>
      Array.from({ length: SEEDED }, (_, i) => i).filter(test).length;
    expect(views).toEqual({
      snoozed: seededWhere((i) => i % 3 === 1 && i % 7 === 0),
      mentioned: seededWhere((i) => i % 10 === 4),
    });
    // And the report's (schema 11): every time the copied record holds, as epoch milliseconds.
    const [report] = await sql<{ created: number; closed: number; rated: number; scored: number; wrong: number }[]>`
      SELECT count(created_ms)::int AS created, count(closed_ms)::int AS closed, count(rated_ms)::int AS rated,
        count(score)::int AS scored,
        count(*) FILTER (WHERE closed_ms IS DISTINCT FROM (extract(epoch FROM (data->>'closed_at')::timestamptz) * 1000)::bigint
          OR created_ms IS DISTINCT FROM (extract(epoch FROM created_at::timestamptz) * 1000)::bigint)::int AS wrong
      FROM tickets`;
    const closedSeeded = seededWhere((i) => i % 3 === 2);
    expect(report).toEqual({
      created: SEEDED + 1,
      closed: closedSeeded,
      rated: closedSeeded,
      scored: closedSeeded,
      wrong: 0,
    });

    // A server on the database: the counts add up and numbers go on after the deleted ticket's.
    const server = await startServer({ databaseUrl: db.url, keys: source.keys });
    cleanup.push(() => server.close({ keepData: true }));
    const counts = (await server.call('GET', '/counts')).body;
    expect(counts.views.all).toBe(SEEDED + 1);
    expect(counts.statuses.closed).toBe(SEEDED / 3);
    // The views' numbers (schema 12) are made once from the copied rows too: as counted row by row.
    const [truth] = await sql<{ needs_reply: number; unassigned: number }[]>`
      SELECT count(*) FILTER (WHERE waiting_us AND (snoozed_until IS NULL OR snoozed_until <= ${new Date().toISOString()}))::int
          AS needs_reply,
        count(*) FILTER (WHERE agent_id IS NULL)::int AS unassigned
      FROM tickets WHERE mode = 'live' AND status <> 'closed'`;
    expect(truth!.needs_reply).toBeGreaterThan(0);
    expect({ needs_reply: counts.views.needs_reply, unassigned: counts.views.unassigned }).toEqual(truth);
    expect((await createTicket(server)).number).toBe(9001);
    // The counters, made once from the copied rows, follow the writes again.
    const following = (await server.call('GET', '/counts')).body.views;
    expect([following.all, following.unassigned]).toEqual([SEEDED + 2, truth!.unassigned + 1]);
  }, 300_000); // seconds on a loaded machine: thousands of files and a long log through a child process
});
