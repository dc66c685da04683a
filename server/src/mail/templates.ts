import type { Reply, Ticket } from '../api-types.js';
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

function message(
  to: string[],
  subject: string,
  paragraphs: string[],
  link: { href: string; label: string },
): MailMessage {
  const text = `${paragraphs.join('\n\n')}\n\n${link.label}: ${link.href}\n`;
  const html =
    `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">` +
    paragraphs.map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('') +
    `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p></body></html>`;
  return { to, subject: oneLine(subject), text, html };
}

/** Where a customer follows the ticket: the page they wrote from (the widget lives there), else the portal. */
const customerLink = (t: Ticket, publicUrl: string) => ({ href: t.page_url ?? publicUrl, label: 'View your ticket' });
const agentLink = (t: Ticket, publicUrl: string) => ({
  href: `${publicUrl}/v1/ticket?id=${t.id}`,
  label: `Ticket ${t.id}`,
});

export function autoreplyMail(t: Ticket, subject: string, body: string, publicUrl: string): MailMessage {
  return message([t.email], fillPlaceholders(subject, t), [fillPlaceholders(body, t)], customerLink(t, publicUrl));
}

export function confirmationMail(t: Ticket, publicUrl: string): MailMessage {
  return message(
    [t.email],
    `We received your request: ${t.subject}`,
    [`Hi ${t.name},`, `thank you for writing. Your ticket number is ${t.id}; we will answer as soon as we can.`],
    customerLink(t, publicUrl),
  );
}

export function supportReplyMail(t: Ticket, r: Reply, publicUrl: string): MailMessage {
  return message(
    [t.email],
    `Re: ${t.subject}`,
    [`Hi ${t.name},`, `${r.author ?? 'Support'} replied to your ticket:`, r.message],
    customerLink(t, publicUrl),
  );
}

export function newTicketAgentMail(t: Ticket, to: string[], publicUrl: string): MailMessage {
  return message(to, `New ticket: ${t.subject}`, [`${t.name} <${t.email}> wrote:`, t.message], agentLink(t, publicUrl));
}

export function customerReplyAgentMail(t: Ticket, r: Reply, to: string[], publicUrl: string): MailMessage {
  return message(
    to,
    `Customer reply: ${t.subject}`,
    [`${t.name} <${t.email}> replied:`, r.message],
    agentLink(t, publicUrl),
  );
}

export function ruleNotifyMail(t: Ticket, to: string, rule: string, publicUrl: string): MailMessage {
  return message(
    [to],
    `[${rule}] ${t.subject}`,
    [`Rule "${rule}" matched ticket ${t.id} from ${t.name} <${t.email}>:`, t.message],
    agentLink(t, publicUrl),
  );
}

export function escalationMail(t: Ticket, to: string, escalation: string, publicUrl: string): MailMessage {
  return message(
    [to],
    `Escalation ${escalation}: ${t.subject}`,
    [`Ticket ${t.id} from ${t.name} <${t.email}> needs attention.`],
    agentLink(t, publicUrl),
  );
}
