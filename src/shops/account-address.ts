import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { PRIVATE_SUFFIXES } from '../mapping/artwork-url.js';

/**
 * A merchant types their print service's address into the app, and the app then makes signed requests to it from
 * inside the operator's network: without a rule, that is a way to make the app call a cloud metadata service, Redis
 * on localhost or an internal admin page (SSRF). So an address entered by a merchant must be https to a public host
 * name (no IP literal, no name that only means something inside a network), and every connection made for such an
 * account refuses, after resolution, loopback, private, link-local, CGNAT and unique-local addresses (a public name
 * that resolves inside, or is made to later, gets nowhere). The operator's own account, and accounts the operator
 * sets with the command line, are trusted. `PRINT_ACCOUNT_PRIVATE_HOSTS=true` lifts both rules (development, tests,
 * the demo's local emulator).
 */


const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv6');

/** Whether an address is one a merchant's account may not reach (IPv4-mapped IPv6 judged as its IPv4). */
export function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return BLOCKED.check(mapped, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** Why a merchant may not use this address for their print account, or undefined when they may. */
export function accountAddressProblem(value: string, field: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${field}: not an absolute URL`;
  }
  if (url.protocol !== 'https:') return `${field}: must be an https:// address`;
  if (url.username || url.password) return `${field}: must not carry a user name or password`;
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (isIP(host) !== 0) return `${field}: must name the print service's host, not an IP address`;
  if (!host.includes('.') || PRIVATE_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`))) return `${field}: "${host}" is not a public host name`;
  return undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `dns.lookup` for sockets of merchants' accounts: resolves as usual, then refuses when any address is one they may
 * not reach (checked on every connection, so a name re-pointed later is refused too).
 */
export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as LookupAddress[];
    const blocked = list.find((a) => isBlockedAddress(a.address));
    if (blocked || list.length === 0) {
      const refusal: NodeJS.ErrnoException = new Error(`${hostname} resolves to ${blocked?.address ?? 'no address'}, which a print account may not reach (a private, loopback or link-local address)`);
      refusal.code = 'EADDRNOTAVAIL';
      return callback(refusal, '', 0);
    }
    if (options.all) return callback(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
}
