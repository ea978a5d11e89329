import type { FulfillmentPings, PingKind } from './fulfillment-pings.js';
import {
  fail,
  type FulfillmentOrderRecord,
  type FulfillmentOrderRequestStatus,
  type MerchantRequestRecord,
  type OrderRecord,
  type Result,
  type ServiceResponseRecord,
} from './records.js';
import type { StandInStore } from './store.js';

/**
 * The requests Shopify sends a fulfillment service about the fulfillment orders at its location, and the service's
 * answers, as `FulfillmentOrder.requestStatus` moves:
 *
 *   UNSUBMITTED → SUBMITTED (the merchant, or Shopify at order creation, requests fulfillment; a ping)
 *   SUBMITTED → ACCEPTED (status IN_PROGRESS) or REJECTED (status OPEN)
 *   ACCEPTED → CANCELLATION_REQUESTED (the merchant asks to cancel; a ping)
 *   CANCELLATION_REQUESTED → CANCELLATION_ACCEPTED (status CLOSED) or CANCELLATION_REJECTED (status IN_PROGRESS)
 *   fully fulfilled → CLOSED
 */

export interface RequestInput {
  fulfillmentOrderId: string;
  message?: string | null;
}

export interface RejectInput {
  reason?: string | null;
  message?: string | null;
  lineItems?: { fulfillmentOrderLineItemId: string; message?: string | null }[] | null;
}

type Found = { order: OrderRecord; fo: FulfillmentOrderRecord };

/** The fulfillment order, if it is at one of the shop's fulfillment-service locations (the app's). */
function serviceFulfillmentOrder(store: StandInStore, shop: string, id: string): Result<Found> {
  const found = store.findFulfillmentOrder(shop, id);
  if (!found) return fail(['id'], 'Fulfillment order does not exist.');
  if (!store.isServiceLocation(shop, found.fo.assignedLocation.id)) {
    return fail(['id'], "The fulfillment order is not assigned to a location of the app's fulfillment service.");
  }
  return { ok: true, value: found };
}

function move(store: StandInStore, found: Found, requestStatus: FulfillmentOrderRequestStatus, status?: FulfillmentOrderRecord['status']): void {
  const at = store.now();
  found.fo.requestStatus = requestStatus;
  if (status) found.fo.status = status;
  found.fo.updatedAt = at;
  found.order.updatedAt = at;
}

/** Records the service's answer, on the fulfillment order and on the latest merchant request of that kind. */
function respond(store: StandInStore, fo: FulfillmentOrderRecord, response: Omit<ServiceResponseRecord, 'at'>): void {
  const entry: ServiceResponseRecord = { at: store.now(), ...response };
  fo.serviceResponses.push(entry);
  const kind: MerchantRequestRecord['kind'] = response.kind.startsWith('CANCELLATION') ? 'CANCELLATION_REQUEST' : 'FULFILLMENT_REQUEST';
  const request = fo.merchantRequests.filter((r) => r.kind === kind).at(-1);
  if (request) request.responseData = { ...entry };
}

export function acceptFulfillmentRequest(store: StandInStore, shop: string, id: string, input: { message?: string | null; estimatedShippedAt?: string | null }): Result<FulfillmentOrderRecord> {
  const found = serviceFulfillmentOrder(store, shop, id);
  if (!found.ok) return found;
  if (found.value.fo.requestStatus !== 'SUBMITTED') return fail(['id'], 'Cannot accept fulfillment request for the fulfillment order.');
  move(store, found.value, 'ACCEPTED', 'IN_PROGRESS');
  respond(store, found.value.fo, { kind: 'FULFILLMENT_ACCEPTED', message: input.message ?? null, estimatedShippedAt: input.estimatedShippedAt ?? null });
  return { ok: true, value: found.value.fo };
}

export function rejectFulfillmentRequest(store: StandInStore, shop: string, id: string, input: RejectInput): Result<FulfillmentOrderRecord> {
  const found = serviceFulfillmentOrder(store, shop, id);
  if (!found.ok) return found;
  const fo = found.value.fo;
  if (fo.requestStatus !== 'SUBMITTED') return fail(['id'], 'Cannot reject fulfillment request for the fulfillment order.');
  const lineItems = (input.lineItems ?? []).map((l) => ({ fulfillmentOrderLineItemId: l.fulfillmentOrderLineItemId, message: l.message ?? null }));
  const stranger = lineItems.findIndex((l) => !fo.lineItems.some((own) => own.id === l.fulfillmentOrderLineItemId));
  if (stranger >= 0) return fail(['lineItems', String(stranger), 'fulfillmentOrderLineItemId'], 'Fulfillment order line item does not exist.');
  move(store, found.value, 'REJECTED', 'OPEN');
  respond(store, fo, { kind: 'FULFILLMENT_REJECTED', message: input.message ?? null, reason: input.reason ?? null, lineItems });
  return { ok: true, value: fo };
}

export function acceptCancellationRequest(store: StandInStore, shop: string, id: string, input: { message?: string | null }): Result<FulfillmentOrderRecord> {
  const found = serviceFulfillmentOrder(store, shop, id);
  if (!found.ok) return found;
  if (found.value.fo.requestStatus !== 'CANCELLATION_REQUESTED') return fail(['id'], 'Cannot accept cancellation request for the fulfillment order.');
  // CLOSED: what remains can no longer be fulfilled from this fulfillment order.
  move(store, found.value, 'CANCELLATION_ACCEPTED', 'CLOSED');
  respond(store, found.value.fo, { kind: 'CANCELLATION_ACCEPTED', message: input.message ?? null });
  return { ok: true, value: found.value.fo };
}

export function rejectCancellationRequest(store: StandInStore, shop: string, id: string, input: { message?: string | null }): Result<FulfillmentOrderRecord> {
  const found = serviceFulfillmentOrder(store, shop, id);
  if (!found.ok) return found;
  if (found.value.fo.requestStatus !== 'CANCELLATION_REQUESTED') return fail(['id'], 'Cannot reject cancellation request for the fulfillment order.');
  move(store, found.value, 'CANCELLATION_REJECTED', 'IN_PROGRESS');
  respond(store, found.value.fo, { kind: 'CANCELLATION_REJECTED', message: input.message ?? null });
  return { ok: true, value: found.value.fo };
}

/** The merchant's side (Shopify admin, or Shopify itself at order creation), with the callback pings. */
export class StandInFulfillmentRequests {
  private automatic = true;

  constructor(
    private readonly store: StandInStore,
    private readonly pings: FulfillmentPings,
  ) {}

  /** Whether a new order's fulfillment orders at a service's location are requested at once (the default). */
  setAutomatic(on: boolean): void {
    this.automatic = on;
  }

  isAutomatic(): boolean {
    return this.automatic;
  }

  /** After an order is created: requests fulfillment of its service fulfillment orders, one ping per service. */
  orderCreated(order: OrderRecord): void {
    if (!this.automatic) return;
    const waiting = order.fulfillmentOrders.filter((fo) => fo.status === 'OPEN' && fo.requestStatus === 'UNSUBMITTED' && this.store.isServiceLocation(order.shop, fo.assignedLocation.id));
    for (const fo of waiting) this.submit(order, fo, 'FULFILLMENT_REQUEST', null);
    this.ping(order.shop, waiting, 'FULFILLMENT_REQUEST');
  }

  /** The merchant clicks "Request fulfillment" (from UNSUBMITTED, or again after a rejection). */
  requestFulfillment(shop: string, input: RequestInput): Result<FulfillmentOrderRecord> {
    const found = serviceFulfillmentOrder(this.store, shop, input.fulfillmentOrderId);
    if (!found.ok) return found;
    const { order, fo } = found.value;
    if (fo.status !== 'OPEN' || (fo.requestStatus !== 'UNSUBMITTED' && fo.requestStatus !== 'REJECTED')) {
      return fail(['id'], 'Cannot request fulfillment for the fulfillment order.');
    }
    this.submit(order, fo, 'FULFILLMENT_REQUEST', input.message ?? null);
    this.ping(shop, [fo], 'FULFILLMENT_REQUEST');
    return { ok: true, value: fo };
  }

  /** The merchant asks the service to cancel an accepted fulfillment order. */
  requestCancellation(shop: string, input: RequestInput): Result<FulfillmentOrderRecord> {
    const found = serviceFulfillmentOrder(this.store, shop, input.fulfillmentOrderId);
    if (!found.ok) return found;
    const { order, fo } = found.value;
    if (fo.requestStatus !== 'ACCEPTED' && fo.requestStatus !== 'CANCELLATION_REJECTED') {
      return fail(['id'], 'Cannot request cancellation for the fulfillment order.');
    }
    this.submit(order, fo, 'CANCELLATION_REQUEST', input.message ?? null);
    this.ping(shop, [fo], 'CANCELLATION_REQUEST');
    return { ok: true, value: fo };
  }

  private submit(order: OrderRecord, fo: FulfillmentOrderRecord, kind: MerchantRequestRecord['kind'], message: string | null): void {
    const at = this.store.now();
    fo.merchantRequests.push({ id: this.store.nextGid('FulfillmentOrderMerchantRequest'), kind, message, sentAt: at, requestOptions: kind === 'FULFILLMENT_REQUEST' ? { notify_customer: false } : {}, responseData: null });
    move(this.store, { order, fo }, kind === 'FULFILLMENT_REQUEST' ? 'SUBMITTED' : 'CANCELLATION_REQUESTED');
  }

  private ping(shop: string, fos: FulfillmentOrderRecord[], kind: PingKind): void {
    const byService = new Map<string, string[]>();
    for (const fo of fos) {
      const service = this.store.services.serviceAt(shop, fo.assignedLocation.id)!;
      byService.set(service.id, [...(byService.get(service.id) ?? []), fo.id]);
    }
    for (const [serviceId, ids] of byService) {
      this.pings.send(shop.trim().toLowerCase(), serviceId, this.store.services.find(shop, serviceId)!.callbackUrl, kind, ids);
    }
  }
}
