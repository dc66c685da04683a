import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInAgent } from '../test-support/agents.js';
import { createTicket, startServer, ticketInput, type Answer, type TestServer } from '../test-support/server.js';

// A NUL character in any string a request sends is 400 validation_failed naming the field, on both
// stores alike (PostgreSQL cannot store one: it answered 500), never a 500 and nothing stored.

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

function refused(res: Answer, param: string) {
  expect(res.status, res.text).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'validation_failed', param });
}

describe('a NUL character', () => {
  it('in the unauthenticated sign-in’s email or password is 400, not 500', async () => {
    refused(
      await s.call('POST', '/session', { key: null, json: { email: 'a\u0000@shop.example', password: 'x' } }),
      'email',
    );
    refused(
      await s.call('POST', '/session', { key: null, json: { email: 'a@shop.example', password: 'pass\u0000word' } }),
      'password',
    );
  });

  it('in a new ticket’s fields, JSON, form or multipart, is 400 naming the field, and nothing is stored', async () => {
    const before = (await s.call('GET', '/list')).body.total as number;
    refused(await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput({ name: 'Ada\u0000' }) }), 'name');
    refused(
      await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput({ message: 'line\u0000two' }) }),
      'message',
    );
    refused(
      await s.call('POST', '/create', { key: s.keys.pk, json: ticketInput({ fields: { order_id: '4\u00002' } }) }),
      'fields.order_id',
    );
    refused(
      await s.call('POST', '/create', {
        key: s.keys.pk,
        form: { ...(ticketInput() as Record<string, string>), subject: 'Hi\u0000' },
      }),
      'subject',
    );
    const form = new FormData();
    for (const [k, v] of Object.entries(ticketInput({ email: 'ada\u0000@example.com' }))) form.append(k, String(v));
    refused(await s.call('POST', '/create', { key: s.keys.pk, multipart: form }), 'email');
    expect((await s.call('GET', '/list')).body.total).toBe(before);
  });

  it('in a reply, a query, an agent’s or an admin’s write is 400 too; the same text without it works', async () => {
    const t = await createTicket(s);
    refused(await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'Hi\u0000' } }), 'message');
    refused(await s.call('GET', `/list?q=${encodeURIComponent('a\u0000b')}`), 'q');
    refused(await s.call('GET', `/ticket?id=${encodeURIComponent(`${t.id}\u0000`)}`), 'id');
    const agent = await signedInAgent(s);
    refused(
      await agent.call('POST', '/reply', { json: { ticket_id: t.id, message: 'x\u0000', internal: true } }),
      'message',
    );
    refused(await s.call('POST', '/admin?r=kb', { json: { title: 'T\u0000', body: 'b', published: true } }), 'title');
    refused(await s.call('POST', '/tags', { json: { ticket_id: t.id, add: ['ok', 'b\u0000d'] } }), 'add.1');
    expect((await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'Hi' } })).status).toBe(201);
    expect((await s.call('GET', `/ticket?id=${t.id}`)).body.replies).toHaveLength(1);
  });

  it('deep in a nested body is found and named', async () => {
    const depth = 1000;
    const res = await s.call('POST', '/reply', {
      body: `{"ticket_id":"tkt_AAAAAAAAAAAAAAAAAAAA","message":"m","x":${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}}`,
      headers: { 'Content-Type': 'application/json' },
    });
    refused(res, `x${'.0'.repeat(depth)}`);
  });
});
