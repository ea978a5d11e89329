import {
  fail,
  type DisplayFulfillmentStatus,
  type FulfillmentInput,
  type FulfillmentOrderLineItemRecord,
  type FulfillmentOrderRecord,
  type FulfillmentRecord,
  type OrderRecord,
  type RecordLookup,
  type Result,
  type TrackingInfoRecord,
  type TrackingInput,
  type UserError,
} from './records.js';

/**
 * Fulfillments, as Shopify makes them: by the app through the Admin API (`fulfillmentCreate`, then
 * `fulfillmentTrackingInfoUpdate`) or by a merchant in Shopify admin, and the fulfillment status an order shows for them.
 */

export interface ManualFulfillmentInput {
  /** Line items to fulfill (by gid or SKU) and how many; every remaining item when omitted. */
  lineItems?: { id?: string; sku?: string; quantity?: number }[];
  trackingInfo?: TrackingInput;
  notifyCustomer?: boolean;
}

export function createFulfillment(records: RecordLookup, shop: string, input: FulfillmentInput, source: FulfillmentRecord['source']): Result<FulfillmentRecord> {
  const groups = input.lineItemsByFulfillmentOrder;
  if (groups.length === 0) {
    return fail(['fulfillment', 'lineItemsByFulfillmentOrder'], 'Line items by fulfillment order must not be empty.');
  }
  const errors: UserError[] = [];
  let order: OrderRecord | undefined;
  // Planned changes are checked in full before any is applied: a fulfillment is all or nothing.
  const planned: { fo: FulfillmentOrderRecord; line: FulfillmentOrderLineItemRecord; quantity: number }[] = [];
  groups.forEach((group, groupIndex) => {
    const field = ['fulfillment', 'lineItemsByFulfillmentOrder', String(groupIndex)];
    const found = records.findFulfillmentOrder(shop, group.fulfillmentOrderId);
    if (!found) {
      errors.push({ field: [...field, 'fulfillmentOrderId'], message: 'Fulfillment order does not exist.' });
      return;
    }
    if (order && order.id !== found.order.id) {
      errors.push({ field, message: 'All fulfillment orders must belong to the same order.' });
      return;
    }
    order = found.order;
    const fo = found.fo;
    if (fo.status !== 'OPEN' && fo.status !== 'IN_PROGRESS') {
      errors.push({
        field: [...field, 'fulfillmentOrderId'],
        message: `Fulfillment order ${fo.id} has an unfulfillable status= ${fo.status.toLowerCase()}.`,
      });
      return;
    }
    // A fulfillment service's fulfillment order is fulfilled only once the service accepted its request.
    if (records.isServiceLocation(shop, fo.assignedLocation.id) && fo.requestStatus !== 'ACCEPTED' && fo.requestStatus !== 'CANCELLATION_REJECTED') {
      errors.push({ field: [...field, 'fulfillmentOrderId'], message: 'The fulfillment order is not in an accepted state.' });
      return;
    }
    const requested =
      group.fulfillmentOrderLineItems && group.fulfillmentOrderLineItems.length > 0
        ? group.fulfillmentOrderLineItems
        : fo.lineItems.filter((l) => l.remainingQuantity > 0).map((l) => ({ id: l.id, quantity: l.remainingQuantity }));
    requested.forEach((item, itemIndex) => {
      const itemField = [...field, 'fulfillmentOrderLineItems', String(itemIndex)];
      const line = fo.lineItems.find((l) => l.id === item.id);
      if (!line) {
        errors.push({ field: [...itemField, 'id'], message: `Fulfillment order line item ${item.id} does not belong to fulfillment order ${fo.id}.` });
        return;
      }
      const alreadyPlanned = planned.filter((p) => p.line === line).reduce((sum, p) => sum + p.quantity, 0);
      if (!Number.isInteger(item.quantity) || item.quantity <= 0 || item.quantity + alreadyPlanned > line.remainingQuantity) {
        errors.push({
          field: [...itemField, 'quantity'],
          message: `Invalid fulfillment order line item quantity requested: ${item.quantity} of ${line.id}, ${line.remainingQuantity - alreadyPlanned} remaining.`,
        });
        return;
      }
      planned.push({ fo, line, quantity: item.quantity });
    });
  });
  if (errors.length > 0) return { ok: false, userErrors: errors };
  if (!order || planned.length === 0) return fail(['fulfillment'], 'Nothing to fulfill: every line item is already fulfilled.');

  const at = records.now();
  for (const p of planned) p.line.remainingQuantity -= p.quantity;
  for (const fo of new Set(planned.map((p) => p.fo))) {
    fo.status = fo.lineItems.every((l) => l.remainingQuantity === 0) ? 'CLOSED' : 'IN_PROGRESS';
    if (fo.status === 'CLOSED' && fo.requestStatus !== 'UNSUBMITTED') fo.requestStatus = 'CLOSED';
    fo.updatedAt = at;
  }
  const notifyCustomer = input.notifyCustomer ?? false;
  const trackingInfo = trackingFromInput(input.trackingInfo);
  const fulfillment: FulfillmentRecord = {
    id: records.nextGid('Fulfillment'),
    orderId: order.id,
    name: `${order.name}-F${order.fulfillments.length + 1}`,
    status: 'SUCCESS',
    createdAt: at,
    updatedAt: at,
    trackingInfo,
    lineItems: planned.map((p) => ({
      id: records.nextGid('FulfillmentLineItem'),
      lineItemId: p.line.lineItemId,
      fulfillmentOrderId: p.fo.id,
      fulfillmentOrderLineItemId: p.line.id,
      quantity: p.quantity,
    })),
    source,
    notifyCustomer,
    customerNotifications: notifyCustomer
      ? [{ at, reason: 'fulfillment-created', trackingNumbers: numbersOf(trackingInfo) }]
      : [],
  };
  order.fulfillments.push(fulfillment);
  order.updatedAt = at;
  return { ok: true, value: fulfillment };
}

export function updateTracking(records: RecordLookup, shop: string, fulfillmentId: string, tracking: TrackingInput, notifyCustomer: boolean): Result<FulfillmentRecord> {
  const found = records.findFulfillment(shop, fulfillmentId);
  if (!found) return fail(['fulfillmentId'], 'Fulfillment does not exist.');
  const { order, fulfillment } = found;
  if (fulfillment.status === 'CANCELLED') return fail(['fulfillmentId'], 'Cannot update tracking of a cancelled fulfillment.');
  const at = records.now();
  fulfillment.trackingInfo = trackingFromInput(tracking);
  fulfillment.updatedAt = at;
  if (notifyCustomer) {
    fulfillment.customerNotifications.push({ at, reason: 'tracking-updated', trackingNumbers: numbersOf(fulfillment.trackingInfo) });
  }
  order.updatedAt = at;
  return { ok: true, value: fulfillment };
}

/** A merchant fulfilling by hand in Shopify admin: by gid or SKU, from whichever open fulfillment orders hold the items. */
export function fulfillByHand(store: RecordLookup, shop: string, orderId: string, input: ManualFulfillmentInput): Result<FulfillmentRecord> {
  const order = store.findOrder(shop, orderId);
  if (!order) return { ok: false, userErrors: [{ field: ['id'], message: `Order ${orderId} does not exist.` }] };
  // A fulfillment service's fulfillment orders are its own to fulfill; the merchant fulfills the shop's.
  const open = order.fulfillmentOrders.filter((fo) => (fo.status === 'OPEN' || fo.status === 'IN_PROGRESS') && !store.isServiceLocation(shop, fo.assignedLocation.id));
  const groups = new Map<string, { id: string; quantity: number }[]>();
  const add = (foId: string, id: string, quantity: number) => {
    const list = groups.get(foId) ?? [];
    list.push({ id, quantity });
    groups.set(foId, list);
  };
  if (!input.lineItems) {
    for (const fo of open) for (const l of fo.lineItems) if (l.remainingQuantity > 0) add(fo.id, l.id, l.remainingQuantity);
  } else {
    for (const wanted of input.lineItems) {
      const lineItem = order.lineItems.find((li) => (wanted.id ? li.id === wanted.id : li.sku === wanted.sku));
      if (!lineItem) {
        return { ok: false, userErrors: [{ field: ['lineItems'], message: `Order ${order.id} has no line item ${wanted.id ?? wanted.sku}.` }] };
      }
      let left = wanted.quantity;
      for (const fo of open) {
        for (const l of fo.lineItems) {
          if (l.lineItemId !== lineItem.id || l.remainingQuantity === 0) continue;
          const take = left === undefined ? l.remainingQuantity : Math.min(left, l.remainingQuantity);
          if (take > 0) add(fo.id, l.id, take);
          if (left !== undefined) left -= take;
        }
      }
      if (left !== undefined && left > 0) {
        return {
          ok: false,
          userErrors: [{ field: ['lineItems'], message: `Only ${wanted.quantity! - left} of ${lineItem.id} remain to be fulfilled.` }],
        };
      }
    }
  }
  const fulfillment: FulfillmentInput = {
    lineItemsByFulfillmentOrder: [...groups].map(([fulfillmentOrderId, items]) => ({ fulfillmentOrderId, fulfillmentOrderLineItems: items })),
    trackingInfo: input.trackingInfo ?? null,
    notifyCustomer: input.notifyCustomer ?? false,
  };
  return createFulfillment(store, shop, fulfillment, 'merchant');
}

export function displayFulfillmentStatus(order: OrderRecord): DisplayFulfillmentStatus {
  const lines = order.fulfillmentOrders.flatMap((fo) => fo.lineItems);
  const total = lines.reduce((s, l) => s + l.totalQuantity, 0);
  const remaining = lines.reduce((s, l) => s + l.remainingQuantity, 0);
  if (total > 0 && remaining === 0) return 'FULFILLED';
  if (remaining < total) return 'PARTIALLY_FULFILLED';
  return 'UNFULFILLED';
}

function trackingFromInput(input: TrackingInput | null | undefined): TrackingInfoRecord[] {
  if (!input) return [];
  const company = input.company ?? null;
  if (input.numbers && input.numbers.length > 0) {
    return input.numbers.map((number, i) => ({ company, number, url: input.urls?.[i] ?? null }));
  }
  const number = input.number ?? null;
  const url = input.url ?? null;
  if (company === null && number === null && url === null) return [];
  return [{ company, number, url }];
}

function numbersOf(tracking: TrackingInfoRecord[]): string[] {
  return tracking.map((t) => t.number).filter((n): n is string => n !== null);
}
