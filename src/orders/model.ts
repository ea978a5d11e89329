import type { ServiceRequest } from './service-request.js';
import type { OrderStatus } from './status.js';

/**
 * The order: what the app knows of one Shopify order and its print order. Storage lives elsewhere
 * (src/storage/order-store.ts); this module holds the types and the pure transitions every use case applies.
 */

export interface ShipmentLineItem {
  /** Shopify line item gid. */
  lineItemId: string;
  quantity: number;
  sku?: string;
  title?: string;
}

/** The carrier of a shipment, as the printer names it. */
export interface Carrier {
  alias?: string;
  code?: string;
  service?: string;
}

export interface ShipmentLink {
  index: number;
  lineItems: ShipmentLineItem[];
  status: 'pending' | 'shipped';
  trackingNumber?: string;
  carrier?: Carrier;
  shippedAt?: string;
  /**
   * The tracking page Shopify shows the customer, rendered from the mapping's `tracking` table (in a render thread,
   * within the budget) when the shipment shipped: the pages show it as kept, never running the template again.
   */
  trackingUrl?: string;
  /** Shopify fulfillment gid, once fulfilled. */
  fulfillmentId?: string;
  /** The tracking number the fulfillment carries in Shopify. */
  fulfilledTrackingNumber?: string;
  /** When the shipment's Shipped postback was carried out in Shopify (fulfilled, or nothing was left to fulfill). */
  appliedAt?: string;
  /**
   * Shipped, but Shopify holds a fulfillment order it needs (ON_HOLD, or SCHEDULED for later): it is fulfilled with its
   * tracking once released (fulfillment-order webhooks, and re-checks). Cleared when fulfilled.
   */
  waitingForRelease?: HoldWait;
}

export interface HoldWait {
  since: string;
  /** What the merchant reads, e.g. "waiting for the fulfillment hold to be released: Awaiting payment (bank transfer)". */
  message: string;
  fulfillmentOrderIds: string[];
  /** How many times the wait was found still in force; spaces the re-checks out. */
  checks: number;
  nextCheckAt?: string;
}

export interface Problem {
  /** Machine-readable kind: mapping, validation, submission-error, print-error, cancel-refused, ... */
  kind: string;
  message: string;
  /** What the problem is about, e.g. a line item or a field. */
  subject?: string;
  at: string;
}

export interface OrderLink {
  shop: string;
  /** Shopify order gid (`gid://shopify/Order/…`): exact, unlike the numeric id in webhook bodies. */
  orderId: string;
  orderName?: string;
  status: OrderStatus;
  statusAt: string;
  sourceOrderId?: string;
  printOrderId?: string;
  /** `updated_at` of the newest order version applied. */
  shopifyUpdatedAt?: string;
  /** Creates sent so far; above 0 means the next one must ask the service first. */
  submitAttempts: number;
  /** End of the hold window. */
  submitAfter?: string;
  /**
   * When each order topic (`orders/create`, `orders/paid`, ...) first arrived: a mapping that appears or changes later
   * knows whether its submit topic already came, and from when its hold window runs.
   */
  topics?: Record<string, string>;
  /** Why nothing of the order goes to the printer (status `not-printed`). */
  notPrintedReason?: string;
  cancelRequested?: { at: string; by: 'shopify' | 'print-service' | 'operator' };
  /** Last time the reconciliation asked the print service about this order. */
  reconciledAt?: string;
  /** Fingerprint of the shipping address the printer has, to notice a change after submission. */
  sentShipToHash?: string;
  /**
   * The print-service account the order was (or is being) sent with: its later calls use the same one, whatever the
   * store's account is by then. Absent on orders from before stores had their own: the operator's (`env`).
   */
  printAccount?: 'env' | 'own';
  /**
   * When the store's Admin API said it has no such order: a signed body of another store re-sent with this store's
   * domain. The order is never printed, and its body (another store's customer) is not kept.
   */
  notInShopAt?: string;
  /** When the store's Admin API showed the order as its own (recorded with the first submission). */
  shopConfirmedAt?: string;
  /**
   * Fulfillment-service mode: the fulfillment orders Shopify asked the app's location to fulfil for this order, and
   * how each was answered (src/orders/service-request.ts). Absent: the merchant-managed flow.
   */
  fulfillmentRequest?: ServiceRequest;
  /**
   * The refunds (`refunds/create`, by the refund's own id) already taken in: Shopify may deliver one refund again under
   * a new webhook id, and the same refund must not bring back a change the merchant kept as sent. The latest 100.
   */
  refundIds?: string[];
  /**
   * The merchant sent the order on past Shopify's risk recommendation, which the order waited on ("Send now", in the
   * app or through a Flow action): later submit runs do not wait on risk again. Send now in the edit window does not
   * set it (the risk was not read yet). Shopify's own holds are never passed this way; only their release lets the
   * order go.
   */
  sendAnyway?: { at: string; by: string };
  /**
   * print-bridge's own fulfillment hold in Shopify (src/bridge/app-holds.ts): recorded before it is placed, so that a
   * later sync knows to look for it and release it when the wait ends, and cleared once none is left. `refused`:
   * Shopify refused it (the app's limit of holds on a fulfillment order); not asked again until the notes change.
   */
  appHold?: { notes: string; at: string; refused?: string };
  /** Test mode: what would have been sent, and the print service's verdict on it (validate only, nothing created). */
  testRun?: { at: string; valid: boolean; order: unknown; problems: string[] };
  problems: Problem[];
  shipments: ShipmentLink[];
  createdAt: string;
  updatedAt: string;
  version: number;
}

export interface HistoryEntry {
  at: string;
  event: string;
  source: 'shopify' | 'print-service' | 'worker' | 'operator';
  status?: OrderStatus;
  detail?: string;
}

export interface Mutation {
  link: OrderLink;
  history?: Omit<HistoryEntry, 'at'>[];
}

/** ISO strings compare correctly as text only in one zone and form; Shopify sends offsets (`-04:00`). */
export function normaliseTime(value: string): string {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
}

/** A new record for an order seen for the first time. */
export function blankOrder(shop: string, orderId: string, now: Date): OrderLink {
  const at = now.toISOString();
  return { shop, orderId, status: 'pending', statusAt: at, submitAttempts: 0, problems: [], shipments: [], createdAt: at, updatedAt: at, version: 0 };
}

/** The claim namespace of the operator's print account (PRINT_API_*), which every store without its own shares. */
export const ENV_NAMESPACE = 'env';

/**
 * Where an order's sourceOrderId is claimed: on the print account it goes out with. The printer keeps ids per
 * account, so a store on its own account claims in a namespace of its own, and no id its mapping renders can hold
 * back an order of a store on another account (DESIGN section 9).
 */
export function claimNamespace(shop: string, account: 'env' | 'own' | undefined): string {
  return account === 'own' ? `shop:${shop}` : ENV_NAMESPACE;
}

/** Without `read_all_orders`, Shopify shows apps the last 60 days of a store's orders: older ones cannot be confirmed. */
export const ORDERS_VISIBLE_DAYS = 60;

/** Whether an order placed (or first seen) at `at` may be past what Shopify still shows the app (a day's margin). */
export function pastShopifysWindow(at: number, now: number): boolean {
  return now - at > (ORDERS_VISIBLE_DAYS - 1) * 86_400_000;
}
