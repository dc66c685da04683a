import { afterEach, describe, expect, it } from 'vitest';
import { signedInAgent } from '../test-support/agents.js';
import { createTicket, startServer, type TestServer } from '../test-support/server.js';
import { startSmtp } from '../test-support/smtp.js';
import { openSse } from '../test-support/sse.js';

// Mentions (issue 30, API.md "Mentions"): `@Name` in a note is kept by the agent's id, fills that
// agent's `mentions` view (counted in /counts), tells their console live and mails them.

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function server() {
  const s = await startServer();
  cleanup.push(() => s.close());
  return s;
}

const note = (s: TestServer, call: TestServer['call'], ticketId: string, message: string) =>
  call('POST', '/reply', { json: { ticket_id: ticketId, message, internal: true } });

describe('mentions in notes', () => {
  it('keep the agent by id, fill their mentions view (counted) and follow a rename', async () => {
    const s = await server();
    const ada = await signedInAgent(s, { name: 'Ada Lovelace', role: 'admin' });
    const grace = await signedInAgent(s, { name: 'Grace Hopper' });
    const gracie = await signedInAgent(s, { name: 'Grace' });
    const first = await createTicket(s, { subject: 'Dishwasher leaks' });
    const second = await createTicket(s, { subject: 'Lid missing' });
    const untouched = await createTicket(s, { subject: 'Nobody named' });

    const res = await note(s, ada.call, first.id, 'Looks like a refund, @grace hopper: can you check? cc @Grace.');
    expect(res.status, res.text).toBe(201);
    // The longer name wins at its @ (Grace Hopper, not Grace), the other @ names Grace; each once.
    expect(res.body.replies.at(-1).mentions).toEqual([grace.agent.id, gracie.agent.id]);
    // An address and a name that only starts like one name nobody.
    const plain = await note(s, ada.call, second.id, 'Mail ada@grace.example and @Gracefully, or @Grace Hopper');
    expect(plain.body.replies.at(-1).mentions).toEqual([grace.agent.id]);
    await note(s, ada.call, untouched.id, 'no one here, just an @ sign');

    const view = await grace.call('GET', '/list?view=mentions');
    expect(view.status, view.text).toBe(200);
    expect(view.body.data.map((t: { id: string }) => t.id)).toEqual([second.id, first.id]); // newest first
    expect(view.body.total).toBe(2);
    expect(view.body.data[0].mentions).toEqual([grace.agent.id]);
    expect((await gracie.call('GET', '/list?view=mentions')).body.data.map((t: { id: string }) => t.id)).toEqual([
      first.id,
    ]);
    expect((await ada.call('GET', '/list?view=mentions')).body.total).toBe(0);
    expect((await grace.call('GET', '/counts')).body.views.mentions).toBe(2);
    expect((await gracie.call('GET', '/counts')).body.views.mentions).toBe(1);

    // Renamed, Grace Hopper still finds the notes that named her; closed tickets leave the view.
    const renamed = await grace.call('PATCH', '/session/profile', { json: { name: 'Grace B. Hopper' } });
    expect(renamed.status, renamed.text).toBe(200);
    await s.call('POST', '/status', { json: { ticket_id: second.id, status: 'closed' } });
    expect((await grace.call('GET', '/list?view=mentions')).body.data.map((t: { id: string }) => t.id)).toEqual([
      first.id,
    ]);
    expect((await grace.call('GET', '/counts')).body.views.mentions).toBe(1);
    // The new name is mentioned from now on; the old one names nobody.
    const again = await note(s, ada.call, untouched.id, '@Grace B. Hopper and @Grace Hopper?');
    expect(again.body.replies.at(-1).mentions).toEqual([grace.agent.id, gracie.agent.id]);

    // A secret key is nobody: the view is refused, its count is 0; a customer never sees a mention.
    const bySk = await s.call('GET', '/list?view=mentions');
    expect(bySk.status).toBe(400);
    expect(bySk.body.error).toMatchObject({ code: 'validation_failed', param: 'view' });
    expect((await s.call('GET', '/counts')).body.views.mentions).toBe(0);
    const pub = await s.call('GET', `/ticket?id=${first.id}&email=${first.email}`, { key: s.keys.pk });
    expect(pub.text).not.toContain('mentions');
    expect(pub.text).not.toContain(grace.agent.id);
  });

  it('tell the mentioned agent live and by mail, and not the writer', async () => {
    const smtp = await startSmtp();
    cleanup.push(() => smtp.close());
    const s = await server();
    const ada = await signedInAgent(s, { name: 'Ada Lovelace', role: 'admin', email: 'ada.l@shop.example' });
    const grace = await signedInAgent(s, { name: 'Grace Hopper', email: 'grace.h@shop.example' });
    const mail = await s.call('POST', '/admin?r=mail', {
      json: {
        from_address: 'help@shop.example',
        smtp: { host: '127.0.0.1', port: smtp.port, secure: false },
        email_notify: { customer_on_create: false, customer_on_reply: false, agents_on_create: false },
      },
    });
    expect(mail.status, mail.text).toBe(200);
    const t = await createTicket(s, { subject: 'Broken lid' });
    const stream = await openSse(`${s.base}/events`, { Cookie: grace.cookie });
    cleanup.push(() => stream.close());
    expect(stream.status).toBe(200);
    await stream.next((e) => e.comment === 'connected');

    const res = await note(s, ada.call, t.id, 'VIP: @Grace Hopper please call her, and @Ada Lovelace will refund');
    expect(res.status, res.text).toBe(201);
    const e = await stream.next((x) => x.event === 'ticket.mentioned', 5000);
    expect(e.data.ticket).toMatchObject({ id: t.id, number: t.number });
    expect(e.data.mentioned).toEqual([grace.agent.id, ada.agent.id]);
    expect(e.data.by).toMatchObject({ kind: 'agent', id: ada.agent.id });

    const [m] = await smtp.waitFor(1);
    expect(m!.to).toEqual(['grace.h@shop.example']);
    expect(m!.subject).toContain(`#${t.number}`);
    expect(m!.subject).toContain('Ada Lovelace mentioned you');
    expect(m!.text).toContain('please call her');
    expect(m!.text).toContain(`/console/tickets/${t.id}`);
    await s.running.deps.outbox.idle();
    expect(await s.running.deps.outbox.pending()).toEqual([]);
    // The writer named herself: no mail to her, and none to the customer.
    expect(smtp.received.map((x) => x.to)).toEqual([['grace.h@shop.example']]);
  });
});
