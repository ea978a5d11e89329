import type { OrderLink } from '../orders/model.js';
import { clearProblems, replaceProblems } from '../orders/transitions.js';
import type { ApplyPrintEventDeps } from './apply-print-event.js';
import type { FulfillmentOrderChange } from './fulfillment-order-changed.js';
import { waitsForShopify } from './waiting-problems.js';

/**
 * Shopify's holds around an order print-bridge knows. A hold placed after the order went to the printer (and before
 * it shipped) cannot stop what the printer has: the order page says so and offers to cancel at the printer. A release
 * lets an order that waited for the hold go out now, instead of at its next scheduled look.
 */

/** A problem, not a wait: the printer has the order, and only the merchant can say whether it must still be made. */
export const HELD_AFTER_SUBMISSION = 'held-after-submission';

/** At the printer and not all shipped: a hold placed now may come too late. */
const AT_PRINTER = new Set(['submitting', 'submitted', 'received', 'print-ready', 'partially-shipped']);

export async function noteHoldPlaced(deps: Pick<ApplyPrintEventDeps, 'store' | 'clock' | 'showStatusLater'>, link: OrderLink, change: FulfillmentOrderChange): Promise<void> {
  const held = change.hold ? ` (${change.hold})` : '';
  if (!AT_PRINTER.has(link.status)) {
    await deps.store.note(link.shop, link.orderId, {
      event: 'Shopify placed a fulfillment order on hold',
      source: 'shopify',
      detail: `${change.fulfillmentOrderId}${held}: ${link.status === 'pending' || link.status === 'waiting' || link.status === 'held' ? 'nothing is sent to the printer while Shopify holds lines it would print' : 'shipments that need it are fulfilled once it is released'}`,
    });
    return;
  }
  const at = deps.clock().toISOString();
  const message = `Shopify put this order on hold${held} after print-bridge sent it to the printer, which may already be making it. If it must not be made, cancel it at the printer (Cancel order); otherwise leave it: its shipments are fulfilled in Shopify once the hold is released.`;
  const { changed } = await deps.store.update(link.shop, link.orderId, (current) =>
    current && AT_PRINTER.has(current.status)
      ? {
          link: replaceProblems(current, (p) => p.kind === HELD_AFTER_SUBMISSION && p.subject === change.fulfillmentOrderId, [{ kind: HELD_AFTER_SUBMISSION, subject: change.fulfillmentOrderId, message, at }]),
          history: [{ event: 'Shopify placed a fulfillment order on hold after submission', source: 'shopify', detail: `${change.fulfillmentOrderId}${held}` }],
        }
      : undefined,
  );
  if (changed) await deps.showStatusLater?.(link.shop, link.orderId, { settling: false });
}

export async function holdReleased(deps: Pick<ApplyPrintEventDeps, 'store' | 'submitAgain' | 'showStatusLater'>, link: OrderLink, change: FulfillmentOrderChange): Promise<void> {
  if (waitsForShopify(link)) await deps.submitAgain?.(link.shop, link.orderId);
  // Still ON_HOLD: another hold remains on it, and the problem stands.
  if (change.status?.toUpperCase() === 'ON_HOLD') return;
  const { changed } = await deps.store.update(link.shop, link.orderId, (current) =>
    current?.problems.some((p) => p.kind === HELD_AFTER_SUBMISSION && p.subject === change.fulfillmentOrderId)
      ? { link: clearProblems(current, (p) => p.kind === HELD_AFTER_SUBMISSION && p.subject === change.fulfillmentOrderId), history: [] }
      : undefined,
  );
  if (changed) await deps.showStatusLater?.(link.shop, link.orderId, { settling: false });
}
