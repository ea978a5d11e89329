import { describe, expect, it } from 'vitest';
import { ShopifyThrottledError, ShopifyUnavailableError, ShopifyUserError, throttleWaitMs } from './errors.js';
import { ShopifyPacer, type PacingWait } from './pacing.js';

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

  it('waits before a call until the bucket, refilling since the last answer, holds its expected cost', async () => {
    const { pacer, waits, advance } = fakePacer();
    pacer.observe(SHOP, 'getOrderForFulfillment', { requestedQueryCost: 300, actualQueryCost: 300, throttleStatus: status(0) });
    advance(1000); // +100 points
    expect(pacer.estimatedAvailable(SHOP)).toBe(100);
    await pacer.run(SHOP, 'getOrderForFulfillment', { idempotent: true }, async () => undefined);
    expect(waits).toEqual([expect.objectContaining({ reason: 'bucket-low', ms: 2000 })]);
  });

  it('queues concurrent calls of one shop behind each other instead of sending them into a throttle', async () => {
    // Time stands still here, so that each call's reservation is seen by the next without any refill.
    const { pacer, waits } = fakePacer({ sleep: async () => {} });
    pacer.observe(SHOP, 'addTags', { requestedQueryCost: 10, actualQueryCost: 10, throttleStatus: status(15) });
    await Promise.all([1, 2, 3].map(() => pacer.run(SHOP, 'addTags', { idempotent: true }, async () => undefined)));
    // 15 points: the first call goes at once, the second needs 5 more (50 ms), the third 15 more (150 ms).
    expect(waits.map((w) => w.ms)).toEqual([50, 150]);
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
