import type {
  AssignedFulfillmentOrders,
  FulfillmentOrderHolds,
  CreateFulfillmentInput,
  FulfillmentServiceRef,
  FulfillmentSummary,
  OrderForFulfillment,
  OrderStanding,
  RequestRejection,
  StatusChange,
  StatusShown,
  TrackingInfo,
} from '../bridge/shopify-data.js';
import {
  acceptCancellationRequest,
  acceptFulfillmentRequest,
  assignedFulfillmentOrders,
  createFulfillmentService,
  deleteFulfillmentService,
  fulfillmentOrderLineItemIds,
  listFulfillmentServices,
  rejectCancellationRequest,
  rejectFulfillmentRequest,
} from './admin/fulfillment-service.js';
import { fulfillmentOrderHolds, placeAppHold, releaseHolds } from './admin/app-holds.js';
import { createFulfillment, getFulfillmentOrderOrder, getOrderForFulfillment, updateFulfillmentTracking } from './admin/fulfillments.js';
import { checkAccess, getOrderAsWebhookBody, latestOrders, listRecentOrders, orderCancelled, orderInShop, type RecentOrder } from './admin/order-reads.js';
import { appendOrderNote, orderShows, showStatus } from './admin/order-status.js';
import { flowTriggerReceive } from './admin/flow.js';
import { AdminRequests } from './admin/request.js';

/**
 * print-bridge's Admin GraphQL operations of one shop, typed and parsed with zod at the boundary, one family per file
 * in admin/ (fulfillments, order status, order reads, the fulfillment service) over one request path (admin/request.ts: the shop's pacer, the
 * typed errors of admin/errors.ts). Records are named by gid strings throughout: Shopify's numeric ids can exceed 2^53.
 */

export * from './admin/errors.js';
export { ShopifyPacer, JOB_INLINE_WAIT_MS, type PacingOptions, type PacingWait, type CostReport, type ReportCost } from './admin/pacing.js';
export { createShopifyApiTransport, type AdminGraphqlTransport, type GraphqlAnswer, type ShopifyApiTransportOptions } from './admin/transport.js';
export { routeAdminApi, clearAdminApiRoutes, configureAdminApiOrigin, SHOP_DOMAIN_HEADER } from './admin/routing.js';
export { STATUS_METAFIELD, StatusMetafieldBatches } from './admin/order-status.js';
export { OrderReadBatches, orderReadBatches, type OrderReads } from './admin/order-read-batches.js';
export { StatusWriteBatches } from './admin/status-write-batches.js';
export type { ShopifyAdminApiOptions } from './admin/request.js';
export type { RecentOrder } from './admin/order-reads.js';

export class ShopifyAdminApi extends AdminRequests {
  /** Starts the store's workflows that begin with the app's Flow trigger `handle`; Shopify's refusal is a ShopifyUserError. */
  flowTriggerReceive(handle: string, payload: Record<string, unknown>): Promise<void> {
    return flowTriggerReceive(this, handle, payload);
  }

  /** The order with what fulfilling it needs, or null when the shop has no such order. */
  getOrderForFulfillment(orderGid: string): Promise<OrderForFulfillment | null> {
    return getOrderForFulfillment(this, orderGid);
  }

  /** The order a fulfillment order belongs to, with its status; null when the shop has no such fulfillment order. */
  getFulfillmentOrderOrder(fulfillmentOrderGid: string): Promise<{ orderId: string; status: string } | null> {
    return getFulfillmentOrderOrder(this, fulfillmentOrderGid);
  }

  /** One fulfillment of exactly these lines. Not idempotent: after an unknown outcome, re-read the order first. */
  createFulfillment(input: CreateFulfillmentInput): Promise<FulfillmentSummary> {
    return createFulfillment(this, input);
  }

  updateFulfillmentTracking(fulfillmentGid: string, trackingInfo: TrackingInfo, notifyCustomer: boolean): Promise<FulfillmentSummary> {
    return updateFulfillmentTracking(this, fulfillmentGid, trackingInfo, notifyCustomer);
  }

  /** The order's fulfillment orders with their holds and lines (print-bridge's own hold); null when the shop has no such order. */
  fulfillmentOrderHolds(orderGid: string): Promise<FulfillmentOrderHolds[] | null> {
    return fulfillmentOrderHolds(this, orderGid);
  }

  /** Places print-bridge's own hold (handle `print-bridge`) on a fulfillment order. Not idempotent: read first after an unknown outcome. */
  placeAppHold(fulfillmentOrderGid: string, reasonNotes: string): Promise<{ id: string }> {
    return placeAppHold(this, fulfillmentOrderGid, reasonNotes);
  }

  /** Releases exactly these holds of a fulfillment order (print-bridge names only its own). */
  releaseHolds(fulfillmentOrderGid: string, holdIds: readonly string[]): Promise<void> {
    return releaseHolds(this, fulfillmentOrderGid, holdIds);
  }

  /** Whether this shop has the order (null when it has not), before it is printed, cancelled or amended. */
  orderInShop(orderGid: string): Promise<OrderStanding | null> {
    return this.orderReads ? this.orderReads.inShop.get(this, orderGid) : orderInShop(this, orderGid);
  }

  /** The line items on a fulfillment order (null when the shop has none such): is a held one holding printed lines? */
  fulfillmentOrderLineItemIds(fulfillmentOrderGid: string): Promise<string[] | null> {
    return fulfillmentOrderLineItemIds(this, fulfillmentOrderGid);
  }

  /** Whether Shopify shows the order cancelled; null when the shop has no such order. */
  orderCancelled(orderGid: string): Promise<boolean | null> {
    return orderCancelled(this, orderGid);
  }

  /** What the order shows of its print status (tags and metafield); null when the shop has no such order. */
  orderShows(orderGid: string): Promise<StatusShown | null> {
    return this.orderReads ? this.orderReads.shows.get(this, orderGid) : orderShows(this, orderGid);
  }

  /** Tags added and removed and the status metafield written in one request, only what `change` needs. */
  showStatus(orderGid: string, change: StatusChange): Promise<void> {
    return showStatus(this, orderGid, change, this.statusMetafields, this.statusWrites);
  }

  /** Adds `text` as a line of the order's note unless the note has that line already. */
  appendOrderNote(orderGid: string, text: string): Promise<{ changed: boolean; note: string }> {
    return appendOrderNote(this, orderGid, text);
  }

  /** One cheap read the app's work needs: fails with Shopify's answer when the token is wrong, revoked or short of scope. */
  checkAccess(): Promise<void> {
    return checkAccess(this);
  }

  /** An order in its webhook body's shape (lost-order recovery); undefined when the shop has no such order. */
  getOrderAsWebhookBody(orderGid: string): Promise<string | undefined> {
    return getOrderAsWebhookBody(this, orderGid);
  }

  /** Every order created at or after `sinceIso`, oldest first, for reconciliation. */
  listRecentOrders(sinceIso: string, options: { maxPages?: number } = {}): Promise<RecentOrder[]> {
    return listRecentOrders(this, sinceIso, options);
  }

  /** The store's newest orders, newest first (the mapping editor previews them). */
  latestOrders(count: number): Promise<{ id: string; name: string }[]> {
    return latestOrders(this, count);
  }

  /** The app's fulfillment services on the store, with their locations. */
  listFulfillmentServices(): Promise<FulfillmentServiceRef[]> {
    return listFulfillmentServices(this);
  }

  createFulfillmentService(input: { name: string; callbackUrl: string }): Promise<FulfillmentServiceRef> {
    return createFulfillmentService(this, input);
  }

  deleteFulfillmentService(id: string, inventoryAction: 'KEEP' | 'DELETE' = 'KEEP'): Promise<void> {
    return deleteFulfillmentService(this, id, inventoryAction);
  }

  /** The fulfillment orders at the app's location with a request of this kind pending, every page, each with every line. */
  assignedFulfillmentOrders(status: 'FULFILLMENT_REQUESTED' | 'CANCELLATION_REQUESTED', locationId: string): Promise<AssignedFulfillmentOrders> {
    return assignedFulfillmentOrders(this, status, locationId);
  }

  acceptFulfillmentRequest(id: string, message: string, estimatedShippedAt?: string): Promise<{ requestStatus: string }> {
    return acceptFulfillmentRequest(this, id, message, estimatedShippedAt);
  }

  rejectFulfillmentRequest(id: string, rejection: RequestRejection): Promise<{ requestStatus: string }> {
    return rejectFulfillmentRequest(this, id, rejection);
  }

  acceptCancellationRequest(id: string, message: string): Promise<{ requestStatus: string }> {
    return acceptCancellationRequest(this, id, message);
  }

  rejectCancellationRequest(id: string, message: string): Promise<{ requestStatus: string }> {
    return rejectCancellationRequest(this, id, message);
  }
}
