import type { OrderLink } from '../orders/model.js';
import type { RequestedFulfillmentOrder, ServiceRequest } from '../orders/service-request.js';
import { canMove, isSubmittedStatus } from '../orders/status.js';
import { moveTo } from '../orders/transitions.js';
import type { BridgeDeps } from './ports.js';
import type { AssignedFulfillmentOrders } from './shopify-data.js';

/**
 * A store going back to merchant-managed mode with fulfillment requests still unanswered: the merchant is told those
 * orders stay at the location as theirs to fulfil, so print-bridge must never print them afterwards (the merchant and
 * the printer would both ship them). Each such order not yet sent is closed as not printed, its requests marked as no
 * longer the app's; the re-examination that sends the orders which only waited for a request passes it by, and a
 * submit job queued before the switch finds nothing requested left to print. An order already on its way to the
 * printer is named as such. Idempotent: an order already closed is left as it is.
 */

export interface LeftToMerchant {
  /** Names of the orders left to the merchant, nothing of them printed. */
  left: string[];
  /** Names of the orders that were already on their way to the printer when the mode changed. */
  alreadySent: string[];
}

export async function leaveRequestsToMerchant(
  deps: Pick<BridgeDeps, 'store' | 'clock' | 'logger' | 'scheduler'>,
  shop: string,
  open: AssignedFulfillmentOrders,
  locationId: string,
): Promise<LeftToMerchant> {
  const outcome: LeftToMerchant = { left: [], alreadySent: [] };
  for (const { orderId, orderName, fulfillmentOrders } of byOrder(open)) {
    const at = deps.clock().toISOString();
    const reason = `Shopify requested it of print-bridge's fulfillment service, and ${shop} went back to merchant-managed mode before print-bridge answered: it stays at that location for the merchant to fulfil, and print-bridge does not print it`;
    const { link, changed } = await deps.store.update(shop, orderId, (current) => {
      const base: OrderLink = current ?? { ...deps.store.blank(shop, orderId), orderName };
      if (!canMove(base.status, 'not-printed')) return undefined;
      return {
        link: { ...moveTo(base, 'not-printed', at).link, problems: [], notPrintedReason: reason, fulfillmentRequest: noLongerTheApps(base.fulfillmentRequest, fulfillmentOrders, locationId, at) },
        history: [{ event: 'left to the merchant', source: 'worker', status: 'not-printed', detail: `${fulfillmentOrders.map((fo) => fo.id).join(', ')}: ${reason}` }],
      };
    });
    const name = link?.orderName ?? orderName ?? orderId;
    if (changed) {
      outcome.left.push(name);
      // The not-printed tag in Shopify, as for any order closed without printing.
      await deps.scheduler.syncShopify(shop, orderId);
    } else if (link && (isSubmittedStatus(link.status) || link.status === 'submitting')) {
      outcome.alreadySent.push(name);
    }
  }
  deps.logger.info({ shop, left: outcome.left.length, alreadySent: outcome.alreadySent.length }, 'unanswered fulfillment requests left to the merchant');
  return outcome;
}

/** The order's requests with these fulfillment orders marked as no longer at the app's location (none of their lines is requested). */
function noLongerTheApps(request: ServiceRequest | undefined, ids: { id: string }[], locationId: string, at: string): ServiceRequest {
  const known = request?.fulfillmentOrders ?? [];
  const wanted = new Set(ids.map((fo) => fo.id));
  const marked: RequestedFulfillmentOrder[] = known.map((fo) => (wanted.has(fo.id) ? { ...fo, movedAway: locationId } : fo));
  const added = ids.filter((fo) => !known.some((k) => k.id === fo.id)).map((fo) => ({ id: fo.id, lineItems: [], requestedAt: at, movedAway: locationId }));
  return { ...request, fulfillmentOrders: [...marked, ...added] };
}

function byOrder(open: AssignedFulfillmentOrders): { orderId: string; orderName?: string; fulfillmentOrders: { id: string }[] }[] {
  const out = new Map<string, { orderId: string; orderName?: string; fulfillmentOrders: { id: string }[] }>();
  const named = [...open.fulfillmentOrders, ...open.unreadable.flatMap((fo) => (fo.id && fo.orderId ? [{ id: fo.id, orderId: fo.orderId, orderName: fo.orderName }] : []))];
  for (const fo of named) {
    const entry = out.get(fo.orderId) ?? { orderId: fo.orderId, orderName: fo.orderName, fulfillmentOrders: [] };
    entry.fulfillmentOrders.push({ id: fo.id });
    out.set(fo.orderId, entry);
  }
  return [...out.values()];
}
