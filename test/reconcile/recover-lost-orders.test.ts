import { describe, expect, it } from 'vitest';
import { recoverLostOrders, type RecentShopifyOrder } from '../../src/bridge/recover-lost-orders.js';
import { silentLogger } from '../../src/logger.js';
import type { WebhookJob } from '../../src/queue/queues.js';

const NOW = new Date('2026-11-23T12:00:00Z');
const hoursAgo = (h: number) => new Date(NOW.getTime() - h * 3_600_000).toISOString();

function setup(
  orders: Record<string, RecentShopifyOrder[] | Error>,
  known: string[] = [],
  bodies: Record<string, string | undefined | Error> = {},
  activeSince: Record<string, string> = Object.fromEntries(Object.keys(orders).map((shop) => [shop, hoursAgo(1000)])),
) {
  const jobs: WebhookJob[] = [];
  const asked: string[] = [];
  const deps = {
    store: {
      get: async (_shop: string, id: string) => (known.includes(id) ? ({} as never) : undefined),
      shopActiveSince: async (shop: string) => activeSince[shop],
    },
    installedShops: async () => Object.keys(orders),
    recentOrders: async (shop: string, since: string) => {
      asked.push(`${shop} since ${since}`);
      const list = orders[shop]!;
      if (list instanceof Error) throw list;
      return list;
    },
    fetchOrderBody: async (_shop: string, id: string) => {
      const body = id in bodies ? bodies[id] : JSON.stringify({ admin_graphql_api_id: id, financial_status: 'paid' });
      if (body instanceof Error) throw body;
      return body;
    },
    enqueueWebhook: async (job: WebhookJob) => void jobs.push(job),
    clock: () => NOW,
    logger: silentLogger,
  };
  return { deps, jobs, asked };
}

const order = (n: number, createdHoursAgo: number, extra: Partial<RecentShopifyOrder> = {}): RecentShopifyOrder => ({
  id: `gid://shopify/Order/${n}`,
  name: `#${n}`,
  createdAt: hoursAgo(createdHoursAgo),
  cancelledAt: null,
  ...extra,
});

describe('recoverLostOrders', () => {
  it('feeds only unknown, old enough, uncancelled orders through the webhook path, with stable ids', async () => {
    const { deps, jobs, asked } = setup(
      { 'a.myshopify.com': [order(1, 5), order(2, 5), order(3, 0.1), order(4, 5, { cancelledAt: hoursAgo(1) }), order(5, 5)] },
      ['gid://shopify/Order/2'],
      { 'gid://shopify/Order/5': JSON.stringify({ financial_status: 'pending' }) },
    );
    const outcome = await recoverLostOrders(deps, { lookbackMs: 72 * 3_600_000, minAgeMs: 15 * 60_000 });
    expect(asked).toEqual([`a.myshopify.com since ${hoursAgo(72)}`]);
    expect(outcome.seen).toBe(5);
    expect(outcome.recovered.map((r) => [r.orderId, r.topics])).toEqual([
      ['gid://shopify/Order/1', ['orders/create', 'orders/paid']],
      // Not paid yet: only orders/create, so a mapping that submits on orders/paid waits for the real payment.
      ['gid://shopify/Order/5', ['orders/create']],
    ]);
    expect(jobs.map((j) => j.webhookId)).toEqual(['recovered:1:orders/create', 'recovered:1:orders/paid', 'recovered:5:orders/create']);
    expect(jobs.every((j) => j.shop === 'a.myshopify.com' && j.receivedAt === NOW.toISOString())).toBe(true);
  });

  it('goes on with the other shops when one cannot be listed, and skips orders Shopify no longer has', async () => {
    const { deps, jobs } = setup(
      { 'a.myshopify.com': new Error('HTTP 401'), 'b.myshopify.com': [order(7, 2), order(8, 2)] },
      [],
      { 'gid://shopify/Order/8': undefined },
    );
    const outcome = await recoverLostOrders(deps, { lookbackMs: 24 * 3_600_000, minAgeMs: 0 });
    expect(outcome.failedShops).toEqual([{ shop: 'a.myshopify.com', reason: 'HTTP 401' }]);
    expect(outcome.recovered.map((r) => r.orderId)).toEqual(['gid://shopify/Order/7']);
    expect(jobs).toHaveLength(2);
  });

  it('never reaches back before the app first handled one of the shop\'s orders, and leaves orders others fulfilled', async () => {
    const { deps, jobs, asked } = setup(
      {
        'a.myshopify.com': [order(1, 30), order(2, 5), order(3, 5, { displayFulfillmentStatus: 'FULFILLED' }), order(4, 5, { displayFulfillmentStatus: 'UNFULFILLED' })],
        'new.myshopify.com': [order(9, 5)],
      },
      [],
      {},
      { 'a.myshopify.com': hoursAgo(24) },
    );
    const outcome = await recoverLostOrders(deps, { lookbackMs: 72 * 3_600_000, minAgeMs: 0 });
    // From the shop's first handled order, not from 72 hours back; a shop with none is not looked at.
    expect(asked).toEqual([`a.myshopify.com since ${hoursAgo(24)}`]);
    expect(outcome.recovered.map((r) => r.orderId)).toEqual(['gid://shopify/Order/2', 'gid://shopify/Order/4']);
    expect(jobs.every((j) => j.shop === 'a.myshopify.com')).toBe(true);
  });

  it('goes on with the next order when one cannot be read', async () => {
    const { deps } = setup({ 'a.myshopify.com': [order(1, 2), order(2, 2)] }, [], { 'gid://shopify/Order/1': new Error('HTTP 502') });
    const outcome = await recoverLostOrders(deps, { lookbackMs: 24 * 3_600_000, minAgeMs: 0 });
    expect(outcome.failedOrders).toEqual([{ shop: 'a.myshopify.com', orderId: 'gid://shopify/Order/1', reason: 'HTTP 502' }]);
    expect(outcome.recovered.map((r) => r.orderId)).toEqual(['gid://shopify/Order/2']);
  });
});
