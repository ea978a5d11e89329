import { parseJsonLossless } from '../../shopify/json.js';
import type { WebhookJob } from '../jobs.js';
import type { BridgeDeps } from '../ports.js';
import type { WebhookOutcome } from './outcome.js';

/** customers/data_request: a report of what the app keeps of the customer's orders, for the merchant to download. */
export async function dataRequest(deps: BridgeDeps, job: WebhookJob): Promise<WebhookOutcome> {
  const body = parseJsonLossless(job.body) as { orders_requested?: (string | number)[]; data_request?: { id?: unknown } };
  const orderIds = (body.orders_requested ?? []).map((id) => `gid://shopify/Order/${String(id)}`);
  const report: unknown[] = [];
  for (const orderId of orderIds) {
    const [link, stored] = await Promise.all([deps.store.get(job.shop, orderId), deps.store.getOrderBody(job.shop, orderId)]);
    if (link || stored) report.push({ orderId, link, orderBody: stored ? (JSON.parse(stored.body) as unknown) : undefined });
  }
  await deps.store.saveDataRequest(job.shop, String(body.data_request?.id ?? job.webhookId), report);
  return { kind: 'data-request', orders: report.length };
}
