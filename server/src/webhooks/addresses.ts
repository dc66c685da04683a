import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * True for an address of the public internet: not loopback, private (10/8, 172.16/12, 192.168/16,
 * fc00::/7), link-local (169.254/16, fe80::/10), carrier-grade NAT (100.64/10), unspecified (0.0.0.0,
 * ::), multicast, broadcast, or reserved and documentation ranges, also when written as an IPv4-mapped
 * IPv6 address. ipaddr.js keeps the table of special ranges; only its plain `unicast` passes.
 */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  return ipaddr.process(ip).range() === 'unicast';
}

/**
 * True when a URL's host is known to be local without asking DNS: an IP literal that is not public
 * (the URL parser has already turned `127.1`, `2130706433` and `0x7f.1` into 127.0.0.1), or a
 * `localhost` name (RFC 6761). Other names are checked when they are resolved.
 */
export function isLocalUrl(url: string): boolean {
  let host: string;
  try {
    // `localhost.` is `localhost`: a trailing dot only makes a name absolute.
    host = new URL(url).hostname
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '')
      .toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && !isPublicAddress(host);
}
