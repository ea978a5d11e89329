import type { Logger } from 'pino';
import type { WebhookJob } from './jobs.js';
import type { OrderStore } from './ports.js';

/**
 * Shopify gives up on a webhook after 8 failed deliveries over 4 hours, and a subscription can be misconfigured or
 * paused: then an order exists in Shopify that the app never heard of. This use case asks each installed shop for
 * its recent orders, and for every one the order store does not know, feeds the order (read in the webhook's own
 * shape) through the ordinary webhook path as if its webhooks had arrived. Everything downstream is idempotent, so a
 * webhook that turns up late, or a second run, changes nothing.
 */

export interface RecentShopifyOrder {
  id: string;
  name: string;
  createdAt: string;
  cancelledAt: string | null;
  /** Shopify's `displayFulfillmentStatus`; only `UNFULFILLED` orders are still waiting for someone to ship them. */
  displayFulfillmentStatus?: string;
}

export interface LostOrderDeps {
  store: Pick<OrderStore, 'get' | 'shopActiveSince'>;
  /** Shops the app holds an access token for. */
  installedShops: () => Promise<string[]>;
  recentOrders: (shop: string, sinceIso: string) => Promise<RecentShopifyOrder[]>;
  /** The order in the webhook's shape (JSON text), or undefined when Shopify no longer has it. */
  fetchOrderBody: (shop: string, orderId: string) => Promise<string | undefined>;
  enqueueWebhook: (job: WebhookJob) => Promise<void>;
  clock: () => Date;
  logger: Logger;
}

export interface LostOrderOutcome {
  shops: number;
  seen: number;
  recovered: { shop: string; orderId: string; name: string; topics: string[] }[];
  failedShops: { shop: string; reason: string }[];
  failedOrders: { shop: string; orderId: string; reason: string }[];
}

const PAID_STATUSES = new Set(['paid', 'partially_paid', 'partially_refunded', 'refunded']);

export async function recoverLostOrders(
  deps: LostOrderDeps,
  options: {
    /** How far back to look. */
    lookbackMs: number;
    /** Orders younger than this may still have their webhooks on the way (Shopify retries); they are left alone. */
    minAgeMs: number;
  },
): Promise<LostOrderOutcome> {
  const now = deps.clock();
  const since = new Date(now.getTime() - options.lookbackMs).toISOString();
  const youngest = now.getTime() - options.minAgeMs;
  const outcome: LostOrderOutcome = { shops: 0, seen: 0, recovered: [], failedShops: [], failedOrders: [] };

  for (const shop of await deps.installedShops()) {
    outcome.shops += 1;
    // Never before the app first handled one of the shop's orders: what came before the install (or before the order
    // store was emptied) was shipped some other way, and must not reach the printer now.
    const activeSince = await deps.store.shopActiveSince(shop);
    if (!activeSince) continue;
    const from = Date.parse(activeSince) > Date.parse(since) ? activeSince : since;
    let orders: RecentShopifyOrder[];
    try {
      orders = await deps.recentOrders(shop, from);
    } catch (error) {
      // One shop's revoked token must not stop the others; the next run tries again.
      outcome.failedShops.push({ shop, reason: (error as Error).message });
      deps.logger.warn({ shop, err: error }, 'lost-order check: could not list the shop’s orders');
      continue;
    }
    for (const order of orders) {
      outcome.seen += 1;
      // Shopify's timestamps are whole seconds.
      if (order.cancelledAt || Date.parse(order.createdAt) > youngest || Date.parse(order.createdAt) < Math.floor(Date.parse(from) / 1000) * 1000) continue;
      // Fulfilled, partly or wholly, by someone else: not an order waiting for this app.
      if (order.displayFulfillmentStatus !== undefined && order.displayFulfillmentStatus !== 'UNFULFILLED') continue;
      if (await deps.store.get(shop, order.id)) continue;
      let body: string | undefined;
      try {
        body = await deps.fetchOrderBody(shop, order.id);
      } catch (error) {
        outcome.failedOrders.push({ shop, orderId: order.id, reason: (error as Error).message });
        deps.logger.warn({ shop, orderId: order.id, err: error }, 'lost-order check: could not read the order; the next run tries again');
        continue;
      }
      if (!body) continue;
      const financialStatus = (JSON.parse(body) as { financial_status?: unknown }).financial_status;
      // Both topics a mapping can submit on: the one it waits for is there, the other is recorded and changes nothing.
      const topics = typeof financialStatus === 'string' && PAID_STATUSES.has(financialStatus) ? ['orders/create', 'orders/paid'] : ['orders/create'];
      for (const topic of topics) {
        await deps.enqueueWebhook({
          topic,
          shop,
          // Stable per order and topic: the queue's job id makes a second run's job the same job.
          webhookId: `recovered:${order.id.split('/').pop()}:${topic}`,
          receivedAt: now.toISOString(),
          body,
        });
      }
      outcome.recovered.push({ shop, orderId: order.id, name: order.name, topics });
      deps.logger.warn({ shop, orderId: order.id, orderName: order.name, topics }, 'order found in Shopify without any webhook: processing it now');
    }
  }
  return outcome;
}
