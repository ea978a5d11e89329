import type { OrderStatus } from '../orders/status.js';
import type { BridgeDeps } from './ports.js';

/**
 * A store's switch of print-bridge's own holds (`shops holds DOMAIN on|off`, the Settings page) changed: every order
 * that may wait with a hold, or still has one of the app's in Shopify, is synced (shopify-sync.ts), which places or
 * releases its hold as the switch now says. Orders past their waits had their hold released by their own syncs.
 */

/** The statuses print-bridge keeps an order back in (app-hold-notes.ts). */
const WAITING: readonly OrderStatus[] = ['pending', 'held', 'waiting'];
const PAGE = 200;

export async function resyncAppHoldsOfShop(deps: Pick<BridgeDeps, 'store' | 'scheduler' | 'logger'>, shop: string): Promise<{ kind: 'resynced'; orders: number }> {
  let orders = 0;
  for (const status of WAITING) {
    for (let offset = 0; ; offset += PAGE) {
      const { links } = await deps.store.listOfShop(shop, { status, offset, limit: PAGE });
      for (const link of links) {
        await deps.scheduler.syncShopify(shop, link.orderId);
        orders += 1;
      }
      if (links.length < PAGE) break;
    }
  }
  deps.logger.info({ shop, orders }, "store's app-holds switch changed: its waiting orders are synced");
  return { kind: 'resynced', orders };
}
