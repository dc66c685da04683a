import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver } from '../test-support/receiver.js';
import { startSmtp } from '../test-support/smtp.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

let now = new Date('2026-11-23T10:00:00Z');
const clock = () => now;
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
  now = new Date('2026-11-23T10:00:00Z');
});
async function server(): Promise<TestServer> {
  // Rule webhooks call a receiver on loopback, which the operator must allow.
  const s = await startServer({ clock, env: { TICKETING_WEBHOOKS_ALLOW_LOCAL: 'on' } });
  cleanup.push(() => s.close());
  return s;
}
const admin = async (s: TestServer, r: string, json: unknown) => {
  const res = await s.call('POST', `/admin?r=${r}`, { json });
  expect(res.status, res.text).toBeLessThan(300);
  return res.body;
};

describe('rules', () => {
  it('run in order on ticket.created, with conditions, and every applied action is audited', async () => {
    const s = await server();
    const { agent } = await admin(s, 'agents', { name: 'Grace', email: 'grace@shop.example' });
    await admin(s, 'rules', {
      rules: [
        {
          id: 'vip',
          name: 'VIP',
          event: 'ticket.created',
          conditions: [{ field: 'email', op: 'ends_with', value: '@VIP.example' }],
          actions: [
            { type: 'set_priority', value: 'high' },
            { type: 'add_tag', value: 'vip' },
          ],
        },
        {
          id: 'to-grace',
          name: 'High to Grace',
          event: 'ticket.created',
          conditions: [{ field: 'priority', op: 'equals', value: 'high' }],
          actions: [{ type: 'assign', value: agent.id }],
        },
        {
          id: 'off',
          name: 'Disabled',
          enabled: false,
          event: 'ticket.created',
          conditions: [],
          actions: [{ type: 'add_tag', value: 'never' }],
        },
        {
          id: 'refund',
          name: 'Refunds',
          event: 'ticket.created',
          conditions: [
            { field: 'subject', op: 'contains', value: 'refund' },
            { field: 'from_customer', op: 'equals', value: 'true' },
          ],
          actions: [{ type: 'add_tag', value: 'refund' }],
        },
      ],
    });
    const vip = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: { name: 'V', email: 'boss@vip.example', subject: 'REFUND please', message: 'm' },
    });
    expect(vip.status).toBe(201);
    const full = (await s.call('GET', `/ticket?id=${vip.body.id}`)).body;
    expect(full).toMatchObject({ priority: 'high', agent_id: agent.id, tags: ['vip', 'refund'] });
    const plain = await createTicket(s, { email: 'someone@else.example' });
    expect((await s.call('GET', `/ticket?id=${plain.id}`)).body).toMatchObject({
      priority: 'normal',
      agent_id: null,
      tags: [],
    });
    // Staff creating a refund ticket is not "from the customer".
    const staff = await s.call('POST', '/create', {
      json: { name: 'S', email: 's@x.example', subject: 'refund', message: 'm' },
    });
    expect(staff.body.tags).toEqual([]);

    expect((await s.call('GET', '/list?tag=vip')).body.data.map((t: { id: string }) => t.id)).toEqual([vip.body.id]);
    const audit = (await s.call('GET', '/admin?r=audit')).body.audit.filter(
      (e: { target: string }) => e.target === vip.body.id,
    );
    expect(audit.map((e: { action: string }) => e.action).sort()).toEqual([
      'rule.add_tag',
      'rule.add_tag',
      'rule.assign',
      'rule.set_priority',
    ]);
    expect(audit[0].actor).toEqual({ kind: 'system', prefix: null });
    expect(audit.find((e: { action: string }) => e.action === 'rule.assign').details).toEqual({
      rule: 'to-grace',
      value: agent.id,
      mode: 'live',
    });
  });

  it('run on replies and status changes, and notify and call webhooks', async () => {
    const s = await server();
    const smtp = await startSmtp();
    cleanup.push(() => smtp.close());
    const hook = await startReceiver();
    cleanup.push(() => hook.close());
    await admin(s, 'mail', {
      from_address: 'help@shop.example',
      smtp: { host: '127.0.0.1', port: smtp.port },
      email_notify: { customer_on_create: false, customer_on_reply: false },
    });
    await admin(s, 'rules', {
      rules: [
        {
          id: 'reopen',
          name: 'Customer wrote',
          event: 'ticket.replied',
          conditions: [{ field: 'from_customer', op: 'equals', value: 'true' }],
          actions: [{ type: 'set_status', value: 'open' }],
        },
        {
          id: 'answered',
          name: 'Support wrote',
          event: 'ticket.replied',
          conditions: [{ field: 'from_customer', op: 'equals', value: 'false' }],
          actions: [{ type: 'set_status', value: 'answered' }],
        },
        {
          id: 'angry',
          name: 'Angry',
          event: 'ticket.replied',
          conditions: [{ field: 'message', op: 'contains', value: 'lawyer' }],
          actions: [
            { type: 'notify', value: 'boss@shop.example' },
            { type: 'webhook', value: `${hook.url}/angry` },
          ],
        },
        {
          id: 'closed',
          name: 'Closed',
          event: 'ticket.status_changed',
          conditions: [{ field: 'status', op: 'equals', value: 'closed' }],
          actions: [{ type: 'add_tag', value: 'done' }],
        },
      ],
    });
    const t = await createTicket(s);
    const support = await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'On it' } });
    expect(support.body.status).toBe('answered'); // the answer shows what the rules did
    const customer = await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: t.id, email: t.email, message: 'My lawyer will call' },
    });
    expect(customer.body.status).toBe('open');
    const mails = await smtp.waitFor(1);
    expect(mails[0]!.to).toEqual(['boss@shop.example']);
    expect(mails[0]!.subject).toContain('[rule angry]');
    await import('../test-support/receiver.js').then(({ eventually }) =>
      eventually(() => hook.received.length === 1, 5000, 'the rule webhook'),
    );
    expect(JSON.parse(hook.received[0]!.body)).toMatchObject({
      type: 'ticket.replied',
      data: { ticket: { id: t.id } },
    });
    const closed = await s.call('POST', '/status', { json: { ticket_id: t.id, status: 'closed' } });
    expect(closed.body.tags).toEqual(['done']);
  });
});

describe('macros', () => {
  it('fill in the message and apply their status and priority', async () => {
    const s = await server();
    await admin(s, 'macros', {
      macros: [
        {
          id: 'shipped',
          name: 'Shipped',
          message: 'Hi {{name}}, {{subject}} ({{ticket_id}}) has shipped.',
          status: 'answered',
          priority: 'low',
        },
      ],
    });
    const t = await createTicket(s, { name: 'Ada', subject: 'Teapot' });
    const res = await s.call('POST', '/reply', { json: { ticket_id: t.id, macro: 'shipped' } });
    expect(res.status).toBe(201);
    expect(res.body.replies[0].message).toBe(`Hi Ada, Teapot (${t.id}) has shipped.`);
    expect(res.body).toMatchObject({ status: 'answered', priority: 'low' });
    const own = await s.call('POST', '/reply', {
      json: { ticket_id: t.id, macro: 'shipped', message: 'My own words' },
    });
    expect(own.body.replies[1].message).toBe('My own words');
    expect((await s.call('POST', '/reply', { json: { ticket_id: t.id, macro: 'nope' } })).body.error.param).toBe(
      'macro',
    );
  });
});

describe('SLA', () => {
  it('sets due_at from the first-response target, then the resolution target, and clears it when closed', async () => {
    const s = await server();
    await admin(s, 'sla', {
      enabled: true,
      first_response_minutes: { normal: 60, urgent: 15 },
      resolution_minutes: { normal: 600, urgent: 120 },
    });
    const t = await s.call('POST', '/create', {
      json: { name: 'A', email: 'a@example.com', subject: 's', message: 'm' },
    });
    expect(t.body.due_at).toBe('2026-11-23T11:00:00.000Z');
    const urgent = await s.call('POST', '/priority', { json: { ticket_id: t.body.id, priority: 'urgent' } });
    expect(urgent.body.due_at).toBe('2026-11-23T10:15:00.000Z');
    const customer = await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: t.body.id, message: 'hello?' },
    });
    expect(customer.body).not.toHaveProperty('due_at'); // not in the public view
    expect((await s.call('GET', `/ticket?id=${t.body.id}`)).body.due_at).toBe('2026-11-23T10:15:00.000Z');
    const answered = await s.call('POST', '/reply', { json: { ticket_id: t.body.id, message: 'here' } });
    expect(answered.body.due_at).toBe('2026-11-23T12:00:00.000Z'); // first response met: resolution target
    const closed = await s.call('POST', '/status', { json: { ticket_id: t.body.id, status: 'closed' } });
    expect(closed.body.due_at).toBeNull();
    expect((await s.call('GET', '/list')).body.data[0].due_at).toBeNull();
  });

  it('counts business minutes only when configured', async () => {
    const s = await server();
    await admin(s, 'business_hours', {
      timezone: 'Europe/Berlin',
      days: { mon: [{ open: '09:00', close: '17:00' }], tue: [{ open: '09:00', close: '17:00' }] },
    });
    await admin(s, 'sla', { enabled: true, business_hours_only: true, first_response_minutes: { normal: 480 } });
    now = new Date('2026-11-23T14:00:00Z'); // Monday 15:00 Berlin: 2 open hours left today
    const t = await s.call('POST', '/create', {
      json: { name: 'A', email: 'a@example.com', subject: 's', message: 'm' },
    });
    expect(t.body.due_at).toBe('2026-11-24T14:00:00.000Z'); // + 6 h on Tuesday from 09:00 = 15:00 Berlin
  });
});

describe('scheduler', () => {
  it('fires an escalation once per ticket when its condition still holds', async () => {
    const s = await server();
    await admin(s, 'escalation', {
      escalation: [
        {
          id: 'late',
          after_minutes: 30,
          when: 'no_first_response',
          actions: [
            { type: 'set_priority', value: 'urgent' },
            { type: 'add_tag', value: 'late' },
          ],
        },
        { id: 'stale', after_minutes: 120, when: 'unresolved', actions: [{ type: 'add_tag', value: 'stale' }] },
      ],
    });
    const waiting = await createTicket(s);
    const answered = await createTicket(s);
    await s.call('POST', '/reply', { json: { ticket_id: answered.id, message: 'on it' } });
    now = new Date(now.getTime() + 29 * 60_000);
    await s.running.scheduler.tick();
    expect((await s.call('GET', `/ticket?id=${waiting.id}`)).body.tags).toEqual([]);
    now = new Date(now.getTime() + 2 * 60_000);
    await s.running.scheduler.tick();
    expect((await s.call('GET', `/ticket?id=${waiting.id}`)).body).toMatchObject({
      priority: 'urgent',
      tags: ['late'],
    });
    expect((await s.call('GET', `/ticket?id=${answered.id}`)).body).toMatchObject({ priority: 'normal', tags: [] });
    // Once: lowering the priority again is not undone by the next tick.
    await s.call('POST', '/priority', { json: { ticket_id: waiting.id, priority: 'low' } });
    await s.running.scheduler.tick();
    expect((await s.call('GET', `/ticket?id=${waiting.id}`)).body.priority).toBe('low');
    now = new Date(now.getTime() + 120 * 60_000);
    await s.running.scheduler.tick();
    expect((await s.call('GET', `/ticket?id=${answered.id}`)).body.tags).toEqual(['stale']);
    const view = (await s.call('GET', `/ticket?id=${waiting.id}`)).body;
    expect(view).not.toHaveProperty('escalated'); // internal bookkeeping never shows
    const audit = (await s.call('GET', '/admin?r=audit')).body.audit;
    expect(
      audit.filter(
        (e: { action: string; target: string }) => e.action === 'escalation.set_priority' && e.target === waiting.id,
      ),
    ).toHaveLength(1);
  });

  it('closes tickets with no customer activity for after_days', async () => {
    const s = await server();
    await admin(s, 'autoclose', { enabled: true, after_days: 3, statuses: ['answered'] });
    const idle = await createTicket(s);
    const busy = await createTicket(s);
    const open = await createTicket(s);
    for (const t of [idle, busy]) await s.call('POST', '/status', { json: { ticket_id: t.id, status: 'answered' } });
    now = new Date(now.getTime() + 2 * 86_400_000);
    await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: busy.id, email: busy.email, message: 'still there?' },
    });
    await s.call('POST', '/status', { json: { ticket_id: busy.id, status: 'answered' } });
    now = new Date(now.getTime() + 1 * 86_400_000 + 60_000);
    await s.running.scheduler.tick();
    const get = async (id: string) => (await s.call('GET', `/ticket?id=${id}`)).body;
    expect(await get(idle.id)).toMatchObject({ status: 'closed', closed_at: now.toISOString() });
    expect((await get(busy.id)).status).toBe('answered');
    expect((await get(open.id)).status).toBe('open');
    const audit = (await s.call('GET', '/admin?r=audit')).body.audit;
    expect(audit[0]).toMatchObject({
      action: 'ticket.status_changed',
      target: idle.id,
      actor: { kind: 'system' },
      details: { from: 'answered', to: 'closed' },
    });
  });
});
