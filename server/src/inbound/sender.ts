import emailAddresses from 'email-addresses';
import type { ParsedMail } from 'mailparser';

/** Who sent a mail, or why that cannot be said. */
export type MailSender = { address: string; name: string | undefined } | { error: string };

// mailparser keeps a header's raw line one character a byte; its 8-bit bytes are UTF-8 by now
// (charset.ts), as RFC 6532 allows in From ("Ünal <ünal@example.de>" was stored as "ã¼nal@…").
const utf8 = (line: string) => {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(line, 'latin1'));
  } catch {
    return line;
  }
};

const rawHeader = (mail: ParsedMail, key: string) => {
  const line = mail.headerLines.find((h) => h.key === key)?.line;
  return line === undefined
    ? undefined
    : utf8(line)
        .slice(line.indexOf(':') + 1)
        .replace(/\r?\n[ \t]+/g, ' ')
        .trim();
};

const mailboxes = (list: ReturnType<typeof emailAddresses.parseFrom>) =>
  (list ?? []).flatMap((a) => (a.type === 'group' ? a.addresses : [a]));

// RFC 5322 dot-atom (with RFC 6532's UTF-8).
const DOT_ATOM = /^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*$/u;

/**
 * The sender by RFC 5322: From's mailbox, or, when From names several, the one the Sender header
 * names. Nothing is guessed: a From that is no address ('"x" <power quadrant system@example.com>',
 * which a lenient parser reads as another address) or several mailboxes without a Sender make the
 * mail unusable (kept in mail-in/failed/ with the reason), since a wrong address may be another
 * customer's. The name is From's for that address, as mailparser decoded it (RFC 2047 words).
 */
export function mailSender(mail: ParsedMail): MailSender {
  const from = rawHeader(mail, 'from');
  if (!from) return { error: 'the mail names no sender address' };
  const listed = mailboxes(emailAddresses.parseFrom({ input: from, rfc6532: true }));
  if (!listed.length) return { error: `the sender "${from.slice(0, 200)}" is not an address (RFC 5322)` };
  let chosen = listed[0]!;
  if (listed.length > 1) {
    const header = rawHeader(mail, 'sender');
    const parsed = header ? emailAddresses.parseSender({ input: header, rfc6532: true }) : null;
    const sender = parsed ? mailboxes([parsed]) : [];
    if (!sender.length) return { error: 'From names several mailboxes and no Sender header says which one sent it' };
    chosen = sender[0]!;
  }
  // A local part that is no dot-atom keeps its quotes ('"anna smith"@example.com'): without them it
  // is another address, one with a space that no mail reaches.
  const local = DOT_ATOM.test(chosen.local) ? chosen.local : `"${chosen.local.replace(/(["\\])/g, '\\$1')}"`;
  const address = `${local}@${chosen.domain}`.toLowerCase();
  // The name as mailparser decoded it (RFC 2047 words, a name in a comment), found by the address;
  // with an address in UTF-8 mailparser's own reading of it differs, and the name as written is taken.
  const decoded = mail.from?.value.find((v) => v.address?.trim().toLowerCase() === chosen.address.toLowerCase())?.name;
  const own = chosen.name && !chosen.name.includes('=?') ? chosen.name.trim() : undefined;
  return { address, name: decoded?.trim() || own || undefined };
}
