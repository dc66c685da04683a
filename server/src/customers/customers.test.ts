import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInAgent, type SignedInAgent } from '../test-support/agents.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

// The customer panel (issue 30, API.md "Customers"): a customer's other tickets and the team's notes
// about them, beside each of their tickets; any agent adds and edits notes; a public key reads nothing.

let s: TestServer;
let grace: SignedInAgent;
let katherine: SignedInAgent;
const ids: Record<string, string> = {};
beforeAll(async () => {
  s = await startServer();
  grace = await signedInAgent(s, { name: 'Grace Hopper', role: 'agent' });
  katherine = await signedInAgent(s, { name: 'Katherine Johnson', role: 'agent' });
  ids.first = (await createTicket(s, { email: 'mia@shop.example', name: 'Mia', subject: 'Kettle broken' })).id;
  ids.other = (await createTicket(s, { email: 'noah@shop.example', name: 'Noah', subject: 'Not Mia’s' })).id;
  ids.second = (await createTicket(s, { email: 'Mia@Shop.example', name: 'Mia Rossi', subject: 'Lid missing' })).id;
  const closed = await s.call('POST', '/status', { json: { ticket_id: ids.first, status: 'closed' } });
  expect(closed.status).toBe(200);
});
afterAll(() => s.close());

describe('GET /v1/customers and POST /v1/customers/notes', () => {
  it('lists the customer’s tickets in any status and case, newest first, for an agent of any role', async () => {
    const res = await grace.call('GET', '/customers?email=MIA@shop.example');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ email: 'mia@shop.example', name: 'Mia Rossi', verified: false, notes: [] });
    expect(res.body.tickets.map((t: { id: string }) => t.id)).toEqual([ids.second, ids.first]);
    expect(res.body.tickets[1]).toMatchObject({ status: 'closed', subject: 'Kettle broken' });
    expect(typeof res.body.tickets[0].number).toBe('number');
    expect(res.body.total_tickets).toBe(2);
    expect(res.text).not.toContain('noah@');
    // A secret key reads it too; an address without tickets is a customer with nothing yet.
    const nobody = await s.call('GET', '/customers?email=new@shop.example');
    expect(nobody.body).toMatchObject({ name: null, tickets: [], total_tickets: 0, notes: [] });
  });

  it('keeps notes any agent adds and edits, per customer, with an audit entry', async () => {
    const added = await grace.call('POST', '/customers/notes', {
      json: { email: 'Mia@shop.example', text: 'Prefers phone calls; VIP since 2021.' },
    });
    expect(added.status, added.text).toBe(200);
    const [n] = added.body.notes;
    expect(n).toMatchObject({
      text: 'Prefers phone calls; VIP since 2021.',
      author_id: grace.agent.id,
      author: 'Grace Hopper',
    });
    expect(n.id).toMatch(/^cno_/);
    // Another agent (role agent too) edits it.
    const edited = await katherine.call('POST', '/customers/notes', {
      json: { email: 'mia@shop.example', id: n.id, text: 'Prefers phone calls after 5 pm.' },
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.notes).toHaveLength(1);
    expect(edited.body.notes[0]).toMatchObject({
      id: n.id,
      text: 'Prefers phone calls after 5 pm.',
      author: 'Katherine Johnson',
    });
    // Beside each of Mia's tickets, not beside Noah's.
    expect((await katherine.call('GET', '/customers?email=mia@shop.example')).body.notes).toEqual(edited.body.notes);
    expect((await katherine.call('GET', '/customers?email=noah@shop.example')).body.notes).toEqual([]);
    // A note of another customer cannot be edited through this one.
    const wrong = await grace.call('POST', '/customers/notes', {
      json: { email: 'noah@shop.example', id: n.id, text: 'hijack' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'validation_failed', param: 'id' });
    const empty = await grace.call('POST', '/customers/notes', { json: { email: 'mia@shop.example', text: '  ' } });
    expect(empty.status).toBe(400);
    expect(empty.body.error.param).toBe('text');
    const audit = await s.call('GET', '/admin?r=audit');
    const actions = audit.body.audit.filter((a: { target: string }) => a.target === n.id);
    expect(actions.map((a: { action: string }) => a.action).sort()).toEqual([
      'customer.note_added',
      'customer.note_changed',
    ]);
  });

  it('is never readable or writable with a public key (no IDOR by email)', async () => {
    for (const email of ['mia@shop.example', 'noah@shop.example']) {
      const read = await s.call('GET', `/customers?email=${email}`, { key: s.keys.pk });
      expect(read.status).toBe(403);
      expect(read.body.error.code).toBe('secret_key_required');
      expect(read.text).not.toContain('Kettle');
      expect(read.text).not.toContain('phone');
    }
    const write = await s.call('POST', '/customers/notes', {
      key: s.keys.pk,
      json: { email: 'mia@shop.example', text: 'planted by a visitor' },
    });
    expect(write.status).toBe(403);
    expect(JSON.stringify((await grace.call('GET', '/customers?email=mia@shop.example')).body)).not.toContain(
      'planted',
    );
    // No key at all: 401.
    expect((await s.call('GET', '/customers?email=mia@shop.example', { key: null })).status).toBe(401);
  });

  it('keeps test mode apart: a test key neither reads nor changes the notes about live customers', async () => {
    const live = (await grace.call('GET', '/customers?email=mia@shop.example')).body.notes as { id: string }[];
    expect(live.length).toBeGreaterThan(0);
    const read = await s.call('GET', '/customers?email=mia@shop.example', { key: s.keys.skTest });
    expect(read.status, read.text).toBe(200);
    expect(read.body.notes).toEqual([]);
    const edit = await s.call('POST', '/customers/notes', {
      key: s.keys.skTest,
      json: { email: 'mia@shop.example', id: live[0]!.id, text: 'changed from a test key' },
    });
    expect(edit.status).toBe(400);
    expect(edit.body.error.param).toBe('id');
    const added = await s.call('POST', '/customers/notes', {
      key: s.keys.skTest,
      json: { email: 'mia@shop.example', text: 'a test note' },
    });
    expect(added.status, added.text).toBe(200);
    const after = JSON.stringify((await grace.call('GET', '/customers?email=mia@shop.example')).body.notes);
    expect(after).not.toContain('changed from a test key');
    expect(after).not.toContain('a test note');
  });

  it('refuses a customer’s 101st note with a clear error, and keeps the 100', async () => {
    const email = 'many@shop.example';
    for (let i = 0; i < 100; i++) {
      const res = await s.call('POST', '/customers/notes', { json: { email, text: `note ${i}` } });
      expect(res.status, res.text).toBe(200);
    }
    const refused = await s.call('POST', '/customers/notes', { json: { email, text: 'one too many' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'validation_failed', param: 'text' });
    const notes = (await s.call('GET', `/customers?email=${email}`)).body.notes as { text: string }[];
    expect(notes).toHaveLength(100);
    expect(notes.at(-1)!.text).toBe('note 99');
  });
});
