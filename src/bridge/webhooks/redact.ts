import { parseJsonLossless } from '../../shopify/json.js';
import type { WebhookJob } from '../jobs.js';
import type { BridgeDeps } from '../ports.js';
import type { WebhookOutcome } from './outcome.js';

/**
 * Redaction reaches every copy the app keeps (docs/privacy.md): order links, bodies and history, webhook bodies not
 * handled yet, data-request reports, and postbacks kept as unreadable that name the orders. Queue jobs carry ids only.
 */
export async function redact(deps: BridgeDeps, job: WebhookJob): Promise<WebhookOutcome> {
  const body = parseJsonLossless(job.body) as { orders_to_redact?: (string | number)[] };
  const bodies = deps.store.webhookBodies();
  const unreadable = deps.store.unreadablePostbacks();
  if (job.topic === 'shop/redact') {
    const ids = await deps.store.orderIdsOfShop(job.shop);
    const references: string[] = [];
    for (const orderId of ids) {
      const link = await deps.store.get(job.shop, orderId);
      references.push(...[link?.sourceOrderId, link?.printOrderId].filter((r): r is string => Boolean(r)));
      await deps.store.deleteOrder(job.shop, orderId);
    }
    // This webhook's own body is among the shop's bodies: handled once this returns, it goes with them.
    await Promise.all([
      bodies.dropShop(job.shop),
      deps.store.redactDataRequests(job.shop),
      unreadable.removeMentioning(references),
      // The store's own print set-up (account, postback tokens, mapping versions) goes with the rest.
      deps.shopSettings?.redactShop(job.shop),
    ]);
    return { kind: 'redacted', orders: ids.length };
  }
  // customers/redact: the order bodies hold the customer's name, address and contact; links and history do not.
  const numericIds = (body.orders_to_redact ?? []).map((id) => String(id));
  const orderIds = numericIds.map((id) => `gid://shopify/Order/${id}`);
  const references: string[] = [];
  for (const orderId of orderIds) {
    const link = await deps.store.get(job.shop, orderId);
    references.push(...[link?.sourceOrderId, link?.printOrderId].filter((r): r is string => Boolean(r)));
    await deps.store.deleteOrderBody(job.shop, orderId);
    // A test-mode run keeps what would have been sent, the customer's address with it.
    if (link?.testRun) {
      await deps.store.update(job.shop, orderId, (c) => (c?.testRun ? { link: { ...c, testRun: { ...c.testRun, order: undefined } } } : undefined));
    }
    await deps.store.note(job.shop, orderId, { event: 'customer data redacted', source: 'shopify' });
  }
  await Promise.all([bodies.dropOrders(job.shop, numericIds), deps.store.redactDataRequests(job.shop, orderIds), unreadable.removeMentioning(references)]);
  return { kind: 'redacted', orders: orderIds.length };
}
