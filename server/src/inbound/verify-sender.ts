import type { DNSResolver } from 'mailauth';
// The parts, not the package's entry: that one loads BIMI's HTTP client too (undici), which needs a
// newer Node than ours and is no use here.
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { spf } from 'mailauth/lib/spf/index.js';
import { domainOf } from '../model/index.js';

/** What DNS lookups go through (mailauth's resolver option); tests give a stand-in, with no network here. */
export type DnsResolver = DNSResolver;

/**
 * What the SMTP conversation said about a received mail, beyond its recipients: who connected and
 * what they called themselves. Mail read over IMAP has none (its server spoke SMTP, not us).
 */
export interface SmtpSession {
  /** The connecting client's IP address. */
  clientIp: string;
  /** The name the client gave in HELO/EHLO. */
  helo: string | null;
  /** MAIL FROM (the return path); null for the null sender `<>`. */
  mailFrom: string | null;
}

/** `domain` is `of` or one of its subdomains (a bounce domain like bounces.shop.example). */
const sameOrBelow = (domain: string, of: string) => domain === of || domain.endsWith(`.${of}`);

/**
 * Whether a mail verifiably comes from its From address's domain, so that it may speak as the
 * customer of that address (issue 28): a DKIM signature that verifies and whose signing domain
 * aligns with the From domain (mailauth's relaxed alignment), or, when we received it over SMTP
 * ourselves, an SPF pass for a MAIL FROM in the From domain or below it. A From header alone proves
 * nothing: anyone can write it. DNS failures count as not verified (the mail is kept, marked).
 */
export async function senderVerified(
  raw: Buffer,
  sender: string,
  session: SmtpSession | undefined,
  resolver: DnsResolver | undefined,
): Promise<boolean> {
  const from = domainOf(sender);
  const dkim = await dkimVerify(raw, { ...(resolver ? { resolver } : {}) }).catch(() => undefined);
  // A signature over part of the body only (l=) would let anyone append their own text below it.
  if (dkim?.results?.some((r) => r.status.result === 'pass' && r.status.aligned && !r.status.underSized)) return true;
  if (!session?.mailFrom) return false;
  const checked = await spf({
    ip: session.clientIp,
    sender: session.mailFrom,
    ...(session.helo ? { helo: session.helo } : {}),
    ...(resolver ? { resolver } : {}),
  }).catch(() => undefined);
  return checked?.status.result === 'pass' && sameOrBelow(domainOf(session.mailFrom), from);
}
