import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { queueFailedJobs } from '../../src/admin/failed-jobs.js';
import { bullPrefix } from '../../src/queue/queues.js';
import { testRedis } from '../helpers/redis.js';

describe('queueFailedJobs', () => {
  const { redis, prefix, cleanup } = testRedis('admin-failed-jobs');
  const queue = new Queue('events', { connection: redis, prefix: bullPrefix(prefix) });
  afterAll(async () => {
    await queue.close();
    await cleanup();
  });

  it('finds the order of a failed print-event job through the resolver, and retries it with its attempts back', async () => {
    const connection = redis.duplicate();
    const worker = new Worker('events', async () => {
      throw new UnrecoverableError('Shopify refused the fulfillment');
    }, { connection, prefix: bullPrefix(prefix) });
    const job = await queue.add('shipped', { event: { kind: 'shipped', printOrderId: 'f'.repeat(24) } }, { attempts: 3 });
    await new Promise<void>((resolve) => worker.on('failed', () => resolve()));
    await worker.close();
    connection.disconnect();

    const failedJobs = queueFailedJobs([queue], async (data) =>
      (data as { event: { printOrderId: string } }).event.printOrderId === 'f'.repeat(24) ? { shop: 's.myshopify.com', orderId: 'gid://shopify/Order/5' } : undefined,
    );
    const found = await failedJobs.forOrder('s.myshopify.com', 'gid://shopify/Order/5');
    expect(found).toMatchObject([{ queue: 'events', id: job.id, name: 'shipped', failedReason: 'Shopify refused the fulfillment' }]);
    expect(await failedJobs.list('other.myshopify.com')).toEqual([]);

    await found[0]!.retry();
    const retried = (await queue.getJob(job.id!))!;
    expect(await retried.getState()).toBe('waiting');
    expect(retried.attemptsMade).toBe(0);
  });
});
