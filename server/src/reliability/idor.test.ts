import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

/** Every customer (public key) read and write that names a ticket, given a ticket id and an email. */
function attempts(ticketId: string, fileId: string, email: string) {
  const q = new URLSearchParams({ id: ticketId, email });
  const upload = new FormData();
  upload.append('ticket_id', ticketId);
  upload.append('email', email);
  upload.append('file', new Blob(['x']), 'a.txt');
  return [
    () => s.call('GET', `/ticket?${q}`, { key: s.keys.pk }),
    () =>
      s.call('GET', `/file?${new URLSearchParams({ ticket_id: ticketId, file_id: fileId, email })}`, {
        key: s.keys.pk,
      }),
    () => s.call('POST', '/reply', { key: s.keys.pk, json: { ticket_id: ticketId, email, message: 'not mine' } }),
    () => s.call('POST', '/rate', { key: s.keys.pk, json: { ticket_id: ticketId, email, score: 1 } }),
    () => s.call('POST', '/close-request', { key: s.keys.pk, json: { ticket_id: ticketId, email } }),
    () => s.call('POST', '/upload', { key: s.keys.pk, multipart: upload }),
  ];
}

describe('no IDOR', () => {
  it("answers every read and write on another customer's ticket exactly like an unknown ticket, and changes nothing", async () => {
    const alice = await createTicket(s, { email: 'alice@example.com', name: 'Alice' });
    await createTicket(s, { email: 'bob@example.com', name: 'Bob' });
    const form = new FormData();
    form.append('ticket_id', alice.id);
    form.append('file', new Blob(['secret receipt']), 'receipt.txt');
    const file = (await s.call('POST', '/upload', { multipart: form })).body;
    const before = (await s.call('GET', `/ticket?id=${alice.id}`)).body;

    const asBob = attempts(alice.id, file.id, 'bob@example.com');
    const unknown = attempts('tkt_0000000000000000unkn', 'fil_0000000000000000unkn', 'bob@example.com');
    for (let i = 0; i < asBob.length; i++) {
      const [mine, none] = [await asBob[i]!(), await unknown[i]!()];
      expect(mine.status, `attempt ${i}`).toBe(404);
      expect(mine.body, `attempt ${i}`).toEqual(none.body);
      expect(mine.body.error.code).toBe('ticket_not_found');
      expect(mine.text).not.toContain('alice');
    }
    // Case and spacing of the right email do not matter; the wrong one never works.
    expect(
      (await s.call('GET', `/ticket?id=${alice.id}&email=%20ALICE%40example.com`, { key: s.keys.pk })).status,
    ).toBe(200);
    const after = (await s.call('GET', `/ticket?id=${alice.id}`)).body;
    expect(after).toEqual(before);
  });
});
