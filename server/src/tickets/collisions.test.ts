import { afterEach, describe, expect, it } from 'vitest';
import { signedInAgent } from '../test-support/agents.js';
import { createTicket, startServer } from '../test-support/server.js';
import { openSse } from '../test-support/sse.js';

// Two agents answer one customer (issue 30): the second one's reply names the newest message they saw,
// and the server refuses it while something newer stands unread above their draft.

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function server() {
  const s = await startServer();
  cleanup.push(() => s.close());
  return s;
}

describe('POST /v1/reply with seen_message_id', () => {
  it('answers 409 ticket_changed with the newer messages and stores nothing; force sends anyway', async () => {
    const s = await server();
    const grace = await signedInAgent(s, { name: 'Grace' });
    const alan = await signedInAgent(s, { name: 'Alan' });
    const t = await createTicket(s);
    const first = await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: t.id, email: t.email, message: 'Any news?' },
    });
    const seen = first.body.replies[0].id as string;

    // Both agents read the ticket up to the customer's question; Grace answers first, and adds a note.
    const graces = await grace.call('POST', '/reply', {
      json: { ticket_id: t.id, message: 'It ships today.', seen_message_id: seen },
    });
    expect(graces.status, graces.text).toBe(201);
    await grace.call('POST', '/reply', { json: { ticket_id: t.id, message: 'Told her', internal: true } });
    const before = (await s.call('GET', `/ticket?id=${t.id}`)).body;

    // Alan's reply was written against the question: refused, with what he has not seen.
    const refused = await alan.call('POST', '/reply', {
      json: { ticket_id: t.id, message: 'It is lost, sorry.', seen_message_id: seen },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('ticket_changed');
    expect(refused.body.error.message).toMatch(/2 new messages/);
    expect(refused.body.error.messages.map((m: { message: string }) => m.message)).toEqual([
      'It ships today.',
      'Told her',
    ]);
    expect(refused.body.error.messages[0]).toMatchObject({ from_customer: false, author: 'Grace' });
    expect(refused.body.error.messages[1]).toMatchObject({ internal: true });
    // Nothing was stored: the ticket reads byte for byte as before.
    const after = await s.call('GET', `/ticket?id=${t.id}`);
    expect(after.text).toBe(JSON.stringify(before));

    // Having read them, Alan sends against the newest: accepted.
    const newest = before.replies.at(-1).id as string;
    const ok = await alan.call('POST', '/reply', {
      json: { ticket_id: t.id, message: 'Also: tracking number 42.', seen_message_id: newest },
    });
    expect(ok.status, ok.text).toBe(201);

    // force sends without looking; a form's force=true too.
    const forced = await alan.call('POST', '/reply', {
      form: { ticket_id: t.id, message: 'Anyway!', seen_message_id: seen, force: 'true' },
    });
    expect(forced.status, forced.text).toBe(201);
    expect(forced.body.replies.at(-1).message).toBe('Anyway!');
  });

  it('takes the ticket id for its own message, refuses a stranger id, and leaves customers alone', async () => {
    const s = await server();
    const t = await createTicket(s);
    // Nothing after the opening message: the reply goes through.
    const ok = await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'Hello', seen_message_id: t.id } });
    expect(ok.status, ok.text).toBe(201);
    // Seen only the opening message, but support replied since: 409 with that reply.
    const late = await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'Hi', seen_message_id: t.id } });
    expect(late.status).toBe(409);
    expect(late.body.error.messages).toHaveLength(1);
    expect(late.body.error.messages[0].message).toBe('Hello');
    // An id that is no message of this ticket is a mistake (400), not a collision.
    const stranger = await s.call('POST', '/reply', {
      json: { ticket_id: t.id, message: 'Hi', seen_message_id: 'rpl_nothingLikeThis1234' },
    });
    expect(stranger.status).toBe(400);
    expect(stranger.body.error).toMatchObject({ code: 'validation_failed', param: 'seen_message_id' });
    // The widget never sends it; a customer's message is never refused for what support wrote.
    const customer = await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: t.id, email: t.email, message: 'Thanks', seen_message_id: t.id },
    });
    expect(customer.status, customer.text).toBe(201);
  });

  it('lets exactly one of two replies written against the same message through', async () => {
    const s = await server();
    const t = await createTicket(s);
    const answers = await Promise.all(
      ['First', 'Second', 'Third'].map((message) =>
        s.call('POST', '/reply', { json: { ticket_id: t.id, message, seen_message_id: t.id } }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    expect((await s.call('GET', `/ticket?id=${t.id}`)).body.replies).toHaveLength(1);
  });
});

describe('agent.viewing', () => {
  it('tells the other agents who has a ticket open, by name, and not the viewer', async () => {
    const s = await server();
    const grace = await signedInAgent(s, { name: 'Grace' });
    const alan = await signedInAgent(s, { name: 'Alan' });
    const t = await createTicket(s);
    const open = async (cookie: string) => {
      const c = await openSse(`${s.base}/events`, { Cookie: cookie });
      cleanup.push(() => c.close());
      await c.next((e) => e.comment === 'connected');
      return c;
    };
    const alans = await open(alan.cookie);
    const graces = await open(grace.cookie);
    const sent = await grace.call('POST', '/viewing', { json: { ticket_id: t.id } });
    expect(sent.status).toBe(204);
    const seen = await alans.next((e) => e.event === 'agent.viewing');
    expect(seen.data).toEqual({ ticket_id: t.id, agent: { id: grace.agent.id, name: 'Grace' } });
    // Grace hears Alan's typing but never her own viewing.
    await alan.call('POST', '/typing', { json: { ticket_id: t.id } });
    await graces.next((e) => e.event === 'typing');
    expect(graces.events.some((e) => e.event === 'agent.viewing')).toBe(false);
    // A ticket that does not exist: 404, nothing sent.
    const missing = await grace.call('POST', '/viewing', { json: { ticket_id: 'tkt_nothingLikeThis1234' } });
    expect(missing.status).toBe(404);
  });
});
