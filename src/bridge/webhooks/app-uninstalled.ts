import type { BridgeDeps } from '../ports.js';
import type { WebhookOutcome } from './outcome.js';

/**
 * The app was uninstalled: its token, the store's pending jobs and its fulfillment service go; orders and history stay
 * until shop/redact. Only once Shopify confirms it: the body (the shop) is the same on every uninstall of the store
 * and the webhook id is not signed, so an old delivery re-sent after a re-install must not disconnect the live store.
 * Shopify revokes the token before it sends the webhook; a token that still works means the app is installed.
 */
export async function uninstall(deps: BridgeDeps, shop: string): Promise<WebhookOutcome> {
  if (await deps.shopify.hasAccess(shop)) {
    const reason = `app/uninstalled for ${shop}, but the app's access token still works there: the app is installed (an earlier uninstall delivered again after a re-install?); nothing was removed`;
    deps.logger.warn({ shop }, 'app/uninstalled while the store still accepts the app\'s token; ignored');
    return { kind: 'rejected', reason };
  }
  const [droppedJobs, sessions] = await Promise.all([
    deps.scheduler.dropPendingForShop(shop),
    deps.sessions.deleteShopSessions(shop),
    deps.store.forgetShopActive(shop),
    // Shopify removes the app's fulfillment service with the app: a re-install starts merchant-managed, and choosing
    // service mode again registers a new one.
    deps.fulfillmentRequests?.forgetService(shop),
  ]);
  deps.logger.info({ shop, droppedJobs, sessions }, 'app uninstalled: sessions removed and pending jobs dropped');
  return { kind: 'uninstalled', droppedJobs, sessions };
}
