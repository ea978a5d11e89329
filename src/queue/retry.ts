import { UnrecoverableError } from 'bullmq';

/**
 * How long jobs keep trying. The print service may be scaling up for a long while, and Shopify retries its own
 * webhooks for hours, so a retryable failure keeps going for about a day: 5 s doubling up to 30 min, 60 attempts.
 */
export const JOB_ATTEMPTS = 60;
export const BACKOFF_BASE_MS = 5_000;
export const BACKOFF_CAP_MS = 30 * 60_000;
export const BACKOFF_TYPE = 'capped-exponential';

/**
 * How often a job may be taken back from a worker that died holding it before BullMQ fails it for good. BullMQ's
 * default is 1: a job caught by two crashes ("job stalled more than allowable limit") would fail without any retry
 * and its order would be stuck. Every job here is idempotent, so a stalled job simply runs again; the bound only
 * stops a job that itself kills its worker every time from looping forever.
 */
export const MAX_STALLED_COUNT = 50;

export interface RetryHint {
  retryable: boolean;
  /** A wait the failing side asked for (Retry-After, Shopify's bucket refill). */
  retryAfterMs?: number;
  /**
   * The failure is a moment's contention (another job holds the order): try again after about this long instead of
   * the exponential backoff, for the first SHORT_RETRIES attempts, then back off as usual so that a long hold does
   * not use up every attempt in a minute.
   */
  retryInMs?: number;
}

export const SHORT_RETRIES = 10;

export function retryHintOf(error: unknown): RetryHint {
  if (error && typeof error === 'object') {
    const e = error as { retryable?: unknown; retryAfterMs?: unknown; retryInMs?: unknown };
    return {
      // Errors we did not classify (a bug, a Redis hiccup) are retried: losing an order is worse than a retry.
      retryable: e.retryable !== false,
      retryAfterMs: typeof e.retryAfterMs === 'number' ? e.retryAfterMs : undefined,
      retryInMs: typeof e.retryInMs === 'number' ? e.retryInMs : undefined,
    };
  }
  return { retryable: true };
}

/** Capped exponential with jitter; never shorter than what the other side asked for. */
export function backoffDelay(attemptsMade: number, error?: unknown, random: () => number = Math.random): number {
  const hint = retryHintOf(error);
  if (hint.retryInMs !== undefined && attemptsMade <= SHORT_RETRIES) return Math.round(hint.retryInMs * (1 + random()));
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attemptsMade - 1));
  const jittered = Math.round(ceiling * (0.5 + random() / 2));
  const floor = hint.retryAfterMs ?? 0;
  return Math.max(jittered, floor);
}

/**
 * Runs a job body and turns a permanent failure into BullMQ's UnrecoverableError, so the job fails at once with the
 * reason instead of retrying for a day.
 */
export async function runWithRetrySemantics<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (!retryHintOf(error).retryable && !(error instanceof UnrecoverableError)) {
      const permanent = new UnrecoverableError(error instanceof Error ? error.message : String(error));
      permanent.cause = error;
      throw permanent;
    }
    throw error;
  }
}
