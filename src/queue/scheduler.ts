import { createHash } from 'node:crypto';
import type { FulfillmentOrderChange } from '../bridge/fulfillment-order-changed.js';
import type { Scheduler } from '../bridge/ports.js';
import { eraseJobRecords, type JobMentions } from './job-records.js';
import { enqueueReexamine, jobId, type Queues, submitJobId } from './queues.js';

/**
 * How long a sync waits before it reads the order: changes within it are shown by one sync (an order's received,
 * print-ready and shipments often come seconds apart, and a burst of them would otherwise cost Shopify's query
 * budget a write each; issue 17).
 */
export const SYNC_DELAY_MS = 1_000;

/** The wait of a sync of a status that usually does not last (Scheduler.syncShopify `settling`). */
export const SETTLING_SYNC_DELAY_MS = 60_000;

/** The pipeline's Scheduler on BullMQ: job ids make a repeated request one job. */
export class QueueScheduler implements Scheduler {
  private readonly syncDelayMs: number;
  private readonly settlingDelayMs: number;

  constructor(
    private readonly queues: Queues,
    options: { syncDelayMs?: number; settlingDelayMs?: number } = {},
  ) {
    this.syncDelayMs = options.syncDelayMs ?? SYNC_DELAY_MS;
    this.settlingDelayMs = options.settlingDelayMs ?? SETTLING_SYNC_DELAY_MS;
  }

  async submit(shop: string, orderId: string, delayMs: number, generation = 0): Promise<void> {
    await this.queues.orders.add(
      'submit',
      { kind: 'submit', shop, orderId, reason: generation ? 'resubmit' : 'webhook' },
      { jobId: submitJobId(shop, orderId, generation), delay: Math.max(0, Math.round(delayMs)) },
    );
  }

  async cancel(shop: string, orderId: string): Promise<void> {
    await this.queues.orders.add('cancel', { kind: 'cancel', shop, orderId }, { jobId: jobId('cancel', shop, orderId) });
  }

  async amendShipping(shop: string, orderId: string, generation: string): Promise<void> {
    await this.queues.orders.add(
      'amend-shipping',
      { kind: 'amend-shipping', shop, orderId },
      { jobId: jobId('amend', shop, orderId, generation) },
    );
  }

  async syncShopify(shop: string, orderId: string, options: { settling?: boolean } = {}): Promise<void> {
    // One sync per order waits (requests while it waits are that one, rescheduled to the latest request's delay) and
    // at most one more while it runs; each reads the link when it starts.
    await this.queues.shopify.add(
      'sync',
      { kind: 'sync', shop, orderId },
      {
        delay: options.settling ? this.settlingDelayMs : this.syncDelayMs,
        deduplication: { id: jobId('sync', shop, orderId), keepLastIfActive: true, reschedule: true },
      },
    );
  }

  async noteShopify(shop: string, orderId: string, line: string): Promise<void> {
    const digest = createHash('sha256').update(line).digest('hex').slice(0, 16);
    await this.queues.shopify.add('note', { kind: 'note', shop, orderId, line }, { jobId: jobId('note', shop, orderId, digest) });
  }

  async flowTrigger(shop: string, orderId: string, handle: string, event: string): Promise<void> {
    // The id is the event: one event announced twice (a sync repeated before its record was written) is one trigger.
    await this.queues.shopify.add('flow-trigger', { kind: 'flow-trigger', shop, orderId, handle, event }, { jobId: jobId('flow', shop, orderId, handle, event) });
  }

  async reexamine(shop: string, cause: string): Promise<void> {
    await enqueueReexamine(this.queues.orders, shop, cause);
  }

  async fulfillmentOrderChanged(shop: string, change: FulfillmentOrderChange, webhookId: string): Promise<void> {
    await this.queues.shopify.add('fulfillment-order', { kind: 'fulfillment-order', shop, ...change }, { jobId: jobId('fo', shop, webhookId) });
  }

  async takeFulfillmentRequests(shop: string, cause: string): Promise<void> {
    // A burst of callbacks (one per order Shopify requests) is one read while it waits: the read takes every request.
    await this.queues.shopify.add(
      'fulfillment-requests',
      { kind: 'fulfillment-requests', shop, cause },
      { deduplication: { id: jobId('fsr', shop), keepLastIfActive: true } },
    );
  }

  async answerFulfillmentRequests(shop: string, orderId: string): Promise<void> {
    await this.queues.shopify.add(
      'answer-requests',
      { kind: 'answer-requests', shop, orderId },
      { deduplication: { id: jobId('answer', shop, orderId), keepLastIfActive: true } },
    );
  }

  async eraseJobRecords(mentions: JobMentions): Promise<number> {
    const { webhooks, orders, events, shopify, maintenance, connection } = this.queues;
    const erased = await eraseJobRecords(connection, [webhooks, orders, events, shopify, maintenance], mentions);
    return erased.jobs + erased.scrubbed + erased.events;
  }

  async dropPendingForShop(shop: string): Promise<number> {
    let dropped = 0;
    for (const queue of [this.queues.orders, this.queues.webhooks, this.queues.shopify]) {
      const jobs = await queue.getJobs(['delayed', 'waiting', 'prioritized']);
      for (const job of jobs) {
        if ((job.data as { shop?: string }).shop !== shop) continue;
        // A job that became active meanwhile cannot be removed; it runs and finds the shop's sessions gone.
        await job.remove().then(
          () => (dropped += 1),
          () => undefined,
        );
      }
    }
    return dropped;
  }
}
