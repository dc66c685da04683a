import type { MailMessage } from '../mail/mailer.js';
import type { AccountLink } from '../model/index.js';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const WORDS: Record<AccountLink['purpose'], { subject: string; lines: string[]; label: string }> = {
  invite: {
    subject: 'You are invited to {portal}',
    lines: [
      'Hello {name},',
      'You have been invited to answer support tickets in {portal}. Choose your password with the link below; it works once, for 7 days.',
    ],
    label: 'Choose your password',
  },
  reset: {
    subject: 'Reset your password for {portal}',
    lines: [
      'Hello {name},',
      'Someone (we hope you) asked to reset your password. Choose a new one with the link below; it works once, for one hour. Setting it signs you out everywhere else.',
      'If it was not you, ignore this mail: your password stays as it is.',
    ],
    label: 'Choose a new password',
  },
};

/**
 * The invitation or reset mail: plain words, the agent's name and the portal's (escaped in the HTML),
 * and one link, which callers build only from the server's own public URL (onboarding/account-links.ts).
 */
export function accountMail(
  purpose: AccountLink['purpose'],
  to: { name: string; email: string },
  portal: string,
  href: string,
): MailMessage {
  const w = WORDS[purpose];
  // Names are single-line fields already; a line break must still never reach a header.
  const fill = (s: string) => s.replace('{name}', to.name).replace('{portal}', portal);
  const lines = w.lines.map(fill);
  return {
    to: [to.email],
    subject: fill(w.subject).replace(/[\r\n]+/g, ' '),
    text: `${lines.join('\n\n')}\n\n${w.label}: ${href}\n`,
    html:
      '<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">' +
      lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('') +
      `<p><a href="${escapeHtml(href)}">${escapeHtml(w.label)}</a></p></body></html>`,
    auto_submitted: 'auto-generated',
  };
}
