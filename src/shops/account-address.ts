import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { PRIVATE_SUFFIXES } from '../mapping/artwork-url.js';
import { systemLookup, type HostLookup } from '../net/host-lookup.js';
import { isPublicAddress, nonPublicReason } from '../net/public-address.js';

/**
 * A merchant types their print service's address into the app, and the app then makes signed requests to it from
 * inside the operator's network: without a rule, that is a way to make the app call a cloud metadata service, Redis
 * on localhost or an internal admin page (SSRF). So an address entered by a merchant must be https to a public host
 * name (no IP literal, no name that only means something inside a network), and every connection made for such an
 * account refuses, after resolution, every address that is not public (src/net/public-address.ts: loopback,
 * private, link-local, CGNAT, unique-local, site-local, and those carried in IPv6 by NAT64, 6to4 and the like), so a
 * public name that resolves inside, or is made to later, gets nowhere. The operator's own account, and accounts the operator
 * sets with the command line, are trusted. `PRINT_ACCOUNT_PRIVATE_HOSTS=true` lifts both rules (development, tests,
 * the demo's local emulator).
 */

/**
 * Whether an address is one a merchant's account may not reach: anything not public (src/net/public-address.ts,
 * which judges an IPv6 address that carries an IPv4 one by that IPv4 address).
 */
export function isBlockedAddress(address: string): boolean {
  return !isPublicAddress(address);
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
/** A socket's `lookup` option (the shape of `dns.lookup`). */
export type SocketLookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/**
 * A `dns.lookup` for sockets of merchants' accounts: resolves with `resolve` (the app's lookup port), then refuses
 * when any address is one they may not reach (checked on every connection, so a name re-pointed later is refused
 * too). The refusal says which address and why, in words the merchant reads on the settings page.
 */
export function publicOnlyLookupVia(resolve: HostLookup): SocketLookup {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (answer) => {
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
        const list = answer.filter((a) => !family || a.family === family).map((a) => ({ address: a.address, family: a.family }));
        const blocked = list.map((a) => nonPublicReason(a.address)).find((reason) => reason !== undefined);
        if (blocked || list.length === 0) {
          const refusal: NodeJS.ErrnoException = new Error(
            `${hostname} resolves to ${blocked ?? 'no address'}, which a print account may not reach (only public internet addresses are allowed).`,
          );
          refusal.code = 'EADDRNOTAVAIL';
          return callback(refusal, '', 0);
        }
        if (options.all) return callback(null, list);
        callback(null, list[0]!.address, list[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** `publicOnlyLookupVia` over the system resolver. */
export const publicOnlyLookup: SocketLookup = publicOnlyLookupVia(systemLookup);
