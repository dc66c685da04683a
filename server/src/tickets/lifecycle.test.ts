import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
  await s.running.deps.configStore.update((d) => {
    d.agents = [
      {
        id: 'agt_aaaaaaaaaaaaaaaaaaaa',
        name: 'Grace',
        email: 'grace@example.com',
        role: 'agent',
        active: true,
        password_hash: null,
        two_factor_secret: null,
        passkeys: [],
        must_change_password: false,
        two_factor_pending: null,
        recovery_codes: [],
        totp_last_step: 0,
        signature: '',
        locale: null,
        available: true,
        density: 'comfortable',
        saved_views: [],
        account_link: null,
        created_at: new Date().toISOString(),
      },
    ];
  });
});
afterAll(() => s.close());

describe('GET /list', () => {
  it('lists newest first with filters, paging and the list view', async () => {
    const a = await createTicket(s, { subject: 'list-a unique-word', email: 'list@example.com' });
    const b = await createTicket(s, { subject: 'list-b', email: 'LIST@example.com' });
    await s.call('POST', '/priority', { json: { ticket_id: b.id, priority: 'high' } });
    const res = await s.call('GET', '/list?email=list@example.com');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 2, limit: 50, offset: 0 });
    expect(res.body.data.map((t: { id: string }) => t.id)).toEqual([b.id, a.id]);
    const row = res.body.data[0];
    expect(row).toMatchObject({ reply_count: 0, last_reply_at: null, agent_id: null, tags: [], priority: 'high' });
    expect(row).not.toHaveProperty('message');
    expect(row).not.toHaveProperty('replies');
    expect(row).not.toHaveProperty('attachments');

    expect((await s.call('GET', '/list?email=list@example.com&priority=high')).body.total).toBe(1);
    expect((await s.call('GET', '/list?q=UNIQUE-WORD')).body.data[0].id).toBe(a.id);
    const page = await s.call('GET', '/list?email=list@example.com&limit=1&offset=1');
    expect(page.body.data.map((t: { id: string }) => t.id)).toEqual([a.id]);
    expect((await s.call('GET', '/list?status=closed&email=list@example.com')).body.total).toBe(0);
  });

  it('clamps a large limit and refuses a bad one', async () => {
    expect((await s.call('GET', '/list?limit=5000')).body.limit).toBe(200);
    for (const q of ['limit=0', 'limit=4.5', 'limit=abc', 'offset=-1', 'priority=meh']) {
      const res = await s.call('GET', `/list?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.param).toBe(q.split('=')[0]);
    }
  });
});

describe('GET /ticket', () => {
  it('needs the email with a public key and hides a mismatch as an unknown ticket', async () => {
    const t = await createTicket(s);
    const missing = await s.call('GET', `/ticket?id=${t.id}`, { key: s.keys.pk });
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe('email');
    const ok = await s.call('GET', `/ticket?id=${t.id}&email=ADA@Example.com`, { key: s.keys.pk });
    expect(ok.status).toBe(200);
    expect(ok.body.id).toBe(t.id);
    const wrong = await s.call('GET', `/ticket?id=${t.id}&email=eve@example.com`, { key: s.keys.pk });
    const unknown = await s.call('GET', `/ticket?id=tkt_doesnotexist000000&email=eve@example.com`, { key: s.keys.pk });
    expect(wrong.status).toBe(404);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body.error.code).toBe('ticket_not_found');
  });

  it('answers 304 to If-None-Match and a new ETag after a change', async () => {
    const t = await createTicket(s);
    const first = await s.call('GET', `/ticket?id=${t.id}`);
    const etag = first.headers.get('etag')!;
    expect(etag).toBeTruthy();
    const same = await s.call('GET', `/ticket?id=${t.id}`, { headers: { 'If-None-Match': etag } });
    expect(same.status).toBe(304);
    expect(same.text).toBe('');
    await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'news' } });
    const changed = await s.call('GET', `/ticket?id=${t.id}`, { headers: { 'If-None-Match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('reads If-None-Match as RFC 9110 does: lists, weak tags and *, with the no-cache fetch() adds', async () => {
    const t = await createTicket(s);
    const etag = (await s.call('GET', `/ticket?id=${t.id}`)).headers.get('etag')!;
    for (const header of [`"other", ${etag}`, `W/${etag}`, '*']) {
      // fetch() sends Cache-Control: no-cache with every conditional request; that is for caches, and
      // the server still answers 304 (Koa's ctx.fresh would answer 200 to every browser poll).
      const res = await s.call('GET', `/ticket?id=${t.id}`, {
        headers: { 'If-None-Match': header, 'Cache-Control': 'no-cache' },
      });
      expect(res.status, header).toBe(304);
      expect(res.headers.get('etag')).toBe(etag);
    }
    expect((await s.call('GET', `/ticket?id=${t.id}`, { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
    // The public view has a tag of its own: a customer's poll never matches the full view's.
    const customer = await s.call('GET', `/ticket?id=${t.id}&email=${t.email}`, {
      key: s.keys.pk,
      headers: { 'If-None-Match': etag },
    });
    expect(customer.status).toBe(200);
  });
});

describe('POST /reply', () => {
  it('records a customer reply with a public key and a support reply with a secret key', async () => {
    const t = await createTicket(s, { name: 'Ada' });
    const c = await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: t.id, email: t.email, message: 'Any news?', author: 'ignored' },
    });
    expect(c.status).toBe(201);
    expect(c.body.replies[0]).toMatchObject({
      message: 'Any news?',
      from_customer: true,
      author: 'Ada',
      attachments: [],
    });
    expect(c.body.replies[0].id).toMatch(/^rpl_/);
    const sp = await s.call('POST', '/reply', { form: { ticket_id: t.id, message: 'Shipped today', author: 'Grace' } });
    expect(sp.status).toBe(201);
    expect(sp.body.replies[1]).toMatchObject({ from_customer: false, author: 'Grace' });
    const onBehalf = await s.call('POST', '/reply', {
      json: { ticket_id: t.id, message: 'by phone', from_customer: 'true' },
    });
    expect(onBehalf.body.replies[2].from_customer).toBe(true);
  });

  it('refuses from_customer=false and macros with a public key', async () => {
    const t = await createTicket(s);
    const a = await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: t.id, message: 'x', from_customer: false },
    });
    expect(a.status).toBe(403);
    expect(a.body.error.code).toBe('secret_key_required');
    const b = await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: t.id, message: 'x', macro: 'thanks' },
    });
    expect(b.body.error.code).toBe('secret_key_required');
  });

  it('checks the email a public key gives', async () => {
    const t = await createTicket(s);
    const res = await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: t.id, message: 'x', email: 'eve@example.com' },
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('ticket_not_found');
  });

  it('reopens a closed ticket when the customer writes', async () => {
    const t = await createTicket(s);
    await s.call('POST', '/status', { json: { ticket_id: t.id, status: 'closed' } });
    const res = await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: t.id, email: t.email, message: 'Still broken' },
    });
    expect(res.body.status).toBe('open');
    expect(res.body.closed_at).toBeNull();
  });

  it('refuses a missing message, a multi-line author and an unknown ticket', async () => {
    const t = await createTicket(s);
    expect((await s.call('POST', '/reply', { json: { ticket_id: t.id } })).body.error.param).toBe('message');
    expect(
      (await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'x', author: 'a\nb' } })).body.error.param,
    ).toBe('author');
    const unknown = await s.call('POST', '/reply', { json: { ticket_id: 'tkt_nope', message: 'x' } });
    expect(unknown.status).toBe(404);
  });
});

describe('status, priority, assignment', () => {
  it('sets closed_at on entering a closed status and clears it on leaving', async () => {
    const t = await createTicket(s);
    const closed = await s.call('POST', '/status', { json: { ticket_id: t.id, status: 'closed' } });
    expect(closed.status).toBe(200);
    expect(closed.body.closed_at).toEqual(expect.any(String));
    const reopened = await s.call('POST', '/status', { form: { ticket_id: t.id, status: 'pending' } });
    expect(reopened.body).toMatchObject({ status: 'pending', closed_at: null });
    const bad = await s.call('POST', '/status', { json: { ticket_id: t.id, status: 'archived' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('status');
  });

  it('sets a priority from the fixed set', async () => {
    const t = await createTicket(s);
    expect((await s.call('POST', '/priority', { json: { ticket_id: t.id, priority: 'urgent' } })).body.priority).toBe(
      'urgent',
    );
    const bad = await s.call('POST', '/priority', { json: { ticket_id: t.id, priority: 'critical' } });
    expect(bad.body.error).toMatchObject({ code: 'validation_failed', param: 'priority' });
  });

  it('assigns a known agent and removes the assignment with an empty value', async () => {
    const t = await createTicket(s);
    const a = await s.call('POST', '/assign', { json: { ticket_id: t.id, agent_id: 'agt_aaaaaaaaaaaaaaaaaaaa' } });
    expect(a.body.agent_id).toBe('agt_aaaaaaaaaaaaaaaaaaaa');
    // A missing agent_id is refused; it does not unassign.
    const missing = await s.call('POST', '/assign', { json: { ticket_id: t.id } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'validation_failed', param: 'agent_id' });
    expect((await s.call('GET', `/ticket?id=${t.id}`)).body.agent_id).toBe('agt_aaaaaaaaaaaaaaaaaaaa');
    const none = await s.call('POST', '/assign', { form: { ticket_id: t.id, agent_id: '' } });
    expect(none.body.agent_id).toBeNull();
    const unknown = await s.call('POST', '/assign', { json: { ticket_id: t.id, agent_id: 'agt_unknownunknown00' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('unknown_agent');
  });
});

describe('DELETE /delete', () => {
  it('removes the ticket, from the body or the query', async () => {
    const a = await createTicket(s);
    const b = await createTicket(s);
    const byBody = await s.call('DELETE', '/delete', { json: { ticket_id: a.id } });
    expect(byBody.body).toEqual({ id: a.id, deleted: true });
    const byQuery = await s.call('DELETE', `/delete?ticket_id=${b.id}`);
    expect(byQuery.body).toEqual({ id: b.id, deleted: true });
    expect((await s.call('GET', `/ticket?id=${a.id}`)).status).toBe(404);
    expect((await s.call('DELETE', '/delete', { json: { ticket_id: a.id } })).status).toBe(404);
  });
});

describe('close request and resolution', () => {
  it('runs request, accept and rating', async () => {
    const t = await createTicket(s);
    const req = await s.call('POST', '/close-request', { key: s.keys.pk, json: { ticket_id: t.id, email: t.email } });
    expect(req.status).toBe(200);
    expect(req.body.close_request).toMatchObject({ by: 'customer', requested_at: expect.any(String) });
    const again = await s.call('POST', '/close-request', { key: s.keys.pk, json: { ticket_id: t.id, email: t.email } });
    expect(again.body.close_request).toEqual(req.body.close_request);
    const accepted = await s.call('POST', '/close-resolve', { json: { ticket_id: t.id, accept: true } });
    expect(accepted.body).toMatchObject({ status: 'closed', close_request: null, closed_at: expect.any(String) });
    const closedAgain = await s.call('POST', '/close-request', { json: { ticket_id: t.id } });
    expect(closedAgain.status).toBe(409);
    expect(closedAgain.body.error.code).toBe('ticket_closed');
    const rated = await s.call('POST', '/rate', {
      key: s.keys.pk,
      form: { ticket_id: t.id, email: t.email, score: '5', comment: 'Great' },
    });
    expect(rated.body.rating).toMatchObject({ score: 5, comment: 'Great', rated_at: expect.any(String) });
    const rerated = await s.call('POST', '/rate', {
      key: s.keys.pk,
      json: { ticket_id: t.id, email: t.email, score: 3 },
    });
    expect(rerated.body.rating).toMatchObject({ score: 3, comment: null });
  });

  it('keeps the status when a request is rejected, and knows when there is none', async () => {
    const t = await createTicket(s);
    const none = await s.call('POST', '/close-resolve', { json: { ticket_id: t.id, accept: false } });
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe('no_close_request');
    const req = await s.call('POST', '/close-request', { json: { ticket_id: t.id } });
    expect(req.body.close_request.by).toBe('agent');
    const rejected = await s.call('POST', '/close-resolve', { form: { ticket_id: t.id, accept: 'no' } });
    expect(rejected.body).toMatchObject({ status: 'open', close_request: null });
    const missing = await s.call('POST', '/close-resolve', { json: { ticket_id: t.id } });
    expect(missing.body.error.param).toBe('accept');
  });

  it('refuses by=agent with a public key', async () => {
    const t = await createTicket(s);
    const res = await s.call('POST', '/close-request', { key: s.keys.pk, json: { ticket_id: t.id, by: 'agent' } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('secret_key_required');
  });

  it('refuses scores outside 1-5 and long comments', async () => {
    const t = await createTicket(s);
    for (const score of [0, 6, 4.5, '4.5', 'five']) {
      const res = await s.call('POST', '/rate', { json: { ticket_id: t.id, score } });
      expect(res.status, String(score)).toBe(400);
      expect(res.body.error.param).toBe('score');
    }
    const long = await s.call('POST', '/rate', { json: { ticket_id: t.id, score: 4, comment: 'x'.repeat(2001) } });
    expect(long.body.error.param).toBe('comment');
  });
});

describe('/meta and /me', () => {
  it('describes categories, statuses and priorities', async () => {
    const res = await s.call('GET', '/meta', { key: s.keys.pk });
    expect(res.status).toBe(200);
    expect(res.body.priorities).toEqual(['low', 'normal', 'high', 'urgent']);
    expect(res.body.statuses.map((x: { id: string }) => x.id)).toEqual(['open', 'pending', 'answered', 'closed']);
    expect(res.body.statuses.find((x: { id: string }) => x.id === 'closed').closed).toBe(true);
    expect(res.body.categories).toEqual([]);
  });

  it('describes the key without revealing it', async () => {
    const me = await s.call('GET', '/me', { key: s.keys.skTest });
    expect(me.body.key).toEqual({ kind: 'secret', mode: 'test', admin: false, prefix: s.keys.skTest.slice(0, 12) });
    expect(me.body.portal).toEqual({ name: 'Support', public_url: expect.stringMatching(/^http:\/\//) });
    expect(me.body.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(me.text).not.toContain(s.keys.skTest);
    const admin = await s.call('GET', '/me', { key: s.keys.sk });
    expect(admin.body.key).toMatchObject({ kind: 'secret', mode: 'live', admin: true });
  });
});
