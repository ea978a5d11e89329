import { setTimeout as sleep } from 'node:timers/promises';
import type { Queues } from '../../src/queue/queues.js';

/** The queues an order's work flows through, in that order. */
export type PipelineQueue = 'webhooks' | 'orders' | 'events' | 'shopify';

/**
 * Waits until the named queues have no waiting, active, delayed, prioritized or waiting-children job. `names` must be
 * in the order work flows (a webhook job queues its order job, an order or event job its Shopify jobs, each before it
 * finishes): read one after another in that order, a job queued by one counted as done is already there when its
 * queue is read. Fails naming the counts it last saw.
 */
export async function waitForQueuesIdle(
  queues: Pick<Queues, PipelineQueue>,
  names: readonly PipelineQueue[],
  options: { timeoutMs?: number; what?: string } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  let last: Record<string, Record<string, number>> = {};
  while (Date.now() < deadline) {
    last = {};
    for (const name of names) last[name] = await queues[name].getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children');
    if (Object.values(last).every((c) => Object.values(c).every((n) => n === 0))) return;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${options.what ?? `the ${names.join(', ')} queues to drain`}; job counts: ${JSON.stringify(last)}`);
}
