import type { BridgeDeps } from '../ports.js';
import type { WebhookOutcome } from './outcome.js';

/** The app was uninstalled: its token, the store's pending jobs and its fulfillment service go; orders and history stay until shop/redact. */
export async function uninstall(deps: BridgeDeps, shop: string): Promise<WebhookOutcome> {
  const [droppedJobs, sessions] = await Promise.all([
    deps.scheduler.dropPendingForShop(shop),
    deps.sessions.deleteShopSessions(shop),
    deps.store.forgetShopActive(shop),
    // Shopify removes the app's fulfillment service with the app: a re-install starts merchant-managed, and choosing
    // service mode again registers a new one.
    deps.fulfillmentRequests?.forgetService(shop),
    // Flow forgets the app's triggers with the app: a re-install starts with none in use until Flow says again.
    deps.flowTriggers?.forgetShop(shop),
  ]);
  deps.logger.info({ shop, droppedJobs, sessions }, 'app uninstalled: sessions removed and pending jobs dropped');
  return { kind: 'uninstalled', droppedJobs, sessions };
}
