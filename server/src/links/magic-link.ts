import { createHmac, timingSafeEqual } from 'node:crypto';
import type { KeyMode, Ticket } from '../model/index.js';

/** How long a link in a customer mail opens its ticket. */
const LINK_DAYS = 30;

/** What a link is bound to: the ticket, its email, and the ticket's link generation (revocation). */
export interface LinkTicket extends Pick<Ticket, 'id' | 'email'> {
  /** Bumped by POST /revoke-links: every link signed before stops working. */
  link_version?: number;
}

const TOKEN = /^([lt])\.(tkt_[A-Za-z0-9]{1,100})\.(\d{1,12})\.(\d{1,9})\.([A-Za-z0-9_-]{43})$/;

const mac = (secret: string, mode: KeyMode, id: string, exp: number, version: number, email: string) =>
  createHmac('sha256', secret)
    .update(`${mode}.${id}.${exp}.${version}.${email.trim().toLowerCase()}`)
    .digest('base64url');

/**
 * A token for a customer mail: `<l|t>.<ticket id>.<expiry, unix seconds>.<generation>.<HMAC>`, the HMAC
 * over all of that and the ticket's email under the server's link secret. The email is not in the
 * token (links end up in logs and browser histories); changing any part breaks the HMAC.
 */
export function signLink(secret: string, mode: KeyMode, t: LinkTicket, now: Date): string {
  const exp = Math.floor(now.getTime() / 1000) + LINK_DAYS * 86_400;
  const version = t.link_version ?? 0;
  return `${mode[0]}.${t.id}.${exp}.${version}.${mac(secret, mode, t.id, exp, version, t.email)}`;
}

export interface ParsedLink {
  mode: KeyMode;
  ticketId: string;
  exp: number;
  version: number;
  sig: string;
}

/** The parts of a well-formed token, or null. */
export function parseLink(token: string): ParsedLink | null {
  const m = TOKEN.exec(token);
  if (!m) return null;
  return {
    mode: m[1] === 'l' ? 'live' : 'test',
    ticketId: m[2]!,
    exp: Number(m[3]),
    version: Number(m[4]),
    sig: m[5]!,
  };
}

/** Whether a parsed token opens `t` now: not expired, not revoked, and signed for its email (constant time). */
export function linkOpens(secret: string, link: ParsedLink, t: LinkTicket, now: Date): boolean {
  if (link.exp * 1000 <= now.getTime() || link.version !== (t.link_version ?? 0)) return false;
  const expected = Buffer.from(mac(secret, link.mode, t.id, link.exp, link.version, t.email));
  const given = Buffer.from(link.sig);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
