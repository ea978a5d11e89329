import { type Queue, Worker } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { EVERY_IDLE_STATE, eraseJobRecords, mentionMatcher } from '../../src/queue/job-records.js';
import { createQueues, jobId, printEventJobId } from '../../src/queue/queues.js';
import { testRedis } from '../helpers/redis.js';

const { redis, prefix, cleanup } = testRedis('job-records');
const queues = createQueues(redis, prefix);
afterAll(async () => {
  await queues.close();
  await cleanup();
});

const GONE = 'shop.myshopify.com';
/** Its domain holds the redacted store's: a match anywhere in the text would take its records too. */
const NEIGHBOUR = 'coffeeshop.myshopify.com';

async function submitJob(shop: string, orderId: string, options: { delay?: number } = {}) {
  return queues.orders.add('submit', { kind: 'submit', shop, orderId, reason: 'webhook' }, { jobId: jobId('submit', shop, orderId, '0'), ...options });
}

/** Runs the queue's next job by hand to its end: failed with `error`, else completed. */
async function finishNext(queue: Queue, error?: Error): Promise<void> {
  const worker = new Worker(queue.name, null, { connection: redis.duplicate(), prefix: queue.opts.prefix, autorun: false });
  try {
    const job = (await worker.getNextJob('token'))!;
    if (error) await job.moveToFailed(error, 'token', false);
    else await job.moveToCompleted('done', 'token', false);
  } finally {
    await worker.close();
  }
}

async function idle(): Promise<string[]> {
  return (await queues.orders.getJobs(EVERY_IDLE_STATE as never)).map((j) => j.id!).sort();
}

describe("erasing a redacted store's job records, and only its own", () => {
  it("shop/redact removes every job of the store, those still to run too, and none of a store whose domain contains it", async () => {
    await submitJob(GONE, 'gid://shopify/Order/4400001', { delay: 60_000 });
    await submitJob(NEIGHBOUR, 'gid://shopify/Order/4400002', { delay: 60_000 });
    const erased = await eraseJobRecords(redis, [queues.orders], { shop: GONE, everyRecord: true });
    expect(erased.jobs).toBe(1);
    // The removal's own `removed` event, naming the job, went too; the neighbour's `added` event stays.
    expect(erased.events).toBeGreaterThanOrEqual(2);
    expect(await idle()).toEqual([jobId('submit', NEIGHBOUR, 'gid://shopify/Order/4400002', '0')]);
    const events = JSON.stringify(await redis.xrange(queues.orders.keys.events!, '-', '+'));
    expect(events).not.toContain(`|${GONE}|`);
    expect(events).toContain(NEIGHBOUR);
    await queues.orders.obliterate({ force: true });
  });

  it("a merchant's sourceOrderId that is a word of every job id ('submit') erases nothing of another store", async () => {
    await submitJob(NEIGHBOUR, 'gid://shopify/Order/4400003', { delay: 60_000 });
    const erased = await eraseJobRecords(redis, [queues.orders], { shop: GONE, ids: ['gid://shopify/Order/4400009', 'submit', 'orders/create'], printReferences: ['submit'] });
    expect(erased).toMatchObject({ jobs: 0, scrubbed: 0, events: 0 });
    expect(await idle()).toEqual([jobId('submit', NEIGHBOUR, 'gid://shopify/Order/4400003', '0')]);
    await queues.orders.obliterate({ force: true });
  });

  it("a problem's wording (the same for every store) erases only the redacted store's failed records", async () => {
    const wording = 'rendered empty; every order needs a sourceOrderId';
    for (const [shop, order] of [[GONE, 'gid://shopify/Order/4400004'], [NEIGHBOUR, 'gid://shopify/Order/4400005']] as const) {
      await queues.orders.add('submit', { kind: 'submit', shop, orderId: order, reason: 'webhook' }, { jobId: jobId('submit', shop, order, '0'), attempts: 1 });
      await finishNext(queues.orders, new Error(`${order}: ${wording}`));
    }
    const erased = await eraseJobRecords(redis, [queues.orders], { shop: GONE, ids: ['gid://shopify/Order/4400004'], texts: [wording] });
    expect(erased.jobs).toBe(1);
    expect(await idle()).toEqual([jobId('submit', NEIGHBOUR, 'gid://shopify/Order/4400005', '0')]);
    await queues.orders.obliterate({ force: true });
  });

  it("customers/redact keeps a job still to run (the order may still print) and blanks the error it kept from its last attempt", async () => {
    const job = await submitJob(GONE, 'gid://shopify/Order/4400006', { delay: 60_000 });
    await redis.hset(queues.orders.toKey(job.id!), 'failedReason', 'path "https://x.example/Pia-Privacy-Person/cover.pdf" uses http', 'stacktrace', '["at Pia-Privacy-Person"]');
    const erased = await eraseJobRecords(redis, [queues.orders], { shop: GONE, ids: ['gid://shopify/Order/4400006'], texts: ['https://x.example/Pia-Privacy-Person/cover.pdf'] });
    expect(erased).toMatchObject({ jobs: 0, scrubbed: 1 });
    const kept = await queues.orders.getJob(job.id!);
    expect(await kept?.getState()).toBe('delayed');
    expect(JSON.stringify(await redis.hgetall(queues.orders.toKey(job.id!)))).not.toContain('Pia-Privacy-Person');
    await queues.orders.obliterate({ force: true });
  });

  it("a postback of the operator's account (it names no store) is the store's when its event names one of the store's print references", async () => {
    const event = (sourceOrderId: string) => ({ kind: 'shipped' as const, sourceOrderId, errors: [] });
    for (const ref of ['acme-1001', 'other-2002']) {
      await queues.events.add('shipped', { event: event(ref), hash: `h-${ref}` } as never, { jobId: printEventJobId(`h-${ref}`), attempts: 1 });
      await finishNext(queues.events);
    }
    const erased = await eraseJobRecords(redis, [queues.events], { shop: GONE, everyRecord: true, printReferences: ['acme-1001'] });
    expect(erased.jobs).toBe(1);
    expect((await queues.events.getJobs(['completed'])).map((j) => j.id)).toEqual([printEventJobId('h-other-2002')]);
    await queues.events.obliterate({ force: true });
  });

  it('matches ids as whole words (an order id is not part of a longer one) and texts anywhere, JSON-escaped too', () => {
    const mentioned = mentionMatcher({ ids: ['gid://shopify/Order/123456'], texts: ['"http://x.example/Pia/cover.pdf" uses http'] })!;
    expect(mentioned('submit|a.myshopify.com|gid_//shopify/Order/123456|0')).toBe(true);
    expect(mentioned('{"orderId":"gid://shopify/Order/123456"}')).toBe(true);
    expect(mentioned('{"orderId":"gid://shopify/Order/1234567"}')).toBe(false);
    expect(mentioned(JSON.stringify({ failedReason: 'path: "http://x.example/Pia/cover.pdf" uses http; must be https' }))).toBe(true);
    expect(mentionMatcher({ ids: [' '] })).toBeUndefined();
  });
});
