/**
 * The records the stand-in keeps for its shops (orders, their line items, fulfillment orders, fulfillments and
 * metafields) and the inputs of the mutations that change them. Records are plain JSON so the control surface can show
 * them as they are. Every id is a gid string: ids above 2^53 must never pass through a JS number.
 */

export type FulfillmentOrderStatus = 'OPEN' | 'IN_PROGRESS' | 'CLOSED' | 'CANCELLED' | 'ON_HOLD' | 'SCHEDULED';

/** Shopify's FulfillmentHoldReason values. */
// Shopify's hold reasons are the app's one list: the stand-in keeps what the app reads.
export { FULFILLMENT_HOLD_REASONS, type FulfillmentHoldReason } from '../../shopify/hold-reasons.js';
import type { FulfillmentHoldReason } from '../../shopify/hold-reasons.js';

export interface FulfillmentHoldRecord {
  id: string;
  reason: FulfillmentHoldReason;
  reasonNotes: string | null;
  handle: string;
  /**
   * The app that placed it (Shopify's `heldByApp`, by its title): the app whose tokens the stand-in answers when it was
   * placed through the Admin API, another app when the control surface names one; null: the merchant in Shopify admin.
   */
  heldByApp: string | null;
  /** Placed through the Admin API, i.e. by the app asking (`heldByRequestingApp`): the stand-in answers one app. */
  heldByRequestingApp: boolean;
}
export type DisplayFulfillmentStatus = 'UNFULFILLED' | 'PARTIALLY_FULFILLED' | 'FULFILLED';

export interface LineItemRecord {
  id: string;
  name: string;
  title: string;
  sku: string | null;
  variantTitle: string | null;
  vendor: string | null;
  quantity: number;
  currentQuantity: number;
  requiresShipping: boolean;
}

export interface FulfillmentOrderLineItemRecord {
  id: string;
  lineItemId: string;
  totalQuantity: number;
  remainingQuantity: number;
}

/** Shopify's FulfillmentOrderRequestStatus: where a fulfillment service's request stands (UNSUBMITTED at a merchant's location). */
export type FulfillmentOrderRequestStatus =
  | 'UNSUBMITTED'
  | 'SUBMITTED'
  | 'ACCEPTED'
  | 'REJECTED'
  | 'CANCELLATION_REQUESTED'
  | 'CANCELLATION_ACCEPTED'
  | 'CANCELLATION_REJECTED'
  | 'CLOSED';

/** A request the merchant (Shopify) sent the fulfillment service: `FulfillmentOrderMerchantRequest`. */
export interface MerchantRequestRecord {
  id: string;
  kind: 'FULFILLMENT_REQUEST' | 'CANCELLATION_REQUEST';
  message: string | null;
  sentAt: string;
  requestOptions: Record<string, unknown> | null;
  /** The service's answer, once it gave one (Shopify keeps it here). */
  responseData: Record<string, unknown> | null;
}

/** How the fulfillment service answered a request (acceptance or rejection, with what it said). */
export interface ServiceResponseRecord {
  at: string;
  kind: 'FULFILLMENT_ACCEPTED' | 'FULFILLMENT_REJECTED' | 'CANCELLATION_ACCEPTED' | 'CANCELLATION_REJECTED';
  message: string | null;
  reason?: string | null;
  estimatedShippedAt?: string | null;
  lineItems?: { fulfillmentOrderLineItemId: string; message: string | null }[];
}

export interface FulfillmentOrderRecord {
  id: string;
  orderId: string;
  status: FulfillmentOrderStatus;
  /** The location it is assigned to: the shop's primary location, or a fulfillment service's (fulfillment-services.ts). */
  assignedLocation: { id: string; name: string };
  requestStatus: FulfillmentOrderRequestStatus;
  merchantRequests: MerchantRequestRecord[];
  serviceResponses: ServiceResponseRecord[];
  createdAt: string;
  updatedAt: string;
  lineItems: FulfillmentOrderLineItemRecord[];
  /** Holds in force (status ON_HOLD while there is one); see holds.ts. */
  fulfillmentHolds: FulfillmentHoldRecord[];
  /** When a SCHEDULED fulfillment order becomes ready (OPEN). */
  fulfillAt: string | null;
}

export interface TrackingInfoRecord {
  company: string | null;
  number: string | null;
  url: string | null;
}

export interface CustomerNotification {
  at: string;
  reason: 'fulfillment-created' | 'tracking-updated';
  trackingNumbers: string[];
}

export interface FulfillmentLineItemRecord {
  id: string;
  lineItemId: string;
  fulfillmentOrderId: string;
  fulfillmentOrderLineItemId: string;
  quantity: number;
}

export interface FulfillmentRecord {
  id: string;
  orderId: string;
  name: string;
  status: 'SUCCESS' | 'CANCELLED';
  createdAt: string;
  updatedAt: string;
  trackingInfo: TrackingInfoRecord[];
  lineItems: FulfillmentLineItemRecord[];
  /** Who made it: the app through the Admin API, or a merchant in Shopify admin (the control surface). */
  source: 'api' | 'merchant';
  /** What `notifyCustomer` asked for when it was created; Shopify itself does not show this, the stand-in does. */
  notifyCustomer: boolean;
  customerNotifications: CustomerNotification[];
}

export interface MetafieldRecord {
  id: string;
  ownerId: string;
  namespace: string;
  key: string;
  type: string;
  value: string;
  createdAt: string;
  updatedAt: string;
}

export interface OrderRecord {
  id: string;
  shop: string;
  name: string;
  email: string | null;
  createdAt: string;
  updatedAt: string;
  cancelledAt: string | null;
  note: string | null;
  tags: string[];
  lineItems: LineItemRecord[];
  fulfillmentOrders: FulfillmentOrderRecord[];
  fulfillments: FulfillmentRecord[];
  metafields: MetafieldRecord[];
  /** The REST body the order was seeded from: the GraphQL fields the stand-in has no record field for are read from it. */
  restBody?: Record<string, unknown>;
  /** Shopify's risk recommendation (`Order.risk.recommendation`); NONE until an analysis says otherwise. */
  risk?: RiskRecommendation;
}

export const RISK_RECOMMENDATIONS = ['ACCEPT', 'CANCEL', 'INVESTIGATE', 'NONE'] as const;
export type RiskRecommendation = (typeof RISK_RECOMMENDATIONS)[number];

export interface UserError {
  field: string[] | null;
  message: string;
  code?: string;
  elementIndex?: number;
}

export interface TrackingInput {
  company?: string | null;
  number?: string | null;
  url?: string | null;
  numbers?: string[] | null;
  urls?: string[] | null;
}

export interface FulfillmentInput {
  lineItemsByFulfillmentOrder: {
    fulfillmentOrderId: string;
    fulfillmentOrderLineItems?: { id: string; quantity: number }[] | null;
  }[];
  trackingInfo?: TrackingInput | null;
  notifyCustomer?: boolean | null;
}

export interface MetafieldInput {
  ownerId: string;
  namespace?: string | null;
  key: string;
  type?: string | null;
  value: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; userErrors: UserError[] };

/** Order snapshot shown by the control surface and returned by the programmatic API. */
export type OrderSnapshot = OrderRecord & { displayFulfillmentStatus: DisplayFulfillmentStatus };

/** Shopify's own timestamps have whole seconds. */
export function shopifyTimestamp(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** What the rules that change records need of the store (store.ts): its lookups, its clock and new ids. */
export interface RecordLookup {
  now(): string;
  nextGid(kind: string): string;
  findOrder(shop: string, id: string): OrderRecord | undefined;
  findFulfillmentOrder(shop: string, id: string): { order: OrderRecord; fo: FulfillmentOrderRecord } | undefined;
  findFulfillment(shop: string, id: string): { order: OrderRecord; fulfillment: FulfillmentRecord } | undefined;
  /** Whether a location is a fulfillment service's (its fulfillment orders are fulfilled only once accepted). */
  isServiceLocation(shop: string, locationId: string): boolean;
}

/** A mutation's answer with one user error. */
export function fail<T>(field: string[] | null, message: string, code?: string): Result<T> {
  return { ok: false, userErrors: [{ field, message, ...(code ? { code } : {}) }] };
}
