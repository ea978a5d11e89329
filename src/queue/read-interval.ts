import { DelayedError, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { RedisScript } from '../redis-script.js';

/**
 * The least time between two reads of one store's fulfillment requests. Shopify's ping names nothing and its signed
 * body is the same for every store and every time, so a captured one can be sent again at will: a burst of pings is
 * already one read running and one waiting (the job's deduplication, scheduler.ts), and this spaces those reads out.
 * The job that may not read yet goes back to the delayed set until the store's turn, without using an attempt, and
 * stays the one pending read that later pings fold into. Each read takes every pending request, so none is lost:
 * a request waits at most the interval.
 *
 * The turn is one key per store, holding the job that took it, that expires after the interval: a job turned away by
 * the store fairness (fairness.ts) and coming back keeps the turn it took.
 */

// KEYS[1] the store's turn. ARGV: the job, intervalMs. Returns 0 (read now) or the ms until the store's next turn.
const TURN = new RedisScript(`
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then return 0 end
if holder then
  local left = redis.call('PTTL', KEYS[1])
  if left > 0 then return left end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 0
`);

export class StoreReadInterval {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    /** FULFILLMENT_READ_INTERVAL_MS; 0: reads of a store follow each other without a pause (still one at a time). */
    private readonly intervalMs: number,
  ) {}

  /** Returns when the job may read now; otherwise moves it to the store's next turn and throws BullMQ's DelayedError. */
  async turn(job: Job, token: string | undefined, shop: string): Promise<void> {
    if (this.intervalMs <= 0) return;
    const member = job.id ?? `${job.name}:${job.timestamp}`;
    const wait = Number(await TURN.run(this.redis, [`${this.prefix}fsr-turn:${shop}`], [member, this.intervalMs]));
    if (wait <= 0) return;
    await job.moveToDelayed(Date.now() + wait, token);
    throw new DelayedError(`the store's fulfillment requests were read less than ${this.intervalMs} ms ago; next read in ${wait} ms`);
  }
}
