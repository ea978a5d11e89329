import type { Redis } from 'ioredis';
import { RedisScript } from '../redis-script.js';
import { parseJsonLossless } from '../shopify/json.js';

/**
 * Raw webhook bodies between intake and the worker. Queue jobs carry ids only: a job's data stays in Redis for a day
 * when it completes and a month when it fails, and a body holds the customer's name, address and contact, which must
 * not outlive `customers/redact`. The body is kept here instead, by store and webhook id, with an index per store so
 * redaction finds it, and deleted once the webhook is handled (or after `WEBHOOK_BODY_SECONDS` at most).
 */

// The body and its entry in the store's index, in one command (a MULTI costs a pipeline object per call in ioredis).
const DROP_BODY_SCRIPT = new RedisScript(`
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[1])
return 1
`);

/** As long as a webhook id counts as seen: a job older than that is past every retry. */
export const WEBHOOK_BODY_SECONDS = 8 * 24 * 3600;

export class WebhookBodies {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  key(shop: string, webhookId: string): string {
    return `${this.prefix}webhook-body:${shop}:${webhookId}`;
  }

  index(shop: string): string {
    return `${this.prefix}webhook-bodies:${shop}`;
  }

  async keep(shop: string, webhookId: string, body: string): Promise<void> {
    const results = await this.redis
      .multi()
      .set(this.key(shop, webhookId), body, 'EX', WEBHOOK_BODY_SECONDS)
      .sadd(this.index(shop), webhookId)
      .expire(this.index(shop), WEBHOOK_BODY_SECONDS)
      .exec();
    const failed = results?.find(([error]) => error);
    if (!results || failed) throw failed?.[0] ?? new Error('Redis refused the webhook body');
  }

  async get(shop: string, webhookId: string): Promise<string | undefined> {
    return (await this.redis.get(this.key(shop, webhookId))) ?? undefined;
  }

  async drop(shop: string, webhookId: string): Promise<void> {
    await DROP_BODY_SCRIPT.run(this.redis, [this.key(shop, webhookId), this.index(shop)], [webhookId]);
  }

  /** Every body kept for the store (shop/redact). Returns how many. */
  async dropShop(shop: string): Promise<number> {
    const ids = await this.redis.smembers(this.index(shop));
    if (ids.length > 0) await this.redis.del(...ids.map((id) => this.key(shop, id)));
    await this.redis.del(this.index(shop));
    return ids.length;
  }

  /** The bodies of these orders (customers/redact): order bodies whose exact `id` is one of `orderIds` (numeric, as text). */
  async dropOrders(shop: string, orderIds: readonly string[]): Promise<number> {
    const wanted = new Set(orderIds);
    let dropped = 0;
    for (const webhookId of await this.redis.smembers(this.index(shop))) {
      const body = await this.get(shop, webhookId);
      if (body === undefined) {
        await this.redis.srem(this.index(shop), webhookId);
        continue;
      }
      if (wanted.has(orderIdOf(body) ?? '')) {
        await this.drop(shop, webhookId);
        dropped++;
      }
    }
    return dropped;
  }
}

/** The order id of a webhook body (`id`, or `order.id`), as text: read losslessly, since ids pass 2^53. */
export function orderIdOf(body: string): string | undefined {
  try {
    const parsed = parseJsonLossless(body) as { id?: unknown; order?: { id?: unknown } };
    const id = parsed.id ?? parsed.order?.id;
    return typeof id === 'number' || typeof id === 'string' ? String(id) : undefined;
  } catch {
    return undefined;
  }
}
