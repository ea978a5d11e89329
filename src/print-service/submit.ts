import { setTimeout as sleep } from 'node:timers/promises';
import type { PrintServiceClient } from './client.js';
import { isRetryable } from './retry-policy.js';
import { PrintRequestInvalidError, type PrintServiceError } from './errors.js';
import type { Acknowledgement, OrderRecord, PrintOrder } from './schema.js';

export type SubmitOutcome =
  | { kind: 'created'; acknowledgement: Acknowledgement; attempts: number }
  /** The service already had the order: an earlier attempt (ours or a previous job's) stored it. */
  | { kind: 'already-submitted'; order: OrderRecord; attempts: number };

export interface SubmitOptions {
  /**
   * Ask get-by-source-id before the first create. On by default: a job that runs again after a crash cannot know
   * whether its previous run's create reached the service. Turn off only when this is certainly the first attempt.
   */
  reconcileFirst?: boolean;
  /** Creates in all before giving up (the job then retries later, reconciling again). */
  maxAttempts?: number;
  onAttemptFailed?: (info: { attempt: number; error: PrintServiceError; delayMs: number; willReconcile: boolean }) => void;
}

/**
 * Submits an order so that the service ends up with it exactly once. A create is only ever sent again after the
 * service has said it does not have the order: whenever a create fails in a way that leaves it unknown whether the
 * service stored it (time-out, dropped connection, 500), get-by-source-id decides.
 */
export async function submitOrder(
  client: Pick<PrintServiceClient, 'create' | 'findBySourceId' | 'backoffDelay' | 'retryPolicy'>,
  order: PrintOrder,
  options: SubmitOptions = {},
): Promise<SubmitOutcome> {
  const sourceOrderId = order.orderData.sourceOrderId;
  if (!sourceOrderId) {
    // Without a source id there is no way to ask the service whether a lost create was stored.
    throw new PrintRequestInvalidError('create', 'submitOrder needs orderData.sourceOrderId to submit idempotently.');
  }
  const maxAttempts = options.maxAttempts ?? client.retryPolicy.maxAttempts;
  let mustReconcile = options.reconcileFirst ?? true;

  for (let attempt = 1; ; attempt++) {
    if (mustReconcile) {
      const existing = await client.findBySourceId(sourceOrderId);
      if (existing) return { kind: 'already-submitted', order: existing, attempts: attempt - 1 };
    }
    try {
      const acknowledgement = await client.create(order);
      return { kind: 'created', acknowledgement, attempts: attempt };
    } catch (error) {
      if (!isRetryable(error) || attempt >= maxAttempts) throw error;
      // Only a failure that certainly happened before the service stored anything (503, refused connection) may
      // be followed by a blind create.
      mustReconcile = mustReconcile || error.outcomeUnknown;
      const delayMs = client.backoffDelay(attempt, error);
      options.onAttemptFailed?.({ attempt, error, delayMs, willReconcile: mustReconcile });
      // Waiting before the lookup also lets a create that is still in flight at the service land first.
      await sleep(delayMs);
    }
  }
}
