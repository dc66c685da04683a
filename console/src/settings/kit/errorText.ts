import { ApiError } from '../../api/client.js';
import { fill } from '../../i18n/t.js';
import type { SettingsStrings } from './strings.js';

type Detail = ApiError['details'][number] & { code?: string; limit?: number; value?: string };

/** A format the API names (`invalid_format`'s value) as the console says it. */
const formatName = (t: SettingsStrings, format: string | undefined) =>
  format === 'email' ? t.format_email : format === 'url' ? t.format_url : t.format_other;

/**
 * A refused field in the console's language, saying what to do: from the detail's `code` and its
 * `limit` or `value` (docs/api.md "Errors"), or from the error's code where that says it all. The
 * server's English text is the fallback for what has no code.
 */
export function detailText(t: SettingsStrings, d: Detail, errorCode: string): string {
  const limit = d.limit ?? '';
  switch (d.code) {
    case 'required':
      return t.detail_required;
    case 'too_short':
    case 'too_long':
    case 'too_small':
    case 'too_big':
    case 'too_few':
    case 'too_many':
      return fill(t[`detail_${d.code}`], { limit });
    case 'invalid_format':
      return fill(t.detail_invalid_format, { format: formatName(t, d.value) });
    case 'invalid_choice':
    case 'invalid_type':
      return t[`detail_${d.code}`];
    case 'duplicate':
      return fill(t.detail_duplicate, { value: d.value ?? '' });
  }
  if (errorCode === 'status_in_use') return t.error_status_in_use;
  if (errorCode === 'last_admin') return t.error_last_admin;
  return d.message;
}

/** An error that belongs to no field (the network, a refusal, a conflict), in the console's language. */
export function errorText(t: SettingsStrings, e: unknown, networkError: string): string {
  if (!(e instanceof ApiError)) return String(e);
  if (e.status === 0) return networkError;
  const known: Record<string, string> = {
    status_in_use: t.error_status_in_use,
    last_admin: t.error_last_admin,
    rate_limited: t.error_rate_limited,
    unavailable: t.error_unavailable,
    payload_too_large: t.error_too_large,
    forbidden: t.adminOnly,
    admin_required: t.adminOnly,
    live_secret_key_required: t.adminOnly,
  };
  return (
    known[e.code] ?? (e.code === 'validation_failed' && e.details[0] ? detailText(t, e.details[0], e.code) : e.message)
  );
}

/**
 * What a failed test mail means and what to try, in the console's language, or null for an answer we
 * do not know (then the SMTP server's own words are shown). The server answers a failed connection in
 * a few fixed English words (server/src/mail/smtp-failure.ts), or the SMTP server's own refusal.
 */
export function smtpErrorText(t: SettingsStrings, error: string | null): string | null {
  if (!error) return null;
  if (/^could not connect|ECONNREFUSED/i.test(error)) return t.smtp_refused;
  if (/ENOTFOUND|EAI_AGAIN/.test(error)) return t.smtp_not_found;
  if (/did not answer as an SMTP server|wrong version number/i.test(error)) return t.smtp_tls;
  if (/certificate/i.test(error)) return t.smtp_certificate;
  if (/timed? ?out|did not answer|did not finish within/i.test(error)) return t.smtp_timeout;
  if (/^Invalid login|\b535\b|authentication/i.test(error)) return t.smtp_auth;
  return null;
}
