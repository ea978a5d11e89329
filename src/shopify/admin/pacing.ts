import { ShopifyThrottledError, ShopifyUnavailableError, throttleWaitMs, type ThrottleStatus } from './errors.js';

/**
 * Keeps a worker inside each shop's Admin API budget. Every answer carries the shop's bucket (`throttleStatus`);
 * before a call, the pacer estimates what the bucket holds now (it refills at `restoreRate` a second) and waits if the
 * call's expected cost would not fit. A THROTTLED answer is retried after the time the bucket needs, a few times; 429
 * and 5xx a few times with backoff when the call is safe to repeat. So a busy shop slows the worker down instead of
 * failing jobs. The state is per process; several workers each read the same bucket from Shopify's answers.
 */

export interface PacingOptions {
  /** THROTTLED answers retried per call before the error reaches the caller (a job retries later). */
  maxThrottledRetries?: number;
  /** 429/5xx/no-answer retried per call, only for calls that are safe to repeat. */
  maxUnavailableRetries?: number;
  /** First backoff after a 5xx without Retry-After; doubles each time. */
  unavailableBaseDelayMs?: number;
  /** No single wait is longer than this; a longer need becomes the error's `retryAfterMs`. */
  maxWaitMs?: number;
  /** Cost assumed for an operation never seen before. */
  defaultExpectedCost?: number;
  /**
   * Added to every wait computed from the bucket: timers may fire a little early and Shopify's clock is not ours, so
   * a wait of exactly the computed time can arrive a hair before the points are there.
   */
  safetyMarginMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** Told about every wait, for logs and metrics. */
  onWait?: (event: PacingWait) => void;
}

export interface PacingWait {
  shop: string;
  operation: string;
  ms: number;
  reason: 'bucket-low' | 'throttled' | 'unavailable';
  attempt: number;
}

export interface CostReport {
  requestedQueryCost: number;
  actualQueryCost: number | null;
  throttleStatus: ThrottleStatus;
}

interface ShopState {
  status: ThrottleStatus;
  observedAt: number;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class ShopifyPacer {
  private readonly shops = new Map<string, ShopState>();
  private readonly expectedCosts = new Map<string, number>();
  private readonly options: Required<Omit<PacingOptions, 'onWait'>> & Pick<PacingOptions, 'onWait'>;

  constructor(options: PacingOptions = {}) {
    this.options = {
      maxThrottledRetries: options.maxThrottledRetries ?? 5,
      maxUnavailableRetries: options.maxUnavailableRetries ?? 3,
      unavailableBaseDelayMs: options.unavailableBaseDelayMs ?? 500,
      maxWaitMs: options.maxWaitMs ?? 30_000,
      defaultExpectedCost: options.defaultExpectedCost ?? 50,
      safetyMarginMs: options.safetyMarginMs ?? 25,
      sleep: options.sleep ?? sleepFor,
      now: options.now ?? Date.now,
      onWait: options.onWait,
    };
  }

  /** Records what an answer said about the shop's bucket and what the operation cost. */
  observe(shop: string, operation: string, cost: CostReport): void {
    this.shops.set(shop, { status: cost.throttleStatus, observedAt: this.options.now() });
    this.expectedCosts.set(operation, cost.requestedQueryCost);
  }

  /** Points the shop's bucket is estimated to hold now, or undefined before the first answer. */
  estimatedAvailable(shop: string): number | undefined {
    const state = this.shops.get(shop);
    if (!state) return undefined;
    const elapsedSeconds = Math.max(0, this.options.now() - state.observedAt) / 1000;
    return Math.min(state.status.maximumAvailable, state.status.currentlyAvailable + elapsedSeconds * state.status.restoreRate);
  }

  expectedCost(operation: string): number {
    return this.expectedCosts.get(operation) ?? this.options.defaultExpectedCost;
  }

  /** How long to wait before sending `operation` so the bucket can pay for it; 0 when it can now. */
  waitBefore(shop: string, operation: string): number {
    const state = this.shops.get(shop);
    const available = this.estimatedAvailable(shop);
    if (!state || available === undefined) return 0;
    const cost = this.expectedCost(operation);
    if (available >= cost) return 0;
    const ms = throttleWaitMs(cost, { ...state.status, currentlyAvailable: available }, 0) + this.options.safetyMarginMs;
    return Math.min(this.options.maxWaitMs, ms);
  }

  /**
   * Runs one Admin API call with pacing and bounded retries. `idempotent: false` (e.g. fulfillmentCreate) retries
   * only failures that are known to have done nothing: THROTTLED, 429 and 503.
   */
  async run<T>(shop: string, operation: string, options: { idempotent: boolean }, call: () => Promise<T>): Promise<T> {
    let throttled = 0;
    let unavailable = 0;
    let retrying = false;
    for (let attempt = 1; ; attempt += 1) {
      // A retry has just waited what the bucket needed; estimating again would only add a sliver of a wait.
      const before = retrying ? 0 : this.waitBefore(shop, operation);
      if (before > 0) await this.wait({ shop, operation, ms: before, reason: 'bucket-low', attempt });
      retrying = true;
      try {
        return await call();
      } catch (error) {
        if (error instanceof ShopifyThrottledError && throttled < this.options.maxThrottledRetries) {
          throttled += 1;
          if (error.throttleStatus) {
            this.observe(shop, operation, {
              requestedQueryCost: error.requestedQueryCost,
              actualQueryCost: null,
              throttleStatus: error.throttleStatus,
            });
          }
          const ms = Math.min(this.options.maxWaitMs, (error.retryAfterMs ?? 1000) + this.options.safetyMarginMs);
          await this.wait({ shop, operation, ms, reason: 'throttled', attempt });
          continue;
        }
        if (
          error instanceof ShopifyUnavailableError &&
          unavailable < this.options.maxUnavailableRetries &&
          (options.idempotent || !error.outcomeUnknown)
        ) {
          unavailable += 1;
          const backoff = this.options.unavailableBaseDelayMs * 2 ** (unavailable - 1);
          const ms = Math.min(this.options.maxWaitMs, error.retryAfterMs ?? backoff);
          await this.wait({ shop, operation, ms, reason: 'unavailable', attempt });
          continue;
        }
        throw error;
      }
    }
  }

  private async wait(event: PacingWait): Promise<void> {
    this.options.onWait?.(event);
    await this.options.sleep(event.ms);
  }
}
