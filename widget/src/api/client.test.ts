import { afterAll, beforeAll, expect, it } from 'vitest';
import { server, type TestServer } from '../test-support/widget.js';
import { createApi } from './client.js';

let s: TestServer;
beforeAll(async () => {
  s = await server();
});
afterAll(() => s.close());

it('polls a ticket across origins with its ETag: null while it is unchanged, the ticket once support answers', async () => {
  const api = createApi(s.base, s.keys.pk, () => '', 'en');
  const form = new FormData();
  form.set('name', 'Ana');
  form.set('email', 'ana@example.com');
  form.set('subject', 'Parcel');
  form.set('message', 'Where is my parcel?');
  const created = await api.create(form, crypto.randomUUID());
  const first = await api.ticket(created.id, 'ana@example.com');
  expect(first?.etag).toMatch(/^(W\/)?"/);
  // The server answers 304 to the widget's own If-None-Match, and the widget sees it as "unchanged".
  expect(await api.ticket(created.id, 'ana@example.com', first!.etag)).toBeNull();
  expect(await api.ticket(created.id, 'ana@example.com', first!.etag)).toBeNull();
  const reply = await fetch(`${s.base}/reply`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${s.keys.sk}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ ticket_id: created.id, message: 'On its way.' }),
  });
  expect(reply.status).toBe(201);
  const after = await api.ticket(created.id, 'ana@example.com', first!.etag);
  expect(after?.ticket.replies.at(-1)?.message).toBe('On its way.');
  expect(after?.etag).not.toBe(first!.etag);
});
