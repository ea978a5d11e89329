import { type Job, Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { FULFILLMENT_ORDER_TOPICS } from '../bridge/fulfillment-order-changed.js';
import { printEventJobSchema, webhookJobSchema, type PrintEventJob, type WebhookJob, type WebhookJobData } from '../bridge/jobs.js';
import { BACKOFF_TYPE, JOB_ATTEMPTS } from './retry.js';

export { printEventJobSchema, webhookJobSchema, type PrintEventJob, type WebhookJob, type WebhookJobData };

/**
 * The queues and their job shapes. Job data is parsed with zod when a worker takes it: it crossed a process boundary
 * through Redis and may have been written by an older version of the app.
 */

export const QUEUE_NAMES = { webhooks: 'webhooks', orders: 'orders', events: 'events', shopify: 'shopify', maintenance: 'maintenance' } as const;

export const orderJobSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('submit'), shop: z.string(), orderId: z.string(), reason: z.string().default('webhook') }),
  z.object({ kind: z.literal('cancel'), shop: z.string(), orderId: z.string() }),
  z.object({ kind: z.literal('amend-shipping'), shop: z.string(), orderId: z.string() }),
  /** Looks again at a shop's waiting and held orders (`*`: every shop's): src/bridge/waiting-orders.ts. */
  z.object({ kind: z.literal('reexamine'), shop: z.string(), cause: z.string(), remap: z.boolean().default(true) }),
]);
export type OrderJob = z.infer<typeof orderJobSchema>;

export const shopifyJobSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('sync'), shop: z.string(), orderId: z.string() }),
  z.object({ kind: z.literal('note'), shop: z.string(), orderId: z.string(), line: z.string() }),
  // The store's switch of print-bridge's own holds changed: each order that waits has its hold placed or released.
  z.object({ kind: z.literal('app-holds'), shop: z.string() }),
  /** Fulfils the order's shipments that wait for Shopify to release a fulfillment hold (a re-check). */
  z.object({ kind: z.literal('fulfil-held'), shop: z.string(), orderId: z.string(), check: z.number().int().default(0) }),
  /** Fulfillment-service mode: read the store's pending fulfillment and cancellation requests (a callback, or the schedule). */
  z.object({ kind: z.literal('fulfillment-requests'), shop: z.string(), cause: z.string().default('callback') }),
  /** Fulfillment-service mode: send an order's pending answers to Shopify's requests. */
  z.object({ kind: z.literal('answer-requests'), shop: z.string(), orderId: z.string() }),
  /** A Shopify Flow trigger for one event of the order (src/flow/announce.ts). */
  z.object({ kind: z.literal('flow-trigger'), shop: z.string(), orderId: z.string(), handle: z.string(), event: z.string() }),
  /** A fulfillment-order webhook: placed on hold, released, scheduled one ready. */
  z.object({
    kind: z.literal('fulfillment-order'),
    shop: z.string(),
    topic: z.enum(FULFILLMENT_ORDER_TOPICS),
    fulfillmentOrderId: z.string(),
    orderId: z.string().optional(),
    hold: z.string().optional(),
    movedTo: z.string().optional(),
    destinationLocationId: z.string().optional(),
    sourceLocationId: z.string().optional(),
  }),
]);
export type ShopifyJob = z.infer<typeof shopifyJobSchema>;

export interface Queues {
  webhooks: Queue<WebhookJobData>;
  orders: Queue<OrderJob>;
  events: Queue<PrintEventJob>;
  shopify: Queue<ShopifyJob>;
  /** Scheduled housekeeping (reconciliation); its jobs carry no data. */
  maintenance: Queue;
  /** The Redis the queues live on: redaction reads and trims their event streams (job-records.ts). */
  connection: Redis;
  close(): Promise<void>;
}

export const DEFAULT_JOB_OPTIONS: JobsOptions = {
  attempts: JOB_ATTEMPTS,
  backoff: { type: BACKOFF_TYPE },
  // Completed jobs are kept a while so a repeated add with the same id stays a no-op, and for the dashboard.
  removeOnComplete: { age: 24 * 3600, count: 50_000 },
  // Failed jobs are what an operator looks at: keep them for a month.
  removeOnFail: { age: 30 * 24 * 3600 },
};

export function createQueues(connection: Redis, prefix: string): Queues {
  const options = { connection, prefix: bullPrefix(prefix), defaultJobOptions: DEFAULT_JOB_OPTIONS };
  const webhooks = new Queue<WebhookJobData>(QUEUE_NAMES.webhooks, options);
  const orders = new Queue<OrderJob>(QUEUE_NAMES.orders, options);
  const events = new Queue<PrintEventJob>(QUEUE_NAMES.events, options);
  const shopify = new Queue<ShopifyJob>(QUEUE_NAMES.shopify, options);
  const maintenance = new Queue(QUEUE_NAMES.maintenance, options);
  // Connection errors reach the caller through the add() that fails (intake answers 503); without a listener BullMQ
  // prints every one of them to stderr with a stack trace while Redis is down.
  for (const queue of [webhooks, orders, events, shopify, maintenance]) queue.on('error', () => undefined);
  return {
    webhooks,
    orders,
    events,
    shopify,
    maintenance,
    connection,
    async close() {
      await Promise.all([webhooks.close(), orders.close(), events.close(), shopify.close(), maintenance.close()]);
    },
  };
}

/** BullMQ keys live under the app's prefix too, so one Redis can host several installs and test runs. */
export function bullPrefix(prefix: string): string {
  return `${prefix}bull`;
}

/**
 * Queues a webhook: its body into `keepBody` (the store) first, then a job that names it. A failure of either throws,
 * and the caller answers 503 (Shopify delivers again); a body kept without its job expires with its TTL.
 */
export async function enqueueWebhook(
  queue: Queue<WebhookJobData>,
  keepBody: (shop: string, webhookId: string, body: string) => Promise<void>,
  job: WebhookJob,
): Promise<void> {
  await keepBody(job.shop, job.webhookId, job.body);
  await addWebhookJob(queue, job);
}

/** The job of a webhook whose body is already kept (webhook intake keeps it with its claim): ids only in the job. */
export async function addWebhookJob(queue: Queue<WebhookJobData>, job: WebhookJob): Promise<void> {
  const { body: _body, ...reference } = job;
  // A shop/redact job names the store it erased, and is running while it erases the store's other jobs: kept as a
  // completed record, it would name the store for a day after. Done, it goes; failed, it stays for a retry.
  const options = job.topic === 'shop/redact' ? { removeOnComplete: true } : {};
  await queue.add(job.topic, reference, { jobId: jobId('wh', job.webhookId), ...options });
}

/** A job id from parts. BullMQ reserves ':' in custom ids, and Shopify gids are full of them. */
export function jobId(...parts: string[]): string {
  return parts.map((p) => p.replace(/:/g, '_')).join('|');
}

export function submitJobId(shop: string, orderId: string, generation = 0): string {
  return jobId('submit', shop, orderId, String(generation));
}

/**
 * Resolves once the event is in Redis; an identical event already queued (or done within a day) is not added twice.
 * An identical event whose job failed for good is tried again: the print service sending it again is the best moment
 * to recover from whatever made it fail (Shopify down for a day, a worker that kept dying), and applying an event
 * is idempotent.
 */
export async function enqueuePrintEvent(queue: Queue<PrintEventJob>, job: PrintEventJob): Promise<void> {
  // The scope is part of the id: one store's token delivering an event first cannot make another's delivery of the
  // same event a duplicate.
  const queued = await queue.add(job.event.kind, job, { jobId: printEventJobId(job.shop ? `${job.hash}.${job.shop}` : job.hash) });
  if ((await queued.getState()) === 'failed') await retryFailedJob(queued);
}

/**
 * Gives a job that failed for good its full set of attempts again (BullMQ keeps `attemptsMade` by default, so a job
 * that used up its attempts would get one more try and then fail at the first error). Another delivery or operator
 * may retry it at the same moment; the one that loses finds it no longer failed, which is fine.
 */
export async function retryFailedJob(job: Job): Promise<void> {
  try {
    await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
  } catch (error) {
    if ((await job.getState().catch(() => 'unknown')) !== 'failed') return;
    throw error;
  }
}

/**
 * Queues a look at a shop's waiting orders. While one waits, another request for the shop is the same job; while one
 * runs, one more is kept to run after it (it may have read the orders before the change that asked for it).
 */
export async function enqueueReexamine(queue: Queue<OrderJob>, shop: string, cause: string, remap = true): Promise<void> {
  await queue.add('reexamine', { kind: 'reexamine', shop, cause, remap }, { deduplication: { id: jobId('reexamine', shop), keepLastIfActive: true } });
}

/** A look at every waiting order's own hold of one store (its switch changed); repeats while one waits are one. */
export async function enqueueAppHoldsResync(queue: Queue<ShopifyJob>, shop: string): Promise<void> {
  await queue.add('app-holds', { kind: 'app-holds', shop }, { deduplication: { id: jobId('app-holds', shop), keepLastIfActive: true } });
}

export function printEventJobId(hash: string): string {
  return jobId('event', hash);
}
