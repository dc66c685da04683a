import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, startMailServer } from '../test-support/mail-in.js';
import { createTicket } from '../test-support/server.js';

// Issue 29: the quoted part of a mail is set aside from the message, never thrown away. Support sees
// it (shown collapsed in the console); the customer's own view leaves it out (they have their mail).

const ANSWER = 'The order number is 4711.\n\nBest regards,\nAda';
const QUOTE_HEADER = 'On Mon, Nov 23, 2026 at 11:00 AM Shop Support <help@shop.example> wrote:';
const QUOTE = `${QUOTE_HEADER}\n> Could you tell us your order number?\n> Parcel 00340434161094042557`;

let server: Awaited<ReturnType<typeof startMailServer>>;
beforeAll(async () => {
  server = await startMailServer();
});
afterAll(() => server.close());

const staffView = async (id: string) => (await server.s.call('GET', `/ticket?id=${id}`)).body;
const customerView = async (id: string) =>
  server.s.call('GET', `/ticket?id=${id}&email=ada@example.com`, { key: server.s.keys.pk });

describe('the quoted part of a mail', () => {
  it('is kept beside a reply for support, and left out of the customer’s view', async () => {
    const { s, smtp, port } = server;
    const t = await createTicket(s, { name: 'Ada Lovelace', email: 'ada@example.com', subject: 'Where is my order' });
    const [confirmation] = await smtp.waitFor(1);
    const outcome = await deliver(s, port, {
      from: 'Ada Lovelace <ada@example.com>',
      to: confirmation!.replyTo,
      subject: 'Re: Where is my order',
      inReplyTo: confirmation!.messageId,
      text: `${ANSWER}\n\n${QUOTE}\n`,
    });
    expect(outcome).toMatchObject({ kind: 'replied', ticket: t.id });

    const reply = (await staffView(t.id)).replies.at(-1);
    expect(reply.message).toBe(ANSWER);
    expect(reply.quoted).toContain(QUOTE_HEADER);
    expect(reply.quoted).toContain('> Could you tell us your order number?');
    expect(reply.quoted).toContain('00340434161094042557');

    const mine = await customerView(t.id);
    expect(mine.status).toBe(200);
    expect(mine.body.replies.at(-1).message).toBe(ANSWER);
    expect(mine.body.replies.at(-1)).not.toHaveProperty('quoted');
    expect(mine.text).not.toContain('Could you tell us your order number?');
  });

  it('is kept beside a new ticket’s message, and absent where a mail quotes nothing', async () => {
    const { s, port } = server;
    const quoting = await deliver(s, port, {
      from: 'Ada Lovelace <ada@example.com>',
      to: 'help@shop.example',
      subject: 'Another question',
      text: `${ANSWER}\n\n${QUOTE}\n`,
    });
    expect(quoting.kind).toBe('created');
    const id = (quoting as { ticket: string }).ticket;
    const t = await staffView(id);
    expect(t.message).toBe(ANSWER);
    expect(t.quoted).toContain('> Could you tell us your order number?');
    const mine = await customerView(id);
    expect(mine.status).toBe(200);
    expect(mine.body).not.toHaveProperty('quoted');
    expect(mine.text).not.toContain('Could you tell us your order number?');

    // Merged into another ticket of hers, the message becomes a reply there and keeps its quote.
    const into = await createTicket(s, { email: 'ada@example.com', subject: 'Earlier question' });
    const merged = await s.call('POST', '/merge', { json: { ticket_id: id, into_id: into.id } });
    expect(merged.status).toBe(200);
    const opening = (await staffView(into.id)).replies.find((r: { message: string }) => r.message === ANSWER);
    expect(opening.quoted).toBe(t.quoted);

    const plain = await deliver(s, port, {
      from: 'Ada Lovelace <ada@example.com>',
      to: 'help@shop.example',
      subject: 'No quote',
      text: 'Just a question.',
    });
    expect(await staffView((plain as { ticket: string }).ticket)).not.toHaveProperty('quoted');
  });
});
