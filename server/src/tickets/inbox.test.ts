import { StoredAgentSchema } from '../model/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INBOX_VIEWS, LIST_SORTS } from '../model/index.js';
import { NEWEST } from '../store/ticket-store.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

const T0 = Date.parse('2026-11-23T10:00:00.000Z');
let now = new Date(T0);
/** Sets the server's clock to `minutes` after T0. */
const at = (minutes: number) => (now = new Date(T0 + minutes * 60_000));
const GRACE = 'agt_aaaaaaaaaaaaaaaaaaaa';

let s: TestServer;
const t: Record<string, { id: string }> = {};
const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
const names = (rows: { id: string }[]) => rows.map((r) => Object.keys(t).find((k) => t[k]!.id === r.id));

async function list(query: string) {
  const res = await s.call('GET', `/list?${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body as { data: any[]; total: number };
}

/**
 * Five tickets in known states (minutes after T0; SLA: first response 60 min, resolution 600):
 *  A (0)   new; the customer writes again at 131         waits for us, overdue (due at 60)
 *  B (120) billing; support answered at 121              waits for the customer
 *  C (122) assigned to Grace; support 124, customer 125  waits for us, Grace's
 *  D (126) closed at 127
 *  E (128) tagged vip by a rule, urgent at 129, note 130 waits for us, due soon (at 188)
 */
beforeAll(async () => {
  s = await startServer({ clock: () => now });
  await s.running.deps.configStore.update((d) => {
    d.agents = [
      StoredAgentSchema.parse({
        id: GRACE,
        name: 'Grace',
        email: 'grace@example.com',
        created_at: new Date(T0).toISOString(),
      }),
    ];
  });
  const admin = async (r: string, json: unknown) => {
    const res = await s.call('POST', `/admin?r=${r}`, { json });
    expect(res.status, res.text).toBe(200);
  };
  await admin('sla', {
    enabled: true,
    business_hours_only: false,
    first_response_minutes: { low: 60, normal: 60, high: 60, urgent: 60 },
    resolution_minutes: { low: 600, normal: 600, high: 600, urgent: 600 },
  });
  await admin('categories', { categories: [{ id: 'billing', name: 'Billing', fields: [] }] });
  // Replies keep the status here, so the statuses stay those of the table above (workflow.test.ts has pending).
  await admin('workflow', { reply_status: null });
  await admin('rules', {
    rules: [
      {
        id: 'vip',
        name: 'VIP',
        enabled: true,
        event: 'ticket.created',
        conditions: [{ field: 'subject', op: 'contains', value: 'echo' }],
        actions: [{ type: 'add_tag', value: 'vip' }],
      },
    ],
  });
  const reply = async (id: string, message: string, extra: Record<string, unknown> = {}, key = s.keys.sk) => {
    const res = await s.call('POST', '/reply', { key, json: { ticket_id: id, message, ...extra } });
    expect(res.status, res.text).toBe(201);
  };
  at(0);
  t.A = await createTicket(s, { subject: 'Alpha', email: 'alpha@example.com' });
  at(120);
  t.B = await createTicket(s, { subject: 'Bravo', email: 'bravo@example.com', category: 'billing' });
  at(121);
  await reply(t.B.id, 'We sent it.');
  at(122);
  t.C = await createTicket(s, { subject: 'Charlie', email: 'charlie@example.com' });
  at(123);
  await s.call('POST', '/assign', { json: { ticket_id: t.C.id, agent_id: GRACE } });
  at(124);
  await reply(t.C.id, 'Try turning it off and on.');
  at(125);
  await reply(t.C.id, 'Still broken xyzzy', { email: 'charlie@example.com' }, s.keys.pk);
  at(126);
  t.D = await createTicket(s, { subject: 'Delta', email: 'delta@example.com' });
  at(127);
  await s.call('POST', '/status', { json: { ticket_id: t.D.id, status: 'closed' } });
  at(128);
  t.E = await createTicket(s, { subject: 'Echo', email: 'echo@example.com' });
  at(129);
  await s.call('POST', '/priority', { json: { ticket_id: t.E.id, priority: 'urgent' } });
  at(130);
  await reply(t.E.id, 'internal zulu: call them', { internal: true });
  at(131);
  await reply(t.A.id, 'Hello?   Anyone\nthere?', { email: 'alpha@example.com' }, s.keys.pk);
  at(132);
});
afterAll(() => s.close());

describe('GET /list: views', () => {
  it('holds the tickets each view promises', async () => {
    const expected: Record<string, string[]> = {
      needs_reply: ['E', 'C', 'A'],
      unassigned: ['E', 'B', 'A'],
      due_soon: ['E'],
      overdue: ['A'],
      open: ['E', 'C', 'B', 'A'],
      closed: ['D'],
      all: ['E', 'D', 'C', 'B', 'A'],
    };
    for (const [view, want] of Object.entries(expected)) {
      const page = await list(`view=${view}&sort=created`);
      expect(names(page.data), view).toEqual(want);
      expect(page.total, view).toBe(want.length);
    }
  });

  it('answers 400 for view=mine with a secret key (it is nobody), and the store finds an agent’s own', async () => {
    const res = await s.call('GET', '/list?view=mine');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'validation_failed', param: 'view' });
    // What an agent's request asks of the store (agents sign in with sessions, built elsewhere).
    const store = s.running.deps.tickets.live;
    const context = { ...NEWEST, closed: ['closed'], me: GRACE, now: now.toISOString(), soon: now.toISOString() };
    expect(ids((await store.list({ view: 'mine' }, 10, 0, context)).items)).toEqual([t.C!.id]);
    expect((await store.counts(context)).views.mine).toBe(1);
  });

  it('refuses an unknown view or sort', async () => {
    for (const q of ['view=everything', 'sort=random']) {
      const res = await s.call('GET', `/list?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.param).toBe(q.split('=')[0]);
    }
  });
});

describe('GET /list: sorts, filters and rows', () => {
  it('orders by created, activity, due and priority', async () => {
    const expected: Record<string, string[]> = {
      created: ['E', 'D', 'C', 'B', 'A'],
      activity: ['A', 'E', 'D', 'C', 'B'],
      due: ['A', 'E', 'B', 'C', 'D'],
      priority: ['E', 'D', 'C', 'B', 'A'],
    };
    for (const sort of LIST_SORTS) {
      expect(names((await list(`sort=${sort}`)).data), sort).toEqual(expected[sort]);
      // Pages of one cut the same order.
      const paged: string[] = [];
      for (let offset = 0; offset < 5; offset++)
        paged.push(...(names((await list(`sort=${sort}&limit=1&offset=${offset}`)).data) as string[]));
      expect(paged, `${sort} paged`).toEqual(expected[sort]);
    }
    expect(names((await list('view=needs_reply&sort=due')).data)).toEqual(['A', 'E', 'C']);
  });

  it('filters by status, category, priority, tag, agent and searches replies, notes and email', async () => {
    const cases: Record<string, string[]> = {
      'status=closed': ['D'],
      'status=open': ['E', 'C', 'B', 'A'],
      'category=billing': ['B'],
      'priority=urgent': ['E'],
      'tag=vip': ['E'],
      [`agent_id=${GRACE}`]: ['C'],
      'q=XYZZY': ['C'],
      'q=zulu': ['E'],
      'q=bravo@example': ['B'],
      'q=turning it off': ['C'],
      'view=needs_reply&q=alpha': ['A'],
      'view=closed&q=alpha': [],
    };
    for (const [q, want] of Object.entries(cases)) {
      const page = await list(q);
      expect(names(page.data), q).toEqual(want);
      expect(page.total, q).toBe(want.length);
    }
  });

  it('shows who it waits for, the last message and the last activity', async () => {
    const rows = Object.fromEntries((await list('sort=created')).data.map((r) => [names([r])[0], r]));
    expect(rows.A).toMatchObject({
      waiting_on: 'us',
      last_activity_at: new Date(T0 + 131 * 60_000).toISOString(),
      last_message: { from_customer: true, internal: false, preview: 'Hello? Anyone there?' },
    });
    expect(rows.B).toMatchObject({
      waiting_on: 'customer',
      last_message: { from_customer: false, preview: 'We sent it.' },
    });
    expect(rows.D).toMatchObject({ waiting_on: null, status: 'closed' });
    expect(rows.E).toMatchObject({ waiting_on: 'us', tags: ['vip'], priority: 'urgent' });
    // The rule's tag is in E's activity, as the system's doing.
    const e = (await s.call('GET', `/ticket?id=${t.E!.id}`)).body;
    expect(e.activity[0]).toMatchObject({ type: 'tags', actor: { kind: 'system' }, from: [], to: ['vip'] });
    expect(rows.E.last_message).toMatchObject({ internal: true, preview: 'internal zulu: call them' });
    const fresh = await createTicket(s, { subject: 'Foxtrot', message: 'Just   the\tfirst message' });
    const row = (await list(`q=foxtrot`)).data[0];
    expect(row.last_message).toEqual({
      from_customer: true,
      internal: false,
      preview: 'Just the first message',
      at: row.created_at,
    });
    await s.call('DELETE', `/delete?ticket_id=${fresh.id}`);
  });
});

describe('GET /counts', () => {
  it('counts each view and status as /list totals them', async () => {
    const res = await s.call('GET', '/counts');
    expect(res.status).toBe(200);
    const { views, statuses } = res.body;
    expect(views).toEqual({
      needs_reply: 3,
      snoozed: 0,
      mine: 0,
      mentions: 0,
      unassigned: 3,
      due_soon: 1,
      overdue: 1,
      open: 4,
      closed: 1,
      all: 5,
    });
    for (const view of INBOX_VIEWS) {
      if (view === 'mine' || view === 'mentions') continue; // an agent's own: a secret key gets 400
      expect((await list(`view=${view}`)).total, view).toBe(views[view]);
    }
    expect(statuses).toEqual({ open: 4, pending: 0, answered: 0, closed: 1 });
    for (const [status, n] of Object.entries(statuses)) expect((await list(`status=${status}`)).total).toBe(n);
  });

  it('follows changes and the clock', async () => {
    at(200); // E's first-response deadline (188) has passed
    const later = (await s.call('GET', '/counts')).body.views;
    expect(later).toMatchObject({ due_soon: 0, overdue: 2 });
    await s.call('POST', '/assign', { json: { ticket_id: t.A!.id, agent_id: GRACE } });
    await s.call('POST', '/status', { json: { ticket_id: t.E!.id, status: 'closed' } });
    const changed = (await s.call('GET', '/counts')).body;
    expect(changed.views).toMatchObject({ unassigned: 1, overdue: 1, open: 3, closed: 2, needs_reply: 2 });
    expect(changed.statuses).toMatchObject({ open: 3, closed: 2 });
    for (const view of INBOX_VIEWS) {
      if (view !== 'mine' && view !== 'mentions')
        expect((await list(`view=${view}`)).total, view).toBe(changed.views[view]);
    }
    // Back as it was for any test after this one.
    await s.call('POST', '/status', { json: { ticket_id: t.E!.id, status: 'open' } });
    await s.call('POST', '/assign', { json: { ticket_id: t.A!.id, agent_id: null } });
    at(132);
  });

  it('is staff only: a public key gets 403 from /counts and /list', async () => {
    for (const path of ['/counts', '/list', '/list?view=needs_reply']) {
      const res = await s.call('GET', path, { key: s.keys.pk });
      expect(res.status, path).toBe(403);
      expect(res.body.error.code).toBe('secret_key_required');
      expect(res.text).not.toContain('Alpha');
    }
  });

  it('counts a mode’s own tickets only', async () => {
    const res = await s.call('GET', '/counts', { key: s.keys.skTest });
    expect(res.body.views.all).toBe(0);
  });
});
