import { describe, expect, it } from 'vitest';
import { ShopifyBudgetWaitError, ShopifyThrottledError, ShopifyUnavailableError, ShopifyUserError, throttleWaitMs } from './errors.js';
import { ShopifyPacer, type PacingWait, type ReportCost } from './pacing.js';

/** The pacer on a fake clock: every wait is recorded and advances time instead of sleeping. */
function fakePacer(options: ConstructorParameters<typeof ShopifyPacer>[0] = {}) {
  let now = 1_000_000;
  const waits: PacingWait[] = [];
  const pacer = new ShopifyPacer({
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
    onWait: (w) => waits.push(w),
    safetyMarginMs: 0,
    ...options,
  });
  return { pacer, waits, advance: (ms: number) => (now += ms) };
}

const SHOP = 'pace.myshopify.com';
const status = (currentlyAvailable: number) => ({ maximumAvailable: 2000, currentlyAvailable, restoreRate: 100 });

/**
 * A clock whose timers fire only when the test moves time on, so that answers arriving while calls wait can be
 * played in order.
 */
function manualClock() {
  let now = 1_000_000;
  let timers: { at: number; fire: () => void }[] = [];
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  const sleep = (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve) => {
      const timer = { at: now + ms, fire: resolve };
      timers.push(timer);
      signal?.addEventListener('abort', () => {
        timers = timers.filter((t) => t !== timer);
        resolve();
      });
    });
  return {
    now: () => now,
    sleep,
    pacer: (options: ConstructorParameters<typeof ShopifyPacer>[0] = {}) =>
      new ShopifyPacer({ now: () => now, sleep, safetyMarginMs: 0, ...options }),
    /** Moves time to each next timer in turn until every promise has settled. */
    async runUntilSettled(promises: Promise<unknown>[]) {
      let pending = promises.length;
      for (const p of promises) void p.finally(() => (pending -= 1));
      for (let guard = 0; guard < 1000; guard++) {
        await settle();
        if (pending === 0) return;
        const next = timers.reduce<(typeof timers)[number] | undefined>((soonest, t) => (!soonest || t.at < soonest.at ? t : soonest), undefined);
        if (!next) throw new Error('calls are stuck with no timer to wait for');
        timers = timers.filter((t) => t !== next);
        now = Math.max(now, next.at);
        next.fire();
      }
      throw new Error('calls did not settle');
    },
  };
}

/** Shopify's side of the calls: a bucket that takes the requested cost, answers after `latencyMs`, then refunds. */
function fakeShopify(clock: ReturnType<typeof manualClock>, bucket: { available: number; restoreRate: number; latencyMs?: number }) {
  let available = bucket.available;
  let updatedAt = clock.now();
  const refill = () => {
    available = Math.min(2000, available + ((clock.now() - updatedAt) / 1000) * bucket.restoreRate);
    updatedAt = clock.now();
  };
  const fake = {
    sentAt: [] as number[],
    throttled: 0,
    status: () => {
      refill();
      return { maximumAvailable: 2000, currentlyAvailable: Math.floor(available), restoreRate: bucket.restoreRate };
    },
    async answer(report: ReportCost, cost: { requested: number; actual: number }) {
      refill();
      if (available < cost.requested) {
        fake.throttled += 1;
        throw new ShopifyThrottledError('fake', SHOP, cost.requested, fake.status());
      }
      available -= cost.requested;
      fake.sentAt.push(clock.now());
      if (bucket.latencyMs) await clock.sleep(bucket.latencyMs);
      refill();
      available += cost.requested - cost.actual;
      report({ requestedQueryCost: cost.requested, actualQueryCost: cost.actual, throttleStatus: fake.status() });
    },
  };
  return fake;
}

describe('throttleWaitMs', () => {
  it('is the time the bucket needs to hold the requested cost', () => {
    expect(throttleWaitMs(502, status(2))).toBe(5000);
    expect(throttleWaitMs(10, { maximumAvailable: 1000, currentlyAvailable: 4, restoreRate: 50 })).toBe(120);
  });

  it('never answers zero, and falls back to a second without a status', () => {
    expect(throttleWaitMs(10, status(500))).toBe(50);
    expect(throttleWaitMs(10, undefined)).toBe(1000);
  });
});

describe('ShopifyPacer', () => {
  it('does not wait while the estimated bucket can pay', async () => {
    const { pacer, waits } = fakePacer();
    pacer.observe(SHOP, 'addTags', { requestedQueryCost: 10, actualQueryCost: 10, throttleStatus: status(500) });
    expect(await pacer.run(SHOP, 'addTags', { idempotent: true }, async () => 'ok')).toBe('ok');
    expect(waits).toEqual([]);
  });

  it("estimates the share of the bucket the shop holds, refilling since the last answer (issue 27's batches read it)", () => {
    const { pacer, advance } = fakePacer();
    expect(pacer.availableShare(SHOP)).toBeUndefined();
    pacer.observe(SHOP, 'showStatus', { requestedQueryCost: 10, actualQueryCost: 10, throttleStatus: status(500) });
    expect(pacer.availableShare(SHOP)).toBe(0.25);
    advance(10_000);
    expect(pacer.availableShare(SHOP)).toBe(0.75);
    advance(60_000);
    expect(pacer.availableShare(SHOP)).toBe(1);
  });

  it("reserves a request of several orders at its own estimate until an answer of that size has said its cost", async () => {
    const { pacer, waits } = fakePacer();
    pacer.observe(SHOP, 'showStatuses×3', { requestedQueryCost: 30, actualQueryCost: 30, throttleStatus: status(100) });
    // A batch of 21 mutations asks for 210, not the 30 a batch of 3 cost nor the default: it waits for the bucket.
    expect(pacer.expectedCost('showStatuses×21', 210)).toBe(210);
    expect(pacer.expectedCost('showStatuses×3', 210)).toBe(30);
    await pacer.run(SHOP, 'showStatuses×21', { idempotent: true, estimatedCost: 210 }, async () => undefined);
    expect(waits).toEqual([expect.objectContaining({ reason: 'bucket-low' })]);
  });

  it('waits before a call until the bucket, refilling since the last answer, holds its expected cost', async () => {
    const { pacer, waits, advance } = fakePacer();
    pacer.observe(SHOP, 'getOrderForFulfillment', { requestedQueryCost: 300, actualQueryCost: 300, throttleStatus: status(0) });
    advance(1000); // +100 points
    expect(pacer.estimatedAvailable(SHOP)).toBe(100);
    await pacer.run(SHOP, 'getOrderForFulfillment', { idempotent: true }, async () => undefined);
    expect(waits).toEqual([expect.objectContaining({ reason: 'bucket-low', ms: 2000 })]);
  });

  it('queues concurrent calls of one shop behind each other instead of sending them into a throttle', async () => {
    const clock = manualClock();
    const pacer = clock.pacer();
    const shopify = fakeShopify(clock, { available: 15, restoreRate: 100 });
    pacer.observe(SHOP, 'addTags', { requestedQueryCost: 10, actualQueryCost: 10, throttleStatus: shopify.status() });
    const started = clock.now();
    const calls = [1, 2, 3].map(() => pacer.run(SHOP, 'addTags', { idempotent: true }, (report) => shopify.answer(report, { requested: 10, actual: 10 })));
    await clock.runUntilSettled(calls);
    // 15 points: the first call goes at once, the second when 5 more have come (50 ms), the third 100 ms later.
    expect(shopify.sentAt.map((t) => t - started)).toEqual([0, 50, 150]);
    expect(shopify.throttled).toBe(0);
  });

  it('lets foreground calls pass background ones waiting for the bucket, and runs those once the points are over', async () => {
    const clock = manualClock();
    const pacer = clock.pacer();
    const shopify = fakeShopify(clock, { available: 5, restoreRate: 100 });
    pacer.observe(SHOP, 'showStatus', { requestedQueryCost: 20, actualQueryCost: 20, throttleStatus: shopify.status() });
    pacer.observe(SHOP, 'createFulfillment', { requestedQueryCost: 10, actualQueryCost: 10, throttleStatus: shopify.status() });
    const started = clock.now();
    const order: string[] = [];
    const call = (operation: string, background: boolean, cost: number) =>
      pacer.run(SHOP, operation, { idempotent: true, background }, (report) => {
        order.push(operation);
        return shopify.answer(report, { requested: cost, actual: cost });
      });
    // The bucket is nearly empty. Two status writes wait; three fulfillments asked after them go first.
    const calls = [call('showStatus', true, 20), call('showStatus', true, 20), call('createFulfillment', false, 10), call('createFulfillment', false, 10), call('createFulfillment', false, 10)];
    await clock.runUntilSettled(calls);
    expect(order).toEqual(['createFulfillment', 'createFulfillment', 'createFulfillment', 'showStatus', 'showStatus']);
    // 5 points and 100 a second: a fulfillment each 100 ms (the first after 50), then each status write as 20 more come.
    expect(shopify.sentAt.map((t) => t - started)).toEqual([50, 150, 250, 450, 650]);
    expect(shopify.throttled).toBe(0);
  });

  it('lets waiting calls go as soon as an answer shows the points a query did not use', async () => {
    const clock = manualClock();
    const pacer = clock.pacer();
    // A read requests 600 points and costs 20: Shopify needs 600 in the bucket to start it and refunds 580 after.
    const shopify = fakeShopify(clock, { available: 2000, restoreRate: 100, latencyMs: 100 });
    pacer.observe(SHOP, 'getOrder', { requestedQueryCost: 600, actualQueryCost: 20, throttleStatus: shopify.status() });
    const started = clock.now();
    const reads = Array.from({ length: 8 }, () =>
      pacer.run(SHOP, 'getOrder', { idempotent: true }, (report) => shopify.answer(report, { requested: 600, actual: 20 })),
    );
    await clock.runUntilSettled(reads);
    // Three fit in 2,000 at once. Each answer (100 ms later) shows 580 points back, and the next read goes; a read in
    // flight stays counted at 600, since an answer may or may not include it. Reservations held until precomputed
    // waits ran out (600 points each against 100 a second) would have kept the last read back 28 s.
    expect(shopify.sentAt.map((t) => t - started)).toEqual([0, 0, 0, 100, 100, 200, 200, 300]);
    expect(shopify.throttled).toBe(0);
    expect(pacer.estimatedAvailable(SHOP)).toBeGreaterThan(1800);
  });

  it('keeps counting the points of a call that ended without a cost until the next answer', async () => {
    const clock = manualClock();
    const pacer = clock.pacer();
    pacer.observe(SHOP, 'addTags', { requestedQueryCost: 10, actualQueryCost: 10, throttleStatus: status(15) });
    await pacer.run(SHOP, 'addTags', { idempotent: true }, async () => undefined);
    // Shopify may have taken its 10 points: 5 are left, and the next call waits for 5 more.
    expect(pacer.estimatedAvailable(SHOP)).toBe(5);
    expect(pacer.waitBefore(SHOP, 'addTags')).toBe(50);
    pacer.observe(SHOP, 'addTags', { requestedQueryCost: 10, actualQueryCost: 10, throttleStatus: status(15) });
    expect(pacer.estimatedAvailable(SHOP)).toBe(15);
  });

  it('does not wait longer than maxInlineWaitMs in the caller: it says how long to wait instead, holding no reservation', async () => {
    const { pacer, waits } = fakePacer({ maxInlineWaitMs: 1_000 });
    const report = { requestedQueryCost: 540, actualQueryCost: 14, throttleStatus: status(0) };
    await pacer.run(SHOP, 'getOrderForFulfillment', { idempotent: true }, async (r) => r(report));
    let sent = 0;
    const error = await pacer.run(SHOP, 'getOrderForFulfillment', { idempotent: true }, async () => (sent += 1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShopifyBudgetWaitError);
    expect((error as ShopifyBudgetWaitError).retryable).toBe(true);
    // 540 points at 100 a second.
    expect((error as ShopifyBudgetWaitError).retryAfterMs).toBe(5_400);
    expect(sent).toBe(0);
    expect(waits).toEqual([]);
    // The reservation was given back: the estimate is the bucket's, not less.
    expect(pacer.estimatedAvailable(SHOP)).toBe(0);

    // A THROTTLED answer whose refill is longer than the inline limit becomes that wait at once, not retried inline.
    let calls = 0;
    const throttled = await fakePacer({ maxInlineWaitMs: 1_000 })
      .pacer.run(SHOP, 'createFulfillment', { idempotent: false }, async () => {
        calls += 1;
        throw new ShopifyThrottledError('createFulfillment', SHOP, 540, status(0));
      })
      .catch((e: unknown) => e);
    expect(throttled).toBeInstanceOf(ShopifyBudgetWaitError);
    expect((throttled as ShopifyBudgetWaitError).retryAfterMs).toBe(5_400);
    expect((throttled as ShopifyBudgetWaitError).cause).toBeInstanceOf(ShopifyThrottledError);
    expect(calls).toBe(1);

    // A short wait is still waited for inline.
    const short = fakePacer({ maxInlineWaitMs: 1_000 });
    await short.pacer.run(SHOP, 'addTags', { idempotent: true }, async (r) => r({ requestedQueryCost: 10, actualQueryCost: 10, throttleStatus: status(5) }));
    await short.pacer.run(SHOP, 'addTags', { idempotent: true }, async () => undefined);
    expect(short.waits.map((w) => [w.reason, w.ms])).toEqual([['bucket-low', 50]]);
  });

  it('retries THROTTLED after the time the bucket needs, a bounded number of times', async () => {
    const { pacer, waits } = fakePacer({ maxThrottledRetries: 3 });
    let calls = 0;
    const result = await pacer.run(SHOP, 'createFulfillment', { idempotent: false }, async () => {
      calls += 1;
      if (calls < 3) throw new ShopifyThrottledError('createFulfillment', SHOP, 10, status(0));
      return calls;
    });
    expect(result).toBe(3);
    expect(waits.map((w) => [w.reason, w.ms])).toEqual([
      ['throttled', 100],
      ['throttled', 100],
    ]);

    const always = fakePacer({ maxThrottledRetries: 2 });
    const error = await always.pacer
      .run(SHOP, 'addTags', { idempotent: true }, async () => {
        throw new ShopifyThrottledError('addTags', SHOP, 10, status(0));
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShopifyThrottledError);
    expect(always.waits).toHaveLength(2);
  });

  it('retries 5xx with doubling backoff only when the call is safe to repeat', async () => {
    const { pacer, waits } = fakePacer({ unavailableBaseDelayMs: 100, maxUnavailableRetries: 3 });
    let calls = 0;
    await pacer.run(SHOP, 'addTags', { idempotent: true }, async () => {
      calls += 1;
      if (calls <= 3) throw new ShopifyUnavailableError('addTags', SHOP, 502, 'Bad Gateway');
    });
    expect(waits.map((w) => w.ms)).toEqual([100, 200, 400]);

    const once = fakePacer();
    let attempts = 0;
    const error = await once.pacer
      .run(SHOP, 'createFulfillment', { idempotent: false }, async () => {
        attempts += 1;
        throw new ShopifyUnavailableError('createFulfillment', SHOP, 502, 'Bad Gateway');
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShopifyUnavailableError);
    expect(attempts).toBe(1);
  });

  it('honours Retry-After and caps every wait', async () => {
    const { pacer, waits } = fakePacer({ maxWaitMs: 5_000 });
    let calls = 0;
    await pacer.run(SHOP, 'createFulfillment', { idempotent: false }, async () => {
      calls += 1;
      if (calls === 1) throw new ShopifyUnavailableError('createFulfillment', SHOP, 429, 'Too Many Requests', 2_000);
      if (calls === 2) throw new ShopifyThrottledError('createFulfillment', SHOP, 1_000, status(0));
    });
    expect(waits.map((w) => [w.reason, w.ms])).toEqual([
      ['unavailable', 2_000],
      ['throttled', 5_000],
    ]);
  });

  it('passes permanent errors straight through', async () => {
    const { pacer, waits } = fakePacer();
    const userError = new ShopifyUserError('addTags', SHOP, 'gid://shopify/Order/1', [{ field: ['id'], message: 'nope' }]);
    await expect(
      pacer.run(SHOP, 'addTags', { idempotent: true }, async () => {
        throw userError;
      }),
    ).rejects.toBe(userError);
    expect(waits).toEqual([]);
  });
});

describe('calls that end without Shopify\'s figures', () => {
  const cost = (available: number) => ({ requestedQueryCost: 535, actualQueryCost: 15, throttleStatus: status(available) });

  it('count what they may have cost only until the bucket refills it, and refusals that did nothing not at all', async () => {
    const { pacer, waits } = fakePacer({ maxUnavailableRetries: 3, unavailableBaseDelayMs: 1 });
    await pacer.run(SHOP, 'read', { idempotent: true }, async (report) => report(cost(2000)));

    // Four answers lost in the network, each of which Shopify may have charged 535: over 2,000 points of doubt.
    let calls = 0;
    await expect(
      pacer.run(SHOP, 'read', { idempotent: true }, async () => {
        calls += 1;
        throw new ShopifyUnavailableError('read', SHOP, undefined, 'socket hang up');
      }),
    ).rejects.toBeInstanceOf(ShopifyUnavailableError);
    expect(calls).toBe(4);
    // The next read waits for that doubt to refill at 100 points a second, never the 30 s cap.
    const before = waits.length;
    await pacer.run(SHOP, 'read', { idempotent: true }, async (report) => report(cost(2000)));
    const waited = waits.slice(before).reduce((sum, w) => sum + w.ms, 0);
    expect(waited).toBeGreaterThan(0);
    expect(waited).toBeLessThan(10_000);

    // 503s are refusals before any work: they cost nothing, so nothing waits for them.
    await expect(
      pacer.run(SHOP, 'read', { idempotent: true }, async () => {
        throw new ShopifyUnavailableError('read', SHOP, 503, 'Service Unavailable');
      }),
    ).rejects.toBeInstanceOf(ShopifyUnavailableError);
    const afterRefusals = waits.length;
    await pacer.run(SHOP, 'read', { idempotent: true }, async (report) => report(cost(2000)));
    expect(waits.slice(afterRefusals).filter((w) => w.reason === 'bucket-low')).toEqual([]);
  });
});
