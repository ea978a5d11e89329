import { isIP } from 'node:net';

/**
 * The URLs a print order hands to the printer to fetch (component artwork, shipment attachments). The printer fetches
 * them from inside its own network, so a URL built from a cart property could make it read a cloud metadata service
 * or an internal host and print (or echo back) what it finds. A URL must therefore be `https` to a public host name:
 *
 * - no IP literals at all (IPv4 in any spelling the WHATWG parser accepts — `2852039166`, `0x7f.1`, `127.1` — and
 *   IPv6): a public file host has a name, and refusing every literal closes loopback, private, link-local, CGNAT,
 *   multicast and reserved ranges without a table that could miss one;
 * - no names that only mean something inside a network (`localhost`, single-label names, `.local`, `.internal`, ...);
 * - no credentials in the URL, no other scheme (`http:`, `file:`, `data:`, `ftp:`, ...).
 *
 * Names are not resolved here (mapping is a pure function): they are resolved just before the order is sent, and a
 * name with a non-public address holds it (artwork-hosts.ts). `ARTWORK_HOSTS` narrows the public names to an
 * allow-list for operators who know where their artwork lives.
 */

export interface ArtworkUrlPolicy {
  /** Allowed host names (`files.example.com`, or `*.example.com` for any name below it); undefined: any public name. */
  hosts?: readonly string[];
}

/** Name suffixes that never reach the public internet (RFC 6761, RFC 8375, and common private zones). */
export const PRIVATE_SUFFIXES = ['localhost', 'local', 'internal', 'intranet', 'lan', 'home', 'corp', 'home.arpa', 'localdomain', 'invalid', 'test', 'onion'];

/** Why the URL may not be fetched by the printer, or undefined when it may. */
export function artworkUrlProblem(value: string, policy: ArtworkUrlPolicy = {}): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${quote(value)} is not an absolute URL (artwork must be an https:// address the printer can fetch)`;
  }
  if (url.protocol !== 'https:') return `${quote(value)} uses ${url.protocol.replace(/:$/, '')}; artwork and attachments must be https`;
  if (url.username || url.password) return `${quote(value)} carries credentials; artwork URLs must not`;
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (isIP(host) !== 0) return `${quote(value)} names an IP address; artwork must come from a public host name`;
  if (!host.includes('.')) return `${quote(value)} names the host "${host}", which is not a public host name`;
  const suffix = PRIVATE_SUFFIXES.find((s) => host === s || host.endsWith(`.${s}`));
  if (suffix) return `${quote(value)} names a host in ".${suffix}", which is not public`;
  if (policy.hosts && !policy.hosts.some((pattern) => hostMatches(host, pattern))) {
    return `${quote(value)} is not on an allowed artwork host (ARTWORK_HOSTS: ${policy.hosts.join(', ')})`;
  }
  return undefined;
}

/** `*.example.com` matches any name below example.com (not example.com itself); anything else matches exactly. */
export function hostMatches(host: string, pattern: string): boolean {
  const p = pattern.trim().toLowerCase().replace(/\.$/, '');
  if (p.startsWith('*.')) return host.endsWith(p.slice(1)) && host.length > p.length - 1;
  return host === p;
}

function quote(value: string): string {
  const shown = value.length > 120 ? `${value.slice(0, 120)}…` : value;
  return JSON.stringify(shown);
}
