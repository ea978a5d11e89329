import { FULFILLMENT_ORDER_TOPICS } from '../fulfillment-order-changed.js';
import type { WebhookJob, WebhookJobData } from '../jobs.js';
import type { BridgeDeps } from '../ports.js';
import { scopesUpdated } from './app-scopes-update.js';
import { uninstall } from './app-uninstalled.js';
import { dataRequest } from './customers-data-request.js';
import { fulfillmentOrderWebhook } from './fulfillment-orders.js';
import { handleRefundWebhook } from './printed-lines-changed.js';
import { handleOrderWebhook } from './orders.js';
import type { WebhookOutcome } from './outcome.js';
import { redact } from './redact.js';

export type { WebhookOutcome } from './outcome.js';
export { describeHoldWindow, shippingAddressHash } from './orders.js';

/**
 * The worker's side of Shopify's webhooks: one use case per topic (a file each in this folder), found in this table.
 * Each is safe to run any number of times and in any order: bodies are kept by `updated_at`, statuses only move
 * forward, and the jobs they schedule carry ids that make repeats no-ops.
 */
const HANDLERS: Record<string, (deps: BridgeDeps, job: WebhookJob) => Promise<WebhookOutcome>> = {
  'orders/create': handleOrderWebhook,
  'orders/paid': handleOrderWebhook,
  'orders/updated': handleOrderWebhook,
  'orders/cancelled': handleOrderWebhook,
  'refunds/create': handleRefundWebhook,
  'app/uninstalled': (deps, job) => uninstall(deps, job.shop),
  'app/scopes_update': scopesUpdated,
  'customers/redact': redact,
  'shop/redact': redact,
  'customers/data_request': dataRequest,
  ...Object.fromEntries(FULFILLMENT_ORDER_TOPICS.map((topic) => [topic, (deps: BridgeDeps, job: WebhookJob) => fulfillmentOrderWebhook(deps, job, topic)])),
};

/**
 * A queued webhook: its body is read from the store (jobs carry ids only), handled, and deleted once handled. A body
 * that is gone (redacted meanwhile, or older than the store keeps bodies) leaves nothing to do.
 */
export async function handleQueuedWebhook(deps: BridgeDeps, data: WebhookJobData): Promise<WebhookOutcome> {
  const bodies = deps.store.webhookBodies();
  const body = data.body ?? (await bodies.get(data.shop, data.webhookId));
  if (body === undefined) return { kind: 'rejected', reason: `the body of webhook ${data.webhookId} is no longer kept (redacted, or older than 8 days)` };
  const outcome = await handleWebhook(deps, { ...data, body });
  await bodies.drop(data.shop, data.webhookId);
  return outcome;
}

export async function handleWebhook(deps: BridgeDeps, job: WebhookJob): Promise<WebhookOutcome> {
  const handler = Object.hasOwn(HANDLERS, job.topic) ? HANDLERS[job.topic] : undefined;
  if (handler) return handler(deps, job);
  // Intake took it, so a topic the worker has no use case for is a gap between the two lists: said, never silent.
  deps.logger.warn({ shop: job.shop, topic: job.topic, webhookId: job.webhookId }, 'webhook of a topic the worker has no use case for; not handled');
  return { kind: 'rejected', reason: `topic ${job.topic} is not handled` };
}
