import type { BridgeDeps } from '../ports.js';
import type { WebhookOutcome } from './outcome.js';

/** The app was uninstalled: its token and the store's pending jobs go; orders and history stay until shop/redact. */
export async function uninstall(deps: BridgeDeps, shop: string): Promise<WebhookOutcome> {
  const [droppedJobs, sessions] = await Promise.all([
    deps.scheduler.dropPendingForShop(shop),
    deps.sessions.deleteShopSessions(shop),
    deps.store.forgetShopActive(shop),
  ]);
  deps.logger.info({ shop, droppedJobs, sessions }, 'app uninstalled: sessions removed and pending jobs dropped');
  return { kind: 'uninstalled', droppedJobs, sessions };
}
