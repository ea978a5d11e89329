/**
 * Failures a test or the demo asks for: THROTTLED answers (by emptying the shop's bucket, so the throttle status the
 * client reads stays truthful) and HTTP failures (429, 5xx, a dropped connection) for the next calls.
 */

export type InjectedFailure = number | 'network';

export interface FailurePlan {
  failure: InjectedFailure;
  remaining: number;
  retryAfterSeconds?: number;
}

export class FaultPlan {
  private throttleCount = 0;
  private forced = false;
  private failures: FailurePlan[] = [];

  /** The next `n` GraphQL calls find their shop's bucket empty and answer THROTTLED. */
  throttleNext(n: number): void {
    this.throttleCount += Math.max(0, Math.floor(n));
  }

  /** While on, every GraphQL call answers THROTTLED. */
  setForcedThrottle(on: boolean): void {
    this.forced = on;
  }

  /** The next `n` GraphQL calls answer with this HTTP status (or a dropped connection) before any other check. */
  failNext(n: number, failure: InjectedFailure, options: { retryAfterSeconds?: number } = {}): void {
    if (typeof failure === 'number' && (failure < 400 || failure > 599)) {
      throw new RangeError(`failNext needs a 4xx/5xx status or "network", got ${failure}`);
    }
    const remaining = Math.max(0, Math.floor(n));
    if (remaining > 0) this.failures.push({ failure, remaining, ...options });
  }

  takeFailure(): FailurePlan | undefined {
    const next = this.failures[0];
    if (!next) return undefined;
    next.remaining -= 1;
    if (next.remaining <= 0) this.failures.shift();
    return next;
  }

  takeThrottle(): boolean {
    if (this.forced) return true;
    if (this.throttleCount > 0) {
      this.throttleCount -= 1;
      return true;
    }
    return false;
  }

  clear(): void {
    this.throttleCount = 0;
    this.forced = false;
    this.failures = [];
  }

  describe() {
    return {
      throttleNext: this.throttleCount,
      forcedThrottle: this.forced,
      failNext: this.failures.map((f) => ({ ...f })),
    };
  }
}
