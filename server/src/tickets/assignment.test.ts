import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInAgent, type SignedInAgent } from '../test-support/agents.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

// Round-robin assignment (issue 30): new tickets go in turn to the available agents of a list.

let s: TestServer;
let ada: SignedInAgent;
let grace: SignedInAgent;
let linus: SignedInAgent;
beforeAll(async () => {
  s = await startServer();
  ada = await signedInAgent(s, { name: 'Ada' });
  grace = await signedInAgent(s, { name: 'Grace' });
  linus = await signedInAgent(s, { name: 'Linus' });
});
afterAll(() => s.close());

const assignees = async (n: number) => {
  const out: (string | null)[] = [];
  for (let i = 0; i < n; i++) out.push((await createTicket(s, { subject: `Order ${i}` }, s.keys.sk)).agent_id);
  return out;
};

describe('/admin r=assignment', () => {
  it('is off by default: new tickets stay unassigned', async () => {
    expect((await s.call('GET', '/admin?r=assignment')).body.assignment).toEqual({ mode: 'off', agents: [] });
    expect(await assignees(2)).toEqual([null, null]);
  });

  it('refuses an unknown agent, a duplicate, and an unknown mode', async () => {
    for (const [json, param] of [
      [{ mode: 'round_robin', agents: ['agt_nobody'] }, 'agents.0'],
      [{ mode: 'round_robin', agents: [ada.agent.id, ada.agent.id] }, 'agents.1'],
      [{ mode: 'random', agents: [] }, 'mode'],
    ] as const) {
      const res = await s.call('POST', '/admin?r=assignment', { json });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', param });
    }
    const byAgent = await grace.call('POST', '/admin?r=assignment', { json: { mode: 'off', agents: [] } });
    expect(byAgent.status).toBe(403);
  });

  it('gives new tickets in turn to the available agents of the list, from the API and the widget alike', async () => {
    const list = [ada.agent.id, grace.agent.id, linus.agent.id];
    const set = await s.call('POST', '/admin?r=assignment', { json: { mode: 'round_robin', agents: list } });
    expect(set.status).toBe(200);
    expect(set.body.assignment).toEqual({ mode: 'round_robin', agents: list });
    // Linus is away: his profile says so.
    expect((await linus.call('PATCH', '/session/profile', { json: { available: false } })).status).toBe(200);
    expect(await assignees(4)).toEqual([ada.agent.id, grace.agent.id, ada.agent.id, grace.agent.id]);
    const fromWidget = await createTicket(s, { subject: 'From the widget' });
    const full = await s.call('GET', `/ticket?id=${fromWidget.id}`);
    expect(full.body.agent_id).toBe(ada.agent.id);
    // Back: he has had none, so he is next; then the turn goes on.
    await linus.call('PATCH', '/session/profile', { json: { available: true } });
    expect(await assignees(3)).toEqual([linus.agent.id, grace.agent.id, ada.agent.id]);
    // A deactivated agent is skipped.
    await s.call('POST', '/admin?r=agents', {
      json: { id: grace.agent.id, name: 'Grace', email: grace.agent.email, role: 'agent', active: false },
    });
    expect(await assignees(2)).toEqual([linus.agent.id, ada.agent.id]);
    // Off again: unassigned.
    await s.call('POST', '/admin?r=assignment', { json: { mode: 'off', agents: list } });
    expect(await assignees(1)).toEqual([null]);
  });
});
