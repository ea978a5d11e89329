/**
 * Failures a test or the demo asks for: THROTTLED answers (by emptying the shop's bucket, so the throttle status the
 * client reads stays truthful) and HTTP failures (429, 5xx, a dropped connection) for the next calls.
 *
 * A fault may name a shop: then only that shop's calls take it. Without one, the next call of any shop does, which
 * is what an outage looks like, but a test running beside another store's work (a trailing status sync, a second
 * test's store) may see its fault taken by a call it did not make; naming the shop keeps the fault where it is aimed.
 */

import { normalizeShop } from './store.js';

export type InjectedFailure = number | 'network';

export interface FailurePlan {
  failure: InjectedFailure;
  remaining: number;
  retryAfterSeconds?: number;
  /** Only this shop's calls take it; every shop's when absent. */
  shop?: string;
}

export interface FaultScope {
  shop?: string;
}

interface ThrottlePlan {
  remaining: number;
  shop?: string;
}

/** Whether a plan aimed at `plan.shop` applies to a call from `shop` (null when the call names no shop). */
function applies(plan: { shop?: string }, shop: string | null): boolean {
  return plan.shop === undefined || plan.shop === shop;
}

/** The first plan, in the order asked, that applies to a call from `shop`, counted taken (dropped once used up). */
function takeOne<T extends { shop?: string; remaining: number }>(plans: T[], shop: string | null): T | undefined {
  const at = plans.findIndex((p) => applies(p, shop));
  if (at < 0) return undefined;
  const plan = plans[at]!;
  plan.remaining -= 1;
  if (plan.remaining <= 0) plans.splice(at, 1);
  return plan;
}

export class FaultPlan {
  private throttles: ThrottlePlan[] = [];
  private forced = false;
  private failures: FailurePlan[] = [];

  /** The next `n` GraphQL calls (of `scope.shop` when given) find their shop's bucket empty and answer THROTTLED. */
  throttleNext(n: number, scope: FaultScope = {}): void {
    const remaining = Math.max(0, Math.floor(n));
    if (remaining === 0) return;
    const shop = scope.shop !== undefined ? normalizeShop(scope.shop) : undefined;
    const same = this.throttles.find((t) => t.shop === shop);
    if (same) same.remaining += remaining;
    else this.throttles.push({ remaining, ...(shop !== undefined ? { shop } : {}) });
  }

  /** While on, every GraphQL call answers THROTTLED. */
  setForcedThrottle(on: boolean): void {
    this.forced = on;
  }

  /**
   * The next `n` GraphQL and token calls (of `options.shop` when given) answer with this HTTP status (or a dropped
   * connection) before any other check.
   */
  failNext(n: number, failure: InjectedFailure, options: { retryAfterSeconds?: number } & FaultScope = {}): void {
    if (typeof failure === 'number' && (failure < 400 || failure > 599)) {
      throw new RangeError(`failNext needs a 4xx/5xx status or "network", got ${failure}`);
    }
    const remaining = Math.max(0, Math.floor(n));
    if (remaining === 0) return;
    const plan: FailurePlan = { failure, remaining };
    if (options.retryAfterSeconds !== undefined) plan.retryAfterSeconds = options.retryAfterSeconds;
    if (options.shop !== undefined) plan.shop = normalizeShop(options.shop);
    this.failures.push(plan);
  }

  takeFailure(shop: string | null): FailurePlan | undefined {
    return takeOne(this.failures, shop);
  }

  takeThrottle(shop: string | null): boolean {
    return this.forced || takeOne(this.throttles, shop) !== undefined;
  }

  clear(): void {
    this.throttles = [];
    this.forced = false;
    this.failures = [];
  }

  describe() {
    return {
      throttleNext: this.throttles.reduce((sum, t) => sum + t.remaining, 0),
      throttles: this.throttles.map((t) => ({ ...t })),
      forcedThrottle: this.forced,
      failNext: this.failures.map((f) => ({ ...f })),
    };
  }
}
