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
  /** The addresses the report says failed, lower-cased; none when a plain-text bounce names none. */
  recipients: string[];
  /** The Message-IDs (`<…@…>`) the report carries (its headers, the returned message or headers, the text). */
  messageIds: string[];
  /** Why, in one line: the status code and the receiving server's diagnostic text, as far as the report says. */
  reason: string;
}

/** At most this many of each are taken from a report: a real one names one or a few. */
const BOUNCE_MAX_ITEMS = 1_000;
/** The reason is one line of at most this many characters. */
const REASON_MAX = 300;
/** Text of the returned message or headers read for Message-IDs, per part. */
const RETURNED_MAX = 1_000_000;
const FINAL_RECIPIENT = /^Final-Recipient:[ \t]*rfc822;[ \t]*<?([^\s>]+)/i;
/** A system sender's local part: the mail system itself writes bounces (RFC 5321 4.5.5, and custom). */
const SYSTEM_SENDER = /^(mailer-daemon|postmaster|mail-daemon|mailer|mail\.?delivery\.?(system|subsystem)?)$/i;
/**
 * Subjects of the bounces mail systems write without RFC 3464's report: Postfix's and Exim's words,
 * qmail's "failure notice", sendmail's "Returned mail:", Exchange's "Undeliverable:", and their kin.
 */
const BOUNCE_SUBJECT =
  /undeliver|returned mail|returning message|mail delivery (failed|failure|problem)|delivery (status notification|failure|failed|has failed|problem|notification)|failure notice|not delivered|non-?delivery|failed mail|could not be delivered|delivery error/i;
/** A report that delivery is only late, not given up: no bounce yet. */
const DELAYED = /delay|still being retried|will (continue|keep) trying|warning/i;

type Entry = { recipient: string; action: string; status: string; diagnostic: string };

/**
 * A bounce: a delivery status notification (RFC 3464, multipart/report; report-type=delivery-status)
 * that says delivery failed (`Action: failed`, or `failure` as some servers write it), or a plain-text
 * bounce from a mail system (a system sender and a bounce's subject, as Exim, qmail, sendmail and old
 * Exchange send them, the original attached or quoted); undefined for other mail, and for "delayed"
 * reports, which are no bounce yet. Every scan here is linear in the mail's size: a report is written
 * by whoever wants to (issue 28: one regular expression over `<a@a@a@…` took a minute).
 */
export function bounceOf(mail: ParsedMail, raw: Buffer, sender: string): Bounce | undefined {
  const type = mail.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  const isReport =
    type?.value?.toLowerCase() === 'multipart/report' &&
    (type.params?.['report-type'] ?? '').toLowerCase() === 'delivery-status';
  const text = raw.toString('latin1');
  if (isReport) {
    const failed = reportEntries(text).filter((e) => /^fail/i.test(e.action));
    if (!failed.length) return undefined;
    const first = failed[0]!;
    const diagnostic = tidy(first.diagnostic.replace(/^[\w-]+;[ \t]*/, ''));
    const reason =
      diagnostic && first.status && !diagnostic.includes(first.status)
        ? `${first.status} ${diagnostic}`
        : diagnostic || first.status || plainReason(mail.text ?? '');
    return {
      recipients: failed.map((e) => e.recipient).filter(Boolean),
      messageIds: messageIdsOf(mail, text),
      reason: oneLine(reason),
    };
  }
  const local = sender.slice(0, sender.lastIndexOf('@'));
  const subject = mail.subject ?? '';
  if (!SYSTEM_SENDER.test(local) || !BOUNCE_SUBJECT.test(subject) || DELAYED.test(subject)) return undefined;
  const failedTo = String(mail.headers.get('x-failed-recipients') ?? '');
  return {
    recipients: failedTo
      .split(',')
      .map((a) => a.trim().toLowerCase())
      .filter((a) => a.includes('@'))
      .slice(0, BOUNCE_MAX_ITEMS),
    messageIds: messageIdsOf(mail, text),
    reason: oneLine(plainReason(mail.text ?? '')),
  };
}

/**
 * The per-recipient fields of a report (Final-Recipient, Action, Status, Diagnostic-Code with its
 * folded lines), line by line; each pattern is anchored at its line's start and reads the line once.
 */
function reportEntries(text: string): Entry[] {
  const entries: Entry[] = [];
  let current: Entry | undefined;
  let folding = false;
  const entry = () => {
    if (!current && entries.length < BOUNCE_MAX_ITEMS) {
      current = { recipient: '', action: '', status: '', diagnostic: '' };
      entries.push(current);
    }
    return current;
  };
  for (let start = 0; start < text.length;) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end < 0 ? text.length : end).replace(/\r$/, '');
    start = end < 0 ? text.length : end + 1;
    if (folding && /^[ \t]/.test(line) && current && current.diagnostic.length < REASON_MAX * 4) {
      current.diagnostic += ` ${line.trim()}`;
      continue;
    }
    folding = false;
    const m = FINAL_RECIPIENT.exec(line);
    if (m) {
      current = undefined;
      const e = entry();
      if (e) e.recipient = m[1]!.toLowerCase();
      continue;
    }
    const field = /^(Action|Status|Diagnostic-Code):[ \t]*(.*)$/i.exec(line);
    if (!field) continue;
    const e = entry();
    if (!e) continue;
    const name = field[1]!.toLowerCase();
    const value = field[2]!.trim().slice(0, REASON_MAX * 4);
    if (name === 'action') e.action = value;
    // A `Status: RO` of mbox headers in the returned mail is no delivery status.
    else if (name === 'status') e.status = /^[245]\.\d{1,3}\.\d{1,3}/.exec(value)?.[0] ?? e.status;
    else {
      e.diagnostic = value;
      folding = true;
    }
  }
  return entries;
}

/** The start of a mail system's copy of the returned mail: the reason is above it. */
const RETURNED_COPY =
  /^(-{2,}.*(copy of the message|returned message|below this line|original message)|original message headers:)/i;
/** An SMTP reply code with or without its enhanced status (RFC 3463), or an enhanced status alone. */
const SMTP_CODE = /\b[45]\d\d[ -][245]\.\d{1,3}\.\d{1,3}\b|\b[45]\d\d (?=\S)|\b[45]\.\d{1,3}\.\d{1,3}\b/;
/** Words a mail system's text gives a reason in, when it names no code. */
const REASON_WORDS =
  /unknown|not (found|recogni[sz]ed)|does ?n[o']t exist|no such|unable to|rejected|refused|failed because|quota|mailbox (is )?full|disabled|blocked|banned|not collected|permanent/i;

/**
 * The reason in a bounce's text: the first line with an SMTP code, from the code on, with the folded
 * lines under it; else the first line giving a reason in words; else a fixed sentence.
 */
function plainReason(text: string): string {
  const lines = text.replace(/\r/g, '').split('\n', 300);
  const end = lines.findIndex((l) => RETURNED_COPY.test(l.trim()));
  const head = end < 0 ? lines : lines.slice(0, end);
  for (let i = 0; i < head.length; i++) {
    const m = SMTP_CODE.exec(head[i]!);
    if (!m) continue;
    // From the reply code on (`host … said: 550 5.1.1 …`); a status alone (qmail's `(#5.1.1)`): the line.
    let reason = /^[45]\d\d/.test(m[0]) ? head[i]!.slice(m.index) : head[i]!;
    for (let j = i + 1; j < head.length && j <= i + 3 && /^[ \t]+\S/.test(head[j]!); j++) reason += ` ${head[j]}`;
    return tidy(reason);
  }
  const worded = head.find((l) => REASON_WORDS.test(l));
  return worded ? tidy(worded) : 'the receiving mail system returned it without a reason';
}

/**
 * A diagnostic on one line: folded lines joined, and the code a multi-line SMTP reply repeats on each of
 * its lines (`550-5.1.1 … 550-5.1.1 … 550 5.1.1 …`, as Gmail's) said once.
 */
function tidy(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  const m = /^([45]\d\d)[ -]([245]\.\d{1,3}\.\d{1,3})\s/.exec(flat);
  if (!m) return flat;
  const rest = flat.slice(m[0].length).replace(/\s[45]\d\d[ -][245]\.\d{1,3}\.\d{1,3}(?=\s)/g, '');
  return `${m[1]} ${m[2]} ${rest}`;
}

const oneLine = (s: string) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > REASON_MAX ? `${flat.slice(0, REASON_MAX - 1)}…` : flat;
};

/**
 * The Message-IDs in the report as it arrived (its headers, In-Reply-To and References included, and
 * every part written in 7 or 8 bits), in its decoded text (a quoted copy), and in its returned message
 * or headers as decoded (a part sent in base64 or quoted-printable).
 */
function messageIdsOf(mail: ParsedMail, raw: string): string[] {
  const returned = mail.attachments
    .filter((a) => /^(message\/|text\/rfc822-headers)/i.test(a.contentType))
    .map((a) => Buffer.from(a.content).subarray(0, RETURNED_MAX).toString('latin1'));
  return [...new Set([raw, mail.text ?? '', ...returned].flatMap(messageIdsIn))].slice(0, BOUNCE_MAX_ITEMS);
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
