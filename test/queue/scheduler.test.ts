import { afterAll, describe, expect, it } from 'vitest';
import { createQueues } from '../../src/queue/queues.js';
import { QueueScheduler, SYNC_DELAY_MS } from '../../src/queue/scheduler.js';
import { testRedis } from '../helpers/redis.js';

const { redis, prefix, cleanup } = testRedis('scheduler');
const queues = createQueues(redis, prefix);
afterAll(async () => {
  await queues.close();
  await cleanup();
});

describe('QueueScheduler.syncShopify', () => {
  it('waits a moment, and the changes of one order meanwhile are one sync (issue 17: one write to Shopify)', async () => {
    expect(SYNC_DELAY_MS).toBeGreaterThan(0);
    const scheduler = new QueueScheduler(queues, { syncDelayMs: 60_000 });
    // An order's received, print-ready and two shipments arrive together; another order's one event.
    for (let i = 0; i < 4; i++) await scheduler.syncShopify('a.myshopify.com', 'gid://shopify/Order/1');
    await scheduler.syncShopify('a.myshopify.com', 'gid://shopify/Order/2');
    const delayed = await queues.shopify.getJobs(['delayed', 'waiting']);
    expect(delayed.map((j) => (j.data as { orderId: string }).orderId).sort()).toEqual(['gid://shopify/Order/1', 'gid://shopify/Order/2']);
    expect(delayed.every((j) => j.opts.delay === 60_000)).toBe(true);
  });

  it('shows a status that seldom lasts a minute later, and brings the sync forward when a newer one comes', async () => {
    const scheduler = new QueueScheduler(queues, { syncDelayMs: 1_000, settlingDelayMs: 60_000 });
    const order = 'gid://shopify/Order/3';
    const due = async () => {
      const [job] = (await queues.shopify.getJobs(['delayed'])).filter((j) => (j.data as { orderId: string }).orderId === order);
      return job ? job.delay : undefined;
    };
    await scheduler.syncShopify('a.myshopify.com', order, { settling: true }); // partially shipped
    expect(await due()).toBe(60_000);
    await scheduler.syncShopify('a.myshopify.com', order); // shipped: the same job, due in a second
    expect(await due()).toBe(1_000);
    expect((await queues.shopify.getJobs(['delayed'])).filter((j) => (j.data as { orderId: string }).orderId === order)).toHaveLength(1);
  });
});
