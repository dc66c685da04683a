import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigDataSchema } from '../model/index.js';
import { buildReport, closedStatuses, reportFromSums, reportQuestion, resolvePeriod } from '../reports/report.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';
import { openTestDatabase } from '../test-support/test-database.js';
import { Database } from './database.js';
import { PgTicketStore } from './pg-ticket-store.js';

// On PostgreSQL, GET /reports sums in the database (PgTicketStore.reportSums) instead of reading each
// ticket of the period into Node (27-29 s a month at a million tickets). Its figures must be the ones
// buildReport makes from the store's scan, which stays the JSON store's way and the definition: here a
// varied set of tickets is made through the API with the server's clock moved from step to step
// (statuses, agents, tags, categories, priorities, reopened tickets, ratings with blank and formula
// comments, tickets on either side of the period's edges and of a change of summer time), and every
// report asked over HTTP is compared with buildReport over the same database's scan, field by field.

let now = new Date('2026-10-10T00:00:00.000Z');
const PASSWORD = 'correct horse battery';
let s: TestServer;
let db: Database;
let store: PgTicketStore;

/** A fixed sequence of pseudo-random numbers in [0, 1): the same data set every run. */
function random(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

async function ok(method: string, path: string, json: unknown, key = s.keys.sk) {
  const res = await s.call(method, path, { key, json });
  expect(res.status, `${path} ${res.text}`).toBeLessThan(300);
  return res.body;
}

const MINUTE = 60_000;
const SLA = {
  enabled: true,
  business_hours_only: false,
  first_response_minutes: { low: 240, normal: 60, high: 45, urgent: 30 },
  resolution_minutes: { low: 6000, normal: 1440, high: 600, urgent: 240 },
};
const COMMENTS = ['Great help', '   ', '=HYPERLINK("http://evil.example","x")', '  padded  ', 'ok', '\u00a0\n'];

beforeAll(async () => {
  s = await startServer({ clock: () => now });
  await ok('POST', '/admin?r=workflow', { reply_status: null });
  await ok('POST', '/admin?r=categories', {
    categories: [
      { id: 'billing', name: 'Billing', fields: [] },
      { id: 'shipping', name: 'Shipping', fields: [] },
    ],
  });
  await ok('POST', '/admin?r=sla', SLA);
  const nine = [{ open: '09:00', close: '17:00' }];
  await ok('POST', '/admin?r=business_hours', {
    timezone: 'Europe/Berlin',
    days: { mon: nine, tue: nine, wed: nine, thu: nine, fri: nine, sat: [], sun: [] },
    holidays: [],
  });
  const agents: string[] = [];
  for (const name of ['Grace', 'Alan']) {
    const { agent } = await ok('POST', '/admin?r=agents', {
      name,
      email: `${name.toLowerCase()}@shop.example`,
      password: PASSWORD,
    });
    agents.push(agent.id);
  }

  // Each ticket's story as timed steps, all stories played in the order of their times.
  const next = random(32);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const start = Date.parse('2026-10-12T00:00:00.000Z');
  const steps: { at: number; run: () => Promise<void> }[] = [];
  const made: { id: string; email: string }[] = [];
  for (let i = 0; i < 70; i++) {
    // Over five weeks, so a period from 10-20 to 11-05 has tickets before, in and after it.
    let at = start + Math.floor(next() * 35 * 24 * 60) * MINUTE;
    const later = () => (at += Math.floor(next() * 3 * 24 * 60 + 1) * MINUTE);
    const ticket = () => made[i]!;
    const category = pick(['billing', 'shipping', undefined] as const);
    steps.push({
      at,
      run: async () => {
        made[i] = await createTicket(s, {
          subject: `Ticket ${i}`,
          email: `c${i}@example.com`,
          ...(category ? { category } : {}),
        });
      },
    });
    const priority = pick(['low', 'normal', 'high', 'urgent', 'normal'] as const);
    if (priority !== 'normal')
      steps.push({ at: later(), run: () => ok('POST', '/priority', { ticket_id: ticket().id, priority }) });
    const agent = pick([agents[0], agents[1], null]);
    if (agent)
      steps.push({ at: later(), run: () => ok('POST', '/assign', { ticket_id: ticket().id, agent_id: agent }) });
    if (next() < 0.3)
      steps.push({ at: later(), run: () => ok('POST', '/tags', { ticket_id: ticket().id, add: ['vip'] }) });
    if (next() < 0.7)
      steps.push({ at: later(), run: () => ok('POST', '/reply', { ticket_id: ticket().id, message: 'On it.' }) });
    const fate = next();
    if (fate < 0.15)
      steps.push({ at: later(), run: () => ok('POST', '/status', { ticket_id: ticket().id, status: 'pending' }) });
    else if (fate < 0.8) {
      steps.push({ at: later(), run: () => ok('POST', '/status', { ticket_id: ticket().id, status: 'closed' }) });
      if (next() < 0.6) {
        const score = 1 + Math.floor(next() * 5);
        const comment = pick([...COMMENTS, undefined]);
        steps.push({
          at: later(),
          run: () =>
            ok(
              'POST',
              '/rate',
              { ticket_id: ticket().id, email: ticket().email, score, ...(comment ? { comment } : {}) },
              s.keys.pk,
            ),
        });
      }
      // Reopened by the customer's answer: closed_at is cleared.
      if (next() < 0.15)
        steps.push({
          at: later(),
          run: () =>
            ok(
              'POST',
              '/reply',
              { ticket_id: ticket().id, email: ticket().email, message: 'Still broken.' },
              s.keys.pk,
            ),
        });
    }
  }
  steps.sort((a, b) => a.at - b.at);
  for (const step of steps) {
    now = new Date(step.at);
    await step.run();
  }
  now = new Date('2026-11-17T10:00:00.000Z');

  db = await Database.connect({
    url: s.databaseUrl!,
    pool: 2,
    statementTimeoutMs: 0,
    tls: undefined,
    caFile: undefined,
    waitSeconds: 0,
  });
  store = new PgTicketStore(db, 'live');
}, 120_000);

afterAll(async () => {
  await db?.close();
  await s?.close();
});

/**
 * The report both ways on the same database and clock: as buildReport makes it from the store's scan
 * (the old way, and the JSON store's), and from the store's sums (what the route answers with now).
 */
async function bothWays(query: Record<string, string>) {
  const sql = openTestDatabase(s.databaseUrl!);
  const [row] = await sql<{ data: unknown }[]>`SELECT data FROM config WHERE id = 1`;
  await sql.end();
  const config = ConfigDataSchema.parse(row!.data);
  const period = resolvePeriod(query, config.business_hours.timezone, now);
  const filters = { category: query.category, agent: query.agent, tag: query.tag };
  const scanned = await buildReport(
    store.scan({ since: new Date(period.start).toISOString(), closed: closedStatuses(config) }),
    config,
    period,
    filters,
    now,
  );
  const question = reportQuestion(config, period, filters, now);
  const summed = reportFromSums(await store.reportSums(question), config, period, filters, now);
  return { scanned, summed };
}

async function compare(query: Record<string, string>) {
  const res = await s.call('GET', `/reports?${new URLSearchParams(query)}`, { key: s.keys.sk });
  expect(res.status, res.text).toBe(200);
  const { kb_feedback: _kb, ...answered } = res.body;
  const { scanned, summed } = await bothWays(query);
  expect(summed).toEqual(scanned);
  expect(answered).toEqual(scanned);
  return scanned;
}

describe('GET /reports on PostgreSQL, summed in the database', () => {
  it('gives the figures buildReport makes from the scan, for each period and filter', async () => {
    const agents = (await ok('GET', '/admin?r=agents', undefined)).agents as { id: string }[];
    const queries: Record<string, string>[] = [
      { from: '2026-10-20', to: '2026-11-05' },
      { from: '2026-10-12', to: '2026-11-17' },
      { from: '2026-10-25', to: '2026-10-25' },
      { from: '2026-11-01', to: '2026-11-10', category: 'billing' },
      { from: '2026-10-20', to: '2026-11-12', agent: agents[0]!.id },
      { from: '2026-10-20', to: '2026-11-12', agent: 'none' },
      { from: '2026-10-20', to: '2026-11-12', tag: 'vip' },
      { from: '2026-10-20', to: '2026-11-12', category: 'shipping', tag: 'vip' },
      { from: '2026-09-01', to: '2026-09-30' },
    ];
    let seen = { opened: 0, closed: 0, first: 0, resolution: 0, rated: 0, comments: 0, breached: 0 };
    for (const q of queries) {
      const r = await compare(q);
      seen = {
        opened: seen.opened + r.totals.opened,
        closed: seen.closed + r.totals.closed,
        first: seen.first + r.first_response.count,
        resolution: seen.resolution + r.resolution.count,
        rated: seen.rated + r.csat.count,
        comments: seen.comments + r.csat.comments.length,
        breached: seen.breached + r.sla.breached_tickets,
      };
    }
    // The data set exercises every figure: none of them is compared only as zero against zero.
    for (const [what, n] of Object.entries(seen)) expect(n, what).toBeGreaterThan(0);

    // Counted in business hours (Berlin's, with a holiday in the period): the spans and deadlines follow
    // the opening hours, summed from the report's columns in Node.
    await ok('POST', '/admin?r=sla', { ...SLA, business_hours_only: true });
    const split = [
      { open: '08:00', close: '12:00' },
      { open: '13:00', close: '17:30' },
    ];
    await ok('POST', '/admin?r=business_hours', {
      timezone: 'Europe/Berlin',
      days: {
        mon: split,
        tue: split,
        wed: split,
        thu: split,
        fri: split,
        sat: [{ open: '10:00', close: '14:00' }],
        sun: [],
      },
      holidays: ['2026-10-26', '2026-11-02'],
    });
    let business = { first: 0, resolution: 0, breached: 0 };
    for (const q of [queries[0]!, queries[1]!, queries[4]!, queries[7]!]) {
      const r = await compare(q);
      expect(r.business_hours).toBe(true);
      business = {
        first: business.first + r.first_response.count,
        resolution: business.resolution + r.resolution.count,
        breached: business.breached + r.sla.breached_tickets,
      };
    }
    for (const [what, n] of Object.entries(business)) expect(n, what).toBeGreaterThan(0);
    await ok('POST', '/admin?r=sla', SLA);

    // The same in another time zone (the days' edges move), and with the SLA off.
    const nine = [{ open: '09:00', close: '17:00' }];
    await ok('POST', '/admin?r=business_hours', {
      timezone: 'America/Santiago',
      days: { mon: nine, tue: nine, wed: nine, thu: nine, fri: nine, sat: [], sun: [] },
      holidays: [],
    });
    await compare({ from: '2026-10-20', to: '2026-11-05' });
    await ok('POST', '/admin?r=sla', { ...SLA, business_hours_only: true });
    await compare({ from: '2026-10-20', to: '2026-11-05' });
    await ok('POST', '/admin?r=sla', { ...SLA, enabled: false });
    await compare({ from: '2026-10-20', to: '2026-11-05' });
  });

  it("fills the report's columns at the migration from schema version 10 as the write paths fill them, and the figures stay equal", async () => {
    const sql = openTestDatabase(s.databaseUrl!);
    try {
      const read = () =>
        sql<{ id: string; data: Record<string, unknown>; c: string }[]>`
          SELECT id, data, json_build_array(created_ms, responded_ms, closed_ms, rated_ms, score)::text AS c
          FROM tickets ORDER BY mode, id`;
      const written = await read();
      // What every row must hold: the record's own times as epoch milliseconds (as Date.parse gives them).
      const ms = (at: unknown) => (typeof at === 'string' ? Date.parse(at) : null);
      const [firsts] = await sql<{ f: Record<string, string | null> }[]>`
        SELECT json_object_agg(id, first_response_at) AS f FROM tickets`;
      for (const r of written) {
        const rating = r.data.rating as { rated_at: string; score: number } | null;
        const expected = [
          ms(r.data.created_at),
          ms(firsts!.f[r.id]),
          ms(r.data.closed_at),
          ms(rating?.rated_at),
          rating?.score ?? null,
        ];
        expect(JSON.parse(r.c), r.id).toEqual(expected);
      }
      const kinds = written.map((r) => JSON.parse(r.c) as (number | null)[]);
      for (const i of [1, 2, 3]) expect(kinds.filter((k) => k[i] !== null).length, `column ${i}`).toBeGreaterThan(5);
      // As version 10 left it: none of the report's columns, nor their index.
      await sql.unsafe(`
        DROP INDEX tickets_report;
        ALTER TABLE tickets DROP COLUMN created_ms, DROP COLUMN responded_ms, DROP COLUMN closed_ms,
          DROP COLUMN rated_ms, DROP COLUMN score;
        DELETE FROM schema_migrations WHERE version = 11;
      `);
      const b = await startServer({ keys: s.keys, databaseUrl: s.databaseUrl!, clock: () => now });
      try {
        expect((await read()).map((r) => [r.id, r.c])).toEqual(written.map((r) => [r.id, r.c]));
        const [index] = await sql`SELECT indexdef FROM pg_indexes WHERE indexname = 'tickets_report'`;
        expect(index).toBeTruthy();
        const res = await b.call('GET', '/reports?from=2026-10-20&to=2026-11-12', { key: b.keys.sk });
        expect(res.status, res.text).toBe(200);
        const { kb_feedback: _kb, ...answered } = res.body;
        expect(answered).toEqual((await bothWays({ from: '2026-10-20', to: '2026-11-12' })).scanned);
        expect(answered.totals.closed).toBeGreaterThan(0);
      } finally {
        await b.close({ keepData: true });
      }
    } finally {
      await sql.end();
    }
  });
});
