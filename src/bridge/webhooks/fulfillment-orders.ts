import { parseFulfillmentOrderWebhook, type FulfillmentOrderTopic } from '../fulfillment-order-changed.js';
import type { WebhookJob } from '../jobs.js';
import type { BridgeDeps } from '../ports.js';
import type { WebhookOutcome } from './outcome.js';

/** Fulfillment-order webhooks go to the Shopify queue, whose worker asks the Admin API which order they concern. */
export async function fulfillmentOrderWebhook(deps: BridgeDeps, job: WebhookJob, topic: FulfillmentOrderTopic): Promise<WebhookOutcome> {
  const parsed = parseFulfillmentOrderWebhook(topic, job.body);
  if (!parsed.ok) return { kind: 'rejected', reason: `${topic} webhook ${job.webhookId} from ${job.shop}: ${parsed.message}` };
  await deps.scheduler.fulfillmentOrderChanged(job.shop, parsed.change, job.webhookId);
  return { kind: 'recorded', orderId: parsed.change.orderId ?? parsed.change.fulfillmentOrderId, detail: `${topic} for ${parsed.change.fulfillmentOrderId}` };
}
