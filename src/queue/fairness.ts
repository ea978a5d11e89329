import { DelayedError, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { RedisScript } from '../redis-script.js';

/**
 * Fairness between stores on a shared queue. BullMQ's open-source edition has no groups, so each store gets an
 * in-flight cap in Redis: a job of a store that already has `cap` jobs running goes back to the delayed set for a
 * moment, without using an attempt, and its worker slot takes the next job (another store's). One busy store can
 * therefore hold at most `cap` slots of a queue however long its backlog, across every worker process.
 *
 * And a job that would have to wait for its store's Shopify budget does not sleep in its slot either: the pacer
 * throws ShopifyBudgetWaitError with `retryAfterMs` (the bucket's refill, estimated or told by a THROTTLED answer), and
 * the job is delayed by that long, again without using an attempt.
 *
 * The running set is a sorted set per queue and store whose members expire (score = when): a worker that died holding
 * a place gives it back after `leaseMs`, so the count never leaks.
 */

// KEYS[1] running set. ARGV: now, expiresAt, member, cap, ttlMs
const ACQUIRE = new RedisScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
  return 1
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`);

export interface FairnessOptions {
  redis: Redis;
  /** The app's key prefix. */
  prefix: string;
  queue: string;
  /** Jobs of one store running at once on this queue, across every worker. */
  cap: number;
  /** How long a place is kept without being given back (a dead worker's); at least the job's lock duration. */
  leaseMs: number;
  /** The wait of a job turned away, before jitter (default 250 ms). */
  retryMs?: number;
  random?: () => number;
}

/** True for an error that asks for the job to be run again after `retryAfterMs`, without counting an attempt. */
export function isWaitNotFailure(error: unknown): error is { retryAfterMs: number } {
  if (!error || typeof error !== 'object') return false;
  const e = error as { name?: unknown; retryAfterMs?: unknown; retryable?: unknown };
  return (
    // Only a wait the bucket's refill explains: a THROTTLED answer that persists past the pacer's retries (Shopify
    // refusing more than its figures say) is an ordinary retryable failure that uses an attempt, so it ends visible.
    e.name === 'ShopifyBudgetWaitError' &&
    e.retryable === true &&
    typeof e.retryAfterMs === 'number' &&
    e.retryAfterMs >= 0
  );
}

export class StoreFairness {
  private readonly retryMs: number;
  private readonly random: () => number;

  constructor(private readonly options: FairnessOptions) {
    this.retryMs = options.retryMs ?? 250;
    this.random = options.random ?? Math.random;
  }

  private key(shop: string): string {
    return `${this.options.prefix}fair:${this.options.queue}:${shop}`;
  }

  /**
   * Runs `work` for `shop` when the store is under its cap; otherwise, or when `work` must wait for the store's
   * Shopify budget, moves the job back to the delayed set and throws BullMQ's DelayedError (no attempt used).
   */
  async run<T>(job: Job, token: string | undefined, shop: string | undefined, work: () => Promise<T>): Promise<T> {
    const member = job.id ?? `${job.name}:${job.timestamp}`;
    if (shop !== undefined) {
      const now = Date.now();
      const acquired = await ACQUIRE.run(this.options.redis, [this.key(shop)], [now, now + this.options.leaseMs, member, this.options.cap, this.options.leaseMs * 2]);
      if (acquired !== 1) return await this.later(job, token, this.retryMs);
    }
    try {
      return await work();
    } catch (error) {
      if (isWaitNotFailure(error)) return await this.later(job, token, error.retryAfterMs);
      throw error;
    } finally {
      if (shop !== undefined) await this.options.redis.zrem(this.key(shop), member).catch(() => undefined);
    }
  }

  private async later(job: Job, token: string | undefined, ms: number): Promise<never> {
    // Jitter spreads a store's turned-away jobs out so that they do not all come back at the same moment.
    const wait = Math.round(ms + this.retryMs * this.random());
    await job.moveToDelayed(Date.now() + wait, token);
    throw new DelayedError(`waiting ${wait} ms for the store's turn`);
  }
}
