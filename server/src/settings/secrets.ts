import type { ConfigData } from '../model/index.js';

/**
 * The one rule for write-only secrets (SMTP password, Turnstile secret; webhook signing secrets
 * belong to their URL, see model/webhook-secrets.ts): a
 * write that omits the secret keeps the stored one, `null` or `""` removes it, and a stored secret
 * never follows a changed destination. When the place the secret is presented to changes (another
 * SMTP host, port, user or kind of connection; another webhook URL), the stored secret is forgotten unless the same write
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
type Imap = ConfigData['mail']['inbound']['imap'];
const hostOf = (h: string | null) => (h ?? '').trim().toLowerCase();

/**
 * A mail password is presented to one host and port, for one user, over one kind of connection: TLS
 * from the start or not, a certificate checked or not, plain text allowed or not. Weakening how the
 * password travels is a new destination too (issue 28), so each of these forgets it.
 */
const sameMailDestination = (a: Smtp | Imap, b: Smtp | Imap) =>
  hostOf(a.host) === hostOf(b.host) &&
  a.port === b.port &&
  (a.user ?? '') === (b.user ?? '') &&
  a.secure === b.secure &&
  a.allow_invalid_certificate === b.allow_invalid_certificate &&
  a.allow_plain_auth === b.allow_plain_auth;

export const withSmtpPass = (next: Smtp, current: Smtp): Smtp => ({
  ...next,
  pass: keepSecret(next.pass, current.pass, sameMailDestination(next, current)),
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

/** The IMAP password, likewise. */
export const withImapPass = (next: Imap, current: Imap): Imap => ({
  ...next,
  pass: keepSecret(next.pass, current.pass, sameMailDestination(next, current)),
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
