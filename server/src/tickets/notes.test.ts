import { afterEach, describe, expect, it } from 'vitest';
import { eventually, startReceiver } from '../test-support/receiver.js';
import { createTicket, PNG_1PX, startServer, type TestServer } from '../test-support/server.js';
import { startSmtp } from '../test-support/smtp.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function server(env: Record<string, string> = {}) {
  const s = await startServer({ env });
  cleanup.push(() => s.close());
  return s;
}

const NOTE = 'Internal: this customer is on the VIP list, refund at once';

async function addNote(s: TestServer, ticketId: string, message = NOTE) {
  const res = await s.call('POST', '/reply', { json: { ticket_id: ticketId, message, internal: true } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('internal notes', () => {
  it('are kept for staff and hidden from the customer in every read', async () => {
    const s = await server();
    const t = await createTicket(s);
    const before = await s.call('GET', `/ticket?id=${t.id}&email=${t.email}`, { key: s.keys.pk });
    const staff = await addNote(s, t.id);
    const note = staff.replies.at(-1);
    expect(note).toMatchObject({ message: NOTE, internal: true, from_customer: false });

    // Support reads it in the ticket.
    const full = await s.call('GET', `/ticket?id=${t.id}`);
    expect(full.body.replies).toHaveLength(1);
    expect(full.body.replies[0].internal).toBe(true);

    // The customer's view is what it was, byte for byte, so its ETag still matches (304).
    const after = await s.call('GET', `/ticket?id=${t.id}&email=${t.email}`, { key: s.keys.pk });
    expect(after.text).toBe(before.text);
    expect(after.text).not.toContain('VIP');
    const etag = before.headers.get('etag')!;
    const again = await s.call('GET', `/ticket?id=${t.id}&email=${t.email}`, {
      key: s.keys.pk,
      headers: { 'If-None-Match': etag },
    });
    expect(again.status).toBe(304);

    // A customer's own reply answers with the ticket in their view: still no note.
    const answer = await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: t.id, email: t.email, message: 'Any news?' },
    });
    expect(answer.status).toBe(201);
    expect(answer.text).not.toContain('VIP');
    expect(answer.body.replies.map((r: { message: string }) => r.message)).toEqual(['Any news?']);
    // Staff see both, in order.
    const both = await s.call('GET', `/ticket?id=${t.id}`);
    expect(both.body.replies.map((r: { message: string }) => r.message)).toEqual([NOTE, 'Any news?']);
  });

  it('refuse a public key (403 secret_key_required) and store nothing', async () => {
    const s = await server();
    const t = await createTicket(s);
    const res = await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: t.id, email: t.email, message: 'sneaky', internal: true },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('secret_key_required');
    const form = await s.call('POST', '/reply', {
      key: s.keys.pk,
      form: { ticket_id: t.id, email: t.email, message: 'sneaky', internal: 'on' },
    });
    expect(form.status).toBe(403);
    expect((await s.call('GET', `/ticket?id=${t.id}`)).body.replies).toEqual([]);
  });

  it('do not count as support’s first response (the SLA stays on first response)', async () => {
    const s = await server();
    await s.call('POST', '/admin?r=sla', {
      json: {
        enabled: true,
        business_hours_only: false,
        first_response_minutes: { low: 60, normal: 60, high: 60, urgent: 60 },
        resolution_minutes: { low: 600, normal: 600, high: 600, urgent: 600 },
      },
    });
    const t = await createTicket(s);
    const first = (await s.call('GET', `/ticket?id=${t.id}`)).body.due_at;
    const noted = await addNote(s, t.id);
    expect(noted.due_at).toBe(first);
    const replied = await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'On it' } });
    expect(replied.body.due_at).not.toBe(first);
  });

  it('keep their files from the customer', async () => {
    const s = await server();
    const t = await createTicket(s);
    const note = (await addNote(s, t.id)).replies.at(-1);
    const form = new FormData();
    form.append('ticket_id', t.id);
    form.append('reply_id', note.id);
    form.append('file', new Blob([PNG_1PX], { type: 'image/png' }), 'screenshot.png');
    const up = await s.call('POST', '/upload', { multipart: form });
    expect(up.status, up.text).toBe(201);
    const fileId = up.body.id;
    expect((await s.call('GET', `/file?ticket_id=${t.id}&file_id=${fileId}`)).status).toBe(200);
    const customer = await s.call('GET', `/file?ticket_id=${t.id}&file_id=${fileId}&email=${t.email}`, {
      key: s.keys.pk,
    });
    expect(customer.status).toBe(404);
    expect(customer.body.error.code).toBe('file_not_found');
    // Nor may a customer attach files to a note they cannot see.
    const theirs = new FormData();
    theirs.append('ticket_id', t.id);
    theirs.append('email', t.email);
    theirs.append('reply_id', note.id);
    theirs.append('file', new Blob([PNG_1PX], { type: 'image/png' }), 'x.png');
    const refused = await s.call('POST', '/upload', { key: s.keys.pk, multipart: theirs });
    expect(refused.status).toBe(400);
    expect(refused.body.error.param).toBe('reply_id');
  });

  it('are never mailed to the customer', async () => {
    const smtp = await startSmtp();
    cleanup.push(() => smtp.close());
    const s = await server();
    await s.call('POST', '/admin?r=mail', {
      json: {
        from_address: 'help@shop.example',
        smtp: { host: '127.0.0.1', port: smtp.port, secure: false },
        email_notify: {
          customer_on_create: false,
          customer_on_reply: true,
          agents_on_create: false,
          agents_on_customer_reply: true,
          agent_emails: ['desk@shop.example'],
        },
      },
    });
    const t = await createTicket(s);
    await addNote(s, t.id);
    // A support reply after the note is mailed: once it has arrived, the note would have too.
    await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'We are on it.' } });
    const [mail] = await smtp.waitFor(1);
    expect(mail!.to).toContain('ada@example.com');
    expect(mail!.text).toContain('We are on it.');
    await s.running.deps.outbox.idle();
    expect(await s.running.deps.outbox.pending()).toEqual([]);
    expect(smtp.received).toHaveLength(1);
    for (const m of smtp.received) expect(`${m.subject} ${m.text} ${m.html}`).not.toContain('VIP');
  });

  it('go to webhooks as ticket.note_added', async () => {
    const hook = await startReceiver();
    cleanup.push(() => hook.close());
    const s = await server({ TICKETING_WEBHOOKS_ALLOW_LOCAL: 'on' });
    const modules = ['kb', 'uploads', 'rating', 'close_request'].map((name) => ({ name, enabled: true }));
    await s.call('POST', '/admin?r=modules', {
      json: { modules: [...modules, { name: 'webhooks', enabled: true, settings: { url: `${hook.url}/h` } }] },
    });
    const t = await createTicket(s);
    await addNote(s, t.id);
    await eventually(() => hook.received.some((r) => JSON.parse(r.body).type === 'ticket.note_added'));
    const types = hook.received.map((r) => JSON.parse(r.body).type);
    expect(types).not.toContain('ticket.replied');
    const body = JSON.parse(hook.received.find((r) => JSON.parse(r.body).type === 'ticket.note_added')!.body);
    expect(body.data.ticket.replies[0]).toMatchObject({ message: NOTE, internal: true });
    const audit = (await s.call('GET', '/admin?r=audit')).body.audit;
    expect(audit.some((a: { action: string }) => a.action === 'ticket.note_added')).toBe(true);
  });
});
