import { isIP } from 'node:net';
import type { PrintOrder } from '../print-service/schema.js';
import { isHostNotFound, type HostLookup } from '../net/host-lookup.js';
import { nonPublicReason } from '../net/public-address.js';

/**
 * Mapping refuses artwork URLs that are not `https` to a public host *name* (artwork-url.ts), but a public name can
 * resolve to a private address: `art.attacker.example` → 10.0.0.5 would still make the printer fetch from inside its
 * network. So just before an order is sent, every distinct host the printer will fetch from (components with
 * `fetch`, shipment attachments) is resolved, and an order any of whose hosts has a non-public address
 * (src/net/public-address.ts) is held with a problem naming the line item and the host.
 *
 * Hosts in `ARTWORK_HOSTS` are resolved and judged too: the allow-list says whose names the operator trusts, not
 * where those names point today, and a trusted name can be re-pointed (or left dangling and taken over).
 *
 * What this cannot close: the printer resolves the name again when it fetches, later; a name re-pointed in between
 * (DNS rebinding) is for the printer's fetcher to refuse.
 *
 * A pure function of the print order and a lookup port: tests and the demo pass their own lookup.
 */

export interface ArtworkHostProblem {
  subject?: string;
  message: string;
}

export interface ArtworkHostOptions {
  /** How each print item (`orderData.items[i]`) is named in a problem; its sourceItemId and SKU otherwise. */
  itemSubjects?: readonly string[];
  /** Private answers are accepted (ARTWORK_PRIVATE_ADDRESSES: development and the demo, artwork on a local host). */
  allowPrivate?: boolean;
}

/** The resolver could not answer now (timeout, server failure): the order is neither held nor sent, the job retries. */
export class ArtworkHostLookupError extends Error {
  readonly retryable = true;
  constructor(
    readonly host: string,
    cause: unknown,
  ) {
    super(`could not resolve the artwork host ${host} (${(cause as Error)?.message ?? String(cause)}); the order is sent once it resolves`);
    this.name = 'ArtworkHostLookupError';
  }
}

/** One URL of the print order the printer will fetch, and where it sits. */
interface FetchedUrl {
  url: string;
  subject: string;
}

/** Every problem of the order's artwork hosts; empty when every host resolves only to public addresses. */
export async function artworkHostProblems(order: PrintOrder, lookup: HostLookup, options: ArtworkHostOptions = {}): Promise<ArtworkHostProblem[]> {
  const urls = fetchedUrls(order, options.itemSubjects);
  const hosts = [...new Set(urls.map((u) => hostOf(u.url)).filter((h): h is string => h !== undefined))];
  const verdicts = new Map(await Promise.all(hosts.map(async (host) => [host, await judgeHost(host, lookup, options.allowPrivate ?? false)] as const)));
  const problems: ArtworkHostProblem[] = [];
  for (const { url, subject } of urls) {
    const host = hostOf(url);
    const verdict = host === undefined ? `${JSON.stringify(url)} is not a URL the printer can fetch` : verdicts.get(host);
    if (verdict) problems.push({ subject, message: verdict });
  }
  return problems;
}

/** Why the printer may not fetch from this host, or undefined when it may; throws when the answer cannot be had now. */
async function judgeHost(host: string, lookup: HostLookup, allowPrivate: boolean): Promise<string | undefined> {
  if (isIP(host) !== 0) return allowPrivate ? undefined : refusal(host, nonPublicReason(host));
  let answer: readonly { address: string }[];
  try {
    answer = await lookup(host);
  } catch (error) {
    if (isHostNotFound(error)) return `the artwork host ${host} does not exist (no address in DNS); check the URL`;
    throw new ArtworkHostLookupError(host, error);
  }
  if (answer.length === 0) return `the artwork host ${host} does not exist (no address in DNS); check the URL`;
  if (allowPrivate) return undefined;
  for (const { address } of answer) {
    const reason = nonPublicReason(address);
    if (reason) return refusal(host, reason);
  }
  return undefined;
}

function refusal(host: string, reason: string | undefined): string | undefined {
  return reason && `the artwork host ${host} resolves to an address that is not public (${reason}); the printer must not fetch from it`;
}

function fetchedUrls(order: PrintOrder, itemSubjects: readonly string[] = []): FetchedUrl[] {
  const out: FetchedUrl[] = [];
  order.orderData.items.forEach((item, i) => {
    const name = itemSubjects[i] ?? `item ${item.sourceItemId ?? i} (SKU ${item.sku})`;
    for (const component of item.components) {
      if (component.fetch) out.push({ url: component.path, subject: `${name} items[${i}].components[${component.code}].path` });
    }
  });
  order.orderData.shipments.forEach((shipment, s) => {
    shipment.attachments?.forEach((attachment, a) => out.push({ url: attachment.path, subject: `shipments[${s}].attachments[${a}].path` }));
  });
  return out;
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}
