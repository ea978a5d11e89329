import { describe, expect, it } from 'vitest';
import { OrderBusyError } from '../bridge/errors.js';
import { BACKOFF_BASE_MS, backoffDelay, SHORT_RETRIES } from './retry.js';

const half = () => 0.5;

describe('backoffDelay', () => {
  it('doubles from 5 s with jitter, and never goes below what the other side asked for', () => {
    expect(backoffDelay(1, undefined, half)).toBe(Math.round(BACKOFF_BASE_MS * 0.75));
    expect(backoffDelay(3, undefined, half)).toBe(Math.round(BACKOFF_BASE_MS * 4 * 0.75));
    expect(backoffDelay(1, { retryable: true, retryAfterMs: 60_000 }, half)).toBe(60_000);
  });

  it('retries a moment of contention soon, then backs off as usual once it lasts', () => {
    const busy = new OrderBusyError('order x is being updated by another job', 1_000);
    expect(backoffDelay(1, busy, half)).toBe(1_500);
    expect(backoffDelay(SHORT_RETRIES, busy, half)).toBe(1_500);
    expect(backoffDelay(SHORT_RETRIES + 1, busy, half)).toBeGreaterThan(60_000);
    // A busy order without a short hint (waiting for a submission to settle) backs off exponentially from the start.
    expect(backoffDelay(2, new OrderBusyError('being submitted'), half)).toBe(Math.round(BACKOFF_BASE_MS * 2 * 0.75));
  });
});
