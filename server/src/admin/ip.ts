import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** An IPv4/IPv6 address, or a CIDR range such as 203.0.113.0/24 or 2001:db8::/32. */
export function isIpOrCidr(value: string): boolean {
  const [addr, bits, extra] = value.split('/');
  if (extra !== undefined || !addr) return false;
  const family = isIP(addr);
  if (!family) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/** node:net's BlockList does the matching, IPv4-mapped IPv6 included. */
export function ipMatcher(entries: string[]): (ip: string) => boolean {
  const list = new BlockList();
  for (const e of entries) {
    const [addr, bits] = e.split('/');
    const type = isIP(addr!) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(addr!, type);
    else list.addSubnet(addr!, Number(bits), type);
  }
  return (ip) => {
    const bare = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
    const type = isIP(bare) === 6 ? 'ipv6' : 'ipv4';
    return isIP(bare) ? list.check(bare, type) : false;
  };
}

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
