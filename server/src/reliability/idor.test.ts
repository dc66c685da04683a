import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(() => s.close());

/**
 * Every customer (public key) read and write that names a ticket, given a ticket id and an email
 * (`undefined`: the field is left out).
 */
function attempts(ticketId: string, fileId: string, email: string | undefined) {
  const withEmail = <T extends Record<string, unknown>>(o: T) => (email === undefined ? o : { ...o, email });
  const upload = new FormData();
  upload.append('ticket_id', ticketId);
  if (email !== undefined) upload.append('email', email);
  upload.append('file', new Blob(['x']), 'a.txt');
  const query = (o: Record<string, string>) => new URLSearchParams(withEmail(o));
  return {
    ticket: () => s.call('GET', `/ticket?${query({ id: ticketId })}`, { key: s.keys.pk }),
    file: () => s.call('GET', `/file?${query({ ticket_id: ticketId, file_id: fileId })}`, { key: s.keys.pk }),
    reply: () =>
      s.call('POST', '/reply', { key: s.keys.pk, json: withEmail({ ticket_id: ticketId, message: 'not mine' }) }),
    rate: () => s.call('POST', '/rate', { key: s.keys.pk, json: withEmail({ ticket_id: ticketId, score: 1 }) }),
    'close-request': () =>
      s.call('POST', '/close-request', { key: s.keys.pk, json: withEmail({ ticket_id: ticketId }) }),
    upload: () => s.call('POST', '/upload', { key: s.keys.pk, multipart: upload }),
  };
}

const UNKNOWN_TICKET = 'tkt_0000000000000000unkn';
const UNKNOWN_FILE = 'fil_0000000000000000unkn';

async function aliceWithFile() {
  const alice = await createTicket(s, { email: 'alice@example.com', name: 'Alice' });
  const form = new FormData();
  form.append('ticket_id', alice.id);
  form.append('file', new Blob(['secret receipt']), 'receipt.txt');
  const file = (await s.call('POST', '/upload', { multipart: form })).body;
  const before = (await s.call('GET', `/ticket?id=${alice.id}`)).body;
  return { alice, file, before };
}

describe('no IDOR', () => {
  it("answers every read and write on another customer's ticket exactly like an unknown ticket, and changes nothing", async () => {
    const { alice, file, before } = await aliceWithFile();
    await createTicket(s, { email: 'bob@example.com', name: 'Bob' });

    const asBob = attempts(alice.id, file.id, 'bob@example.com');
    const unknown = attempts(UNKNOWN_TICKET, UNKNOWN_FILE, 'bob@example.com');
    for (const name of Object.keys(asBob) as (keyof typeof asBob)[]) {
      const [mine, none] = [await asBob[name](), await unknown[name]()];
      expect(mine.status, name).toBe(404);
      expect(mine.body, name).toEqual(none.body);
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

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '   '],
  ])(
    'refuses a ticket id without the email (%s) on every endpoint with 400, for known and unknown tickets alike, and changes nothing',
    async (_, email) => {
      const { alice, file, before } = await aliceWithFile();
      const known = attempts(alice.id, file.id, email);
      const unknown = attempts(UNKNOWN_TICKET, UNKNOWN_FILE, email);
      for (const name of Object.keys(known) as (keyof typeof known)[]) {
        const [mine, none] = [await known[name](), await unknown[name]()];
        expect(mine.status, name).toBe(400);
        expect(mine.body.error, name).toMatchObject({ code: 'validation_failed', param: 'email' });
        // Nothing of the ticket comes back, and nothing tells a real id from an invented one.
        expect(mine.body, name).toEqual(none.body);
        expect(mine.text).not.toContain('alice');
        expect(mine.text).not.toContain(alice.id);
      }
      expect((await s.call('GET', `/ticket?id=${alice.id}`)).body).toEqual(before);
    },
  );

  it("lets the owner in with the ticket's email, and a secret key without one", async () => {
    const { alice, file } = await aliceWithFile();
    const mine = attempts(alice.id, file.id, 'Alice@Example.com');
    expect((await mine.ticket()).status).toBe(200);
    expect((await mine.file()).status).toBe(200);
    expect((await mine.reply()).status).toBe(201);
    expect((await mine.rate()).status).toBe(200);
    expect((await mine['close-request']()).status).toBe(200);
    expect((await mine.upload()).status).toBe(201);
    expect((await s.call('POST', '/reply', { json: { ticket_id: alice.id, message: 'from support' } })).status).toBe(
      201,
    );
  });
});
