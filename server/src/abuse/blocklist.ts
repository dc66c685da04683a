import { BlockList, isIP } from 'node:net';
import type { Blocklists } from '../model/index.js';
import { ApiError } from '../http/errors.js';

/**
 * A matcher for the configured addresses and CIDR ranges (checked when written: model/common.ts).
 * node:net's BlockList does the matching, IPv4-mapped IPv6 included.
 */
function ipMatcher(entries: string[]): (ip: string) => boolean {
  const list = new BlockList();
  for (const e of entries) {
    const [addr = '', bits] = e.split('/');
    const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, Number(bits), type);
  }
  return (ip) => {
    const bare = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
    const type = isIP(bare) === 6 ? 'ipv6' : 'ipv4';
    return isIP(bare) ? list.check(bare, type) : false;
  };
}

const cache = new WeakMap<Blocklists, (ip: string) => boolean>();

/**
 * Refuses a customer's request whose address, email, email domain (or a parent domain of it) or text
 * is on a blocklist. The answer names no list, so a sender learns nothing about the rules.
 */
export function checkBlocklists(lists: Blocklists, sender: { ip: string; email: string; texts: string[] }) {
  const email = sender.email.trim().toLowerCase();
  const domain = email.slice(email.lastIndexOf('@') + 1);
  let ipBlocked = cache.get(lists);
  if (!ipBlocked) {
    ipBlocked = ipMatcher(lists.ips);
    cache.set(lists, ipBlocked);
  }
  const text = sender.texts.join('\n').toLowerCase();
  const blocked =
    lists.emails.includes(email) ||
    lists.domains.some((d) => domain === d || domain.endsWith(`.${d}`)) ||
    ipBlocked(sender.ip) ||
    lists.keywords.some((k) => text.includes(k.toLowerCase()));
  if (blocked) throw new ApiError(403, 'blocked', 'This request cannot be accepted.');
}
