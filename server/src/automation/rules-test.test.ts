import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

// POST /rules/test over HTTP: the rules builder's "test against a ticket". It must answer what the
// real rules would do and leave the ticket, the audit log and the outbox as they were.
let s: TestServer;
beforeAll(async () => {
  s = await startServer({ env: { TICKETING_SCHEDULER_SECONDS: '0' } });
});
afterAll(() => s.close());

const PASSWORD = 'correct horse battery staple';
const admin = async (r: string, json: unknown) => {
  const res = await s.call('POST', `/admin?r=${r}`, { json });
  expect(res.status, res.text).toBeLessThan(300);
  return res.body;
};

/** A console session: the cookie and its CSRF token. */
async function session(role: 'admin' | 'agent') {
  const email = `${role}-${Math.random().toString(36).slice(2)}@shop.example`;
  await admin('agents', { name: role, email, password: PASSWORD, role });
  const res = await s.call('POST', '/session', { key: null, json: { email, password: PASSWORD } });
  expect(res.status, res.text).toBe(200);
  return {
    cookie: res.headers.getSetCookie()[0]!.split(';')[0]!,
    csrf: res.body.csrf_token as string,
  };
}
const asSession = (who: { cookie: string; csrf: string }, json: unknown) =>
  s.call('POST', '/rules/test', { key: null, json, headers: { Cookie: who.cookie, 'X-CSRF-Token': who.csrf } });

const vip = {
  id: 'vip',
  name: 'VIP',
  event: 'ticket.created',
  conditions: [{ field: 'email', op: 'ends_with', value: '@VIP.example' }],
  actions: [
    { type: 'set_priority', value: 'high' },
    { type: 'add_tag', value: 'vip' },
  ],
};
const highToAgent = (agentId: string) => ({
  id: 'high',
  name: 'High to the agent',
  event: 'ticket.created',
  conditions: [{ field: 'priority', op: 'equals', value: 'high' }],
  actions: [
    { type: 'assign', value: agentId },
    { type: 'notify', value: 'boss@shop.example' },
  ],
});

describe('POST /rules/test', () => {
  it('answers which saved rules would act, in order, each seeing the ticket as the ones before left it', async () => {
    const { agent } = await admin('agents', { name: 'Grace', email: 'grace@shop.example' });
    // Made before the rules exist, so nothing has acted on it yet.
    const ticket = await createTicket(s, { email: 'Boss@vip.example', subject: 'Where is my parcel' });
    await admin('rules', {
      rules: [
        vip,
        highToAgent(agent.id),
        { ...vip, id: 'off', name: 'Off', enabled: false },
        { ...vip, id: 'replies', name: 'On replies', event: 'ticket.replied', conditions: [] },
        {
          id: 'refund',
          name: 'Refunds',
          event: 'ticket.created',
          conditions: [{ field: 'subject', op: 'contains', value: 'refund' }],
          actions: [{ type: 'add_tag', value: 'refund' }],
        },
      ],
    });
    const storedBefore = (await s.call('GET', `/ticket?id=${ticket.id}`)).body;
    const auditBefore = (await s.call('GET', '/admin?r=audit&limit=500')).body.audit.length;
    const outboxBefore = (await s.call('GET', '/admin?r=outbox&limit=500')).body.outbox.length;

    const res = await s.call('POST', '/rules/test', { json: { ticket_id: ticket.id } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.event).toBe('ticket.created');
    expect(
      res.body.rules.map((r: { id: string; fires: boolean; reason: string | null }) => [r.id, r.fires, r.reason]),
    ).toEqual([
      ['vip', true, null],
      ['high', true, null], // it sees the priority the VIP rule set
      ['off', false, 'disabled'],
      ['replies', false, 'other_event'],
      ['refund', false, 'conditions'],
    ]);
    expect(res.body.rules[0].conditions).toEqual([
      { field: 'email', op: 'ends_with', value: '@VIP.example', actual: 'Boss@vip.example', holds: true },
    ]);
    expect(res.body.rules[4].conditions[0]).toMatchObject({ actual: 'Where is my parcel', holds: false });
    expect(res.body.before).toEqual({ status: 'open', priority: 'normal', agent_id: null, tags: [] });
    expect(res.body.after).toEqual({ status: 'open', priority: 'high', agent_id: agent.id, tags: ['vip'] });
    expect(res.body.sends).toEqual([{ type: 'notify', value: 'boss@shop.example' }]);

    // Nothing changed: the ticket, the audit log (no rule.* entry), the outbox.
    expect((await s.call('GET', `/ticket?id=${ticket.id}`)).body).toEqual(storedBefore);
    const audit = (await s.call('GET', '/admin?r=audit&limit=500')).body.audit;
    expect(audit.length).toBe(auditBefore);
    expect(audit.some((e: { action: string }) => e.action.startsWith('rule.'))).toBe(false);
    expect((await s.call('GET', '/admin?r=outbox&limit=500')).body.outbox.length).toBe(outboxBefore);
  });

  it('tries unsaved rules sent with the request, on another event, and marks actions that no longer fit', async () => {
    const ticket = await createTicket(s, { subject: 'Refund please' });
    await s.call('POST', '/reply', { json: { ticket_id: ticket.id, message: 'We are on it' } });
    const before = (await s.call('GET', `/ticket?id=${ticket.id}`)).body;
    expect(before.status).not.toBe('answered');
    const saved = (await s.call('GET', '/admin?r=rules')).body.rules;
    const rules = [
      {
        id: 'support-replied',
        name: 'Support replied',
        event: 'ticket.replied',
        conditions: [
          { field: 'from_customer', op: 'equals', value: 'false' },
          { field: 'message', op: 'contains', value: 'ON IT' },
        ],
        actions: [
          { type: 'set_status', value: 'answered' },
          { type: 'set_status', value: 'gone' },
          { type: 'assign', value: 'agt_nobody' },
        ],
      },
    ];
    const res = await s.call('POST', '/rules/test', { json: { ticket_id: ticket.id, event: 'ticket.replied', rules } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.rules).toHaveLength(1);
    expect(res.body.rules[0]).toMatchObject({ fires: true, reason: null });
    expect(res.body.rules[0].conditions.map((c: { actual: string }) => c.actual)).toEqual(['false', 'We are on it']);
    expect(res.body.rules[0].actions.map((a: { applies: boolean }) => a.applies)).toEqual([true, false, false]);
    expect(res.body.after.status).toBe('answered');
    expect(res.body.after.agent_id).toBeNull();
    // The unsaved rules stayed unsaved, and the ticket as it was.
    expect((await s.call('GET', '/admin?r=rules')).body.rules).toEqual(saved);
    expect((await s.call('GET', `/ticket?id=${ticket.id}`)).body).toEqual(before);
  });

  it('refuses an unknown ticket, invalid rules at their field, a customer key and an agent without the admin role', async () => {
    const ticket = await createTicket(s);
    const missing = await s.call('POST', '/rules/test', { json: { ticket_id: 'tkt_nope' } });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('ticket_not_found');
    const bad = await s.call('POST', '/rules/test', {
      json: { ticket_id: ticket.id, rules: [{ id: 'x', name: '', event: 'ticket.created', actions: [] }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { param: string }) => d.param)).toEqual(
      expect.arrayContaining(['rules.0.name', 'rules.0.actions']),
    );
    expect((await s.call('POST', '/rules/test', { key: s.keys.pk, json: { ticket_id: ticket.id } })).status).toBe(403);

    const agent = await session('agent');
    const refused = await asSession(agent, { ticket_id: ticket.id, rules: [vip] });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('admin_required');
    const owner = await session('admin');
    const allowed = await asSession(owner, { ticket_id: ticket.id, rules: [vip] });
    expect(allowed.status, allowed.text).toBe(200);
    expect(allowed.body.rules[0].fires).toBe(false);
  });
});
