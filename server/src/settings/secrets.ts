import type { ConfigData } from '../model/index.js';

/**
 * The one rule for write-only secrets (SMTP password, Turnstile secret; webhook signing secrets
 * belong to their URL, see model/webhook-secrets.ts): a
 * write that omits the secret keeps the stored one, `null` or `""` removes it, and a stored secret
 * never follows a changed destination. When the place the secret is presented to changes (another
 * SMTP host, port or user; another webhook URL), the stored secret is forgotten unless the same write
 * sends one. Otherwise whoever may edit a setting without knowing the secret could point it at a
 * listener of their own and read the secret there.
 */
function keepSecret(
  given: string | null | undefined,
  stored: string | null | undefined,
  sameDestination: boolean,
): string | null {
  if (given !== undefined) return given || null;
  return sameDestination ? (stored ?? null) : null;
}

type Smtp = ConfigData['mail']['smtp'];
const hostOf = (h: string | null) => (h ?? '').trim().toLowerCase();

/** The SMTP password is presented to one host and port, for one user. */
const sameSmtpDestination = (a: Smtp, b: Smtp) =>
  hostOf(a.host) === hostOf(b.host) && a.port === b.port && (a.user ?? '') === (b.user ?? '');

export const withSmtpPass = (next: Smtp, current: Smtp): Smtp => ({
  ...next,
  pass: keepSecret(next.pass, current.pass, sameSmtpDestination(next, current)),
});

/** Turnstile's secret only ever goes to the verify URL of the server's configuration. */
export const withTurnstileSecret = (next: ConfigData['turnstile'], current: ConfigData['turnstile']) => ({
  ...next,
  secret: keepSecret(next.secret, current.secret, true),
});

/** The identity secret is only ever used inside this server, so it has no destination to follow. */
export const withIdentitySecret = (next: ConfigData['identity'], current: ConfigData['identity']) => ({
  ...next,
  secret: keepSecret(next.secret, current.secret, true),
});

type Imap = ConfigData['mail']['inbound']['imap'];

/** The IMAP password, likewise, to one host and port, for one user. */
export const withImapPass = (next: Imap, current: Imap): Imap => ({
  ...next,
  pass: keepSecret(
    next.pass,
    current.pass,
    hostOf(next.host) === hostOf(current.host) &&
      next.port === current.port &&
      (next.user ?? '') === (current.user ?? ''),
  ),
});

type Dkim = ConfigData['mail']['dkim'];

/** The DKIM key signs for one domain and selector. */
export const withDkimKey = (next: Dkim, current: Dkim): Dkim => ({
  ...next,
  private_key: keepSecret(
    next.private_key,
    current.private_key,
    hostOf(next.domain_name) === hostOf(current.domain_name) && next.key_selector === current.key_selector,
  ),
});
