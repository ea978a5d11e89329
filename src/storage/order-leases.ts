import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RedisScript } from '../redis-script.js';

/**
 * What about an order is short-lived and stays in Redis: leases (a few seconds) and the ids of webhooks already taken
 * in (a week, Shopify's retry window). Neither grows with the number of finished orders.
 */
const WEBHOOK_SEEN_SECONDS = 8 * 24 * 3600;

/**
 * How long a claim lasts before its webhook is confirmed queued: far longer than an enqueue takes (Shopify gives up on
 * a delivery after 5 s), short enough that a delivery whose process died between claim and enqueue is taken in again
 * when Shopify retries it.
 */
export const WEBHOOK_CLAIM_PENDING_MS = 60_000;

// All of a webhook's keys (its id, and its event id when it has one) or none: the script runs alone in Redis, so of
// any number of concurrent deliveries exactly one finds them all free. 0: a key is confirmed seen ('1'); -1: a key is
// held by a delivery still being queued (its token), which may yet give it up.
// With a body (KEYS ends with the body's key and its store's index; ARGV[3..5]: body, webhook id, seconds), the body
// is kept in the same step as the claim that wins: one round trip for both on webhook intake (issue 27).
const CLAIM_WEBHOOK_SCRIPT = new RedisScript(`
local seen = #KEYS
if ARGV[3] then seen = #KEYS - 2 end
local pending = 0
for i = 1, seen do
  local held = redis.call('GET', KEYS[i])
  if held == '1' then return 0 end
  if held then pending = 1 end
end
if pending == 1 then return -1 end
for i = 1, seen do
  redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2])
end
if ARGV[3] then
  redis.call('SET', KEYS[seen + 1], ARGV[3], 'EX', ARGV[5])
  redis.call('SADD', KEYS[seen + 2], ARGV[4])
  redis.call('EXPIRE', KEYS[seen + 2], ARGV[5])
end
return 1
`);

// Only the claimant's own keys: one that expired and was claimed again by a later delivery is that delivery's.
const RELEASE_WEBHOOK_SCRIPT = new RedisScript(`
local released = 0
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then released = released + redis.call('DEL', KEYS[i]) end
end
return released
`);

// One command, not a MULTI: ioredis builds a pipeline object for every MULTI, which was a tenth of the web process's
// time on webhook intake (issue 27).
const CONFIRM_WEBHOOK_SCRIPT = new RedisScript(`
for i = 1, #KEYS do
  redis.call('SET', KEYS[i], '1', 'EX', ARGV[1])
end
return #KEYS
`);

const RENEW_LEASE_SCRIPT = new RedisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);

const RELEASE_LEASE_SCRIPT = new RedisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/** A webhook body kept with the claim that wins (see WebhookBodies for its keys and lifetime). */
export interface ClaimedBody {
  key: string;
  index: string;
  webhookId: string;
  body: Buffer | string;
  seconds: number;
}

export class OrderLeases {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(...parts: string[]): string {
    return `${this.prefix}${parts.join(':')}`;
  }

  async tryLease(shop: string, orderId: string, ttlMs: number): Promise<string | undefined> {
    const token = randomUUID();
    const ok = await this.redis.set(this.key('lease', shop, orderId), token, 'PX', ttlMs, 'NX');
    return ok === 'OK' ? token : undefined;
  }

  async renewLease(shop: string, orderId: string, token: string, ttlMs: number): Promise<boolean> {
    return (await RENEW_LEASE_SCRIPT.run(this.redis, [this.key('lease', shop, orderId)], [token, String(ttlMs)])) === 1;
  }

  async releaseLease(shop: string, orderId: string, token: string): Promise<void> {
    await RELEASE_LEASE_SCRIPT.run(this.redis, [this.key('lease', shop, orderId)], [token]);
  }

  /**
   * Claims a webhook's seen-keys atomically (one round trip): a token when this delivery is the first within
   * WEBHOOK_SEEN_SECONDS; `seen` when a key is confirmed taken (a repeat delivery); `pending` when another delivery
   * holds one and is being queued right now (it may still fail and give it up).
   * The claim lasts WEBHOOK_CLAIM_PENDING_MS until confirmWebhook, or until releaseWebhook gives it up. `body`, when
   * given, is kept with a winning claim in the same step.
   */
  async claimWebhook(keys: readonly string[], body?: ClaimedBody): Promise<{ token: string } | 'seen' | 'pending'> {
    const token = randomUUID();
    const seenKeys = keys.map((k) => this.key('webhook', k));
    const claimed = await CLAIM_WEBHOOK_SCRIPT.run(
      this.redis,
      body ? [...seenKeys, body.key, body.index] : seenKeys,
      body ? [token, String(WEBHOOK_CLAIM_PENDING_MS), body.body, body.webhookId, String(body.seconds)] : [token, String(WEBHOOK_CLAIM_PENDING_MS)],
    );
    return claimed === 1 ? { token } : claimed === -1 ? 'pending' : 'seen';
  }

  /** The webhook is queued: its keys count as seen for WEBHOOK_SEEN_SECONDS (Shopify's retry window and more). */
  async confirmWebhook(keys: readonly string[]): Promise<void> {
    await CONFIRM_WEBHOOK_SCRIPT.run(this.redis, keys.map((k) => this.key('webhook', k)), [String(WEBHOOK_SEEN_SECONDS)]);
  }

  /** The webhook could not be queued: its keys are free again, so Shopify's next delivery of it is taken in. */
  async releaseWebhook(keys: readonly string[], token: string): Promise<void> {
    await RELEASE_WEBHOOK_SCRIPT.run(this.redis, keys.map((k) => this.key('webhook', k)), [token]);
  }

  async isWebhookSeen(webhookId: string): Promise<boolean> {
    return (await this.redis.exists(this.key('webhook', webhookId))) === 1;
  }
}
