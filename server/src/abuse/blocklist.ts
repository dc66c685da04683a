import { ipMatcher } from '../admin/ip.js';
import type { ConfigData } from '../admin/schema.js';
import { ApiError } from '../http/errors.js';

const cache = new WeakMap<ConfigData['blocklists'], (ip: string) => boolean>();

/**
 * Refuses a customer's request whose address, email, email domain (or a parent domain of it) or text
 * is on a blocklist. The answer names no list, so a sender learns nothing about the rules.
 */
export function checkBlocklists(
  lists: ConfigData['blocklists'],
  sender: { ip: string; email: string; texts: string[] },
) {
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
