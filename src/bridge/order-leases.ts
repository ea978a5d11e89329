import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * What about an order is short-lived and stays in Redis: leases (a few seconds) and the ids of webhooks already taken
 * in (a week, Shopify's retry window). Neither grows with the number of finished orders.
 */
const WEBHOOK_SEEN_SECONDS = 8 * 24 * 3600;

const RENEW_LEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

const RELEASE_LEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

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
    return (await this.redis.eval(RENEW_LEASE_SCRIPT, 1, this.key('lease', shop, orderId), token, String(ttlMs))) === 1;
  }

  async releaseLease(shop: string, orderId: string, token: string): Promise<void> {
    await this.redis.eval(RELEASE_LEASE_SCRIPT, 1, this.key('lease', shop, orderId), token);
  }

  async markWebhookSeen(webhookId: string): Promise<boolean> {
    return (await this.redis.set(this.key('webhook', webhookId), '1', 'EX', WEBHOOK_SEEN_SECONDS, 'NX')) === 'OK';
  }

  async isWebhookSeen(webhookId: string): Promise<boolean> {
    return (await this.redis.exists(this.key('webhook', webhookId))) === 1;
  }
}
