import { setTimeout as sleep } from 'node:timers/promises';
import { type PrintOperation, type PrintServiceError, PrintServiceUnavailableError } from './errors.js';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** No retry starts once this much time has passed since the first attempt. */
  maxTotalMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 8_000, maxTotalMs: 30_000 };

/** Seconds or an HTTP date, as RFC 9110 allows; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: Date): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now.getTime());
}

export function isRetryable(error: unknown): error is PrintServiceError {
  return typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === true;
}

/** Exponential backoff with full jitter; a Retry-After from the service is a floor. */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number, error?: PrintServiceError): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = Math.round(ceiling / 2 + random() * (ceiling / 2));
  const floor = error instanceof PrintServiceUnavailableError ? (error.retryAfterMs ?? 0) : 0;
  return Math.max(jittered, floor);
}

/**
 * Runs `send` until it succeeds, fails for good (not retryable), runs out of attempts, or the next wait would pass
 * the policy's total time. `backoff` gives the wait before retry number `attempt`.
 */
export async function withRetry<T>(
  policy: RetryPolicy,
  operation: PrintOperation,
  send: () => Promise<T>,
  backoff: (attempt: number, error: PrintServiceError) => number,
  onRetry?: (info: { operation: PrintOperation; attempt: number; delayMs: number; error: PrintServiceError }) => void,
): Promise<T> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (!isRetryable(error) || attempt >= policy.maxAttempts) throw error;
      const delayMs = backoff(attempt, error);
      if (Date.now() - started + delayMs > policy.maxTotalMs) throw error;
      onRetry?.({ operation, attempt, delayMs, error });
      await sleep(delayMs);
    }
  }
}
