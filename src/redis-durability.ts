import type { Redis } from 'ioredis';

/**
 * Whether this Redis keeps what it acknowledged. The app answers Shopify 2xx once a job is in Redis, so a Redis that
 * loses writes on a crash (no AOF, no replica acknowledging them) or evicts keys under memory pressure loses orders
 * that Shopify will never send again. Read from `INFO` only: managed Redis services often refuse `CONFIG GET`.
 *
 * Accepted: `appendonly yes` (AOF), or a primary that refuses writes unless at least one replica has them
 * (`min-replicas-to-write` ≥ 1, seen as `min_slaves_good_slaves` in `INFO replication`). In both cases
 * `maxmemory-policy` must be `noeviction`: any other policy drops keys (queued jobs among them) when memory is full.
 */

export interface DurabilityReport {
  durable: boolean;
  /** Why it is not, in words an operator can act on; empty when durable. */
  reasons: string[];
}

export function parseInfo(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) out.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return out;
}

export function judgeDurability(info: Map<string, string>): DurabilityReport {
  const reasons: string[] = [];
  const aof = info.get('aof_enabled') === '1';
  const goodReplicas = Number(info.get('min_slaves_good_slaves') ?? '0');
  if (!aof && !(goodReplicas >= 1)) {
    reasons.push(
      'Redis has no append-only file (appendonly no) and no replica that must acknowledge writes (min-replicas-to-write): a crash loses queued jobs already answered 2xx. Turn on appendonly yes (appendfsync everysec), or configure min-replicas-to-write 1 with a replica',
    );
  }
  const policy = info.get('maxmemory_policy');
  if (policy !== undefined && policy !== 'noeviction') {
    reasons.push(`Redis maxmemory-policy is ${policy}: under memory pressure it evicts keys, queued jobs among them. Set maxmemory-policy noeviction`);
  }
  return { durable: reasons.length === 0, reasons };
}

export async function checkRedisDurability(redis: Redis): Promise<DurabilityReport> {
  const [persistence, replication, memory] = await Promise.all([redis.info('persistence'), redis.info('replication'), redis.info('memory')]);
  return judgeDurability(parseInfo(`${persistence}\n${replication}\n${memory}`));
}

/** The readiness check of `/readyz`: fails with the reasons unless volatility is explicitly allowed. */
export function redisDurabilityCheck(redis: Redis, allowVolatile: boolean): () => Promise<{ ok: boolean; detail?: string }> {
  return async () => {
    const report = await checkRedisDurability(redis);
    if (report.durable) return { ok: true, detail: 'acknowledged jobs survive a Redis crash' };
    if (allowVolatile) return { ok: true, detail: `REDIS_ALLOW_VOLATILE=true: ${report.reasons.join('; ')}` };
    return { ok: false, detail: report.reasons.join('; ') };
  };
}
