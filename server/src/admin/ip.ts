import { BlockList, isIP } from 'node:net';

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
