import type { OrderLink } from '../orders/model.js';
import { isOwnHold } from '../shopify/app-hold.js';
import type { FulfillmentOrderHolds } from './shopify-data.js';

/**
 * What must change in Shopify for print-bridge's own hold to say what the link says (app-hold-notes.ts), given what the
 * order's fulfillment orders carry: the comparison of desired and actual, with no reads or writes of its own.
 *
 * Which fulfillment orders: those at the merchant's own locations (never a fulfillment service's) that hold lines the
 * app will print: once the order is mapped, its shipments' line items; before that, or when mapping failed, every such
 * fulfillment order that is OPEN or ON_HOLD (what the app would print is not known yet, and a merchant's order waits
 * whole). Shopify holds only OPEN and ON_HOLD ones: one being fulfilled, closed or scheduled is left alone.
 */

export interface AppHoldChanges {
  /** The app's own holds to release (by id: never another's, never "all"). */
  release: { fulfillmentOrderId: string; holdIds: string[] }[];
  /** Where the app's hold is to be placed, after the releases (Shopify keeps one handle per app and fulfillment order). */
  place: { fulfillmentOrderId: string; reasonNotes: string }[];
}

const HOLDABLE = new Set(['OPEN', 'ON_HOLD']);

/** The line items the app will print, once the order is mapped; undefined before. */
export function printedLineItemIds(link: Pick<OrderLink, 'shipments'>): ReadonlySet<string> | undefined {
  if (link.shipments.length === 0) return undefined;
  return new Set(link.shipments.flatMap((s) => s.lineItems.map((l) => l.lineItemId)));
}

export function appHoldChanges(notes: string | undefined, printed: ReadonlySet<string> | undefined, fulfillmentOrders: readonly FulfillmentOrderHolds[]): AppHoldChanges {
  const changes: AppHoldChanges = { release: [], place: [] };
  for (const fo of fulfillmentOrders) {
    const own = fo.holds.filter(isOwnHold);
    const wanted =
      notes !== undefined && !fo.atServiceLocation && HOLDABLE.has(fo.status) && (printed === undefined || fo.lineItemIds.some((id) => printed.has(id)));
    if (wanted && own.length === 1 && own[0]!.reasonNotes === notes) continue;
    if (own.length > 0) changes.release.push({ fulfillmentOrderId: fo.id, holdIds: own.map((h) => h.id) });
    if (wanted) changes.place.push({ fulfillmentOrderId: fo.id, reasonNotes: notes });
  }
  return changes;
}

export function noChanges(changes: AppHoldChanges): boolean {
  return changes.release.length === 0 && changes.place.length === 0;
}
