import { afterAll, describe, expect, it } from 'vitest';
import { EVERY_IDLE_STATE, eraseJobRecords, FINISHED_STATES, mentionMatcher } from '../../src/queue/job-records.js';
import { createQueues, jobId } from '../../src/queue/queues.js';
import { testRedis } from '../helpers/redis.js';

const { redis, prefix, cleanup } = testRedis('job-records');
const queues = createQueues(redis, prefix);
afterAll(async () => {
  await queues.close();
  await cleanup();
});

const GONE = 'gone-store.myshopify.com';
const KEPT = 'kept-store.myshopify.com';

describe('erasing the job records a redaction names', () => {
  it("removes a store's jobs and their event-stream entries, and nothing of another store", async () => {
    for (const shop of [GONE, KEPT]) {
      const orderId = `gid://shopify/Order/${shop === GONE ? 4_400_001 : 4_400_002}`;
      await queues.orders.add('submit', { kind: 'submit', shop, orderId, reason: 'webhook' }, { jobId: jobId('submit', shop, orderId, '0'), delay: 60_000 });
    }
    // Jobs still to run are left alone unless the redaction asks for every state (a customer's asks for finished
    // ones); the events naming them go either way.
    expect(await eraseJobRecords(redis, [queues.orders], { ids: [GONE] }, FINISHED_STATES)).toMatchObject({ jobs: 0, running: 0 });
    expect(await queues.orders.getJobCounts('delayed')).toEqual({ delayed: 2 });

    const erased = await eraseJobRecords(redis, [queues.orders], { ids: [GONE] }, EVERY_IDLE_STATE);
    expect(erased.jobs).toBe(1);
    // The removal's own `removed` event, naming the job, went too.
    expect(erased.events).toBe(1);
    const left = await queues.orders.getJobs(EVERY_IDLE_STATE as never);
    expect(left.map((j) => (j.data as { shop: string }).shop)).toEqual([KEPT]);
    const events = JSON.stringify(await redis.xrange(queues.orders.keys.events!, '-', '+'));
    expect(events).not.toContain(GONE);
    expect(events).toContain(KEPT);
  });

  it('matches ids as whole words (an order id is not part of a longer one) and texts anywhere, JSON-escaped too', () => {
    const mentioned = mentionMatcher({ ids: ['gid://shopify/Order/123456', '1001'], texts: ['"http://x.example/Pia/cover.pdf" uses http'] })!;
    expect(mentioned('submit|a.myshopify.com|gid_//shopify/Order/123456|0')).toBe(true);
    expect(mentioned('{"orderId":"gid://shopify/Order/123456"}')).toBe(true);
    expect(mentioned('{"orderId":"gid://shopify/Order/1234567"}')).toBe(false);
    // Too short to be told from other stores' numbers.
    expect(mentioned('order 1001')).toBe(false);
    expect(mentioned(JSON.stringify({ failedReason: 'path: "http://x.example/Pia/cover.pdf" uses http; must be https' }))).toBe(true);
    expect(mentionMatcher({ ids: ['1001'] })).toBeUndefined();
  });
});
