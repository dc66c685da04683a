import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, startMailServer, SUPPORT } from '../test-support/mail-in.js';
import { createTicket, type TestServer } from '../test-support/server.js';
import type { ReceivedMail } from '../test-support/smtp.js';
import { BOUNCING_TAG } from './mail-in.js';

// Mails written by hand in the shapes real clients and servers send (corpus/*.eml), each delivered
// over SMTP on loopback to the built-in receiver of a real server, with what must become of it.

const CORPUS = join(import.meta.dirname, 'corpus');

interface Expected {
  outcome: 'created' | 'replied' | 'bounce' | 'ignored' | 'failed';
  /** Why a failed mail failed. */
  reason?: string;
  /** The new text, exactly. */
  message?: string;
  /** Text the ticket or reply must (or must not) contain. */
  contains?: string[];
  lacks?: string[];
  subject?: string;
  name?: string;
  /** The stored files, by name, the original .eml included. */
  files?: string[];
}

const CASES: [file: string, expected: Expected][] = [
  ['gmail-reply.eml', { outcome: 'replied', message: 'Thanks! The order number is 4711, in case that helps.' }],
  ['outlook-reply.eml', { outcome: 'replied', message: 'Also: the parcel tracking page says "returned to sender".' }],
  ['apple-mail-reply.eml', { outcome: 'replied', message: 'Never mind, it just arrived – thank you!' }],
  [
    'answer-below-quote.eml',
    {
      outcome: 'replied',
      message:
        'Здравствуйте,\n\nНомер заказа 4711, посылка так и не пришла.\n\nС уважением,\nАда\n\n' +
        'P.S. the parcel number is 00340434161094042557',
      lacks: ['Could you tell us your order number?'],
    },
  ],
  [
    'html-only.eml',
    {
      outcome: 'created',
      subject: 'Invoice address wrong',
      name: 'Grace Hopper',
      contains: ['the invoice for order 4712 names the wrong street & number.', 'Harbour Road 7'],
      lacks: ['<p>', 'alert(1)'],
    },
  ],
  [
    'forwarded.eml',
    {
      outcome: 'created',
      contains: ['Can you tell me what this means?', 'We tried to deliver parcel 00340434161094042557'],
    },
  ],
  ['dsn-bounce.eml', { outcome: 'bounce' }],
  ['out-of-office.eml', { outcome: 'ignored' }],
  ['mailing-list.eml', { outcome: 'ignored' }],
  [
    'iso-8859-1.eml',
    {
      outcome: 'created',
      subject: 'Brücke für den Teekessel fehlt',
      name: 'Jürgen Müller',
      contains: ['bei meiner Bestellung fehlt die Brücke für den Teekessel.', 'Mit freundlichen Grüßen'],
    },
  ],
  [
    // No charset named, 8-bit GB2312 in the subject, the sender's name and the text.
    'gb2312-undeclared.eml',
    {
      outcome: 'created',
      subject: '订单还没有到',
      name: '林伟',
      message: '你好，\n\n我的订单 4711 还没有到，请帮我查一下。\n\n谢谢',
    },
  ],
  [
    // A phone's Shift_JIS text labelled ISO-2022-JP.
    'sjis-labelled-jis.eml',
    {
      outcome: 'created',
      subject: '注文について',
      message: 'こんにちは。\n注文した商品がまだ届いていません。',
    },
  ],
  [
    // From names no address a lenient parser should guess at: kept in mail-in/failed/, no ticket.
    'unparsable-sender.eml',
    { outcome: 'failed', reason: 'is not an address (RFC 5322)' },
  ],
  [
    // Two mailboxes in From: the Sender header says who sent it, and the name is that one's.
    'two-from-mailboxes.eml',
    { outcome: 'created', name: 'Bob Builder', contains: ['We both ordered'] },
  ],
  [
    'oversized-attachment.eml',
    {
      outcome: 'created',
      contains: ['Here are the scans', '[Not attached: scans.pdf (larger than 5 MB)]'],
      files: ['delivery-note.txt', 'original-mail.eml'],
    },
  ],
  [
    // A phone's unnamed "image/jpg" parts, one shown inline by cid: named from their content.
    'unnamed-parts.eml',
    {
      outcome: 'created',
      contains: ['The lid came broken'],
      lacks: ['Not attached'],
      files: ['inline-1.jpg', 'attachment-2.jpg', 'original-mail.eml'],
    },
  ],
  [
    'forbidden-type.eml',
    {
      outcome: 'created',
      contains: [
        'See the photo:',
        'invoice.exe (.exe files are not accepted',
        'photo.jpg (photo.jpg is not really a .jpg file.)',
      ],
      files: ['inline-1.png', 'original-mail.eml'],
    },
  ],
];

let server: { s: TestServer; port: number; close(): Promise<void> };
let ada: { id: string };
let gone: { id: string };
let toAda: ReceivedMail;
let toGone: ReceivedMail;

beforeAll(async () => {
  server = await startMailServer();
  const { s, smtp } = server as typeof server & { smtp: { waitFor(n: number): Promise<ReceivedMail[]> } };
  ada = await createTicket(s, { name: 'Ada Lovelace', email: 'ada@example.com' });
  gone = await createTicket(s, { email: 'gone@example.com' });
  const mails = await smtp.waitFor(2);
  toAda = mails.find((m) => m.to.includes('ada@example.com'))!;
  toGone = mails.find((m) => m.to.includes('gone@example.com'))!;
});
afterAll(() => server.close());

async function corpusMail(file: string): Promise<Buffer> {
  let text = (await readFile(join(CORPUS, file))).toString('latin1');
  const fill: Record<string, string> = {
    REPLY_TO: toAda.replyTo,
    IN_REPLY_TO: toAda.messageId,
    TICKET: ada.id,
    BOUNCED_MESSAGE_ID: toGone.messageId,
    BOUNCED_TICKET: gone.id,
  };
  text = text.replace(/\{\{([A-Z0-9_]+)\}\}/g, (whole, key: string) =>
    key === 'BIG_PDF_BASE64'
      ? Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(5_300_000, 0x20)])
          .toString('base64')
          .replace(/.{76}/g, '$&\n')
      : (fill[key] ?? whole),
  );
  return Buffer.from(text.replace(/\r?\n/g, '\r\n'), 'latin1');
}

const results: string[] = [];

describe('the mail corpus', () => {
  it.each(CASES)('%s', async (file, expected) => {
    const { s, port } = server;
    const list = async () => (await s.call('GET', '/list?limit=200')).body.total as number;
    const repliesBefore = (await s.call('GET', `/ticket?id=${ada.id}`)).body.replies.length;
    const ticketsBefore = await list();
    const raw = await corpusMail(file);
    const outcome = await deliver(s, port, { raw, from: 'sender@example.net', to: [SUPPORT] });
    results.push(`${file}: ${JSON.stringify(outcome)}`);
    expect(outcome.kind).toBe(expected.outcome);

    let text = '';
    let files: string[] = [];
    if (outcome.kind === 'replied') {
      expect(outcome.ticket).toBe(ada.id);
      const t = (await s.call('GET', `/ticket?id=${ada.id}`)).body;
      expect(t.replies).toHaveLength(repliesBefore + 1);
      const reply = t.replies.at(-1);
      expect(reply).toMatchObject({ from_customer: true, author: 'Ada Lovelace' });
      text = reply.message;
      files = reply.attachments.map((a: { name: string }) => a.name);
      expect(files).toEqual(['original-mail.eml']);
      expect(await list()).toBe(ticketsBefore);
    } else if (outcome.kind === 'created') {
      const t = (await s.call('GET', `/ticket?id=${outcome.ticket}`)).body;
      text = t.message;
      files = t.attachments.map((a: { name: string }) => a.name).sort();
      if (expected.subject) expect(t.subject).toBe(expected.subject);
      if (expected.name) expect(t.name).toBe(expected.name);
      expect(await list()).toBe(ticketsBefore + 1);
    } else {
      // Nothing new: no ticket, no reply.
      expect(await list()).toBe(ticketsBefore);
      expect((await s.call('GET', `/ticket?id=${ada.id}`)).body.replies).toHaveLength(repliesBefore);
    }
    if (expected.message !== undefined) expect(text).toBe(expected.message);
    for (const c of expected.contains ?? []) expect(text).toContain(c);
    for (const c of expected.lacks ?? []) expect(text).not.toContain(c);
    if (expected.files) expect(files).toEqual([...expected.files].sort());
    // Never our own quoted mail in what the customer wrote.
    expect(text).not.toContain('reply above this line');
    expect(text).not.toContain('thank you for writing');

    if (expected.reason) expect(outcome).toMatchObject({ reason: expect.stringContaining(expected.reason) });
    if (outcome.kind === 'bounce') {
      expect(outcome.tickets).toEqual([gone.id]);
      expect((await s.call('GET', `/ticket?id=${gone.id}`)).body.tags).toEqual([BOUNCING_TAG]);
      expect((await s.call('GET', `/ticket?id=${ada.id}`)).body.tags).toEqual([]);
    }
  });
  afterAll(() => console.log(`corpus results:\n${results.join('\n')}`));
});
