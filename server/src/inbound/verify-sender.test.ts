import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { deliver, startMailServer, SUPPORT } from '../test-support/mail-in.js';
import { createTicket, removeStore, type TestServer } from '../test-support/server.js';
import { SPOOL_DIRS } from './spool.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const CUSTOMER = 'ada@customer.example';
const FORGED = 'Please send the refund to IBAN DE02 1203 0000 0000 2020 51 instead.';

/**
 * The customer's domain as DNS would answer for it (there is no network here): its DKIM key under
 * selector `mail`, and an SPF record naming its mail server, which is not our test client on loopback
 * unless a test says so.
 */
function customerDomain() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const records = new Map<string, string[][]>([
    [
      `TXT mail._domainkey.customer.example`,
      [[`v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`]],
    ],
    ['TXT customer.example', [['v=spf1 ip4:192.0.2.25 -all']]],
  ]);
  const dns = async (name: string, rr: string) => {
    const found = records.get(`${rr} ${name.toLowerCase()}`);
    if (found) return found;
    throw Object.assign(new Error(`query${rr} ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  };
  const dkim = {
    domainName: 'customer.example',
    keySelector: 'mail',
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
  return { records, dns, dkim };
}

const closeTicket = async (s: TestServer, id: string) =>
  expect((await s.call('POST', '/status', { json: { ticket_id: id, status: 'closed' } })).status).toBe(200);
const staffView = async (s: TestServer, id: string) => (await s.call('GET', `/ticket?id=${id}`)).body;
const customerView = (s: TestServer, id: string) =>
  s.call('GET', `/ticket?id=${id}&email=${encodeURIComponent(CUSTOMER)}`, { key: s.keys.pk });

describe('mail in: who may write in the customer’s voice (issue 28)', () => {
  it('keeps a forged reply (right From, known Message-ID, no token) out of the customer’s voice; DKIM, SPF or the token make it theirs', async () => {
    const domain = customerDomain();
    const m = await startMailServer({ dns: domain.dns });
    cleanup.push(m.close);
    const { s, smtp, port } = m;
    const settings = await s.call('POST', '/admin?r=mail', {
      json: {
        from_name: 'Shop Support',
        from_address: SUPPORT,
        smtp: { host: '127.0.0.1', port: smtp.port },
        email_notify: {
          customer_on_create: true,
          customer_on_reply: true,
          agents_on_customer_reply: true,
          agent_emails: ['agents@shop.example'],
        },
      },
    });
    expect(settings.status).toBe(200);
    const t = await createTicket(s, { email: CUSTOMER, subject: 'Refund for order 42' });
    const [confirmation] = await smtp.waitFor(1);
    await closeTicket(s, t.id);
    const before = await customerView(s, t.id);
    expect(before.status).toBe(200);

    // The forger knows the customer's address and our Message-ID (both travel in every mail), not the token.
    const reply = {
      from: CUSTOMER,
      to: SUPPORT,
      subject: 'Re: Refund for order 42',
      inReplyTo: confirmation!.messageId,
    };
    const forged = await deliver(s, port, { ...reply, text: FORGED });
    expect(forged).toMatchObject({ kind: 'replied', ticket: t.id, unverified: true });
    // Support sees it, marked; the ticket stays closed.
    const staff = await staffView(s, t.id);
    expect(staff.status).toBe('closed');
    expect(staff.replies).toHaveLength(1);
    expect(staff.replies[0]).toMatchObject({ message: FORGED, from_customer: true, unverified: true });
    // The customer's view is what it was, byte for byte: not shown as theirs, nothing new.
    const after = await customerView(s, t.id);
    expect(after.text).toBe(before.text);
    expect(after.text).not.toContain('IBAN');
    const poll = await s.call('GET', `/updates?watch=${t.id}:0:${encodeURIComponent(CUSTOMER)}`, { key: s.keys.pk });
    expect(poll.body).toMatchObject({ unread: 0, data: [{ id: t.id, status: 'closed', support_replies: 0 }] });
    expect(poll.text).not.toContain('IBAN');
    // The agents hear of it, told it is unverified.
    const [, toAgents] = await smtp.waitFor(2);
    expect(toAgents).toMatchObject({
      to: ['agents@shop.example'],
      subject: '[#1001] Unverified sender: Refund for order 42',
    });
    expect(toAgents!.text).toContain(
      'claims to be from Ada Lovelace <ada@customer.example> on ticket #1001 but could not be verified',
    );

    // The same mail signed by the customer's domain is theirs: it reopens and the customer sees it.
    const signed = await deliver(s, port, { ...reply, text: 'Signed: the lid is still broken.', dkim: domain.dkim });
    expect(signed).toMatchObject({ kind: 'replied', ticket: t.id });
    expect(signed).not.toHaveProperty('unverified');
    expect((await staffView(s, t.id)).status).toBe('open');
    const seen = (await customerView(s, t.id)).body.replies.map((r: { message: string }) => r.message);
    expect(seen).toEqual(['Signed: the lid is still broken.']);

    // Sent to the signed reply address (the token), unsigned: theirs, as before.
    await closeTicket(s, t.id);
    const byToken = await deliver(s, port, {
      from: CUSTOMER,
      to: confirmation!.replyTo,
      subject: 'Re: Refund for order 42',
      text: 'By the reply address.',
    });
    expect(byToken).toMatchObject({ kind: 'replied', ticket: t.id });
    expect(byToken).not.toHaveProperty('unverified');
    expect((await staffView(s, t.id)).status).toBe('open');

    // Unsigned, but from a server the domain's SPF names (our SMTP session's client): theirs.
    domain.records.set('TXT customer.example', [['v=spf1 ip4:127.0.0.1 ip6:::1 -all']]);
    await closeTicket(s, t.id);
    const bySpf = await deliver(s, port, { ...reply, text: 'From our own mail server.' });
    expect(bySpf).toMatchObject({ kind: 'replied', ticket: t.id });
    expect(bySpf).not.toHaveProperty('unverified');
    expect((await staffView(s, t.id)).status).toBe('open');
    const final = (await customerView(s, t.id)).body.replies.map((r: { message: string }) => r.message);
    expect(final).toEqual(['Signed: the lid is still broken.', 'By the reply address.', 'From our own mail server.']);
  });

  it('still works through a spool the previous version wrote (recipients as a bare array, no SMTP session)', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'ticketing-old-spool-'));
    cleanup.push(() => removeStore(dataDir));
    const first = await startMailServer({ dataDir });
    const t = await createTicket(first.s, { email: CUSTOMER, subject: 'Before the upgrade' });
    const [confirmation] = await first.smtp.waitFor(1);
    await first.close();
    // What the old version left on disk: the mail, and beside it only the envelope's recipients.
    const name = '00000000000001-oldformat0000';
    await writeFile(join(dataDir, SPOOL_DIRS.spool, `${name}.rcpt`), JSON.stringify([confirmation!.replyTo]));
    await writeFile(
      join(dataDir, SPOOL_DIRS.spool, `${name}.eml`),
      `From: ${CUSTOMER}\r\nTo: ${SUPPORT}\r\nSubject: Re: Before the upgrade\r\nMessage-ID: <old.1@customer.example>\r\n\r\nSpooled by the old version.\r\n`,
    );
    const second = await startMailServer({ dataDir });
    cleanup.push(second.close);
    await second.s.running.inbound.spool.idle();
    expect(second.s.running.inbound.spool.outcomes.map((o) => o.outcome)).toContainEqual({
      kind: 'replied',
      ticket: t.id,
      reply: expect.any(String),
    });
    const replies = (await staffView(second.s, t.id)).replies;
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject({ message: 'Spooled by the old version.', from_customer: true });
    expect(replies[0]).not.toHaveProperty('unverified');
  });
});
