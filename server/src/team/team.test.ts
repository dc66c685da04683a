import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInAgent, type SignedInAgent } from '../test-support/agents.js';
import { startServer, type TestServer } from '../test-support/server.js';

// GET /v1/team: what every agent may read, whatever their role (docs/api.md "/team"). An agent with
// role `agent` used to ask /admin for colleagues, macros and tags and get 403 for each.

const CANARY = 'CANARYteam9z';
let s: TestServer;
let admin: SignedInAgent;
let agent: SignedInAgent;
let gone: { id: string };
beforeAll(async () => {
  s = await startServer();
  admin = await signedInAgent(s, { name: 'Ada Admin', role: 'admin' });
  agent = await signedInAgent(s, { name: 'Grace Agent', role: 'agent' });
  // A colleague who left, with a secret in every field /admin takes.
  const left = await s.call('POST', '/admin?r=agents', {
    json: {
      name: 'Linus Left',
      email: `linus-${CANARY}@shop.example`,
      role: 'agent',
      active: false,
      password: `${CANARY}-password`,
      two_factor_secret: `${CANARY}-2fa-secret-xyz`,
    },
  });
  expect(left.status, left.text).toBe(201);
  gone = left.body.agent;
  for (const [r, body] of [
    ['macros', { macros: [{ id: 'refund', name: 'Refund sent', message: 'Your refund is on its way.' }] }],
    ['tags', { tags: [{ name: 'vip', color: '#ff8800' }] }],
    ['categories', { categories: [{ id: 'returns', name: 'Returns' }] }],
    ['mail', { from_address: 'help@shop.example', smtp: { host: '127.0.0.1', user: 'u', pass: `${CANARY}-smtp` } }],
    ['turnstile', { enabled: false, site_key: 'site', secret: `${CANARY}-turnstile` }],
  ] as const) {
    const w = await s.call('POST', `/admin?r=${r}`, { json: body });
    expect(w.status, `${r}: ${w.text}`).toBeLessThan(300);
  }
});
afterAll(() => s.close());

describe('GET /v1/team', () => {
  it('answers an agent with role agent, an admin and a secret key alike, with no secret and no email', async () => {
    const answers = [
      await agent.call('GET', '/team'),
      await admin.call('GET', '/team'),
      await s.call('GET', '/team'),
      await s.call('GET', '/team', { key: s.keys.skTest }),
    ];
    for (const res of answers) {
      expect(res.status, res.text).toBe(200);
      expect(res.text).not.toContain(CANARY);
      expect(res.text).not.toContain('@shop.example');
      expect(res.text).not.toMatch(/password|two_factor|passkey|recovery|email/);
      expect(res.body).toEqual(answers[0]!.body);
    }
    const team = answers[0]!.body;
    for (const a of team.agents) expect(Object.keys(a).sort()).toEqual(['active', 'id', 'name', 'role']);
    expect(team.agents).toEqual(
      expect.arrayContaining([
        { id: admin.agent.id, name: 'Ada Admin', role: 'admin', active: true },
        { id: agent.agent.id, name: 'Grace Agent', role: 'agent', active: true },
        { id: gone.id, name: 'Linus Left', role: 'agent', active: false },
      ]),
    );
    expect(team.macros).toEqual([
      expect.objectContaining({ id: 'refund', name: 'Refund sent', message: 'Your refund is on its way.' }),
    ]);
    expect(team.tags).toEqual([{ name: 'vip', color: '#ff8800' }]);
    expect(team.categories).toEqual([expect.objectContaining({ id: 'returns', name: 'Returns' })]);
    expect(team.statuses.map((x: { id: string }) => x.id)).toEqual(['open', 'pending', 'answered', 'closed']);
    // What a reply sets when the agent picks no status (workflow), for the reply box to say.
    expect(team.reply_status).toBe('pending');
  });

  it('follows what an admin changes', async () => {
    await s.call('POST', '/admin?r=tags', { json: { tags: [{ name: 'vip', color: '#112233' }] } });
    await s.call('POST', '/admin?r=agents', {
      json: { id: gone.id, name: 'Linus Back', email: `linus-${CANARY}@shop.example`, active: true },
    });
    const team = (await agent.call('GET', '/team')).body;
    expect(team.tags).toEqual([{ name: 'vip', color: '#112233' }]);
    expect(team.agents).toContainEqual({ id: gone.id, name: 'Linus Back', role: 'agent', active: true });
  });

  it('refuses a public key and no credential, and gives role agent no /admin', async () => {
    const pk = await s.call('GET', '/team', { key: s.keys.pk });
    expect(pk.status).toBe(403);
    expect(pk.body.error.code).toBe('secret_key_required');
    const none = await s.call('GET', '/team', { key: null });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('missing_api_key');
    // What the agent reads here stays admin-only at its source.
    expect((await agent.call('GET', '/admin?r=agents')).status).toBe(403);
  });
});
