import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import { deliver, sendTo, startMailServer, SUPPORT } from '../test-support/mail-in.js';
import { createTicket, type TestServer } from '../test-support/server.js';
import { REPLY_MARKER } from '../mail/threading.js';
import { SPOOL_DIRS } from './spool.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function setup(env: Record<string, string> = {}) {
  const m = await startMailServer({ env });
  cleanup.push(m.close);
  return m;
}

const ticket = async (s: TestServer, id: string) => (await s.call('GET', `/ticket?id=${id}`)).body;

describe('mail in', () => {
  it('opens a ticket from a mail, answers it threaded, and takes the answer by the reply address', async () => {
    const { s, smtp, port } = await setup();
    const first = await deliver(s, port, {
      from: 'Ada Lovelace <ada@example.com>',
      to: SUPPORT,
      subject: 'Teapot broken',
      text: 'My teapot arrived broken.\n\nAda',
      messageId: '<first.1@example.com>',
    });
    expect(first.kind).toBe('created');
    const id = (first as { ticket: string }).ticket;
    const t = await ticket(s, id);
    expect(t).toMatchObject({ subject: 'Teapot broken', name: 'Ada Lovelace', email: 'ada@example.com' });
    expect(t.message).toBe('My teapot arrived broken.\n\nAda');
    expect(t.attachments.map((a: { name: string; type: string }) => [a.name, a.type])).toEqual([
      ['original-mail.eml', 'message/rfc822'],
    ]);
    // The original is downloadable whole.
    const eml = await s.call('GET', `/file?ticket_id=${id}&file_id=${t.attachments[0].id}`);
    expect(eml.status).toBe(200);
    expect(eml.text).toContain('Message-ID: <first.1@example.com>');
    const [confirmation] = await smtp.waitFor(1);
    expect(confirmation!.inReplyTo).toBe(`<${id}@shop.example>`);
    expect(confirmation!.references).toEqual(['<first.1@example.com>', `<${id}@shop.example>`]);
    // The customer presses Reply: to the Reply-To, quoting our mail under the marker.
    const answer = await deliver(s, port, {
      from: 'ada@example.com',
      to: confirmation!.replyTo,
      subject: `Re: ${confirmation!.subject}`,
      inReplyTo: confirmation!.messageId,
      text: `It is the lid.\n\nOn Mon, 23 Nov 2026 at 11:00, Shop Support <help@shop.example> wrote:\n> ${REPLY_MARKER}\n> Hi Ada,\n`,
    });
    expect(answer).toMatchObject({ kind: 'replied', ticket: id });
    const after = await ticket(s, id);
    expect(after.replies).toHaveLength(1);
    expect(after.replies[0]).toMatchObject({ message: 'It is the lid.', from_customer: true, author: 'Ada Lovelace' });
  });

  it('never lets another sender into a ticket: a reply from an address that is not the ticket’s opens a new one', async () => {
    const { s, smtp, port } = await setup();
    const t = await createTicket(s, { email: 'victim@example.com', subject: 'Private' });
    const [mail] = await smtp.waitFor(1);
    for (const attempt of [
      { to: mail!.replyTo }, // the real reply address, leaked
      { to: SUPPORT, inReplyTo: mail!.messageId }, // a known Message-ID
    ]) {
      const out = await deliver(s, port, {
        from: 'mallory@evil.example',
        subject: 'Re: Private',
        text: 'let me in',
        ...attempt,
      });
      expect(out.kind).toBe('created');
      expect((out as { ticket: string }).ticket).not.toBe(t.id);
    }
    // A made-up token for a real ticket id is no way in either (and the sender matches!).
    const forged = mail!.replyTo.replace(/\.[0-9a-f]{16}@/, '.0123456789abcdef@');
    const out = await deliver(s, port, { from: 'victim@example.com', to: forged, subject: 'x', text: 'forged' });
    expect(out.kind).toBe('created');
    expect((await ticket(s, t.id)).replies).toEqual([]);
  });

  it('counts a redelivery of the same Message-ID once', async () => {
    const { s, port } = await setup();
    const mail = {
      from: 'ada@example.com',
      to: SUPPORT,
      subject: 'Once',
      text: 'hello',
      messageId: '<dup.1@example.com>',
    };
    const first = await deliver(s, port, mail);
    const again = await deliver(s, port, mail);
    expect(first.kind).toBe('created');
    expect(again).toEqual({ kind: 'duplicate', ticket: (first as { ticket: string }).ticket });
    expect((await s.call('GET', '/list')).body.total).toBe(1);
  });

  it('refuses other recipients at RCPT with 550, so it relays nothing', async () => {
    const { port } = await setup();
    await expect(
      sendTo(port, { from: 'ada@example.com', to: 'someone@elsewhere.example', subject: 'x', text: 'x' }),
    ).rejects.toMatchObject({ responseCode: 550 });
    await expect(
      sendTo(port, { from: 'ada@example.com', to: 'ceo@shop.example', subject: 'x', text: 'x' }),
    ).rejects.toMatchObject({ responseCode: 550 });
  });

  it('refuses mail above the size limit', async () => {
    const { s, port } = await setup({ TICKETING_INBOUND_MAX_MB: '1' });
    await expect(
      sendTo(port, { from: 'ada@example.com', to: SUPPORT, subject: 'big', text: 'x'.repeat(1_200_000) }),
    ).rejects.toMatchObject({ responseCode: 552 });
    expect((await s.call('GET', '/list')).body.total).toBe(0);
  });

  it('caps automatic answers per sender per day, and keeps blocked senders’ mail for review', async () => {
    const { s, smtp, port } = await setup({ TICKETING_RATE_LIMIT_PK_CREATES_PER_10_MINUTES: '100' });
    for (let i = 0; i < 7; i++)
      await deliver(s, port, { from: 'loop@example.com', to: SUPPORT, subject: `n${i}`, text: 'hi' });
    await s.running.deps.outbox.idle();
    const held = (await s.call('GET', '/admin?r=outbox')).body.outbox.filter(
      (e: { state: string }) => e.state === 'suppressed_limit',
    );
    expect(held).toHaveLength(2); // 5 answered, 2 held back
    await smtp.waitFor(5);
    await s.call('POST', '/admin?r=blocklists', { json: { emails: ['spam@example.com'] } });
    const out = await deliver(s, port, { from: 'spam@example.com', to: SUPPORT, subject: 'buy', text: 'buy now' });
    expect(out.kind).toBe('refused');
    const refused = await readdir(join(s.dataDir, SPOOL_DIRS.refused));
    expect(refused.filter((f) => f.endsWith('.eml'))).toHaveLength(1);
    const reason = refused.find((f) => f.endsWith('.reason'))!;
    expect(await readFile(join(s.dataDir, SPOOL_DIRS.refused, reason), 'utf8')).toContain('blocklist');
    expect(await readdir(join(s.dataDir, SPOOL_DIRS.spool))).toEqual([]);
  });

  it('keeps a mail it cannot use in the failed folder, with the reason, and logs it', async () => {
    const { s, port } = await setup();
    const raw = 'To: help@shop.example\r\nSubject: who sent this\r\n\r\nno From header at all\r\n';
    const out = await deliver(s, port, { raw, from: 'bounce@example.net', to: [SUPPORT] });
    expect(out).toEqual({ kind: 'failed', reason: 'the mail names no sender address' });
    const failed = join(s.dataDir, SPOOL_DIRS.failed);
    const files = await readdir(failed);
    const eml = files.find((f) => f.endsWith('.eml'))!;
    expect(await readFile(join(failed, eml), 'utf8')).toBe(raw);
    expect(await readFile(join(failed, eml.replace(/\.eml$/, '.reason')), 'utf8')).toContain('no sender');
    expect(s.logs.some((l) => l.includes('kept in the failed folder'))).toBe(true);
    expect((await s.call('GET', '/list')).body.total).toBe(0);
  });

  it('offers STARTTLS with a configured certificate, and only then', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ticketing-tls-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=mx.shop.example',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const plain = await setup();
    const tls = await setup({
      TICKETING_INBOUND_TLS_CERT: join(dir, 'cert.pem'),
      TICKETING_INBOUND_TLS_KEY: join(dir, 'key.pem'),
    });
    const send = (port: number) => {
      const t = nodemailer.createTransport({
        host: '127.0.0.1',
        port,
        requireTLS: true, // STARTTLS or nothing
        tls: { rejectUnauthorized: false }, // our throwaway certificate
      });
      return t
        .sendMail({ from: 'ada@example.com', to: SUPPORT, subject: 'over TLS', text: 'secret' })
        .finally(() => t.close());
    };
    await expect(send(plain.port)).rejects.toThrow(/STARTTLS/i);
    await send(tls.port);
    await tls.s.running.inbound.spool.idle();
    expect((await tls.s.call('GET', '/list')).body.data.map((t: { subject: string }) => t.subject)).toEqual([
      'over TLS',
    ]);
  });

  it('names the files it did not attach in the confirmation, as in the ticket', async () => {
    const { s, smtp, port } = await setup();
    const out = await deliver(s, port, {
      from: 'ada@example.com',
      to: SUPPORT,
      subject: 'With files',
      text: 'See attached.',
      attachments: [
        { filename: 'setup.exe', content: Buffer.from('MZ\x90\x00') },
        { filename: 'notes.txt', content: 'plain notes' },
      ],
    });
    expect(out.kind).toBe('created');
    const t = await ticket(s, (out as { ticket: string }).ticket);
    expect(t.attachments.map((a: { name: string }) => a.name).sort()).toEqual(['notes.txt', 'original-mail.eml']);
    expect(t.message).toMatch(/^See attached\.\n\n\[Not attached: setup\.exe \(\.exe files are not accepted/);
    const [confirmation] = await smtp.waitFor(1);
    expect(confirmation!.text).toContain(
      'These files could not be attached:\n- setup.exe (.exe files are not accepted',
    );
    expect(confirmation!.text).not.toContain('notes.txt');
  });
});
