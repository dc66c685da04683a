import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';
import { csvCell } from './csv.js';

// GET /reports against a hand-counted data set, made through the API with the server's clock moved
// from step to step. Support is open Monday to Friday 09:00-17:00 in Berlin (08:00-16:00 UTC in
// November); the period asked for is 2026-11-02 (Monday) to 2026-11-04 (Wednesday), Berlin days.
// SLA: first response 60 minutes, resolution 600 (urgent: 30 and 240). Times below are UTC.
//
//  G  Sun 22:30 (Berlin Sun 11-01, before the period)  reply Mon 08:10, closed 08:15, rated 3 "meh" 08:20
//  A  Mon 08:00 billing                                  reply 08:30, closed 10:00, rated 5 "Great help" 10:30
//  B  Mon 09:00 shipping, Grace, tag vip                 reply 11:00, closed Tue 09:00, rated 2 "=HYPERLINK…" Tue 09:30
//  J  Mon 09:30 test mode                                closed 10:00, rated 1 10:30 (never in a live report)
//  C  Mon 15:30 billing   note 15:40, customer 15:50,    reply Tue 08:10, still open
//  H  Mon 23:30 (Berlin Tue 00:30: day 11-03)            no reply, closed Tue 07:30 (before opening)
//  D  Tue 10:00 urgent at 10:01, pending at 10:02        no reply, still open
//  E  Tue 11:00 billing, Grace                           reply 11:20, closed 11:50, customer 12:00 (reopened), rated 4 12:10
//  F  Wed 08:00 shipping, tag vip, "@channel …"          reply 08:05, closed 09:00, rated 4 "ok" 09:10
//  I  Wed 23:30 (Berlin Thu 11-05, after the period)     open
//  now: Thu 2026-11-05 10:00
//
// Minutes, calendar (business):  first response  A 30 (30)  B 120 (120)  C 1000 (40)  E 20 (20)  F 5 (5)
//                                resolution      G 585 (15)  A 120 (120)  H 480 (0)  B 1440 (480)  F 60 (60)

let now = new Date('2026-11-01T22:30:00.000Z');
const at = (iso: string) => (now = new Date(iso));
const PASSWORD = 'correct horse battery';
const PERIOD = 'from=2026-11-02&to=2026-11-04';
const HYPERLINK = '=HYPERLINK("http://evil.example","x")';

let s: TestServer;
let grace: { id: string; email: string };
let ids: Record<'A' | 'B' | 'F' | 'G', string>;

async function ok(method: string, path: string, json: unknown, key = s.keys.sk) {
  const res = await s.call(method, path, { key, json });
  expect(res.status, `${path} ${res.text}`).toBeLessThan(300);
  return res.body;
}
const reply = (id: string, message: string, extra: object = {}) =>
  ok('POST', '/reply', { ticket_id: id, message, ...extra });
const setStatus = (id: string, status: string, key = s.keys.sk) =>
  ok('POST', '/status', { ticket_id: id, status }, key);
const rate = (t: { id: string; email: string }, score: number, comment?: string, key = s.keys.pk) =>
  ok('POST', '/rate', { ticket_id: t.id, email: t.email, score, ...(comment ? { comment } : {}) }, key);

async function report(query: string, key: string | null = s.keys.sk) {
  const res = await s.call('GET', `/reports?${query}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

beforeAll(async () => {
  s = await startServer({ clock: () => now });
  // Replies keep the status here: the hand-counted statuses below predate reply_status (workflow.test.ts).
  await ok('POST', '/admin?r=workflow', { reply_status: null });
  await ok('POST', '/admin?r=categories', {
    categories: [
      { id: 'billing', name: 'Billing', fields: [] },
      { id: 'shipping', name: 'Shipping', fields: [] },
    ],
  });
  await ok('POST', '/admin?r=sla', {
    enabled: true,
    business_hours_only: false,
    first_response_minutes: { low: 60, normal: 60, high: 60, urgent: 30 },
    resolution_minutes: { low: 600, normal: 600, high: 600, urgent: 240 },
  });
  const nine = [{ open: '09:00', close: '17:00' }];
  await ok('POST', '/admin?r=business_hours', {
    timezone: 'Europe/Berlin',
    days: { mon: nine, tue: nine, wed: nine, thu: nine, fri: nine, sat: [], sun: [] },
    holidays: [],
  });
  grace = (await ok('POST', '/admin?r=agents', { name: 'Grace', email: 'grace@shop.example', password: PASSWORD }))
    .agent;

  at('2026-11-01T22:30:00.000Z');
  const G = await createTicket(s, { subject: 'Gift wrap', email: 'g@example.com' });
  at('2026-11-02T08:00:00.000Z');
  const A = await createTicket(s, { subject: 'Invoice', email: 'a@example.com', category: 'billing' });
  at('2026-11-02T08:10:00.000Z');
  await reply(G.id, 'Done.');
  at('2026-11-02T08:15:00.000Z');
  await setStatus(G.id, 'closed');
  at('2026-11-02T08:20:00.000Z');
  await rate(G, 3, 'meh');
  at('2026-11-02T08:30:00.000Z');
  await reply(A.id, 'Here it is.');
  at('2026-11-02T09:00:00.000Z');
  const B = await createTicket(s, { subject: 'Parcel lost', email: 'b@example.com', category: 'shipping' });
  await ok('POST', '/assign', { ticket_id: B.id, agent_id: grace.id });
  await ok('POST', '/tags', { ticket_id: B.id, add: ['vip'] });
  at('2026-11-02T09:30:00.000Z');
  const J = await createTicket(s, { subject: 'Test order', email: 'j@example.com' }, s.keys.pkTest);
  at('2026-11-02T10:00:00.000Z');
  await setStatus(A.id, 'closed');
  await setStatus(J.id, 'closed', s.keys.skTest);
  at('2026-11-02T10:30:00.000Z');
  await rate(A, 5, 'Great help');
  await rate(J, 1, undefined, s.keys.pkTest);
  at('2026-11-02T11:00:00.000Z');
  await reply(B.id, 'Looking into it.');
  at('2026-11-02T15:30:00.000Z');
  const C = await createTicket(s, { subject: 'Refund', email: 'c@example.com', category: 'billing' });
  at('2026-11-02T15:40:00.000Z');
  await reply(C.id, 'Checking with the bank.', { internal: true });
  at('2026-11-02T15:50:00.000Z');
  await ok('POST', '/reply', { ticket_id: C.id, email: C.email, message: 'Hello?' }, s.keys.pk);
  at('2026-11-02T23:30:00.000Z');
  const H = await createTicket(s, { subject: 'Night owl', email: 'h@example.com' });
  at('2026-11-03T07:30:00.000Z');
  await setStatus(H.id, 'closed');
  at('2026-11-03T08:10:00.000Z');
  await reply(C.id, 'Refunded.');
  at('2026-11-03T09:00:00.000Z');
  await setStatus(B.id, 'closed');
  at('2026-11-03T09:30:00.000Z');
  await rate(B, 2, HYPERLINK);
  at('2026-11-03T10:00:00.000Z');
  const D = await createTicket(s, { subject: 'Site down', email: 'd@example.com' });
  at('2026-11-03T10:01:00.000Z');
  await ok('POST', '/priority', { ticket_id: D.id, priority: 'urgent' });
  at('2026-11-03T10:02:00.000Z');
  await setStatus(D.id, 'pending');
  at('2026-11-03T11:00:00.000Z');
  const E = await createTicket(s, { subject: 'Coupon', email: 'e@example.com', category: 'billing' });
  await ok('POST', '/assign', { ticket_id: E.id, agent_id: grace.id });
  at('2026-11-03T11:20:00.000Z');
  await reply(E.id, 'Applied.');
  at('2026-11-03T11:50:00.000Z');
  await setStatus(E.id, 'closed');
  at('2026-11-03T12:00:00.000Z');
  await ok('POST', '/reply', { ticket_id: E.id, email: E.email, message: 'It did not work.' }, s.keys.pk);
  at('2026-11-03T12:10:00.000Z');
  await rate(E, 4);
  at('2026-11-04T08:00:00.000Z');
  const F = await createTicket(s, {
    subject: '@channel where is my parcel',
    email: 'f@example.com',
    category: 'shipping',
  });
  await ok('POST', '/tags', { ticket_id: F.id, add: ['vip'] });
  at('2026-11-04T08:05:00.000Z');
  await reply(F.id, 'On its way.');
  at('2026-11-04T09:00:00.000Z');
  await setStatus(F.id, 'closed');
  at('2026-11-04T09:10:00.000Z');
  await rate(F, 4, 'ok');
  at('2026-11-04T23:30:00.000Z');
  await createTicket(s, { subject: 'Late', email: 'i@example.com' });
  at('2026-11-05T10:00:00.000Z');
  ids = { A: A.id, B: B.id, F: F.id, G: G.id };
});
afterAll(() => s.close());

const comment = (ticket: 'A' | 'B' | 'F' | 'G', subject: string, score: number, text: string, rated: string) => ({
  ticket_id: ids[ticket],
  subject,
  score,
  comment: text,
  rated_at: rated,
});
const distribution = (...counts: number[]) => counts.map((count, i) => ({ score: i + 1, count }));
const backlog = (open: number, pending: number) => ({
  total: open + pending,
  statuses: [
    { status: 'open', name: 'Open', count: open },
    { status: 'pending', name: 'Pending', count: pending },
    { status: 'answered', name: 'Answered', count: 0 },
  ],
});

describe('GET /reports: every figure, hand-counted', () => {
  it('counts the whole period in calendar minutes', async () => {
    const r = await report(PERIOD);
    expect(r).toEqual({
      period: { from: '2026-11-02', to: '2026-11-04', timezone: 'Europe/Berlin' },
      filters: { category: null, agent: null, tag: null },
      generated_at: '2026-11-05T10:00:00.000Z',
      days: [
        { date: '2026-11-02', opened: 3, closed: 2 }, // A B C; G A
        { date: '2026-11-03', opened: 3, closed: 2 }, // H D E; H B (E's closing was undone)
        { date: '2026-11-04', opened: 1, closed: 1 }, // F; F
      ],
      totals: { opened: 7, closed: 5 },
      business_hours: false,
      // 5 20 30 120 1000
      first_response: { count: 5, median_minutes: 30, p90_minutes: 1000 },
      // 60 120 480 585 1440
      resolution: { count: 5, median_minutes: 480, p90_minutes: 1440 },
      // First response late: B (120 > 60), C (1000), D (none, urgent 30), H (closed unanswered after 60).
      // Resolution late: B (1440 > 600), C, D and E (open past their deadlines now).
      sla: { enabled: true, tickets: 7, first_response_breaches: 4, resolution_breaches: 4, breached_tickets: 5 },
      csat: {
        count: 5,
        average: 3.6, // 3 5 2 4 4
        distribution: distribution(0, 1, 1, 2, 1),
        comments: [
          comment('F', '@channel where is my parcel', 4, 'ok', '2026-11-04T09:10:00.000Z'),
          comment('B', 'Parcel lost', 2, HYPERLINK, '2026-11-03T09:30:00.000Z'),
          comment('A', 'Invoice', 5, 'Great help', '2026-11-02T10:30:00.000Z'),
          comment('G', 'Gift wrap', 3, 'meh', '2026-11-02T08:20:00.000Z'),
        ],
      },
      backlog: backlog(3, 1), // C E I open, D pending
      kb_feedback: { helpful: 0, not_helpful: 0, articles: [] }, // help-centre.test.ts counts votes
    });
  });

  it('narrows every figure by category, agent and tag', async () => {
    const billing = await report(`${PERIOD}&category=billing`); // A C E
    expect(billing.filters).toEqual({ category: 'billing', agent: null, tag: null });
    expect(billing.days.map((d: any) => [d.opened, d.closed])).toEqual([
      [2, 1],
      [1, 0],
      [0, 0],
    ]);
    expect(billing.first_response).toEqual({ count: 3, median_minutes: 30, p90_minutes: 1000 });
    expect(billing.resolution).toEqual({ count: 1, median_minutes: 120, p90_minutes: 120 });
    expect(billing.sla).toEqual({
      enabled: true,
      tickets: 3,
      first_response_breaches: 1,
      resolution_breaches: 2,
      breached_tickets: 2,
    });
    expect(billing.csat.average).toBe(4.5);
    expect(billing.csat.distribution).toEqual(distribution(0, 0, 0, 1, 1));
    expect(billing.csat.comments.map((c: any) => c.comment)).toEqual(['Great help']);
    expect(billing.backlog).toEqual(backlog(2, 0));

    const graces = await report(`${PERIOD}&agent=${grace.id}`); // B E
    expect(graces.totals).toEqual({ opened: 2, closed: 1 });
    // An even count: the median is the mean of the two middle values.
    expect(graces.first_response).toEqual({ count: 2, median_minutes: 70, p90_minutes: 120 });
    expect(graces.resolution).toEqual({ count: 1, median_minutes: 1440, p90_minutes: 1440 });
    expect(graces.sla.breached_tickets).toBe(2);
    expect(graces.csat).toMatchObject({ count: 2, average: 3 });
    expect(graces.backlog.total).toBe(1);

    const vip = await report(`${PERIOD}&tag=vip`); // B F
    expect(vip.days.map((d: any) => [d.opened, d.closed])).toEqual([
      [1, 0],
      [0, 1],
      [1, 1],
    ]);
    expect(vip.first_response).toEqual({ count: 2, median_minutes: 62.5, p90_minutes: 120 });
    expect(vip.resolution).toEqual({ count: 2, median_minutes: 750, p90_minutes: 1440 });
    expect(vip.backlog.total).toBe(0);

    const unassigned = await report(`${PERIOD}&agent=none`); // G A C H D F I
    expect(unassigned.filters.agent).toBe('none');
    expect(unassigned.days.map((d: any) => [d.opened, d.closed])).toEqual([
      [2, 2], // A C; G A
      [2, 1], // H D; H
      [1, 1], // F; F
    ]);
    expect(unassigned.backlog).toEqual(backlog(2, 1)); // C I open, D pending

    const both = await report(`${PERIOD}&tag=vip&agent=${grace.id}`); // B
    expect(both.totals).toEqual({ opened: 1, closed: 1 });
    const none = await report(`${PERIOD}&category=nothing`);
    expect(none.totals).toEqual({ opened: 0, closed: 0 });
    expect(none.first_response).toEqual({ count: 0, median_minutes: null, p90_minutes: null });
    expect(none.csat).toEqual({ count: 0, average: null, distribution: distribution(0, 0, 0, 0, 0), comments: [] });
  });

  it('takes days in the business-hours time zone, and defaults to the 30 days up to today', async () => {
    const tuesday = await report('from=2026-11-03&to=2026-11-03');
    expect(tuesday.days).toEqual([{ date: '2026-11-03', opened: 3, closed: 2 }]); // H (00:30 Berlin) D E; H B
    expect(tuesday.first_response).toEqual({ count: 1, median_minutes: 20, p90_minutes: 20 }); // E
    expect(tuesday.resolution).toEqual({ count: 2, median_minutes: 960, p90_minutes: 1440 }); // H B
    expect(tuesday.csat).toMatchObject({ count: 2, average: 3 }); // B E

    const recent = await report('');
    expect(recent.period).toEqual({ from: '2026-10-07', to: '2026-11-05', timezone: 'Europe/Berlin' });
    expect(recent.days).toHaveLength(30);
    expect(recent.totals).toEqual({ opened: 9, closed: 5 }); // G and I too
  });

  it('counts open time only when the SLA says business hours', async () => {
    const sla = (await s.call('GET', '/admin?r=sla')).body.sla;
    await ok('POST', '/admin?r=sla', { ...sla, business_hours_only: true });
    try {
      const r = await report(PERIOD);
      expect(r.business_hours).toBe(true);
      expect(r.totals).toEqual({ opened: 7, closed: 5 });
      // 5 20 30 40 120: C's 16 hours 40 were 30 minutes on Monday evening and 10 on Tuesday morning.
      expect(r.first_response).toEqual({ count: 5, median_minutes: 30, p90_minutes: 120 });
      // 0 15 60 120 480: H was closed before opening; B spanned a night.
      expect(r.resolution).toEqual({ count: 5, median_minutes: 60, p90_minutes: 480 });
      // First response late: B (60 open minutes after 09:00 is 10:00), D. C's deadline was Tuesday 08:30 and
      // H's Tuesday 09:00: in time. Resolution late: C (Wed 09:30), D (Tue 14:00), E (Wed 13:00); B's was Tue 11:00.
      expect(r.sla).toEqual({
        enabled: true,
        tickets: 7,
        first_response_breaches: 2,
        resolution_breaches: 3,
        breached_tickets: 4,
      });
    } finally {
      await ok('POST', '/admin?r=sla', sla);
    }
  });

  it('reports all breaches as 0 while the SLA is off', async () => {
    const sla = (await s.call('GET', '/admin?r=sla')).body.sla;
    await ok('POST', '/admin?r=sla', { ...sla, enabled: false });
    try {
      expect((await report(PERIOD)).sla).toEqual({
        enabled: false,
        tickets: 0,
        first_response_breaches: 0,
        resolution_breaches: 0,
        breached_tickets: 0,
      });
    } finally {
      await ok('POST', '/admin?r=sla', sla);
    }
  });

  it('keeps live and test tickets apart', async () => {
    const test = await report(PERIOD, s.keys.skTest);
    expect(test.totals).toEqual({ opened: 1, closed: 1 }); // J alone
    expect(test.csat).toMatchObject({ count: 1, average: 1 });
    expect(test.backlog.total).toBe(0);
  });
});

describe('GET /reports?format=csv', () => {
  it('answers the same figures as a CSV download, formulas defused', async () => {
    const res = await s.call('GET', `/reports?${PERIOD}&format=csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="report-2026-11-02-2026-11-04.csv"; filename*=UTF-8''report-2026-11-02-2026-11-04.csv`,
    );
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.text.endsWith('\r\n')).toBe(true);
    const [days, summary, comments] = res.text
      .slice(0, -2)
      .split('\r\n\r\n')
      .map((t) => t.split('\r\n'));
    expect(days).toEqual(['date,opened,closed', '2026-11-02,3,2', '2026-11-03,3,2', '2026-11-04,1,1']);
    expect(summary).toEqual([
      'figure,value',
      'from,2026-11-02',
      'to,2026-11-04',
      'timezone,Europe/Berlin',
      'category,',
      'agent,',
      'tag,',
      'opened,7',
      'closed,5',
      'business_hours,false',
      'first_response_count,5',
      'first_response_median_minutes,30',
      'first_response_p90_minutes,1000',
      'resolution_count,5',
      'resolution_median_minutes,480',
      'resolution_p90_minutes,1440',
      'sla_enabled,true',
      'sla_tickets,7',
      'sla_first_response_breaches,4',
      'sla_resolution_breaches,4',
      'sla_breached_tickets,5',
      'csat_count,5',
      'csat_average,3.6',
      'csat_score_1,0',
      'csat_score_2,1',
      'csat_score_3,1',
      'csat_score_4,2',
      'csat_score_5,1',
      'backlog_total,4',
      'backlog_open,3',
      'backlog_pending,1',
      'backlog_answered,0',
    ]);
    expect(comments).toEqual([
      'ticket_id,subject,score,comment,rated_at',
      // A customer's subject and comment that a spreadsheet would run: an apostrophe first, and quoted.
      `${ids.F},'@channel where is my parcel,4,ok,2026-11-04T09:10:00.000Z`,
      `${ids.B},Parcel lost,2,"'=HYPERLINK(""http://evil.example"",""x"")",2026-11-03T09:30:00.000Z`,
      `${ids.A},Invoice,5,Great help,2026-11-02T10:30:00.000Z`,
      `${ids.G},Gift wrap,3,meh,2026-11-02T08:20:00.000Z`,
    ]);
  });

  it('defuses every formula prefix and quotes what needs quoting', () => {
    expect(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'].map(csvCell)).toEqual([
      "'=1+1",
      "'+1",
      "'-1",
      "'@SUM(A1)",
      "'\tx",
      `"'\rx"`,
    ]);
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell(-1)).toBe('-1'); // a number of ours is a number, not a formula
    expect(csvCell(null)).toBe('');
  });
});

describe('GET /reports: who may ask, and bad queries', () => {
  it('answers an agent signed in to the console, whatever their role', async () => {
    const signed = await s.call('POST', '/session', {
      key: null,
      json: { email: grace.email, password: PASSWORD },
    });
    expect(signed.status, signed.text).toBe(200);
    const cookie = signed.headers.getSetCookie()[0]!.split(';')[0]!;
    const res = await s.call('GET', `/reports?${PERIOD}`, { key: null, headers: { Cookie: cookie } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.totals).toEqual({ opened: 7, closed: 5 });
  });

  it('refuses a public key and a missing key', async () => {
    const pk = await s.call('GET', `/reports?${PERIOD}`, { key: s.keys.pk });
    expect(pk.status).toBe(403);
    expect(pk.body.error.code).toBe('secret_key_required');
    expect(pk.text).not.toContain('opened');
    const none = await s.call('GET', `/reports?${PERIOD}&format=csv`, { key: null });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('missing_api_key');
  });

  it('answers 400 with details for dates that are wrong, the wrong way round or too far apart', async () => {
    const bad = async (query: string) => {
      const res = await s.call('GET', `/reports?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      return res.body.error as { param: string; details: { param: string; message: string }[] };
    };
    expect((await bad('from=2026-11-05&to=2026-11-01')).details).toEqual([
      { param: 'from', message: 'must not be after to (2026-11-01)' },
    ]);
    expect((await bad('from=2026-02-30')).param).toBe('from');
    expect((await bad('to=05.11.2026')).param).toBe('to');
    const both = await bad('from=yesterday&to=2026-13-01');
    expect(both.details.map((d) => d.param)).toEqual(['from', 'to']);
    expect(both.details[0]!.message).toBe('must be a date like 2026-11-01');
    expect((await bad('from=2025-01-01&to=2026-11-04')).details).toEqual([
      { param: 'to', message: 'the period may span at most 366 days' },
    ]);
    expect((await bad('format=xlsx')).param).toBe('format');
    // From after today, with `to` left to its default (today).
    expect((await bad('from=2026-12-01')).param).toBe('from');
  });
});
