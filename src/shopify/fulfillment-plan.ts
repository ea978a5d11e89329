import type { CreateFulfillmentInput, OrderForFulfillment } from '../bridge/shopify-data.js';
import { holdWords } from './hold-reasons.js';

/**
 * Which fulfillment order line items fulfill a shipment's line items and quantities, given what remains open in
 * Shopify. What no longer remains is reported, not fulfilled: a merchant may have fulfilled it by hand, or the order
 * was cancelled, and the caller notes why on the order instead of failing on `userErrors`. What sits on a fulfillment
 * order that is ON_HOLD or SCHEDULED is reported as `held`: Shopify refuses to fulfil it until it is released.
 */

export interface WantedLine {
  lineItemId: string;
  quantity: number;
}

export interface Shortfall {
  lineItemId: string;
  /** How many of the wanted quantity cannot be fulfilled. */
  quantity: number;
  reason: 'already-fulfilled' | 'cancelled' | 'not-in-order' | 'on-hold' | 'scheduled';
}

/** A fulfillment order the shipment needs that Shopify will not let anyone fulfil yet. */
export interface HeldFulfillmentOrder {
  fulfillmentOrderId: string;
  status: 'ON_HOLD' | 'SCHEDULED';
  /** Shopify's wording of each hold, with its notes ("Awaiting payment (bank transfer)"). */
  reasons: string[];
  /** When a SCHEDULED one becomes fulfillable. */
  fulfillAt: string | null;
}

export interface FulfillmentPlan {
  /** Ready for `createFulfillment`; empty when nothing is left to fulfill. */
  fulfillmentOrders: CreateFulfillmentInput['fulfillmentOrders'];
  shortfalls: Shortfall[];
  /**
   * Fulfillment orders on hold or scheduled that hold some of the wanted quantity: those items are not fulfilled now
   * (`on-hold`/`scheduled` shortfalls), but they will be fulfillable once Shopify releases them.
   */
  held: HeldFulfillmentOrder[];
}

const WAITING = new Set(['ON_HOLD', 'SCHEDULED']);

const FULFILLABLE = new Set(['OPEN', 'IN_PROGRESS']);

export function planFulfillment(order: OrderForFulfillment, wanted: readonly WantedLine[]): FulfillmentPlan {
  // Remaining quantities are consumed as lines are planned, so a line item named twice is not over-allocated.
  const remaining = new Map<string, number>();
  for (const fo of order.fulfillmentOrders) for (const l of fo.lineItems) remaining.set(l.id, l.remainingQuantity);

  const byFulfillmentOrder = new Map<string, { id: string; quantity: number }[]>();
  const shortfalls: Shortfall[] = [];
  const held = new Map<string, HeldFulfillmentOrder>();
  for (const want of merge(wanted)) {
    const candidates = order.fulfillmentOrders.flatMap((fo) =>
      fo.lineItems.filter((l) => l.lineItemId === want.lineItemId).map((line) => ({ fo, line })),
    );
    if (candidates.length === 0) {
      shortfalls.push({ lineItemId: want.lineItemId, quantity: want.quantity, reason: 'not-in-order' });
      continue;
    }
    let left = want.quantity;
    for (const { fo, line } of candidates) {
      if (left === 0) break;
      if (!FULFILLABLE.has(fo.status)) continue;
      const take = Math.min(left, remaining.get(line.id) ?? 0);
      if (take === 0) continue;
      remaining.set(line.id, (remaining.get(line.id) ?? 0) - take);
      const list = byFulfillmentOrder.get(fo.id) ?? [];
      const existing = list.find((l) => l.id === line.id);
      if (existing) existing.quantity += take;
      else list.push({ id: line.id, quantity: take });
      byFulfillmentOrder.set(fo.id, list);
      left -= take;
    }
    // What is left and sits on a held or scheduled fulfillment order waits for its release, not "already fulfilled".
    for (const { fo, line } of candidates) {
      if (left === 0) break;
      if (!WAITING.has(fo.status)) continue;
      const take = Math.min(left, remaining.get(line.id) ?? 0);
      if (take === 0) continue;
      remaining.set(line.id, (remaining.get(line.id) ?? 0) - take);
      shortfalls.push({ lineItemId: want.lineItemId, quantity: take, reason: fo.status === 'ON_HOLD' ? 'on-hold' : 'scheduled' });
      if (!held.has(fo.id)) {
        held.set(fo.id, {
          fulfillmentOrderId: fo.id,
          status: fo.status as HeldFulfillmentOrder['status'],
          reasons: fo.holds.map(holdWords),
          fulfillAt: fo.fulfillAt,
        });
      }
      left -= take;
    }
    if (left > 0) {
      const cancelled =
        order.cancelledAt !== null ||
        candidates.some(({ fo, line }) => fo.status === 'CANCELLED' && line.remainingQuantity > 0);
      shortfalls.push({ lineItemId: want.lineItemId, quantity: left, reason: cancelled ? 'cancelled' : 'already-fulfilled' });
    }
  }
  return {
    fulfillmentOrders: [...byFulfillmentOrder].map(([fulfillmentOrderId, lineItems]) => ({ fulfillmentOrderId, lineItems })),
    shortfalls,
    held: [...held.values()],
  };
}

function merge(wanted: readonly WantedLine[]): WantedLine[] {
  const totals = new Map<string, number>();
  for (const w of wanted) {
    if (!Number.isInteger(w.quantity) || w.quantity <= 0) throw new RangeError(`quantity of ${w.lineItemId} must be a whole number above 0`);
    totals.set(w.lineItemId, (totals.get(w.lineItemId) ?? 0) + w.quantity);
  }
  return [...totals].map(([lineItemId, quantity]) => ({ lineItemId, quantity }));
}
