import { customerMailStrings } from '../i18n/mail-strings.js';
import type { Reply, Ticket } from '../model/index.js';
import type { MailMessage } from './mailer.js';
import { REPLY_MARKER, type AutoSubmitted } from './threading.js';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Fills {{name}}, {{subject}}, {{ticket_id}} and {{number}} (#1042) (API.md: macro and autoreply texts). */
export function fillPlaceholders(text: string, t: Pick<Ticket, 'name' | 'subject' | 'id' | 'number'>): string {
  return text.replace(/\{\{\s*(name|subject|ticket_id|number)\s*\}\}/g, (_, key: string) =>
    key === 'name' ? t.name : key === 'subject' ? t.subject : key === 'number' ? ticketNumber(t) : t.id,
  );
}

/** How people see a ticket's number: #1042. */
const ticketNumber = (t: Pick<Ticket, 'number'>) => `#${t.number}`;

/**
 * Every mail about a ticket names its number in the subject, so a customer can quote it and an
 * agent can find the ticket by it (/v1/search).
 */
const withNumber = (t: Pick<Ticket, 'number'>, subject: string) => `[${ticketNumber(t)}] ${subject}`;

/** A text that names the number, or the text with a line that does (the admin's autoreply may not). */
const namingNumber = (t: Pick<Ticket, 'number'>, text: string, label: string) =>
  text.includes(ticketNumber(t)) ? text : `${text}\n\n${fill(label, { number: ticketNumber(t) })}`;

// Subjects come from single-line fields (refused with line breaks); this is a last guard.
const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ').slice(0, 300);

export interface Link {
  href: string;
  label: string;
}

/**
 * A mail's text and HTML from paragraphs of plain text (escaped in the HTML, so nothing a customer
 * typed becomes markup or a link) and at most one link, which callers build only from the server's
 * own public URL.
 */
function message(
  to: string[],
  subject: string,
  paragraphs: string[],
  link?: Link,
  options: { auto?: AutoSubmitted; marker?: boolean } = {},
): MailMessage {
  // The marker opens mail a customer may answer: what they type goes above it, and the pipeline
  // cuts the rest (our own text, quoted back) when the answer arrives.
  const marker = options.marker ? `${REPLY_MARKER}\n\n` : '';
  const text = `${marker}${paragraphs.join('\n\n')}\n${link ? `\n${link.label}: ${link.href}\n` : ''}`;
  const html =
    `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">` +
    (options.marker ? `<p style="color:#888">${REPLY_MARKER}</p>` : '') +
    paragraphs.map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('') +
    (link ? `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>` : '') +
    `</body></html>`;
  return { to, subject: oneLine(subject), text, html, ...(options.auto ? { auto_submitted: options.auto } : {}) };
}

const AUTO_REPLY = { auto: 'auto-replied', marker: true } as const;
const TO_AGENTS = { auto: 'auto-generated' } as const;
/** To one agent whose Reply-To is their own reply address (notify.ts): what they type goes above the marker. */
const TO_AGENT_REPLYABLE = { auto: 'auto-generated', marker: true } as const;

/**
 * What an agent reads under a notification they can answer by mail (inbound/agent-reply.ts). The
 * words `#note` are the ones the pipeline looks for (NOTE_LINE in inbound/agent-reply.ts): kept in step by its test.
 */
const ANSWER_BY_MAIL =
  'Answer this mail to reply to the customer: your answer is sent to them as your reply on the ticket. ' +
  'Start it with a line #note to add an internal note instead.';
const forAgent = (canReply: boolean, paragraphs: string[]): [string[], { auto: AutoSubmitted; marker?: boolean }] =>
  canReply ? [[...paragraphs, ANSWER_BY_MAIL], TO_AGENT_REPLYABLE] : [paragraphs, TO_AGENTS];

/** A stored ticket carries the language its customer wrote in (set at /create from Accept-Language). */
const wordsFor = (t: Ticket) => customerMailStrings((t as { locale?: string }).locale);
const fill = (text: string, values: Record<string, string>) =>
  text.replace(/\{(\w+)\}/g, (m, k: string) => values[k] ?? m);

/**
 * Where a customer follows their ticket from a mail: `{public_url}/t/<token>`, a link signed by the
 * server (links/magic-link.ts) and bound to the ticket and its email. Links in mail point only at the
 * server's own public URL, never at an address a request chose (`page_url`): anyone with the public key
 * can file a ticket in anyone's name, and the shop's support address must not mail them a link of a
 * stranger's choosing.
 */
export const customerTicketLink = (t: Ticket, publicUrl: string, token: string): Link => ({
  href: `${publicUrl}/t/${token}`,
  label: wordsFor(t).view,
});

/** Agents open the ticket in the console, on this server. */
const agentTicketLink = (t: Ticket, publicUrl: string): Link => ({
  href: `${publicUrl}/console/tickets/${encodeURIComponent(t.id)}`,
  label: `Open ticket ${ticketNumber(t)}`,
});

/** What agents read about a ticket's origin: the page it was filed from, as text, never as a link. */
const origin = (t: Ticket) => (t.page_url ? [`Sent from the page ${t.page_url}`] : []);

/** A mail's files that were not attached, said in the answer so the sender can send them another way. */
const notAttached = (refused: string[]) =>
  refused.length ? [`These files could not be attached:\n${refused.map((r) => `- ${r}`).join('\n')}`] : [];

export function autoreplyMail(
  t: Ticket,
  subject: string,
  body: string,
  link?: Link,
  refused: string[] = [],
): MailMessage {
  return message(
    [t.email],
    withNumber(t, fillPlaceholders(subject, t)),
    [namingNumber(t, fillPlaceholders(body, t), wordsFor(t).number), ...notAttached(refused)],
    link,
    AUTO_REPLY,
  );
}

export function confirmationMail(t: Ticket, link?: Link, refused: string[] = []): MailMessage {
  const w = wordsFor(t);
  return message(
    [t.email],
    withNumber(t, fill(w.receivedSubject, { subject: t.subject })),
    [fill(w.hi, { name: t.name }), fill(w.received, { id: ticketNumber(t) }), ...notAttached(refused)],
    link,
    AUTO_REPLY,
  );
}

export function supportReplyMail(t: Ticket, r: Reply, link?: Link): MailMessage {
  const w = wordsFor(t);
  return message(
    [t.email],
    `Re: ${withNumber(t, t.subject)}`,
    [
      fill(w.hi, { name: t.name }),
      fill(w.replied, { author: r.author ?? w.support, number: ticketNumber(t) }),
      r.message,
    ],
    link,
    { marker: true }, // written by a person: no Auto-Submitted, an out-of-office may answer it
  );
}

/** `canReply`: sent to one agent with their own reply address as Reply-To (notify.ts). */
export function newTicketAgentMail(t: Ticket, to: string[], publicUrl: string, canReply = false): MailMessage {
  const [paragraphs, options] = forAgent(canReply, [
    `${t.name} <${t.email}> wrote in ticket ${ticketNumber(t)}:`,
    t.message,
    ...origin(t),
  ]);
  return message(to, withNumber(t, `New ticket: ${t.subject}`), paragraphs, agentTicketLink(t, publicUrl), options);
}

export function customerReplyAgentMail(
  t: Ticket,
  r: Reply,
  to: string[],
  publicUrl: string,
  canReply = false,
): MailMessage {
  const [paragraphs, options] = forAgent(canReply, [
    r.unverified
      ? `A mail claims to be from ${t.name} <${t.email}> on ticket ${ticketNumber(t)} but could not be verified (the customer does not see it):`
      : `${t.name} <${t.email}> replied to ticket ${ticketNumber(t)}:`,
    r.message,
  ]);
  return message(
    to,
    withNumber(t, `${r.unverified ? 'Unverified sender' : 'Customer reply'}: ${t.subject}`),
    paragraphs,
    agentTicketLink(t, publicUrl),
    options,
  );
}

/** `canReply`: sent to an agent with their own reply address as Reply-To (mail/agent-mail.ts). */
export function ruleNotifyMail(t: Ticket, to: string, rule: string, publicUrl: string, canReply = false): MailMessage {
  const [paragraphs, options] = forAgent(canReply, [
    `Rule "${rule}" matched ticket ${ticketNumber(t)} (${t.id}) from ${t.name} <${t.email}>:`,
    t.message,
    ...origin(t),
  ]);
  return message([to], `[${rule}] ${withNumber(t, t.subject)}`, paragraphs, agentTicketLink(t, publicUrl), options);
}

/** To an agent a colleague named in a note (`@Name`): the note, and the way to the ticket. */
export function mentionMail(t: Ticket, note: Reply, to: string, publicUrl: string, canReply = false): MailMessage {
  const by = note.author ?? 'A colleague';
  const [paragraphs, options] = forAgent(canReply, [
    `${by} mentioned you in a note on ticket ${ticketNumber(t)} (${t.name} <${t.email}>):`,
    note.message,
  ]);
  return message(
    [to],
    withNumber(t, `${by} mentioned you: ${t.subject}`),
    paragraphs,
    agentTicketLink(t, publicUrl),
    options,
  );
}
