import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInAgent, type SignedInAgent } from '../test-support/agents.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

// An agent's own profile (issue 30): their name, a signature under their replies, the console's
// language, and whether round-robin assignment gives them tickets.

let s: TestServer;
let grace: SignedInAgent;
beforeAll(async () => {
  s = await startServer();
  grace = await signedInAgent(s, { name: 'Grace', role: 'agent' });
});
afterAll(() => s.close());

describe('PATCH /v1/session/profile', () => {
  it('lets an agent (role agent) set their own name, signature, language and availability', async () => {
    const res = await grace.call('PATCH', '/session/profile', {
      json: { name: 'Grace Hopper', signature: 'Grace\n*Shop support*', locale: 'de', available: false },
    });
    expect(res.status).toBe(200);
    expect(res.body.agent).toMatchObject({
      name: 'Grace Hopper',
      signature: 'Grace\n*Shop support*',
      locale: 'de',
      available: false,
    });
    const session = await grace.call('GET', '/session');
    expect(session.body.agent).toMatchObject({ name: 'Grace Hopper', locale: 'de', available: false });
    expect(session.body.csrf_token).toBe(grace.csrf);
    // Only what is sent changes.
    const partial = await grace.call('PATCH', '/session/profile', { json: { available: true } });
    expect(partial.body.agent).toMatchObject({
      name: 'Grace Hopper',
      signature: 'Grace\n*Shop support*',
      available: true,
    });
    // Colleagues see the new name.
    const team = await grace.call('GET', '/team');
    expect(team.body.agents.map((a: { name: string }) => a.name)).toContain('Grace Hopper');
  });

  it('refuses bad values, a key, and a request without the CSRF token', async () => {
    for (const json of [{ locale: 'xx' }, { name: '' }, { name: 'two\nlines' }, { signature: 'x'.repeat(2001) }]) {
      const res = await grace.call('PATCH', '/session/profile', { json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.param).toBe(Object.keys(json)[0]);
    }
    const withKey = await s.call('PATCH', '/session/profile', { json: { name: 'Script' } });
    expect(withKey.status).toBe(403);
    expect(withKey.body.error.code).toBe('session_required');
    const noCsrf = await s.call('PATCH', '/session/profile', {
      key: null,
      headers: { Cookie: grace.cookie },
      json: { name: 'Mallory' },
    });
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.body.error.code).toBe('csrf_failed');
    expect((await grace.call('GET', '/session')).body.agent.name).not.toBe('Mallory');
  });

  it('adds the signature under the agent’s replies from the console, not under notes or a key’s replies', async () => {
    await grace.call('PATCH', '/session/profile', { json: { signature: 'Grace\nShop support' } });
    const t = await createTicket(s);
    const reply = await grace.call('POST', '/reply', { json: { ticket_id: t.id, message: 'It ships today.' } });
    expect(reply.status).toBe(201);
    const note = await grace.call('POST', '/reply', { json: { ticket_id: t.id, message: 'Checked.', internal: true } });
    expect(note.status).toBe(201);
    const byKey = await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'From a script.' } });
    const messages = byKey.body.replies.map((r: { message: string }) => r.message);
    expect(messages).toEqual(['It ships today.\n\nGrace\nShop support', 'Checked.', 'From a script.']);
    // The customer reads it signed too.
    const seen = await s.call('GET', `/ticket?id=${t.id}&email=${encodeURIComponent(t.email)}`, { key: s.keys.pk });
    expect(seen.body.replies[0].message).toBe('It ships today.\n\nGrace\nShop support');
    // A message that ends with the signature already is not signed twice.
    const twice = await grace.call('POST', '/reply', {
      json: { ticket_id: t.id, message: 'Done.\n\nGrace\nShop support' },
    });
    expect(twice.body.replies.at(-1).message).toBe('Done.\n\nGrace\nShop support');
  });
});
