import { parseJsonLossless } from '../shopify/json.js';

/**
 * Fulfillment-service mode (docs/fulfillment.md): Shopify asks the app's location to fulfil fulfillment orders, and the
 * app answers each request. What an order's link keeps of it, and the pure rules on it: which requests are pending,
 * which lines they ask for, and how a new read of Shopify's requests merges in (at-least-once: the same request read
 * twice is one).
 */

export interface RequestedLine {
  /** The fulfillment order line item gid (what a rejection names). */
  id: string;
  /** The order's line item gid. */
  lineItemId: string;
  sku: string | null;
  /** What the request asks for: the line's remaining quantity when it was read. */
  quantity: number;
}

export interface RequestedFulfillmentOrder {
  id: string;
  lineItems: RequestedLine[];
  requestedAt: string;
  /** How the app answered: accepted once the print service stored the order, rejected when it cannot be printed. */
  answer?: 'accepted' | 'rejected';
  answeredAt?: string;
  /** Shopify refused the answer (the request was withdrawn or answered elsewhere): why, as Shopify said it. */
  answerRefused?: string;
  /**
   * No longer the app's: the merchant moved it to another location (`fulfillment_orders/moved`, the destination), or
   * the store went back to merchant-managed mode before it was answered (the location, now the merchant's).
   */
  movedAway?: string;
  /** A cancellation request the merchant sent after acceptance, and how it was answered. */
  cancellation?: 'requested' | 'accepted' | 'rejected';
}

/** Why the requested lines cannot be printed, as it is sent to Shopify (FulfillmentOrderRejectionReason). */
export interface PlannedRejection {
  reason: 'INCORRECT_ADDRESS' | 'INELIGIBLE_PRODUCT' | 'INVALID_SKU' | 'UNDELIVERABLE_DESTINATION' | 'OTHER';
  message: string;
  lineItems: { fulfillmentOrderLineItemId: string; message: string }[];
}

export interface ServiceRequest {
  fulfillmentOrders: RequestedFulfillmentOrder[];
  /** Set when what was requested cannot be printed; sent with the rejection of every pending request. */
  rejection?: PlannedRejection;
}

/** The requests not answered yet. */
export function pendingRequests(request: ServiceRequest | undefined): RequestedFulfillmentOrder[] {
  return request?.fulfillmentOrders.filter((fo) => fo.answer === undefined && fo.answerRefused === undefined && fo.movedAway === undefined) ?? [];
}

/** Every line the order's requests ask the printer for, by order line item gid (the quantities of all requests). */
export function requestedQuantities(request: ServiceRequest | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const fo of request?.fulfillmentOrders ?? []) {
    if (fo.answer === 'rejected' || fo.cancellation === 'accepted' || fo.movedAway !== undefined || (fo.answerRefused !== undefined && fo.answer === undefined)) continue;
    for (const line of fo.lineItems) out.set(line.lineItemId, (out.get(line.lineItemId) ?? 0) + line.quantity);
  }
  return out;
}

/**
 * Merges a read of Shopify's pending requests into what the link keeps: a fulfillment order already known keeps its
 * answer (the read may predate it); a new one is added. A request read again after a rejection (the merchant sent it
 * again) starts afresh, and so does the plan to reject it. Returns undefined when nothing is new.
 */
export function mergeRequests(
  current: ServiceRequest | undefined,
  read: { id: string; lineItems: RequestedLine[] }[],
  at: string,
): ServiceRequest | undefined {
  const known = new Map((current?.fulfillmentOrders ?? []).map((fo) => [fo.id, fo]));
  let changed = false;
  let renewed = false;
  for (const fo of read) {
    const existing = known.get(fo.id);
    if (!existing) {
      known.set(fo.id, { id: fo.id, lineItems: fo.lineItems, requestedAt: at });
      changed = true;
    } else if (existing.answer === 'rejected' || existing.answerRefused !== undefined) {
      known.set(fo.id, { id: fo.id, lineItems: fo.lineItems, requestedAt: at });
      changed = true;
      renewed = true;
    }
  }
  if (!changed) return undefined;
  const next: ServiceRequest = { fulfillmentOrders: [...known.values()] };
  if (current?.rejection && !renewed && pendingRequests(current).length > 0) next.rejection = current.rejection;
  return next;
}

/** Records the answer Shopify took (or refused) for one request. */
export function recordAnswer(
  request: ServiceRequest,
  fulfillmentOrderId: string,
  outcome: { answer: 'accepted' | 'rejected'; at: string } | { refused: string },
): ServiceRequest {
  return {
    ...request,
    fulfillmentOrders: request.fulfillmentOrders.map((fo) => {
      if (fo.id !== fulfillmentOrderId) return fo;
      return 'refused' in outcome ? { ...fo, answerRefused: outcome.refused } : { ...fo, answer: outcome.answer, answeredAt: outcome.at };
    }),
  };
}

/**
 * The order's webhook body with only the lines Shopify requested of the app's location, each at the quantity requested
 * (what remains of it after refunds and edits, so the refunds of those lines are dropped with it): the mapping prints
 * exactly what the requests ask for, and a mixed cart's other lines stay the merchant's. Integers past 2^53 stay exact.
 */
export function onlyRequestedLines(body: string, quantities: ReadonlyMap<string, number>): string {
  const order = parseJsonLossless(body) as { line_items?: Record<string, unknown>[]; refunds?: unknown };
  const gidOf = (line: Record<string, unknown>) =>
    typeof line.admin_graphql_api_id === 'string' ? line.admin_graphql_api_id : `gid://shopify/LineItem/${String(line.id)}`;
  order.line_items = (order.line_items ?? [])
    .filter((line) => (quantities.get(gidOf(line)) ?? 0) > 0)
    .map((line) => {
      const quantity = quantities.get(gidOf(line))!;
      return { ...line, quantity, current_quantity: quantity, fulfillable_quantity: quantity };
    });
  delete order.refunds;
  return JSON.stringify(order);
}
