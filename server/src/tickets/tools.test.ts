import { StoredAgentSchema } from '../model/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInAgent } from '../test-support/agents.js';
import { createTicket, PNG_1PX, startServer, ticketInput, type TestServer } from '../test-support/server.js';

const GRACE = 'agt_aaaaaaaaaaaaaaaaaaaa';
let s: TestServer;
beforeAll(async () => {
  s = await startServer();
  await s.running.deps.configStore.update((d) => {
    d.agents = [
      StoredAgentSchema.parse({
        id: GRACE,
        name: 'Grace',
        email: 'grace@example.com',
        created_at: new Date().toISOString(),
      }),
    ];
  });
});
afterAll(() => s.close());

const get = async (id: string) => (await s.call('GET', `/ticket?id=${id}`)).body;

describe('POST /tags', () => {
  it('adds and removes tags, and the list filters by them', async () => {
    const t = await createTicket(s, { subject: 'tags-1' });
    const added = await s.call('POST', '/tags', { json: { ticket_id: t.id, add: ['vip', 'billing'] } });
    expect(added.status).toBe(200);
    expect(added.body.tags).toEqual(['vip', 'billing']);
    const form = await s.call('POST', '/tags', { form: { ticket_id: t.id, add: 'late', remove: 'billing,vip' } });
    expect(form.body.tags).toEqual(['late']);
    expect((await s.call('GET', '/list?tag=late&q=tags-1')).body.total).toBe(1);
    const bad = await s.call('POST', '/tags', { json: { ticket_id: t.id, add: ['x'.repeat(51)] } });
    expect(bad.status).toBe(400);
    const pk = await s.call('POST', '/tags', { key: s.keys.pk, json: { ticket_id: t.id, add: ['x'] } });
    expect(pk.status).toBe(403);
    expect((await get(t.id)).tags).toEqual(['late']);
    const audit = (await s.call('GET', '/admin?r=audit')).body.audit;
    expect(
      audit.some((a: { action: string; target: string }) => a.action === 'ticket.tags_changed' && a.target === t.id),
    ).toBe(true);
  });
});

describe('POST /bulk', () => {
  it('changes each ticket named and says how each went', async () => {
    const a = await createTicket(s, { subject: 'bulk-a' });
    const b = await createTicket(s, { subject: 'bulk-b' });
    const res = await s.call('POST', '/bulk', {
      json: {
        ticket_ids: [a.id, 'tkt_doesnotexist000000', b.id],
        set: { status: 'pending', priority: 'high', agent_id: GRACE, add_tags: ['batch'] },
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.results.map((r: { id: string; ok: boolean }) => [r.id, r.ok])).toEqual([
      [a.id, true],
      ['tkt_doesnotexist000000', false],
      [b.id, true],
    ]);
    expect(res.body.results[1].error.code).toBe('ticket_not_found');
    for (const id of [a.id, b.id]) {
      expect(await get(id)).toMatchObject({ status: 'pending', priority: 'high', agent_id: GRACE, tags: ['batch'] });
    }
    const unassign = await s.call('POST', '/bulk', {
      json: { ticket_ids: [a.id], set: { agent_id: null, remove_tags: ['batch'] } },
    });
    expect(unassign.body.results[0].ticket).toMatchObject({ agent_id: null, tags: [], status: 'pending' });
  });

  it('checks the change whole first and changes nothing when it is wrong', async () => {
    const a = await createTicket(s, { subject: 'bulk-c' });
    for (const [set, param, code] of [
      [{ status: 'nope' }, 'set.status', 'validation_failed'],
      [{ agent_id: 'agt_nobody0000000000000' }, 'set.agent_id', 'unknown_agent'],
      [{ priority: 'meh' }, 'set.priority', 'validation_failed'],
      [{}, 'set', 'validation_failed'],
    ] as const) {
      const res = await s.call('POST', '/bulk', { json: { ticket_ids: [a.id], set } });
      expect(res.status, JSON.stringify(set)).toBe(400);
      expect(res.body.error).toMatchObject({ code, param });
    }
    const many = await s.call('POST', '/bulk', {
      json: { ticket_ids: Array.from({ length: 101 }, () => a.id), set: { priority: 'low' } },
    });
    expect(many.status).toBe(400);
    expect(await get(a.id)).toMatchObject({ status: 'open', priority: 'normal' });
    const pk = await s.call('POST', '/bulk', {
      key: s.keys.pk,
      json: { ticket_ids: [a.id], set: { priority: 'low' } },
    });
    expect(pk.status).toBe(403);
  });
});

describe('POST /merge', () => {
  it('moves the message, replies, notes and files, and closes the other with a pointer', async () => {
    const form = new FormData();
    for (const [k, v] of Object.entries(ticketInput({ subject: 'first', email: 'merge@example.com' })))
      form.append(k, String(v));
    form.append('attachments[]', new Blob([PNG_1PX], { type: 'image/png' }), 'photo.png');
    const created = await s.call('POST', '/create', { key: s.keys.pk, multipart: form });
    expect(created.status, created.text).toBe(201);
    const source = created.body;
    await s.call('POST', '/reply', { json: { ticket_id: source.id, message: 'support on first' } });
    await s.call('POST', '/reply', { json: { ticket_id: source.id, message: 'secret note', internal: true } });
    const target = await createTicket(s, { subject: 'second', email: 'MERGE@example.com', message: 'second message' });

    const res = await s.call('POST', '/merge', { json: { ticket_id: source.id, into_id: target.id } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.id).toBe(target.id);
    expect(res.body.replies.map((r: { message: string }) => r.message)).toEqual([
      'I ordered a teapot last week.',
      'support on first',
      'secret note',
    ]);
    const opening = res.body.replies[0];
    expect(opening).toMatchObject({ from_customer: true, author: 'Ada Lovelace', created_at: source.created_at });
    expect(opening.attachments).toHaveLength(1);
    const file = opening.attachments[0];
    expect(file).toMatchObject({ ticket_id: target.id, reply_id: opening.id, name: 'photo.png' });
    // The file is served from its new ticket, to the customer too.
    const download = await s.call('GET', `/file?ticket_id=${target.id}&file_id=${file.id}&email=merge@example.com`, {
      key: s.keys.pk,
    });
    expect(download.status).toBe(200);
    // The customer sees the moved thread without the note.
    const theirs = await s.call('GET', `/ticket?id=${target.id}&email=merge@example.com`, { key: s.keys.pk });
    expect(theirs.text).not.toContain('secret note');
    // Staff see in the receiving ticket's activity where the messages came from; the customer does not.
    expect(res.body.activity).toEqual([
      expect.objectContaining({ type: 'merged_from', from: source.id, actor: { kind: 'key' } }),
    ]);
    expect(theirs.body.activity).toBeUndefined();
    const merged = await get(source.id);
    expect(merged).toMatchObject({ status: 'closed', merged_into: target.id, replies: [], attachments: [] });
    expect(merged.closed_at).not.toBeNull();
    expect(merged.activity).toContainEqual(expect.objectContaining({ type: 'merged', from: null, to: target.id }));
    // Once merged, not again.
    const again = await s.call('POST', '/merge', { json: { ticket_id: source.id, into_id: target.id } });
    expect(again.status).toBe(400);
  });

  it('refuses tickets of two customers, a ticket into itself, and a public key', async () => {
    const a = await createTicket(s, { email: 'one@example.com' });
    const b = await createTicket(s, { email: 'two@example.com' });
    const other = await s.call('POST', '/merge', { json: { ticket_id: a.id, into_id: b.id } });
    expect(other.status).toBe(400);
    expect(other.body.error.param).toBe('into_id');
    const self = await s.call('POST', '/merge', { json: { ticket_id: a.id, into_id: a.id } });
    expect(self.status).toBe(400);
    const unknown = await s.call('POST', '/merge', { json: { ticket_id: a.id, into_id: 'tkt_doesnotexist000000' } });
    expect(unknown.status).toBe(404);
    const pk = await s.call('POST', '/merge', { key: s.keys.pk, json: { ticket_id: a.id, into_id: b.id } });
    expect(pk.status).toBe(403);
    expect((await get(a.id)).status).toBe('open');
  });
});

describe('POST /spam', () => {
  it('closes and tags the ticket, and blocks the address or the domain when asked', async () => {
    const t = await createTicket(s, { email: 'spammer@junk.example' });
    const res = await s.call('POST', '/spam', { json: { ticket_id: t.id, block: 'email' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 'closed', tags: ['spam'] });
    const again = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: ticketInput({ email: 'spammer@junk.example' }),
    });
    expect(again.status).toBe(403);
    expect(again.body.error.code).toBe('blocked');
    const other = await createTicket(s, { email: 'friend@junk.example' });
    await s.call('POST', '/spam', { json: { ticket_id: other.id, block: 'domain' } });
    const domain = await s.call('POST', '/create', {
      key: s.keys.pk,
      json: ticketInput({ email: 'anyone@junk.example' }),
    });
    expect(domain.status).toBe(403);
    const blocklists = (await s.call('GET', '/admin?r=blocklists')).body.blocklists;
    expect(blocklists).toMatchObject({ emails: ['spammer@junk.example'], domains: ['junk.example'] });
    const audit = (await s.call('GET', '/admin?r=audit')).body.audit;
    expect(
      audit.filter(
        (a: { action: string; target: string }) => a.action === 'config.update' && a.target === 'blocklists',
      ),
    ).toHaveLength(2);
    const pk = await s.call('POST', '/spam', { key: s.keys.pk, json: { ticket_id: t.id } });
    expect(pk.status).toBe(403);
  });
  it('blocks a whole domain for admins only: an agent-role session may block the single address', async () => {
    const agent = await signedInAgent(s, { role: 'agent' });
    const t = await createTicket(s, { email: 'someone@bigmail.example' });
    const refused = await agent.call('POST', '/spam', { json: { ticket_id: t.id, block: 'domain' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('admin_required');
    // Nothing happened: not blocked, the ticket unchanged.
    expect((await s.call('GET', '/admin?r=blocklists')).body.blocklists.domains).not.toContain('bigmail.example');
    expect((await get(t.id)).tags).not.toContain('spam');
    // A test-mode key may not write the (shared) blocklist's domains either.
    const test = await createTicket(s, { email: 'x@othermail.example' }, s.keys.pkTest);
    const testKey = await s.call('POST', '/spam', {
      key: s.keys.skTest,
      json: { ticket_id: test.id, block: 'domain' },
    });
    expect(testKey.status).toBe(403);
    // The address alone: allowed.
    const address = await agent.call('POST', '/spam', { json: { ticket_id: t.id, block: 'email' } });
    expect(address.status, address.text).toBe(200);
    expect((await s.call('GET', '/admin?r=blocklists')).body.blocklists.emails).toContain('someone@bigmail.example');
    // An admin agent may block the domain.
    const admin = await signedInAgent(s, { role: 'admin' });
    const other = await createTicket(s, { email: 'else@bigmail.example' });
    expect((await admin.call('POST', '/spam', { json: { ticket_id: other.id, block: 'domain' } })).status).toBe(200);
    expect((await s.call('GET', '/admin?r=blocklists')).body.blocklists.domains).toContain('bigmail.example');
  });
});

describe('activity', () => {
  it('records who changed what on a ticket, for staff only', async () => {
    const t = await createTicket(s, { subject: 'activity' });
    await s.call('POST', '/status', { json: { ticket_id: t.id, status: 'pending' } });
    await s.call('POST', '/assign', { json: { ticket_id: t.id, agent_id: GRACE } });
    await s.call('POST', '/tags', { json: { ticket_id: t.id, add: ['vip'] } });
    await s.call('POST', '/priority', { json: { ticket_id: t.id, priority: 'normal' } }); // no change: no entry
    const { activity } = await get(t.id);
    expect(activity.map((a: { type: string; from: unknown; to: unknown }) => [a.type, a.from, a.to])).toEqual([
      ['status', 'open', 'pending'],
      ['assignee', null, GRACE],
      ['tags', [], ['vip']],
    ]);
    expect(activity[0]).toMatchObject({ actor: { kind: 'key' } });
    expect(activity[0].id).toMatch(/^act_/);
    const theirs = await s.call('GET', `/ticket?id=${t.id}&email=${t.email}`, { key: s.keys.pk });
    expect(theirs.body).not.toHaveProperty('activity');
    expect(theirs.text).not.toContain(GRACE);
  });
});

describe('modes', () => {
  it('keep a test key away from live tickets in every tool', async () => {
    const a = await createTicket(s, { email: 'mode@example.com' });
    const b = await createTicket(s, { email: 'mode@example.com' });
    const key = s.keys.skTest;
    const bulk = await s.call('POST', '/bulk', { key, json: { ticket_ids: [a.id], set: { priority: 'urgent' } } });
    expect(bulk.body.results[0]).toMatchObject({ ok: false, error: { code: 'ticket_not_found' } });
    for (const [path, json] of [
      ['/tags', { ticket_id: a.id, add: ['x'] }],
      ['/merge', { ticket_id: a.id, into_id: b.id }],
      ['/spam', { ticket_id: a.id }],
      ['/typing', { ticket_id: a.id }],
    ] as const) {
      const res = await s.call('POST', path, { key, json });
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('ticket_not_found');
    }
    expect(await get(a.id)).toMatchObject({ priority: 'normal', tags: [], status: 'open' });
  });
});
