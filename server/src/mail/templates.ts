import { customerMailStrings } from '../i18n/mail-strings.js';
import type { Reply, Ticket } from '../model/index.js';
import type { MailMessage } from './mailer.js';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Fills {{name}}, {{subject}} and {{ticket_id}} (API.md: macro and autoreply texts). */
export function fillPlaceholders(text: string, t: Pick<Ticket, 'name' | 'subject' | 'id'>): string {
  return text.replace(/\{\{\s*(name|subject|ticket_id)\s*\}\}/g, (_, key: string) =>
    key === 'name' ? t.name : key === 'subject' ? t.subject : t.id,
  );
}

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
function message(to: string[], subject: string, paragraphs: string[], link?: Link): MailMessage {
  const text = `${paragraphs.join('\n\n')}\n${link ? `\n${link.label}: ${link.href}\n` : ''}`;
  const html =
    `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">` +
    paragraphs.map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('') +
    (link ? `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>` : '') +
    `</body></html>`;
  return { to, subject: oneLine(subject), text, html };
}

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
export const agentTicketLink = (t: Ticket, publicUrl: string): Link => ({
  href: `${publicUrl}/console/tickets/${encodeURIComponent(t.id)}`,
  label: `Open ticket ${t.id}`,
});

/** What agents read about a ticket's origin: the page it was filed from, as text, never as a link. */
const origin = (t: Ticket) => (t.page_url ? [`Sent from the page ${t.page_url}`] : []);

export function autoreplyMail(t: Ticket, subject: string, body: string, link?: Link): MailMessage {
  return message([t.email], fillPlaceholders(subject, t), [fillPlaceholders(body, t)], link);
}

export function confirmationMail(t: Ticket, link?: Link): MailMessage {
  const w = wordsFor(t);
  return message(
    [t.email],
    fill(w.receivedSubject, { subject: t.subject }),
    [fill(w.hi, { name: t.name }), fill(w.received, { id: t.id })],
    link,
  );
}

export function supportReplyMail(t: Ticket, r: Reply, link?: Link): MailMessage {
  const w = wordsFor(t);
  return message(
    [t.email],
    `Re: ${t.subject}`,
    [fill(w.hi, { name: t.name }), fill(w.replied, { author: r.author ?? w.support }), r.message],
    link,
  );
}

export function newTicketAgentMail(t: Ticket, to: string[], publicUrl: string): MailMessage {
  return message(
    to,
    `New ticket: ${t.subject}`,
    [`${t.name} <${t.email}> wrote:`, t.message, ...origin(t)],
    agentTicketLink(t, publicUrl),
  );
}

export function customerReplyAgentMail(t: Ticket, r: Reply, to: string[], publicUrl: string): MailMessage {
  return message(
    to,
    `Customer reply: ${t.subject}`,
    [`${t.name} <${t.email}> replied:`, r.message],
    agentTicketLink(t, publicUrl),
  );
}

export function ruleNotifyMail(t: Ticket, to: string, rule: string, publicUrl: string): MailMessage {
  return message(
    [to],
    `[${rule}] ${t.subject}`,
    [`Rule "${rule}" matched ticket ${t.id} from ${t.name} <${t.email}>:`, t.message, ...origin(t)],
    agentTicketLink(t, publicUrl),
  );
}

export function escalationMail(t: Ticket, to: string, escalation: string, publicUrl: string): MailMessage {
  return message(
    [to],
    `Escalation ${escalation}: ${t.subject}`,
    [`Ticket ${t.id} from ${t.name} <${t.email}> needs attention.`],
    agentTicketLink(t, publicUrl),
  );
}
