import { z } from 'zod';
import { parseJsonLossless } from '../shopify/json.js';
import { toGid } from '../shopify/gid.js';
import type { ApplyPrintEventDeps, ApplyPrintEventOutcome } from './apply-print-event.js';
import { fulfilWaitingShipments } from './fulfil-shipment.js';
import type { OrderLink } from '../orders/model.js';
import { isOwnHold } from '../shopify/app-hold.js';
import { holdReleased, noteHoldPlaced } from './held-after-submission.js';

/**
 * Shopify's fulfillment-order webhooks (`fulfillment_orders/placed_on_hold`, `hold_released`,
 * `scheduled_fulfillment_order_ready`) name the fulfillment order only: `{fulfillment_order: {id, status}}`, with the
 * hold that was placed for `placed_on_hold`. The order is asked of the Admin API, then its shipments that wait for the
 * release are fulfilled (a release), or the hold is recorded in the order's history (a new hold).
 */

export const FULFILLMENT_ORDER_TOPICS = [
  'fulfillment_orders/placed_on_hold',
  'fulfillment_orders/hold_released',
  'fulfillment_orders/scheduled_fulfillment_order_ready',
  // The merchant moved a fulfillment order to another location: in service mode, one moved away from print-bridge's
  // location is no longer the app's to print or fulfil (issue 25).
  'fulfillment_orders/moved',
] as const;
export type FulfillmentOrderTopic = (typeof FULFILLMENT_ORDER_TOPICS)[number];

export function isFulfillmentOrderTopic(topic: string): topic is FulfillmentOrderTopic {
  return (FULFILLMENT_ORDER_TOPICS as readonly string[]).includes(topic);
}

const idValue = z.union([z.string().min(1), z.number()]).transform(String);
const holdSchema = z.object({ reason: z.string().nullish(), reason_notes: z.string().nullish(), handle: z.string().nullish(), held_by_requesting_app: z.boolean().nullish() }).loose();
const bodySchema = z
  .object({
    fulfillment_order: z
      .object({
        id: idValue,
        status: z.string().nullish(),
        order_id: idValue.nullish(),
        fulfillment_holds: z.array(holdSchema).nullish(),
      })
      .loose(),
    created_fulfillment_hold: holdSchema.nullish(),
    moved_fulfillment_order: z.object({ id: idValue, assigned_location_id: idValue.nullish() }).loose().nullish(),
    destination_location_id: idValue.nullish(),
    // Where the moved fulfillment order was before (Shopify's moved body; the original's own location may already be
    // the new one after the move).
    source_location: z.object({ id: idValue }).loose().nullish(),
    fulfillment_hold: holdSchema.nullish(),
  })
  .loose();

export interface FulfillmentOrderChange {
  topic: FulfillmentOrderTopic;
  fulfillmentOrderId: string;
  /** When the body names it (REST-style bodies do); otherwise the Admin API is asked. */
  orderId?: string;
  /** The hold placed, as text ("awaiting payment: bank transfer"), for the history. */
  hold?: string;
  /** The fulfillment order's status as the body gives it (`on_hold` after a release: other holds remain). */
  status?: string;
  /** `placed_on_hold`: the hold placed is print-bridge's own (it shows the app's wait; nothing to act on). */
  ownHold?: boolean;
  /** `fulfillment_orders/moved`: the fulfillment order the lines are on now, and its location. */
  movedTo?: string;
  destinationLocationId?: string;
  /** `fulfillment_orders/moved`: the location it left. */
  sourceLocationId?: string;
}

/** Reads a fulfillment-order webhook body; a numeric id becomes its gid. */
export function parseFulfillmentOrderWebhook(topic: FulfillmentOrderTopic, raw: string): { ok: true; change: FulfillmentOrderChange } | { ok: false; message: string } {
  let json: unknown;
  try {
    json = parseJsonLossless(raw);
  } catch (error) {
    return { ok: false, message: `not JSON: ${(error as Error).message}` };
  }
  // `fulfillment_orders/moved` names the fulfillment order that was moved as `original_fulfillment_order`.
  // As intake reads it: the original only where the body has no `fulfillment_order` of its own.
  if (topic === 'fulfillment_orders/moved' && json && typeof json === 'object' && 'original_fulfillment_order' in json && !('fulfillment_order' in json)) {
    json = { ...(json as Record<string, unknown>), fulfillment_order: (json as Record<string, unknown>).original_fulfillment_order };
  }
  const parsed = bodySchema.safeParse(json);
  if (!parsed.success) return { ok: false, message: parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') };
  const fo = parsed.data.fulfillment_order;
  const fulfillmentOrderId = toGid('FulfillmentOrder', fo.id);
  if (!fulfillmentOrderId) return { ok: false, message: `fulfillment_order.id ${fo.id} is neither a FulfillmentOrder gid nor a number` };
  const hold = parsed.data.created_fulfillment_hold ?? parsed.data.fulfillment_hold ?? fo.fulfillment_holds?.at(-1);
  const orderId = fo.order_id ? toGid('Order', fo.order_id) : undefined;
  const moved = parsed.data.moved_fulfillment_order;
  const movedTo = moved ? toGid('FulfillmentOrder', moved.id) : undefined;
  const destination = parsed.data.destination_location_id ?? moved?.assigned_location_id;
  const destinationLocationId = destination ? toGid('Location', destination) : undefined;
  const sourceLocationId = parsed.data.source_location ? toGid('Location', parsed.data.source_location.id) : undefined;
  return {
    ok: true,
    change: {
      topic,
      fulfillmentOrderId,
      ...(fo.status ? { status: fo.status } : {}),
      ...(orderId ? { orderId } : {}),
      ...(movedTo ? { movedTo } : {}),
      ...(destinationLocationId ? { destinationLocationId } : {}),
      ...(sourceLocationId ? { sourceLocationId } : {}),
      ...(hold?.reason ? { hold: `${hold.reason.toLowerCase().replace(/_/g, ' ')}${hold.reason_notes ? `: ${hold.reason_notes}` : ''}` } : {}),
      ...(hold && isOwnHold({ handle: hold.handle ?? null, heldByRequestingApp: hold.held_by_requesting_app === true }) ? { ownHold: true } : {}),
    },
  };
}


export type FulfillmentOrderChangeOutcome =
  | { kind: 'unknown-fulfillment-order'; fulfillmentOrderId: string }
  | { kind: 'not-ours'; orderId: string }
  | { kind: 'recorded'; orderId: string }
  | { kind: 'fulfilled'; orderId: string; outcomes: ApplyPrintEventOutcome[] };

export async function onFulfillmentOrderChanged(deps: ApplyPrintEventDeps, shop: string, change: FulfillmentOrderChange): Promise<FulfillmentOrderChangeOutcome> {
  const orderId = change.orderId ?? (await deps.shopify.getFulfillmentOrderOrder(shop, change.fulfillmentOrderId))?.orderId;
  if (!orderId) return { kind: 'unknown-fulfillment-order', fulfillmentOrderId: change.fulfillmentOrderId };
  const link = await deps.store.get(shop, orderId);
  if (!link) return { kind: 'not-ours', orderId };
  if (change.topic === 'fulfillment_orders/moved') return followMove(deps, link, change);
  if (change.topic === 'fulfillment_orders/placed_on_hold') {
    // The app's own hold shows its wait in Shopify: the order page already says why it waits.
    if (change.ownHold) return { kind: 'recorded', orderId };
    await noteHoldPlaced(deps, link, change);
    return { kind: 'recorded', orderId };
  }
  await deps.store.note(shop, orderId, {
    event: change.topic === 'fulfillment_orders/hold_released' ? 'Shopify released a fulfillment hold' : 'A scheduled fulfillment order became ready',
    source: 'shopify',
    detail: change.fulfillmentOrderId,
  });
  if (change.topic === 'fulfillment_orders/hold_released') await holdReleased(deps, link, change);
  return { kind: 'fulfilled', orderId, outcomes: await fulfilWaitingShipments(deps, shop, orderId) };
}

/**
 * A fulfillment order moved to another location. In service mode, one the app was asked for that now sits elsewhere is
 * no longer the app's: its request is closed on the order (not printed if it was not sent yet; not fulfilled by the
 * app if it was), and the move is noted. One moved to the app's location comes back as a request of its own.
 */
async function followMove(deps: ApplyPrintEventDeps, link: OrderLink, change: FulfillmentOrderChange): Promise<FulfillmentOrderChangeOutcome> {
  const location = await deps.fulfillmentRequests?.serviceLocation(link.shop);
  const ours = link.fulfillmentRequest?.fulfillmentOrders.find((fo) => fo.id === change.fulfillmentOrderId);
  // Away from print-bridge's location: one the app was asked for, or (an order still waiting for Shopify's request)
  // one that left that location, whose request will not come while it is elsewhere.
  const left = Boolean(location && change.destinationLocationId && change.destinationLocationId !== location);
  const away = left && Boolean(ours);
  const leftWaiting = left && !ours && change.sourceLocationId === location;
  await deps.store.update(link.shop, link.orderId, (current) => {
    if (!current) return undefined;
    const request = current.fulfillmentRequest;
    const next =
      away && request
        ? { ...request, fulfillmentOrders: request.fulfillmentOrders.map((fo) => (fo.id === change.fulfillmentOrderId ? { ...fo, movedAway: change.destinationLocationId } : fo)) }
        : request;
    return {
      link: { ...current, fulfillmentRequest: next },
      history: [
        {
          event: 'Shopify moved a fulfillment order',
          source: 'shopify',
          detail: `${change.fulfillmentOrderId} → ${change.movedTo ?? 'a new fulfillment order'} at ${change.destinationLocationId ?? 'another location'}${away ? ": it left print-bridge's location and is the merchant's to fulfil" : leftWaiting ? ": it left print-bridge's location, so Shopify will not ask print-bridge to print it; the merchant fulfils it unless it is moved back" : ''}`,
        },
      ],
    };
  });
  return { kind: 'recorded', orderId: link.orderId };
}
