import { promises as dns } from 'node:dns';

/** One address a host name resolves to, as `dns.lookup` gives it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/**
 * The app's port for resolving host names: every address of a name (`dns.lookup` with `all`, so what the operating
 * system's resolver answers, hosts file included). Passed as a dependency so tests and the demo, which have no
 * internet and made-up artwork hosts, answer for the names they use.
 */
export type HostLookup = (host: string) => Promise<readonly ResolvedAddress[]>;

export const systemLookup: HostLookup = (host) => dns.lookup(host, { all: true, verbatim: true });

/** The name does not exist (NXDOMAIN) or has no address: an answer, not a failure to get one. */
export function isHostNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOTFOUND' || code === 'ENODATA';
}

/** A lookup that did not get an answer in time (or a temporary failure of the resolver). */
export class HostLookupTimeoutError extends Error {
  readonly code = 'ETIMEOUT';
  constructor(host: string, ms: number) {
    super(`looking up ${host} took longer than ${ms} ms`);
    this.name = 'HostLookupTimeoutError';
  }
}

/**
 * A lookup with a deadline and a short per-host memory: the distinct hosts of one order are looked up once, and a
 * burst of orders with the same artwork host asks the resolver once per `ttlMs`. Answers and "no such name" are
 * kept; failures to get an answer are not (the next try asks again). At most `maxHosts` names are kept (customers'
 * cart properties choose names: the memory must not grow with them).
 */
export function cachingLookup(
  lookup: HostLookup,
  options: { ttlMs?: number; timeoutMs?: number; maxHosts?: number; now?: () => number } = {},
): HostLookup {
  const ttlMs = options.ttlMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const maxHosts = options.maxHosts ?? 1_000;
  const now = options.now ?? Date.now;
  const kept = new Map<string, { until: number; answer: Promise<readonly ResolvedAddress[]> }>();
  return (host) => {
    const key = host.toLowerCase();
    const hit = kept.get(key);
    if (hit && hit.until > now()) return hit.answer;
    kept.delete(key);
    const answer = withDeadline(lookup(key), timeoutMs, key);
    const entry = { until: now() + ttlMs, answer };
    kept.set(key, entry);
    while (kept.size > maxHosts) kept.delete(kept.keys().next().value!);
    answer.catch((error: unknown) => {
      if (!isHostNotFound(error) && kept.get(key) === entry) kept.delete(key);
    });
    return answer;
  };
}

function withDeadline<T>(work: Promise<T>, ms: number, host: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HostLookupTimeoutError(host, ms)), ms);
    timer.unref();
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
