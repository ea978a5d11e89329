/**
 * The Shopify records the use cases' ports speak (src/bridge/ports.ts): what fulfilling an order needs of it, what it
 * shows of its print status, and the writes that change them. The Admin API client (src/shopify/admin/) reads and
 * writes them; use-case tests build them by hand. Records are named by gid strings: Shopify's ids can exceed 2^53.
 */

export interface TrackingInfo {
  company?: string | null;
  number?: string | null;
  url?: string | null;
}

/** A fulfillment hold as the app reads it: whose it is (`handle`, `heldByRequestingApp`) and Shopify's reason. */
export interface FulfillmentHoldRead {
  id: string;
  /** Shopify's FulfillmentHoldReason: HIGH_RISK_OF_FRAUD, AWAITING_PAYMENT, ... */
  reason: string;
  reasonNotes: string | null;
  /** Shopify's wording of the reason ("High risk of fraud"). */
  displayReason: string;
  handle: string | null;
  heldByRequestingApp: boolean;
}

/**
 * What the app must know of an order before it sends it to the printer, read in one request with the check that the
 * shop has it: Shopify's risk recommendation (`Order.risk.recommendation`: ACCEPT, INVESTIGATE, CANCEL, NONE) and its
 * fulfillment orders with their holds.
 */
export interface OrderStanding {
  createdAt: string;
  riskRecommendation: string | null;
  fulfillmentOrders: { id: string; status: string; holds: FulfillmentHoldRead[] }[];
  /** More fulfillment orders than were read (an order split over more than five locations). */
  moreFulfillmentOrders: boolean;
}

export interface OrderForFulfillment {
  id: string;
  name: string;
  tags: string[];
  note: string | null;
  cancelledAt: string | null;
  updatedAt: string;
  displayFulfillmentStatus: string;
  /**
   * The order's line items that are in its fulfillment orders, i.e. all that Shopify can fulfill (a line item that
   * needs no shipping has no fulfillment order line and is not among them).
   */
  lineItems: { id: string; sku: string | null; name: string; quantity: number; currentQuantity: number; unfulfilledQuantity: number }[];
  fulfillmentOrders: {
    id: string;
    /** OPEN, IN_PROGRESS, CLOSED, CANCELLED, INCOMPLETE, ON_HOLD (see `holds`) or SCHEDULED (until `fulfillAt`). */
    status: string;
    /** When a SCHEDULED fulfillment order becomes fulfillable. */
    fulfillAt: string | null;
    /**
     * The holds keeping an ON_HOLD fulfillment order from being fulfilled: Shopify's reason, notes and its wording, and
     * whose hold it is (`isOwnHold` of src/shopify/app-hold.ts: print-bridge's own is released, never waited for).
     */
    holds: { id: string; reason: string; reasonNotes: string | null; displayReason: string; handle: string | null; heldByRequestingApp: boolean }[];
    lineItems: { id: string; lineItemId: string; sku: string | null; totalQuantity: number; remainingQuantity: number }[];
  }[];
  fulfillments: {
    id: string;
    name: string;
    status: string;
    createdAt: string;
    trackingInfo: { company: string | null; number: string | null; url: string | null }[];
    lineItems: { lineItemId: string; quantity: number }[];
  }[];
  /** True when the order has more fulfillments than were read (the newest come last in Shopify's list). */
  moreFulfillments: boolean;
  /** The value of the `$app:print_status` metafield, parsed, or null. */
  status: { value: unknown; updatedAt: string } | null;
}

/** One fulfillment hold as the app reads it to tell its own from the merchant's and other apps'. */
export interface FulfillmentHoldRef {
  id: string;
  reason: string;
  reasonNotes: string | null;
  handle: string | null;
  /** Shopify's `heldByRequestingApp`: print-bridge placed it. */
  heldByRequestingApp: boolean;
}

/** A fulfillment order of an order as print-bridge's own hold needs it (src/bridge/app-holds.ts). */
export interface FulfillmentOrderHolds {
  id: string;
  /** OPEN, IN_PROGRESS, ON_HOLD, SCHEDULED, CLOSED, CANCELLED, INCOMPLETE. */
  status: string;
  /** At a fulfillment service's location (a third party's, or the app's own in service mode), not the merchant's. */
  atServiceLocation: boolean;
  holds: FulfillmentHoldRef[];
  /** The order line items it holds. */
  lineItemIds: string[];
}

/** What a Shopify order shows of its print status: all its tags, and the `$app:print_status` value (parsed) or null. */
export interface StatusShown {
  tags: string[];
  status: unknown;
}

/** The writes that make an order show a status, only what differs from what it shows: one request (`showStatus`). */
export interface StatusChange {
  addTags: string[];
  removeTags: string[];
  /** The `$app:print_status` value to write; absent: the metafield is left as it is. */
  status?: unknown;
}

export interface CreateFulfillmentInput {
  /** The order the fulfillment orders belong to; named in error messages. */
  orderGid: string;
  fulfillmentOrders: { fulfillmentOrderId: string; lineItems: { id: string; quantity: number }[] }[];
  /** Omitted, or without a number: the items are fulfilled without tracking. */
  trackingInfo?: TrackingInfo;
  notifyCustomer: boolean;
}

export interface FulfillmentSummary {
  id: string;
  name: string;
  status: string;
  trackingInfo: { company: string | null; number: string | null; url: string | null }[];
}

/** The app's fulfillment service on a store and the location Shopify made for it (fulfillment-service mode). */
export interface FulfillmentServiceRef {
  id: string;
  name: string;
  callbackUrl: string | null;
  locationId: string;
}

/** A fulfillment order assigned to the app's location, with the request Shopify sent about it. */
export interface AssignedFulfillmentOrder {
  id: string;
  /** OPEN, IN_PROGRESS, CLOSED, ... */
  status: string;
  /** SUBMITTED (a fulfillment request), CANCELLATION_REQUESTED, ACCEPTED, ... */
  requestStatus: string;
  orderId: string;
  orderName: string;
  lineItems: { id: string; lineItemId: string; sku: string | null; totalQuantity: number; remainingQuantity: number }[];
}

/**
 * A fulfillment order assigned to the app's location that could not be read whole (an answer of a shape print-bridge
 * cannot use, more lines than it reads): named so its request can be rejected with the reason, never half-read.
 */
export interface UnreadableFulfillmentOrder {
  /** Absent when not even the id could be read: nothing can answer it then. */
  id?: string;
  orderId?: string;
  orderName?: string;
  reason: string;
}

/** One read of the fulfillment orders at the app's location: those read whole, and those that could not be. */
export interface AssignedFulfillmentOrders {
  fulfillmentOrders: AssignedFulfillmentOrder[];
  unreadable: UnreadableFulfillmentOrder[];
}

/** Shopify's reasons a fulfillment service may give for rejecting a request (FulfillmentOrderRejectionReason). */
export type RejectionReason = 'INCORRECT_ADDRESS' | 'INELIGIBLE_PRODUCT' | 'INVALID_SKU' | 'UNDELIVERABLE_DESTINATION' | 'OTHER';

export interface RequestRejection {
  reason: RejectionReason;
  /** What the merchant reads on the fulfillment order, in words they can act on. */
  message: string;
  /** Per line: what that line lacks (the SKU no mapping prints). */
  lineItems: { fulfillmentOrderLineItemId: string; message: string }[];
}
