import { BlockList, isIP } from 'node:net';

/**
 * The one judge of "is this an address on the public internet" (DESIGN section 9): a merchant's print account may
 * only connect to one, and an artwork host must only resolve to one. Everything else (loopback, private, link-local,
 * CGNAT, unique-local, site-local, multicast, documentation, benchmarking, reserved, unspecified) is refused.
 *
 * An IPv6 address that carries an IPv4 address (IPv4-mapped, IPv4-compatible, IPv4-translated, NAT64, 6to4,
 * Teredo) reaches that IPv4 address through a translator or a tunnel, so it is judged by the IPv4 address it
 * carries: `64:ff9b::7f00:1` is 127.0.0.1 and as refused as 127.0.0.1 itself. Any other IPv6 address must be global
 * unicast (2000::/3) outside the special ranges in it: an allow-list, so a range this table does not name is refused
 * rather than let through.
 *
 * Ranges are IANA's special-purpose address registries (RFC 6890 and successors), "globally reachable: false".
 */

type Range = readonly [network: string, prefix: number];

/** Each kind of non-public range, with the words a merchant or operator reads. */
const KINDS: readonly { words: string; ipv4: readonly Range[]; ipv6: readonly Range[] }[] = [
  { words: 'the unspecified address', ipv4: [['0.0.0.0', 8]], ipv6: [['::', 128]] },
  { words: 'a loopback address', ipv4: [['127.0.0.0', 8]], ipv6: [['::1', 128]] },
  { words: 'a private address', ipv4: [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16]], ipv6: [['fc00::', 7]] },
  { words: 'a link-local address', ipv4: [['169.254.0.0', 16]], ipv6: [['fe80::', 10]] },
  { words: 'a site-local address', ipv4: [], ipv6: [['fec0::', 10]] },
  { words: 'a carrier-grade NAT (shared) address', ipv4: [['100.64.0.0', 10]], ipv6: [] },
  { words: 'a multicast address', ipv4: [['224.0.0.0', 4]], ipv6: [['ff00::', 8]] },
  {
    words: 'a documentation or benchmarking address',
    ipv4: [['192.0.2.0', 24], ['198.51.100.0', 24], ['203.0.113.0', 24], ['198.18.0.0', 15]],
    ipv6: [['2001:db8::', 32], ['3fff::', 20], ['2001:2::', 48]],
  },
  {
    words: 'a reserved or special-purpose address',
    ipv4: [['192.0.0.0', 24], ['192.88.99.0', 24], ['240.0.0.0', 4]],
    // 64:ff9b:1::/48 is NAT64 for local use: where its IPv4 sits depends on the local prefix length, so it cannot be
    // judged by the IPv4 it carries, and it is not globally reachable anyway. 2001::/23 holds protocol assignments
    // (Teredo, 2001::/32, is judged by its client address before this), 100::/64 is discard-only.
    ipv6: [['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23]],
  },
];

const BLOCKS = KINDS.map((kind) => {
  const list = new BlockList();
  for (const [network, prefix] of kind.ipv4) list.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of kind.ipv6) list.addSubnet(network, prefix, 'ipv6');
  return { words: kind.words, list };
});

/** Global unicast: the only IPv6 space that holds public addresses (2000::/3). */
const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet('2000::', 3, 'ipv6');

/** True only for an IP address on the public internet; false for anything else, host names and garbage included. */
export function isPublicAddress(address: string): boolean {
  return nonPublicReason(address) === undefined;
}

/**
 * Why an address is not public, in words (`"64:ff9b::7f00:1 is 127.0.0.1 (NAT64), a loopback address"`), or
 * undefined when it is public.
 */
export function nonPublicReason(address: string): string | undefined {
  const ip = address.replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 0) return `${address} is not an IP address`;
  if (family === 4) {
    const kind = kindOf(ip, 'ipv4');
    return kind ? `${address} is ${kind}` : undefined;
  }
  const bytes = ipv6Bytes(ip);
  if (!bytes) return `${address} is not an IP address`;
  for (const carried of carriedIPv4(bytes)) {
    const kind = kindOf(carried.ipv4, 'ipv4');
    if (kind) return `${address} is ${carried.ipv4} (${carried.via}), ${kind}`;
  }
  if (carriedIPv4(bytes).length > 0) return undefined;
  const kind = kindOf(ip, 'ipv6');
  if (kind) return `${address} is ${kind}`;
  if (!GLOBAL_UNICAST.check(ip, 'ipv6')) return `${address} is not a global unicast address`;
  return undefined;
}

function kindOf(address: string, family: 'ipv4' | 'ipv6'): string | undefined {
  return BLOCKS.find((b) => b.list.check(address, family))?.words;
}

/**
 * The IPv4 addresses an IPv6 address reaches through a translator or tunnel, with the mechanism's name; empty for an
 * address that carries none. Teredo carries two (its server, and its client with every bit inverted): both must be
 * public.
 */
export function carriedIPv4(bytes: Uint8Array): { ipv4: string; via: string }[] {
  const zero = (from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);
  const v4 = (at: number, invert = false) => Array.from(bytes.subarray(at, at + 4), (b) => (invert ? b ^ 0xff : b)).join('.');
  const word = (at: number) => (bytes[at]! << 8) | bytes[at + 1]!;
  // ::ffff:a.b.c.d (IPv4-mapped) and ::ffff:0:a.b.c.d (IPv4-translated, SIIT).
  if (zero(0, 10) && word(10) === 0xffff) return [{ ipv4: v4(12), via: 'IPv4-mapped' }];
  if (zero(0, 8) && word(8) === 0xffff && word(10) === 0) return [{ ipv4: v4(12), via: 'IPv4-translated' }];
  // ::a.b.c.d (IPv4-compatible, deprecated); :: and ::1 are judged as themselves.
  if (zero(0, 12) && !zero(12, 15)) return [{ ipv4: v4(12), via: 'IPv4-compatible' }];
  // 64:ff9b::/96 (well-known NAT64 prefix).
  if (word(0) === 0x64 && word(2) === 0xff9b && zero(4, 12)) return [{ ipv4: v4(12), via: 'NAT64' }];
  // 2002:AABB:CCDD::/48 (6to4).
  if (word(0) === 0x2002) return [{ ipv4: v4(2), via: '6to4' }];
  // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC (Teredo): server address, then the client's, obfuscated.
  if (word(0) === 0x2001 && word(2) === 0) return [{ ipv4: v4(4), via: 'Teredo server' }, { ipv4: v4(12, true), via: 'Teredo client' }];
  return [];
}

/** The 16 bytes of an IPv6 address (as `isIP` accepts it, a trailing dotted IPv4 included), or undefined. */
export function ipv6Bytes(address: string): Uint8Array | undefined {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const part = (s: string | undefined) => (s ? s.split(':') : []);
  const head = part(halves[0]);
  const tail = part(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  const bytes = new Uint8Array(16);
  for (const [i, group] of groups.entries()) {
    if (!/^[0-9a-f]{1,4}$/.test(group)) return undefined;
    const value = parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  }
  return bytes;
}
