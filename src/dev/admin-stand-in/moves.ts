import type { FulfillmentOrderWebhook } from './holds.js';
import { fail, type FulfillmentOrderRecord, type Result } from './records.js';
import type { StandInStore } from './store.js';

/**
 * A merchant moving a fulfillment order to another of the shop's locations in the Shopify admin ("Change location"),
 * and the `fulfillment_orders/moved` webhook Shopify sends about it. As on Shopify, a fulfillment order whose request a
 * fulfillment service holds (submitted, accepted, a cancellation asked or refused) or one that is done cannot move;
 * moving all of an unfulfilled fulfillment order's lines moves the fulfillment order itself, which keeps its id.
 *
 * The body is Shopify's shape: `original_fulfillment_order` and `moved_fulfillment_order` (here the same fulfillment
 * order, now at the new location), `destination_location_id`, the lines moved and the `source_location` it left.
 */

export interface MoveInput {
  /** Which fulfillment order; the order's first open one when omitted. */
  fulfillmentOrderId?: string;
  /** The location it goes to: the shop's primary location, or a fulfillment service's. */
  newLocationId: string;
}

const UNMOVABLE_REQUESTS = new Set(['SUBMITTED', 'ACCEPTED', 'CANCELLATION_REQUESTED', 'CANCELLATION_REJECTED']);
const MOVABLE_STATUSES = new Set<FulfillmentOrderRecord['status']>(['OPEN', 'SCHEDULED', 'ON_HOLD']);

export function moveFulfillmentOrder(
  store: StandInStore,
  emit: (webhook: FulfillmentOrderWebhook) => void,
  shop: string,
  orderId: string,
  input: MoveInput,
): Result<FulfillmentOrderRecord> {
  const order = store.findOrder(shop, orderId);
  if (!order) return fail(['id'], `Order ${orderId} does not exist.`);
  const fo = input.fulfillmentOrderId
    ? order.fulfillmentOrders.find((f) => f.id === input.fulfillmentOrderId)
    : order.fulfillmentOrders.find((f) => MOVABLE_STATUSES.has(f.status));
  if (!fo) return fail(['id'], 'Fulfillment order does not exist.');
  if (!MOVABLE_STATUSES.has(fo.status)) return fail(['id'], `Cannot move a fulfillment order that is ${fo.status.toLowerCase()}.`);
  if (UNMOVABLE_REQUESTS.has(fo.requestStatus)) {
    return fail(['id'], "Cannot change location of a fulfillment order that's been submitted to a fulfillment service.");
  }
  const primary = store.services.primaryLocation(shop);
  const location = input.newLocationId === primary.id ? primary : store.services.location(shop, input.newLocationId);
  if (!location) return fail(['newLocationId'], 'Location could not be found.');
  if (location.id === fo.assignedLocation.id) return fail(['newLocationId'], 'Fulfillment order is already assigned to this location.');
  const source = fo.assignedLocation.id;
  const at = store.now();
  fo.assignedLocation = { id: location.id, name: location.name };
  fo.requestStatus = 'UNSUBMITTED';
  fo.updatedAt = at;
  order.updatedAt = at;
  const view = { id: fo.id, status: fo.status.toLowerCase(), assigned_location_id: location.id };
  emit({
    topic: 'fulfillment_orders/moved',
    shop: order.shop,
    body: {
      original_fulfillment_order: view,
      moved_fulfillment_order: view,
      destination_location_id: location.id,
      fulfillment_order_line_items_requested: fo.lineItems.map((line) => ({ id: line.id, quantity: line.remainingQuantity })),
      source_location: { id: source },
    },
  });
  return { ok: true, value: fo };
}
