import { afterEach, describe, expect, it } from 'vitest';
import { startSmtp } from '../test-support/smtp.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';
import { eventually } from '../test-support/receiver.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A server whose mail goes to a real SMTP server on loopback, which refuses the addresses in `refuse`. */
async function setup(refuse: string[] = []) {
  const s = await startServer();
  cleanup.push(() => s.close());
  const smtp = await startSmtp(0, { refuse });
  cleanup.push(() => smtp.close());
  const res = await s.call('POST', '/admin?r=mail', {
    json: {
      from_address: 'help@shop.example',
      smtp: { host: '127.0.0.1', port: smtp.port, secure: false },
      email_notify: { customer_on_create: false, customer_on_reply: true },
    },
  });
  expect(res.status).toBe(200);
  return { s, smtp };
}

type Delivery = { state: string; at: string; error?: string } | undefined;

async function deliveryOf(s: TestServer, ticketId: string, replyId: string): Promise<Delivery> {
  const t = await s.call('GET', `/ticket?id=${ticketId}`);
  expect(t.status).toBe(200);
  return (t.body.replies as { id: string; delivery?: Delivery }[]).find((r) => r.id === replyId)!.delivery;
}

/** Waits (generously: a loaded machine) until the reply's mail is no longer queued, and answers its state. */
async function settled(s: TestServer, ticketId: string, replyId: string) {
  let last: Delivery;
  await eventually(
    async () => {
      last = await deliveryOf(s, ticketId, replyId);
      return last !== undefined && last.state !== 'queued';
    },
    20_000,
    'the reply’s mail to settle',
  );
  return last!;
}

describe('a support reply shows what became of its mail', () => {
  it('is queued when answered, then sent once the SMTP server took it; the customer never sees it', async () => {
    const { s, smtp } = await setup();
    const t = await createTicket(s);
    const res = await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'It ships today.' } });
    expect(res.status).toBe(201);
    const reply = res.body.replies.at(-1);
    expect(reply.delivery).toMatchObject({ state: 'queued' });
    const mails = await smtp.waitFor(1, 20_000);
    expect(mails[0]!.to).toEqual(['ada@example.com']);
    const delivery = await settled(s, t.id, reply.id);
    expect(delivery).toEqual({ state: 'sent', at: expect.any(String), message_id: mails[0]!.messageId });

    // Neither a note nor the customer's own message has a delivery state.
    await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'VIP', internal: true } });
    await s.call('POST', '/reply', { key: s.keys.pk, json: { ticket_id: t.id, email: t.email, message: 'Thanks!' } });
    const staff = await s.call('GET', `/ticket?id=${t.id}`);
    expect(staff.body.replies.map((r: { delivery?: unknown }) => r.delivery !== undefined)).toEqual([
      true,
      false,
      false,
    ]);

    // The customer's view: the reply, without its delivery state (staff only).
    const mine = await s.call('GET', `/ticket?id=${t.id}&email=${encodeURIComponent(t.email)}`, { key: s.keys.pk });
    expect(mine.status).toBe(200);
    expect(mine.body.replies.map((r: { message: string }) => r.message)).toContain('It ships today.');
    expect(mine.text).not.toContain('delivery');
    expect(mine.text).not.toContain('"sent"');
  });

  it('is failed, with the SMTP server’s refusal in one line, when the recipient is refused', async () => {
    const { s, smtp } = await setup(['ada@example.com']);
    const t = await createTicket(s);
    const res = await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'It ships today.' } });
    expect(res.status).toBe(201);
    const delivery = await settled(s, t.id, res.body.replies.at(-1).id);
    expect(delivery.state).toBe('failed');
    expect(delivery.error).toContain('550');
    expect(delivery.error).toContain('Recipient address rejected');
    expect(delivery.error).not.toContain('\n');
    expect(delivery.error).not.toContain(String(smtp.port)); // no port or address of ours
    expect(smtp.received).toEqual([]);
    const mine = await s.call('GET', `/ticket?id=${t.id}&email=${encodeURIComponent(t.email)}`, { key: s.keys.pk });
    expect(mine.text).not.toContain('Recipient address rejected');
  });
});
