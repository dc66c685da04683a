import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

// Agents managed in the console's Settings: an invitation with a one-time password, and the rule that
// the portal always keeps an active admin (docs/api.md "/admin", agents).

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

async function signIn(email: string, password: string) {
  const res = await s.call('POST', '/session', { key: null, json: { email, password } });
  const cookie = res.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  return { res, session: { Cookie: cookie, 'X-CSRF-Token': res.body?.csrf_token as string } };
}

const agents = async () => (await s.call('GET', '/admin?r=agents')).body.agents as { id: string; role: string }[];

describe('inviting an agent', () => {
  it('answers a one-time password once; the agent signs in with it and must choose their own', async () => {
    const made = await s.call('POST', '/admin?r=agents', {
      json: { name: 'Ada', email: 'ada@shop.example', role: 'agent', one_time_password: true },
    });
    expect(made.status, made.text).toBe(201);
    const password = made.body.password as string;
    expect(password).toMatch(/^[A-Za-z0-9]{5}(-[A-Za-z0-9]{5}){3}$/);
    expect(made.body.agent).toMatchObject({ email: 'ada@shop.example', must_change_password: true });
    // Shown once: no read carries it, and the audit entry says a one-time password was made, not which.
    const read = await s.call('GET', '/admin?r=all');
    expect(read.text).not.toContain(password);
    const audit = await s.call('GET', '/admin?r=audit&limit=5');
    expect(audit.text).not.toContain(password);
    expect(audit.body.audit[0]).toMatchObject({ action: 'agent.create', details: { one_time_password: true } });

    const { res, session } = await signIn('ada@shop.example', password);
    expect(res.status).toBe(200);
    expect(res.body.agent.must_change_password).toBe(true);
    const refused = await s.call('GET', '/list', { key: null, headers: session });
    expect(refused.body.error.code).toBe('password_change_required');
    const changed = await s.call('POST', '/session/password', {
      key: null,
      headers: session,
      json: { current_password: password, new_password: 'ada’s own password' },
    });
    expect(changed.status, changed.text).toBe(200);
    const listed = (await s.call('GET', '/admin?r=agents')).body.agents.find(
      (a: { email: string }) => a.email === 'ada@shop.example',
    );
    expect(listed.must_change_password).toBe(false);
  });

  it('gives an existing agent a new one-time password, ending their sessions; never with a password too', async () => {
    const made = await s.call('POST', '/admin?r=agents', {
      json: { name: 'Bea', email: 'bea@shop.example', role: 'agent', password: 'bea’s password' },
    });
    const before = await signIn('bea@shop.example', 'bea’s password');
    expect(before.res.status).toBe(200);
    const both = await s.call('POST', '/admin?r=agents', {
      json: { ...made.body.agent, password: 'another password', one_time_password: true },
    });
    expect(both.status).toBe(400);
    expect(both.body.error.param).toBe('one_time_password');

    const reset = await s.call('POST', '/admin?r=agents', { json: { ...made.body.agent, one_time_password: true } });
    expect(reset.status).toBe(200);
    expect((await s.call('GET', '/session', { key: null, headers: before.session })).status).toBe(401);
    expect((await signIn('bea@shop.example', 'bea’s password')).res.status).toBe(401);
    expect((await signIn('bea@shop.example', reset.body.password)).res.body.agent.must_change_password).toBe(true);
  });
});

describe('the last active admin', () => {
  it('cannot be demoted, deactivated or deleted; with a second admin it can', async () => {
    // The first start made one admin (admin@ticketing.localhost): the only one.
    const first = (await agents()).find((a) => a.role === 'admin') as Record<string, unknown> & { id: string };
    expect((await agents()).filter((a) => a.role === 'admin')).toHaveLength(1);
    for (const change of [{ role: 'agent' }, { active: false }]) {
      const res = await s.call('POST', '/admin?r=agents', { json: { ...first, ...change } });
      expect(res.status, JSON.stringify(change)).toBe(409);
      expect(res.body.error.code).toBe('last_admin');
      expect(res.body.error.message).toMatch(/last active admin/);
    }
    const del = await s.call('DELETE', `/admin?r=agents&id=${first.id}`);
    expect(del.status).toBe(409);
    expect(del.body.error.code).toBe('last_admin');
    expect((await agents()).find((a) => a.id === first.id)).toMatchObject({ role: 'admin', active: true });

    // An inactive admin does not count.
    const idle = await s.call('POST', '/admin?r=agents', {
      json: { name: 'Idle', email: 'idle@shop.example', role: 'admin', active: false, password: 'idle password' },
    });
    expect(idle.status).toBe(201);
    expect((await s.call('POST', '/admin?r=agents', { json: { ...first, active: false } })).status).toBe(409);

    // A second active admin: now the first may go, and their tickets are unassigned.
    const second = await s.call('POST', '/admin?r=agents', {
      json: { name: 'Second', email: 'second@shop.example', role: 'admin', password: 'second password' },
    });
    const t = await createTicket(s);
    await s.call('POST', '/assign', { json: { ticket_id: t.id, agent_id: first.id } });
    expect((await s.call('POST', '/admin?r=agents', { json: { ...first, role: 'agent' } })).status).toBe(200);
    expect((await s.call('DELETE', `/admin?r=agents&id=${first.id}`)).status).toBe(200);
    expect((await s.call('GET', `/ticket?id=${t.id}`)).body.agent_id).toBeNull();
    // And the second, now the last, is kept.
    const last = await s.call('DELETE', `/admin?r=agents&id=${second.body.agent.id}`);
    expect(last.status).toBe(409);
  });
});
