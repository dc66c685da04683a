import type { ParsedMail } from 'mailparser';
import { isSupportAddress } from '../mail/threading.js';

const header = (mail: ParsedMail, name: string) => {
  const v = mail.headers.get(name);
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'object' && 'value' in v) return String((v as { value: unknown }).value);
  return String(v);
};

/** What the headers say about a mail being automatic (taken in the parser thread, judged by loopReason). */
export interface AutoHeaders {
  autoSubmitted: string;
  precedence: string;
  /** Any List-* header. */
  list: boolean;
  /** X-Autoreply or X-Autorespond. */
  autoreply: boolean;
  autoResponseSuppress: string;
}

export function autoHeadersOf(mail: ParsedMail): AutoHeaders {
  return {
    autoSubmitted: header(mail, 'auto-submitted').trim().toLowerCase().slice(0, 200),
    precedence: header(mail, 'precedence').trim().toLowerCase().slice(0, 200),
    list: [...mail.headers.keys()].some((name) => name.startsWith('list-')),
    autoreply: mail.headers.has('x-autoreply') || mail.headers.has('x-autorespond'),
    autoResponseSuppress: header(mail, 'x-auto-response-suppress').slice(0, 200),
  };
}

/**
 * Why a mail must not open or answer a ticket, so that no mail ever answers mail automatically
 * (RFC 3834): undefined for a mail a person wrote to us.
 */
export function loopReason(
  mail: { sender: string; subject: string; auto: AutoHeaders },
  fromAddress: string,
): string | undefined {
  const { auto } = mail;
  if (auto.autoSubmitted && !auto.autoSubmitted.startsWith('no')) return `Auto-Submitted: ${auto.autoSubmitted}`;
  if (['bulk', 'junk', 'list', 'auto_reply'].includes(auto.precedence)) return `Precedence: ${auto.precedence}`;
  if (auto.list) return 'a mailing list (List-* headers)';
  // Microsoft's and others' out-of-office marks, for the clients that send no Auto-Submitted.
  if (auto.autoreply) return 'an autoresponder (X-Autoreply)';
  if (/^(oof|autoreply|all)$/i.test(auto.autoResponseSuppress) && /^auto/i.test(mail.subject))
    return 'an autoresponder';
  const sender = mail.sender;
  if (!sender) return 'no sender address';
  if (isSupportAddress(sender, fromAddress)) return 'our own address';
  const local = sender.slice(0, sender.lastIndexOf('@'));
  if (/^(mailer-daemon|postmaster|no-?reply|do-?not-?reply)$/i.test(local)) return `a system sender (${local})`;
  return undefined;
}

export interface Bounce {
  /** The addresses the report says failed, lower-cased. */
  recipients: string[];
  /** The Message-IDs (`<…@…>`) the report carries (the returned headers, the report text). */
  messageIds: string[];
}

/** At most this many of each are taken from a report: a real one names one or a few. */
const BOUNCE_MAX_ITEMS = 1_000;
const FINAL_RECIPIENT = /^Final-Recipient:[ \t]*rfc822;[ \t]*<?([^\s>]+)/i;

/**
 * A delivery status notification (RFC 3464, multipart/report; report-type=delivery-status) that says
 * delivery failed; undefined for other mail, and for "delayed" reports, which are no bounce yet.
 * Every scan here is linear in the mail's size: a report is written by whoever wants to (issue 28:
 * one regular expression over `<a@a@a@…` took a minute).
 */
export function bounceOf(mail: ParsedMail, raw: Buffer): Bounce | undefined {
  const type = mail.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  const isReport =
    type?.value?.toLowerCase() === 'multipart/report' &&
    (type.params?.['report-type'] ?? '').toLowerCase() === 'delivery-status';
  if (!isReport) return undefined;
  const text = raw.toString('latin1');
  let failed = false;
  const recipients: string[] = [];
  // Line by line; each pattern is anchored at its line's start and reads the line once.
  for (let start = 0; start < text.length;) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end < 0 ? text.length : end);
    start = end < 0 ? text.length : end + 1;
    if (/^Action:[ \t]*failed/i.test(line)) failed = true;
    const m = recipients.length < BOUNCE_MAX_ITEMS ? FINAL_RECIPIENT.exec(line) : null;
    if (m) recipients.push(m[1]!.toLowerCase());
  }
  if (!failed) return undefined;
  return { recipients, messageIds: messageIdsIn(text) };
}

/**
 * Every `<local@domain>` in a text (no space, `<` or `>` inside), in one pass: from each `<` to the
 * first character that ends the token; the next search starts there, so no character is read twice.
 */
function messageIdsIn(text: string): string[] {
  const ids: string[] = [];
  let at = text.indexOf('<');
  while (at >= 0 && ids.length < BOUNCE_MAX_ITEMS) {
    let end = at + 1;
    while (end < text.length && !/[<>\s]/.test(text[end]!)) end++;
    if (text[end] === '>') {
      const inner = text.slice(at + 1, end);
      if (inner.slice(1, -1).includes('@')) ids.push(`<${inner}>`);
    }
    at = text.indexOf('<', text[end] === '<' ? end : end + 1);
  }
  return ids;
}
