import emailAddresses from 'email-addresses';
import type { ParsedMail } from 'mailparser';

/** Who sent a mail, or why that cannot be said. */
export type MailSender = { address: string; name: string | undefined } | { error: string };

const rawHeader = (mail: ParsedMail, key: string) => {
  const line = mail.headerLines.find((h) => h.key === key)?.line;
  return line === undefined
    ? undefined
    : line
        .slice(line.indexOf(':') + 1)
        .replace(/\r?\n[ \t]+/g, ' ')
        .trim();
};

const mailboxes = (list: ReturnType<typeof emailAddresses.parseFrom>) =>
  (list ?? []).flatMap((a) => (a.type === 'group' ? a.addresses : [a]));

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
  const address = chosen.address.toLowerCase();
  const decoded = mail.from?.value.find((v) => v.address?.trim().toLowerCase() === address)?.name?.trim();
  const own = chosen.name && !chosen.name.includes('=?') ? chosen.name.trim() : undefined;
  return { address, name: decoded || own || undefined };
}
