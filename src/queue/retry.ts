import { UnrecoverableError } from 'bullmq';
import { retryHintOf } from '../bridge/errors.js';

export { retryHintOf, type RetryHint } from '../bridge/errors.js';

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

/** How many attempts follow a failure's `retryInMs` (a moment's contention) before the usual backoff. */
export const SHORT_RETRIES = 10;

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
