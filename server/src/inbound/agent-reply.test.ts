import { generateKeyPairSync } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { signedInAgent } from '../test-support/agents.js';
import { deliver, startMailServer, SUPPORT } from '../test-support/mail-in.js';
import { eventually } from '../test-support/receiver.js';
import { createTicket, type TestServer } from '../test-support/server.js';
import type { ReceivedMail } from '../test-support/smtp.js';
import { openSse } from '../test-support/sse.js';
import { SPOOL_DIRS } from './spool.js';

// Agents answer by mail (issue 29): an agent's answer to a notification, from their own address, to
// the Reply-To signed for them and the ticket, becomes their reply (or, with #note, their note); any
// mail that fails a check goes to mail-in/failed/ with its reason and changes nothing.

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const CUSTOMER = 'ada.customer@customer.example';
const DAY = 86_400_000;

/**
 * The agents' domain as DNS would answer for it (no network here): its DKIM key under selector
 * `mail`, and an SPF record naming a mail server that is not our test client on loopback.
 */
function staffDomain() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const records = new Map<string, string[][]>([
    [
      'TXT mail._domainkey.staff.example',
      [[`v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`]],
    ],
    ['TXT staff.example', [['v=spf1 ip4:192.0.2.25 -all']]],
  ]);
  const dns = async (name: string, rr: string) => {
    const found = records.get(`${rr} ${name.toLowerCase()}`);
    if (found) return found;
    throw Object.assign(new Error(`query${rr} ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  };
  const dkim = {
    domainName: 'staff.example',
    keySelector: 'mail',
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
  return { records, dns, dkim };
}

async function setUp() {
  let offset = 0;
  const domain = staffDomain();
  const m = await startMailServer({ dns: domain.dns, clock: () => new Date(Date.now() + offset) });
  cleanup.push(m.close);
  const { s, smtp } = m;
  const ada = await signedInAgent(s, { name: 'Ada Agent', email: 'ada@staff.example', role: 'admin' });
  const grace = await signedInAgent(s, { name: 'Grace Agent', email: 'grace@staff.example' });
  const mail = await s.call('POST', '/admin?r=mail', {
    json: {
      from_name: 'Shop Support',
      from_address: SUPPORT,
      smtp: { host: '127.0.0.1', port: smtp.port },
      email_notify: {
        customer_on_create: false,
        customer_on_reply: true,
        agents_on_create: true,
        agents_on_customer_reply: true,
        agent_emails: ['ada@staff.example', 'grace@staff.example', 'desk@shop.example'],
      },
    },
  });
  expect(mail.status, mail.text).toBe(200);
  return { ...m, domain, ada, grace, later: (ms: number) => (offset += ms) };
}

/** The notifications of one ticket, by who got them: each agent's own, and the shared mailbox's. */
async function notifications(smtp: { waitFor(n: number): Promise<ReceivedMail[]> }, from: number, n: number) {
  const all = (await smtp.waitFor(from + n)).slice(from);
  const to = (address: string) => all.find((x) => x.to.includes(address))!;
  return { ada: to('ada@staff.example'), grace: to('grace@staff.example'), desk: to('desk@shop.example') };
}

/** An answer as a mail client writes it: the new text, then the notification quoted below. */
const answer = (notification: ReceivedMail, from: string, text: string, over: Record<string, unknown> = {}) => ({
  from,
  to: notification.replyTo,
  subject: `Re: ${notification.subject}`,
  inReplyTo: notification.messageId,
  text: `${text}\n\nOn Fri, 27 Nov 2026 at 11:00, Shop Support <${SUPPORT}> wrote:\n${notification.text
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n')}\n`,
  ...over,
});

const staffView = async (s: TestServer, id: string) => (await s.call('GET', `/ticket?id=${id}`)).body;

/** The reason file beside a failed mail, for the mail whose spool name is `file`. */
const failedReason = (s: TestServer, file: string) =>
  readFile(join(s.dataDir, SPOOL_DIRS.failed, `${file}.reason`), 'utf8');

// Each test starts a server, an SMTP server and sends a dozen mails over SMTP: slow on a loaded machine.
describe('agents answer by mail (issue 29)', { timeout: 180_000 }, () => {
  it('an agent’s signed answer becomes their reply (mailed to the customer, delivery, activity, live); #note makes a note', async () => {
    const { s, smtp, port, domain, ada, grace } = await setUp();
    const t = await createTicket(s, { email: CUSTOMER, name: 'Cora Customer', subject: 'Broken lid' });
    const n = await notifications(smtp, 0, 3);
    // Each agent gets their own copy with their own signed Reply-To; the shared mailbox keeps the old one.
    expect(n.ada.to).toEqual(['ada@staff.example']);
    expect(n.ada.replyTo).toMatch(new RegExp(`^help\\+${t.id}\\.a[0-9a-z]+\\.[0-9a-f]{16}@shop\\.example$`));
    expect(n.grace.replyTo).toMatch(/^help\+tkt_/);
    expect(n.grace.replyTo).not.toBe(n.ada.replyTo);
    expect(n.desk.replyTo).toBe('');
    expect(n.ada.text).toContain('Start it with a line #note');
    expect(n.ada.replyTo.split('@')[0]!.length).toBeLessThanOrEqual(64);

    const stream = await openSse(`${s.base}/events`, { Cookie: grace.cookie });
    cleanup.push(() => stream.close());
    await stream.next((e) => e.comment === 'connected');

    const sent = smtp.received.length;
    const out = await deliver(
      s,
      port,
      answer(n.ada, 'Ada Agent <ada@staff.example>', 'A new lid is on its way to you.', { dkim: domain.dkim }),
    );
    expect(out).toMatchObject({ kind: 'agent_replied', ticket: t.id, agent: ada.agent.id });
    const staff = await staffView(s, t.id);
    const reply = staff.replies.at(-1);
    expect(reply).toMatchObject({
      message: 'A new lid is on its way to you.',
      from_customer: false,
      author: 'Ada Agent',
      agent_id: ada.agent.id,
    });
    expect(reply).not.toHaveProperty('internal');
    // The quoted notification is set aside (staff only), not in the message.
    expect(reply.quoted).toContain('reply above this line');
    expect(reply.quoted).toContain('I ordered a teapot');
    expect(reply.message).not.toContain('reply above this line');
    // As from the console: the workflow's status (waiting on the customer), the activity names Ada.
    expect(staff.status).toBe('pending');
    expect(staff.activity.at(-1)).toMatchObject({
      type: 'status',
      from: 'open',
      to: 'pending',
      actor: { kind: 'agent', id: ada.agent.id },
    });
    // Live: the other agents' consoles hear it, by Ada.
    const live = await stream.next((e) => e.event === 'ticket.replied', 5000);
    expect(live.data).toMatchObject({ ticket: { id: t.id }, by: { kind: 'agent', id: ada.agent.id } });
    // Mailed to the customer, and its delivery state recorded on the reply.
    const [toCustomer] = (await smtp.waitFor(sent + 1)).slice(sent);
    expect(toCustomer!.to).toEqual([CUSTOMER]);
    expect(toCustomer!.text).toContain('A new lid is on its way to you.');
    expect(toCustomer!.text).not.toContain('#note');
    await s.running.deps.outbox.idle();
    expect((await staffView(s, t.id)).replies.at(-1).delivery).toMatchObject({ state: 'sent' });
    const pub = await s.call('GET', `/ticket?id=${t.id}&email=${encodeURIComponent(CUSTOMER)}`, { key: s.keys.pk });
    expect(pub.body.replies.map((r: { message: string }) => r.message)).toEqual(['A new lid is on its way to you.']);

    // `#note` on the first line: an internal note, naming a colleague; the customer sees nothing new.
    const before = smtp.received.length;
    const noted = await deliver(
      s,
      port,
      answer(n.ada, 'ada@staff.example', '#note\nThe warehouse is out of lids, @Grace Agent please order some.', {
        dkim: domain.dkim,
        messageId: '<note-1@staff.example>',
      }),
    );
    expect(noted).toMatchObject({ kind: 'agent_replied', ticket: t.id, agent: ada.agent.id, internal: true });
    const withNote = await staffView(s, t.id);
    expect(withNote.replies.at(-1)).toMatchObject({
      message: 'The warehouse is out of lids, @Grace Agent please order some.',
      internal: true,
      author: 'Ada Agent',
      mentions: [grace.agent.id],
    });
    // The note carries the original mail (staff only); the reply to the customer did not.
    expect(withNote.replies.at(-1).attachments.map((a: { name: string }) => a.name)).toEqual(['original-mail.eml']);
    expect(withNote.replies.at(-2).attachments).toEqual([]);
    expect(withNote.status).toBe('pending');
    const mention = (await smtp.waitFor(before + 1)).slice(before);
    expect(mention.map((x) => x.to)).toEqual([['grace@staff.example']]);
    expect(mention[0]!.subject).toContain('Ada Agent mentioned you');
    // Grace's mention mail is answerable too: her reply address, signed for her.
    expect(mention[0]!.replyTo).toMatch(new RegExp(`^help\\+${t.id}\\.a`));
    const pubAfter = await s.call('GET', `/ticket?id=${t.id}&email=${encodeURIComponent(CUSTOMER)}`, {
      key: s.keys.pk,
    });
    expect(pubAfter.text).not.toContain('warehouse');
    await s.running.deps.outbox.idle();
    expect(smtp.received.filter((x) => x.to.includes(CUSTOMER))).toHaveLength(1);

    // The same mail again (a redelivery): nothing new.
    const again = await deliver(
      s,
      port,
      answer(n.ada, 'ada@staff.example', '#note\nThe warehouse is out of lids, @Grace Agent please order some.', {
        dkim: domain.dkim,
        messageId: '<note-1@staff.example>',
      }),
    );
    expect(again).toMatchObject({ kind: 'duplicate', ticket: t.id });
    expect((await staffView(s, t.id)).replies).toHaveLength(2);
  });

  it('refuses every mail that fails a check: kept in mail-in/failed with its reason, the ticket unchanged', async () => {
    const { s, smtp, port, domain, grace, later } = await setUp();
    const t = await createTicket(s, { email: CUSTOMER, subject: 'Broken lid' });
    const other = await createTicket(s, { email: 'bob@customer.example', subject: 'Other ticket' });
    const n = await notifications(smtp, 0, 6);
    const signed = { dkim: domain.dkim };
    const outcomes = s.running.inbound.spool.outcomes;
    const refused = async (mail: Parameters<typeof deliver>[2], reason: string) => {
      const out = await deliver(s, port, mail);
      expect(out).toMatchObject({ kind: 'failed' });
      expect((out as { reason: string }).reason).toContain(reason);
      const file = outcomes.at(-1)!.file;
      expect(await readdir(join(s.dataDir, SPOOL_DIRS.failed))).toContain(`${file}.eml`);
      expect(await failedReason(s, file)).toContain(reason);
    };

    // Ada answers with Grace's reply address (the token was signed for Grace).
    await refused(answer(n.grace, 'ada@staff.example', 'Using Grace’s address.', signed), 'another agent');
    // Ada's token, with the other ticket's id put in the address.
    const moved = n.ada.replyTo.replace(t.id, other.id);
    await refused(
      { ...answer(n.ada, 'ada@staff.example', 'Into another ticket.', signed), to: moved },
      'another ticket',
    );
    // Someone who is no agent writes to Ada's reply address (a forwarded notification).
    await refused(answer(n.ada, 'mallory@evil.example', 'Refund to my IBAN please.'), 'is no agent');
    // From Ada's address with her valid token, but nothing shows it comes from staff.example: forged.
    await refused(answer(n.ada, 'ada@staff.example', 'Forged: refund to IBAN DE02.'), 'no DKIM signature');
    // An empty answer (only the quote).
    await refused({ ...answer(n.ada, 'ada@staff.example', '', signed) }, 'no text');
    // Grace deactivated: her valid, signed answer is refused.
    const off = await s.call('POST', '/admin?r=agents', {
      json: { id: grace.agent.id, name: grace.agent.name, email: grace.agent.email, active: false },
    });
    expect(off.status, off.text).toBe(200);
    await refused(answer(n.grace, 'grace@staff.example', 'Still answering.', signed), 'deactivated');
    // Grace removed from the team: she is no agent any more.
    expect((await s.call('DELETE', `/admin?r=agents&id=${grace.agent.id}`)).status).toBe(200);
    await refused(answer(n.grace, 'grace@staff.example', 'Answering after I left.', signed), 'is no agent');
    // Ada's address, 31 days on: expired.
    later(31 * DAY);
    await refused(answer(n.ada, 'ada@staff.example', 'Very late.', signed), 'expired');

    // None of them reached a ticket, opened one or mailed the customer.
    expect((await staffView(s, t.id)).replies).toEqual([]);
    expect((await staffView(s, other.id)).replies).toEqual([]);
    expect((await s.call('GET', '/list')).body.total).toBe(2);
    await s.running.deps.outbox.idle();
    expect(smtp.received.filter((x) => x.to.includes(CUSTOMER))).toEqual([]);
  });

  it('the customer writing to an agent’s reply address takes the customer’s path', async () => {
    const { s, smtp, port } = await setUp();
    const t = await createTicket(s, { email: CUSTOMER, subject: 'Broken lid' });
    const n = await notifications(smtp, 0, 3);
    const out = await deliver(s, port, answer(n.ada, CUSTOMER, 'I am the customer, forwarded this.'));
    expect(out).toMatchObject({ kind: 'replied', ticket: t.id });
    const reply = (await staffView(s, t.id)).replies.at(-1);
    expect(reply).toMatchObject({ from_customer: true, message: 'I am the customer, forwarded this.' });
  });

  it('SPF for the agent’s domain suffices; mail.agent_reply_domains: the token alone suffices on a listed domain', async () => {
    const { s, smtp, port, ada, domain } = await setUp();
    const t = await createTicket(s, { email: CUSTOMER, subject: 'Broken lid' });
    const n = await notifications(smtp, 0, 3);
    const unsigned = (id: string) =>
      answer(n.ada, 'ada@staff.example', 'Sent through our own relay.', { messageId: `<${id}@staff.example>` });
    // Not listed (the default): an unsigned answer is refused.
    expect((await s.call('GET', '/admin?r=mail')).body.mail.agent_reply_domains).toEqual([]);
    expect(await deliver(s, port, unsigned('a'))).toMatchObject({ kind: 'failed' });
    // Unsigned, but sent from a server staff.example's SPF names (our test client): taken.
    domain.records.set('TXT staff.example', [['v=spf1 ip4:127.0.0.1 ip6:::1 -all']]);
    const bySpf = await deliver(s, port, {
      ...answer(n.ada, 'ada@staff.example', 'Sent by our SPF-listed server.'),
      messageId: '<spf@staff.example>',
      envelope: { from: 'ada@staff.example', to: [n.ada.replyTo] },
    });
    expect(bySpf).toMatchObject({ kind: 'agent_replied', ticket: t.id, agent: ada.agent.id });
    domain.records.set('TXT staff.example', [['v=spf1 ip4:192.0.2.25 -all']]);

    const bad = await s.call('POST', '/admin?r=mail', {
      json: { from_address: SUPPORT, agent_reply_domains: ['not a domain'] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_failed' });
    expect(bad.body.error.details.map((d: { param: string }) => d.param)).toContain('agent_reply_domains.0');

    const current = (await s.call('GET', '/admin?r=mail')).body.mail;
    const set = await s.call('POST', '/admin?r=mail', { json: { ...current, agent_reply_domains: ['Staff.Example'] } });
    expect(set.status, set.text).toBe(200);
    expect(set.body.mail.agent_reply_domains).toEqual(['staff.example']);
    const out = await deliver(s, port, unsigned('b'));
    expect(out).toMatchObject({ kind: 'agent_replied', ticket: t.id, agent: ada.agent.id });
    // Listing the domain does not let anyone else in: a stranger with Ada's address is still refused.
    expect(
      await deliver(s, port, answer(n.ada, 'mallory@evil.example', 'Me too.', { messageId: '<c@evil.example>' })),
    ).toMatchObject({ kind: 'failed' });
    expect((await staffView(s, t.id)).replies.map((r: { message: string }) => r.message)).toEqual([
      'Sent by our SPF-listed server.',
      'Sent through our own relay.',
    ]);
  });

  it('a rule’s notify mail to an agent is answered by mail like any notification; to another address it has no Reply-To', async () => {
    const { s, smtp, port, domain, grace } = await setUp();
    const rules = await s.call('POST', '/admin?r=rules', {
      json: {
        rules: [
          {
            id: 'angry',
            name: 'Angry',
            event: 'ticket.replied',
            conditions: [{ field: 'message', op: 'contains', value: 'lawyer' }],
            actions: [
              { type: 'notify', value: 'Grace@Staff.example' },
              { type: 'notify', value: 'boss@shop.example' },
            ],
          },
        ],
      },
    });
    expect(rules.status, rules.text).toBe(200);
    const t = await createTicket(s, { email: CUSTOMER, name: 'Cora Customer', subject: 'Broken lid' });
    const wrote = await s.call('POST', '/reply', {
      key: s.keys.pk,
      json: { ticket_id: t.id, email: CUSTOMER, message: 'My lawyer will call you.' },
    });
    expect(wrote.status, wrote.text).toBe(201);
    const ruled = async () => {
      await s.running.deps.outbox.idle();
      return smtp.received.filter((m) => m.subject.includes('[rule angry]'));
    };
    await eventually(async () => (await ruled()).length === 2, 10_000, 'the rule’s two mails');
    const mails = await ruled();
    const toGrace = mails.find((m) => m.to.some((a) => a.toLowerCase() === 'grace@staff.example'))!;
    const toBoss = mails.find((m) => m.to.includes('boss@shop.example'))!;
    expect(mails.map((m) => m.to)).toEqual(expect.arrayContaining([['boss@shop.example']]));
    expect(toGrace.replyTo).toMatch(new RegExp(`^help\\+${t.id}\\.a[0-9a-z]+\\.[0-9a-f]{16}@shop\\.example$`));
    expect(toGrace.text).toContain('Start it with a line #note');
    expect(toBoss.replyTo).toBe('');
    expect(toBoss.text).not.toContain('#note');

    const out = await deliver(
      s,
      port,
      answer(toGrace, 'Grace Agent <grace@staff.example>', 'No need for lawyers: a refund is on its way.', {
        dkim: domain.dkim,
      }),
    );
    expect(out).toMatchObject({ kind: 'agent_replied', ticket: t.id, agent: grace.agent.id });
    expect((await staffView(s, t.id)).replies.at(-1)).toMatchObject({
      message: 'No need for lawyers: a refund is on its way.',
      from_customer: false,
      agent_id: grace.agent.id,
    });
  });
});
