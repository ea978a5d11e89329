import { DelayedError, type Job } from 'bullmq';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { testRedis } from '../../test/helpers/redis.js';
import { ShopifyBudgetWaitError, ShopifyUserError } from '../shopify/admin/errors.js';
import { isWaitNotFailure, StoreFairness } from './fairness.js';

/** The per-store cap and the delayed hand-back, on a real Redis with stand-in jobs (what BullMQ's Job offers). */

const { redis, prefix, cleanup } = testRedis('fairness');
afterAll(cleanup);

function fakeJob(id: string) {
  const delayedTo: number[] = [];
  const job = { id, name: 'shipped', timestamp: Date.now(), moveToDelayed: async (at: number) => void delayedTo.push(at) } as unknown as Job;
  return { job, delayedTo };
}

describe('StoreFairness', () => {
  it("turns a store's job away while the store has `cap` running, without holding the slot, and lets other stores in", async () => {
    const fairness = new StoreFairness({ redis, prefix, queue: 'events', cap: 2, leaseMs: 30_000, retryMs: 100, random: () => 0 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // Both have their places once both are running (work starts only after the place is taken).
    let started = 0;
    let bothStarted!: () => void;
    const bothRunning = new Promise<void>((r) => (bothStarted = r));
    const running = [fakeJob('a1'), fakeJob('a2')].map(({ job }) =>
      fairness.run(job, 'token', 'a.myshopify.com', () => {
        if (++started === 2) bothStarted();
        return gate;
      }),
    );
    await bothRunning;

    const third = fakeJob('a3');
    const before = Date.now();
    const turnedAway = await fairness.run(third.job, 'token', 'a.myshopify.com', async () => 'ran').catch((e: unknown) => e);
    expect(turnedAway).toBeInstanceOf(DelayedError);
    expect(third.delayedTo).toHaveLength(1);
    expect(third.delayedTo[0]!).toBeGreaterThanOrEqual(before + 100);

    // Another store is not affected by store A's running jobs.
    expect(await fairness.run(fakeJob('b1').job, 'token', 'b.myshopify.com', async () => 'ran')).toBe('ran');

    release();
    await Promise.all(running);
    // Places are given back when jobs end.
    expect(await fairness.run(fakeJob('a3').job, 'token', 'a.myshopify.com', async () => 'ran')).toBe('ran');
  });

  it('delays a job by the wait its store\'s Shopify budget needs, and lets real failures through', async () => {
    const fairness = new StoreFairness({ redis, prefix, queue: 'shopify', cap: 1, leaseMs: 30_000, retryMs: 100, random: () => 0 });
    const waiting = fakeJob('w1');
    const before = Date.now();
    const error = await fairness
      .run(waiting.job, 'token', 'a.myshopify.com', async () => {
        throw new ShopifyBudgetWaitError('getOrderForFulfillment', 'a.myshopify.com', 5_400);
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DelayedError);
    expect(waiting.delayedTo[0]!).toBeGreaterThanOrEqual(before + 5_400);
    // Its place is free again at once.
    expect(await fairness.run(fakeJob('w2').job, 'token', 'a.myshopify.com', async () => 'ran')).toBe('ran');

    const refused = new ShopifyUserError('createFulfillment', 'a.myshopify.com', 'gid://shopify/Order/1', [{ field: null, message: 'no' }]);
    expect(isWaitNotFailure(refused)).toBe(false);
    await expect(fairness.run(fakeJob('w3').job, 'token', 'a.myshopify.com', async () => Promise.reject(refused))).rejects.toBe(refused);
  });

  it("forgets a dead worker's place after the lease", async () => {
    // Places expire by Date.now(): the test moves the clock past the lease instead of sleeping through it (and a slow
    // moment cannot end the lease before the job turned away is tried).
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      const fairness = new StoreFairness({ redis, prefix, queue: 'lease', cap: 1, leaseMs: 60_000, random: () => 0 });
      // A job whose worker died: it took the place and never gave it back.
      let tookPlace!: () => void;
      const placeTaken = new Promise<void>((r) => (tookPlace = r));
      void fairness.run(fakeJob('dead').job, 'token', 'a.myshopify.com', () => (tookPlace(), new Promise(() => undefined)));
      await placeTaken;
      await expect(fairness.run(fakeJob('next').job, 'token', 'a.myshopify.com', async () => 'ran')).rejects.toBeInstanceOf(DelayedError);
      vi.setSystemTime(Date.now() + 60_001);
      expect(await fairness.run(fakeJob('next').job, 'token', 'a.myshopify.com', async () => 'ran')).toBe('ran');
    } finally {
      vi.useRealTimers();
    }
  });
});
