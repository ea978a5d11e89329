import type { Redis } from 'ioredis';
import type { Database } from '../db/database.js';
import type { WebhookClaim } from '../shopify/webhook-intake.js';
import { OrderLeases } from './order-leases.js';
import { OrderLists } from './order-lists.js';
import { WEBHOOK_BODY_SECONDS, WebhookBodies } from './webhook-bodies.js';

/**
 * What of the order store lives in Redis, short-lived: leases on orders (seconds), the ids of webhooks taken in and
 * their bodies between intake and worker (days at most). PostgresOrderStore (order-store.ts) builds on it; the orders
 * themselves are in PostgreSQL.
 */
export class ShortLivedRecords extends OrderLists {
  protected readonly redis: Redis;
  protected readonly prefix: string;
  private readonly leases: OrderLeases;

  constructor(options: { database: Database; redis: Redis; prefix: string }) {
    super(options.database);
    this.redis = options.redis;
    this.prefix = options.prefix;
    this.leases = new OrderLeases(options.redis, options.prefix);
  }

  /**
   * Takes in a webhook once: claims its seen-keys (webhook id, event id) in one atomic step. Undefined when they were
   * seen within the last days; `pending` while another delivery is queueing it; otherwise the claim, to confirm once
   * the job is queued or to release when it could not be. `body`: kept (webhookBodies) with a claim that wins, in the
   * same round trip.
   */
  async claimWebhook(keys: readonly string[], body?: { shop: string; webhookId: string; body: Buffer | string }): Promise<WebhookClaim | 'pending' | undefined> {
    const bodies = body ? this.webhookBodies() : undefined;
    const kept = body && bodies ? { key: bodies.key(body.shop, body.webhookId), index: bodies.index(body.shop), webhookId: body.webhookId, body: body.body, seconds: WEBHOOK_BODY_SECONDS } : undefined;
    const claimed = await this.leases.claimWebhook(keys, kept);
    if (claimed === 'seen') return undefined;
    if (claimed === 'pending') return 'pending';
    return {
      confirm: () => this.leases.confirmWebhook(keys),
      release: () => this.leases.releaseWebhook(keys, claimed.token),
    };
  }

  async isWebhookSeen(webhookId: string): Promise<boolean> {
    return this.leases.isWebhookSeen(webhookId);
  }

  /** Raw webhook bodies between intake and the worker (queue jobs carry ids only). */
  webhookBodies(): WebhookBodies {
    return new WebhookBodies(this.redis, this.prefix);
  }

  /**
   * A short lease on one order for steps that read Shopify and then write it (a fulfillment), so two jobs of the same
   * order do not both act on one read. Returns a token for `releaseLease`, or undefined when someone else holds it.
   */
  async tryLease(shop: string, orderId: string, ttlMs: number): Promise<string | undefined> {
    return this.leases.tryLease(shop, orderId, ttlMs);
  }

  /** Extends a lease still held with `token`; false when it was lost (expired and maybe taken by another job). */
  async renewLease(shop: string, orderId: string, token: string, ttlMs: number): Promise<boolean> {
    return this.leases.renewLease(shop, orderId, token, ttlMs);
  }

  async releaseLease(shop: string, orderId: string, token: string): Promise<void> {
    await this.leases.releaseLease(shop, orderId, token);
  }
}
