import { setTimeout as delay } from 'node:timers/promises';
import { ShopifyBudgetWaitError, ShopifyThrottledError, ShopifyUnavailableError, type ThrottleStatus } from './errors.js';

/**
 * Keeps a worker inside each shop's Admin API budget. Every answer carries the shop's bucket (`throttleStatus`), after
 * Shopify has refunded what the query did not use of its requested cost. Before a call, the pacer estimates what the
 * bucket holds now (it refills at `restoreRate` a second, less what calls of this process have reserved and not yet
 * had answered) and waits if the call's requested cost would not fit: Shopify admits a query only when the bucket
 * holds its requested cost. A waiting call looks again whenever an answer arrives, so a call whose query cost far less
 * than it requested frees the shop for the next ones at once. A THROTTLED answer is retried after the time the bucket
 * needs, a few times; 429 and 5xx a few times with backoff when the call is safe to repeat. So a busy shop slows the
 * worker down instead of failing jobs. The state is per process; several workers each read the same bucket from
 * Shopify's answers.
 */

/**
 * What a call made by a queue job may wait for its shop's bucket inside the job: a longer wait gives the worker slot
 * back (the job is delayed by the wait, queue/fairness.ts), so one shop's refill never blocks other shops' jobs.
 */
export const JOB_INLINE_WAIT_MS = 1_000;

export interface PacingOptions {
  /** THROTTLED answers retried per call before the error reaches the caller (a job retries later). */
  maxThrottledRetries?: number;
  /** 429/5xx/no-answer retried per call, only for calls that are safe to repeat. */
  maxUnavailableRetries?: number;
  /** First backoff after a 5xx without Retry-After; doubles each time. */
  unavailableBaseDelayMs?: number;
  /** No single wait is longer than this; a longer need becomes the error's `retryAfterMs`. */
  maxWaitMs?: number;
  /**
   * The longest a call waits for the bucket (or after a THROTTLED answer) inside its caller. A longer wait is not
   * slept: the call throws ShopifyBudgetWaitError (or the ShopifyThrottledError) with `retryAfterMs`, so that a queue
   * job gives its worker slot back instead of holding it while one store's budget refills (queue/fairness.ts).
   * Default: `maxWaitMs` (every wait inline).
   */
  maxInlineWaitMs?: number;
  /** Cost assumed for an operation never seen before. */
  defaultExpectedCost?: number;
  /**
   * Added to every wait computed from the bucket: timers may fire a little early and Shopify's clock is not ours, so
   * a wait of exactly the computed time can arrive a hair before the points are there.
   */
  safetyMarginMs?: number;
  /** Resolves after `ms`, or early once `signal` aborts (a waiting call is woken by an answer). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
  /** Told about every wait, for logs and metrics; a wait for the bucket is told when it ends, with the time it took. */
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
  /** Calls of this process that have reserved their expected cost and not had their answer yet, in turn order. */
  reservations: Reservation[];
  /** Resolved, and replaced, whenever the estimate may have grown: an answer came or a reservation was released. */
  changed: Signal;
}

interface Reservation {
  cost: number;
  released: boolean;
  /** Yields to every foreground call of the shop (RunOptions.background). */
  background: boolean;
}

export interface RunOptions {
  /** Safe to send again after an answer whose outcome is unknown. */
  idempotent: boolean;
  /**
   * Work that can wait (showing a status in tags and a metafield): it goes only when the bucket can pay for it after
   * every foreground call of the shop, waiting or under way, so a burst of fulfillments is not slowed by the tags of
   * the orders before them; it catches up as soon as the burst leaves points over.
   */
  background?: boolean;
  /**
   * What the call is expected to cost until an answer of this operation has said (a request of several orders knows
   * its own: 10 points a mutation, an order's read per id). Without it, the default for an operation never seen.
   */
  estimatedCost?: number;
}

interface Signal {
  promise: Promise<void>;
  resolve: () => void;
}

function newSignal(): Signal {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

async function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch (error) {
    if (!(error instanceof Error && error.name === 'AbortError')) throw error;
  }
}

/** Given to a call so that it reports its answer's cost the moment it has it; see `ShopifyPacer.run`. */
export type ReportCost = (cost: CostReport) => void;

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
      maxInlineWaitMs: options.maxInlineWaitMs ?? options.maxWaitMs ?? 30_000,
      defaultExpectedCost: options.defaultExpectedCost ?? 50,
      safetyMarginMs: options.safetyMarginMs ?? 25,
      sleep: options.sleep ?? sleepFor,
      now: options.now ?? Date.now,
      onWait: options.onWait,
    };
  }

  /**
   * Records what an answer said about the shop's bucket and what the operation cost. The requested cost is what the
   * next call of the operation must find in the bucket; what it actually cost is already in `throttleStatus`.
   */
  observe(shop: string, operation: string, cost: CostReport): void {
    const state = this.stateOf(shop);
    state.status = cost.throttleStatus;
    state.observedAt = this.options.now();
    this.expectedCosts.set(operation, cost.requestedQueryCost);
    this.notify(state);
  }

  /** Points the shop's bucket is estimated to hold for a new call now, or undefined before the first answer. */
  estimatedAvailable(shop: string): number | undefined {
    const state = this.shops.get(shop);
    if (!state?.status) return undefined;
    return this.refilled(state) - state.reservations.reduce((sum, r) => sum + r.cost, 0);
  }

  /** The share of its bucket (0 to 1) the shop is estimated to hold for a new call now; undefined before the first answer. */
  availableShare(shop: string): number | undefined {
    const available = this.estimatedAvailable(shop);
    const maximum = this.shops.get(shop)?.status?.maximumAvailable;
    if (available === undefined || !maximum) return undefined;
    return Math.max(0, available) / maximum;
  }

  expectedCost(operation: string, estimate?: number): number {
    return this.expectedCosts.get(operation) ?? estimate ?? this.options.defaultExpectedCost;
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
   * only failures that are known to have done nothing: THROTTLED, 429 and 503. The call gets `report`, to pass the
   * answer's cost on as soon as it has it: that both records the shop's bucket and ends the call's reservation, so
   * the bucket is never counted twice (once in Shopify's figures, once as reserved).
   */
  async run<T>(shop: string, operation: string, options: RunOptions, call: (report: ReportCost) => Promise<T>): Promise<T> {
    let throttled = 0;
    let unavailable = 0;
    const background = options.background ?? false;
    // The cost is reserved before waiting, so concurrent calls of one shop see each other and queue up in turn.
    let reservation = this.reserve(shop, operation, background, options.estimatedCost);
    try {
      await this.awaitTurn(shop, operation, reservation);
    } catch (error) {
      this.release(shop, reservation, { reported: true });
      throw error;
    }
    for (let attempt = 1; ; attempt += 1) {
      const current = reservation;
      let reported = false;
      const report: ReportCost = (cost) => {
        reported = true;
        this.release(shop, current);
        this.observe(shop, operation, cost);
      };
      try {
        const result = await call(report);
        this.release(shop, current, { reported });
        return result;
      } catch (error) {
        const refusedUnserved = error instanceof ShopifyThrottledError || (error instanceof ShopifyUnavailableError && !error.outcomeUnknown);
        this.release(shop, current, { reported, charged: !refusedUnserved });
        if (error instanceof ShopifyThrottledError && error.throttleStatus) {
          this.observe(shop, operation, { requestedQueryCost: error.requestedQueryCost, actualQueryCost: null, throttleStatus: error.throttleStatus });
        }
        // A refill longer than a slot may wait is waited for outside the slot: the caller gets the error and its wait.
        if (error instanceof ShopifyThrottledError) {
          const refill = Math.min(this.options.maxWaitMs, (error.retryAfterMs ?? 1000) + this.options.safetyMarginMs);
          if (refill > this.options.maxInlineWaitMs) throw new ShopifyBudgetWaitError(operation, shop, refill, { cause: error });
        }
        if (error instanceof ShopifyThrottledError && throttled < this.options.maxThrottledRetries) {
          throttled += 1;
          reservation = this.reserve(shop, operation, background, options.estimatedCost);
          const needed = Math.min(this.options.maxWaitMs, (error.retryAfterMs ?? 1000) + this.options.safetyMarginMs);
          await this.wait({ shop, operation, ms: Math.max(needed, this.turnWait(shop, reservation)), reason: 'throttled', attempt });
          continue;
        }
        if (
          error instanceof ShopifyUnavailableError &&
          unavailable < this.options.maxUnavailableRetries &&
          (options.idempotent || !error.outcomeUnknown)
        ) {
          unavailable += 1;
          reservation = this.reserve(shop, operation, background, options.estimatedCost);
          const backoff = this.options.unavailableBaseDelayMs * 2 ** (unavailable - 1);
          const needed = Math.min(this.options.maxWaitMs, error.retryAfterMs ?? backoff);
          await this.wait({ shop, operation, ms: Math.max(needed, this.turnWait(shop, reservation)), reason: 'unavailable', attempt });
          continue;
        }
        throw error;
      }
    }
  }

  private reserve(shop: string, operation: string, background: boolean, estimate?: number): Reservation {
    const reservation = { cost: this.expectedCost(operation, estimate), released: false, background };
    this.stateOf(shop).reservations.push(reservation);
    return reservation;
  }

  /**
   * Ends a reservation once its call has had its answer. A call that ended without reporting a cost may still have
   * been charged, so its points stay counted until Shopify's next figures.
   */
  private release(shop: string, reservation: Reservation, options: { reported: boolean; charged?: boolean } = { reported: true }): void {
    if (reservation.released) return;
    reservation.released = true;
    const state = this.stateOf(shop);
    state.reservations = state.reservations.filter((r) => r !== reservation);
    // A call that ended without Shopify's figures (no answer, or an answer without `extensions.cost`) may still have
    // been charged: its cost comes off the estimate, which then refills at the restore rate like the real bucket,
    // until Shopify's next figures replace it. A refusal that did nothing (THROTTLED, 429, 503) cost nothing.
    if (!options.reported && options.charged !== false && state.status) {
      state.status = { ...state.status, currentlyAvailable: this.refilled(state) - reservation.cost };
      state.observedAt = this.options.now();
    }
    this.notify(state);
  }

  /**
   * Waits until the bucket, as estimated, can pay this reservation after every reservation ahead of it. The estimate
   * is looked at again whenever an answer arrives, and the wait ends after `maxWaitMs` in any case: Shopify's own
   * answer (THROTTLED at worst) then says more than the estimate can.
   */
  private async awaitTurn(shop: string, operation: string, reservation: Reservation): Promise<void> {
    const state = this.stateOf(shop);
    for (let budget = this.options.maxWaitMs; budget > 0; ) {
      const needed = this.turnWait(shop, reservation);
      if (needed > this.options.maxInlineWaitMs) throw new ShopifyBudgetWaitError(operation, shop, needed);
      const ms = Math.min(budget, needed);
      if (ms <= 0) return;
      const started = this.options.now();
      const wake = new AbortController();
      const woken = await Promise.race([
        this.options.sleep(ms, wake.signal).then(() => false),
        state.changed.promise.then(() => true),
      ]);
      wake.abort();
      const waited = Math.max(0, this.options.now() - started);
      budget -= woken ? waited : ms;
      if (waited > 0) this.options.onWait?.({ shop, operation, ms: waited, reason: 'bucket-low', attempt: 1 });
    }
  }

  /**
   * How long `reservation` has to wait for the bucket, counting the reservations ahead of it; 0 when it can go. A
   * foreground call counts only the foreground calls before it; a background one, every foreground call and the
   * background calls before it.
   */
  private turnWait(shop: string, reservation: Reservation): number {
    const state = this.stateOf(shop);
    if (!state.status) return 0;
    let ahead = 0;
    let before = true;
    for (const r of state.reservations) {
      if (r === reservation) {
        before = false;
        if (!reservation.background) break;
        continue;
      }
      if (reservation.background ? before || !r.background : !r.background) ahead += r.cost;
    }
    return this.waitFor(reservation.cost - (this.refilled(state) - ahead), state.status.restoreRate);
  }

  /** What the bucket holds by now after Shopify's last figures, less what calls took since without saying. */
  private refilled(state: ShopState): number {
    if (!state.status) return 0;
    const elapsedSeconds = Math.max(0, this.options.now() - state.observedAt) / 1000;
    const refilled = Math.min(state.status.maximumAvailable, state.status.currentlyAvailable + elapsedSeconds * state.status.restoreRate);
    return refilled;
  }

  private notify(state: ShopState): void {
    state.changed.resolve();
    state.changed = newSignal();
  }

  private stateOf(shop: string): ShopState {
    let state = this.shops.get(shop);
    if (!state) {
      state = { observedAt: this.options.now(), reservations: [], changed: newSignal() };
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
