import { ShopifyThrottledError, ShopifyUnavailableError, type ThrottleStatus } from './errors.js';

/**
 * Keeps a worker inside each shop's Admin API budget. Every answer carries the shop's bucket (`throttleStatus`);
 * before a call, the pacer estimates what the bucket holds now (it refills at `restoreRate` a second, less what calls
 * of this process have reserved and not yet had answered) and waits if the call's expected cost would not fit. A
 * THROTTLED answer is retried after the time the bucket needs, a few times; 429 and 5xx a few times with backoff when
 * the call is safe to repeat. So a busy shop slows the worker down instead of failing jobs. The state is per process;
 * several workers each read the same bucket from Shopify's answers.
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
  /** Shopify's figures from the last answer, and when they came. */
  status?: ThrottleStatus;
  observedAt: number;
  /** Points reserved by calls of this process that have not had their answer yet. */
  pending: number;
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
    const state = this.stateOf(shop);
    state.status = cost.throttleStatus;
    state.observedAt = this.options.now();
    this.expectedCosts.set(operation, cost.requestedQueryCost);
  }

  /** Points the shop's bucket is estimated to hold for a new call now, or undefined before the first answer. */
  estimatedAvailable(shop: string): number | undefined {
    const state = this.shops.get(shop);
    if (!state?.status) return undefined;
    const elapsedSeconds = Math.max(0, this.options.now() - state.observedAt) / 1000;
    const refilled = Math.min(state.status.maximumAvailable, state.status.currentlyAvailable + elapsedSeconds * state.status.restoreRate);
    return refilled - state.pending;
  }

  expectedCost(operation: string): number {
    return this.expectedCosts.get(operation) ?? this.options.defaultExpectedCost;
  }

  /** How long to wait before sending `operation` so the bucket can pay for it; 0 when it can now. */
  waitBefore(shop: string, operation: string): number {
    const available = this.estimatedAvailable(shop);
    const status = this.shops.get(shop)?.status;
    if (available === undefined || !status) return 0;
    return this.waitFor(this.expectedCost(operation) - available, status.restoreRate);
  }

  /**
   * Runs one Admin API call with pacing and bounded retries. `idempotent: false` (e.g. fulfillmentCreate) retries
   * only failures that are known to have done nothing: THROTTLED, 429 and 503.
   */
  async run<T>(shop: string, operation: string, options: { idempotent: boolean }, call: () => Promise<T>): Promise<T> {
    let throttled = 0;
    let unavailable = 0;
    // The cost is reserved before waiting, so concurrent calls of one shop see each other and queue up.
    let reservation = this.reserve(shop, operation);
    if (reservation.waitMs > 0) await this.wait({ shop, operation, ms: reservation.waitMs, reason: 'bucket-low', attempt: 1 });
    for (let attempt = 1; ; attempt += 1) {
      try {
        const result = await call();
        this.release(shop, reservation);
        return result;
      } catch (error) {
        // The call has had its answer: its points are now in Shopify's figures, or were never taken.
        this.release(shop, reservation);
        if (error instanceof ShopifyThrottledError && throttled < this.options.maxThrottledRetries) {
          throttled += 1;
          if (error.throttleStatus) {
            this.observe(shop, operation, {
              requestedQueryCost: error.requestedQueryCost,
              actualQueryCost: null,
              throttleStatus: error.throttleStatus,
            });
          }
          reservation = this.reserve(shop, operation);
          const needed = Math.min(this.options.maxWaitMs, (error.retryAfterMs ?? 1000) + this.options.safetyMarginMs);
          await this.wait({ shop, operation, ms: Math.max(needed, reservation.waitMs), reason: 'throttled', attempt });
          continue;
        }
        if (
          error instanceof ShopifyUnavailableError &&
          unavailable < this.options.maxUnavailableRetries &&
          (options.idempotent || !error.outcomeUnknown)
        ) {
          unavailable += 1;
          reservation = this.reserve(shop, operation);
          const backoff = this.options.unavailableBaseDelayMs * 2 ** (unavailable - 1);
          const needed = Math.min(this.options.maxWaitMs, error.retryAfterMs ?? backoff);
          await this.wait({ shop, operation, ms: Math.max(needed, reservation.waitMs), reason: 'unavailable', attempt });
          continue;
        }
        throw error;
      }
    }
  }

  private reserve(shop: string, operation: string): Reservation {
    const waitMs = this.waitBefore(shop, operation);
    const cost = this.expectedCost(operation);
    this.stateOf(shop).pending += cost;
    return { cost, waitMs, released: false };
  }

  private release(shop: string, reservation: Reservation): void {
    if (reservation.released) return;
    reservation.released = true;
    const state = this.stateOf(shop);
    state.pending = Math.max(0, state.pending - reservation.cost);
  }

  private stateOf(shop: string): ShopState {
    let state = this.shops.get(shop);
    if (!state) {
      state = { observedAt: this.options.now(), pending: 0 };
      this.shops.set(shop, state);
    }
    return state;
  }

  private waitFor(missingPoints: number, restoreRate: number): number {
    if (missingPoints <= 0) return 0;
    const ms = restoreRate > 0 ? Math.ceil((missingPoints / restoreRate) * 1000) : 1000;
    return Math.min(this.options.maxWaitMs, ms + this.options.safetyMarginMs);
  }

  private async wait(event: PacingWait): Promise<void> {
    this.options.onWait?.(event);
    await this.options.sleep(event.ms);
  }
}

interface Reservation {
  cost: number;
  waitMs: number;
  released: boolean;
}
