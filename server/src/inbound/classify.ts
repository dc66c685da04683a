import type { ParsedMail } from 'mailparser';
import { isSupportAddress } from '../mail/threading.js';

const header = (mail: ParsedMail, name: string) => {
  const v = mail.headers.get(name);
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'object' && 'value' in v) return String((v as { value: unknown }).value);
  return String(v);
};

/** The sender's address (From), lower-cased; "" when the mail names none. */
const senderOf = (mail: ParsedMail) => (mail.from?.value[0]?.address ?? '').trim().toLowerCase();

/**
 * Why a mail must not open or answer a ticket, so that no mail ever answers mail automatically
 * (RFC 3834): undefined for a mail a person wrote to us.
 */
export function loopReason(mail: ParsedMail, fromAddress: string): string | undefined {
  const auto = header(mail, 'auto-submitted').trim().toLowerCase();
  if (auto && !auto.startsWith('no')) return `Auto-Submitted: ${auto}`;
  const precedence = header(mail, 'precedence').trim().toLowerCase();
  if (['bulk', 'junk', 'list', 'auto_reply'].includes(precedence)) return `Precedence: ${precedence}`;
  for (const name of mail.headers.keys()) if (name.startsWith('list-')) return 'a mailing list (List-* headers)';
  // Microsoft's and others' out-of-office marks, for the clients that send no Auto-Submitted.
  if (mail.headers.has('x-autoreply') || mail.headers.has('x-autorespond')) return 'an autoresponder (X-Autoreply)';
  if (/^(oof|autoreply|all)$/i.test(header(mail, 'x-auto-response-suppress')) && /^auto/i.test(mail.subject ?? ''))
    return 'an autoresponder';
  const sender = senderOf(mail);
  if (!sender) return 'no sender address';
  if (isSupportAddress(sender, fromAddress)) return 'our own address';
  const local = sender.slice(0, sender.lastIndexOf('@'));
  if (/^(mailer-daemon|postmaster|no-?reply|do-?not-?reply)$/i.test(local)) return `a system sender (${local})`;
  return undefined;
}

export interface Bounce {
  /** The addresses the report says failed, lower-cased. */
  recipients: string[];
  /** Everything the report carries (the returned headers, the report text), to find our Message-IDs in. */
  text: string;
}

/**
 * A delivery status notification (RFC 3464, multipart/report; report-type=delivery-status) that says
 * delivery failed; undefined for other mail, and for "delayed" reports, which are no bounce yet.
 */
export function bounceOf(mail: ParsedMail, raw: Buffer): Bounce | undefined {
  const type = mail.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  const isReport =
    type?.value?.toLowerCase() === 'multipart/report' &&
    (type.params?.['report-type'] ?? '').toLowerCase() === 'delivery-status';
  if (!isReport) return undefined;
  const text = raw.toString('latin1');
  if (!/^Action:\s*failed/im.test(text)) return undefined;
  const recipients = [...text.matchAll(/^Final-Recipient:\s*rfc822;\s*<?([^\s>]+)>?/gim)].map((m) =>
    m[1]!.toLowerCase(),
  );
  return { recipients, text };
}
