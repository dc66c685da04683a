import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInAgent, type SignedInAgent } from '../test-support/agents.js';
import { startServer, type TestServer } from '../test-support/server.js';

// The inbox at a glance (issue 30): a density and saved views, each agent's own, kept on the server
// in their profile (PATCH /v1/session/profile), so they follow the agent to any browser.

let s: TestServer;
let grace: SignedInAgent;
let katherine: SignedInAgent;
beforeAll(async () => {
  s = await startServer();
  grace = await signedInAgent(s, { name: 'Grace Hopper', role: 'agent' });
  katherine = await signedInAgent(s, { name: 'Katherine Johnson', role: 'agent' });
});
afterAll(() => s.close());

const VIP = { name: 'VIP waiting', filters: { view: 'needs_reply', tag: 'vip', q: 'refund' } };

describe('density and saved views in the profile', () => {
  it('are kept per agent and answered by every read of the session', async () => {
    const fresh = await grace.call('GET', '/session');
    expect(fresh.body.agent).toMatchObject({ density: 'comfortable', saved_views: [] });
    const saved = await grace.call('PATCH', '/session/profile', {
      json: {
        density: 'compact',
        saved_views: [VIP, { name: 'Mine, urgent', filters: { view: 'mine', priority: 'urgent' } }],
      },
    });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.agent.density).toBe('compact');
    expect(saved.body.agent.saved_views).toEqual([
      VIP,
      { name: 'Mine, urgent', filters: { view: 'mine', priority: 'urgent' } },
    ]);
    // A new sign-in (another browser) finds them; a colleague keeps their own.
    const again = await signedInAgent(s, { name: 'unused' }).then(() => grace.call('GET', '/session'));
    expect(again.body.agent.saved_views).toHaveLength(2);
    expect((await katherine.call('GET', '/session')).body.agent).toMatchObject({
      density: 'comfortable',
      saved_views: [],
    });
    // Only what is sent changes; the list is replaced whole.
    await grace.call('PATCH', '/session/profile', { json: { saved_views: [VIP] } });
    expect((await grace.call('GET', '/session')).body.agent).toMatchObject({ density: 'compact', saved_views: [VIP] });
  });

  it('refuses a bad density, a duplicate name and unknown filter keys with the error shape', async () => {
    const bad = [
      { density: 'tiny' },
      { saved_views: [VIP, { ...VIP, name: 'vip WAITING' }] },
      { saved_views: [{ name: '', filters: {} }] },
      { saved_views: [{ name: 'x', filters: { evil: '1' } }] },
    ];
    for (const json of bad) {
      const res = await grace.call('PATCH', '/session/profile', { json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.param).toMatch(/^(density|saved_views)/);
    }
    expect((await grace.call('GET', '/session')).body.agent.saved_views).toEqual([VIP]);
    // A secret key is nobody: no profile.
    expect((await s.call('PATCH', '/session/profile', { json: { density: 'compact' } })).status).toBe(403);
  });
});
