import { z } from 'zod';
import { parseJsonLossless } from '../shopify/json.js';
import type { ApplyPrintEventDeps, ApplyPrintEventOutcome } from './apply-print-event.js';
import { fulfilWaitingShipments } from './fulfil-shipment.js';

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
] as const;
export type FulfillmentOrderTopic = (typeof FULFILLMENT_ORDER_TOPICS)[number];

export function isFulfillmentOrderTopic(topic: string): topic is FulfillmentOrderTopic {
  return (FULFILLMENT_ORDER_TOPICS as readonly string[]).includes(topic);
}

const idValue = z.union([z.string().min(1), z.number()]).transform(String);
const holdSchema = z.object({ reason: z.string().nullish(), reason_notes: z.string().nullish() }).loose();
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
}

/** Reads a fulfillment-order webhook body; a numeric id becomes its gid. */
export function parseFulfillmentOrderWebhook(topic: FulfillmentOrderTopic, raw: string): { ok: true; change: FulfillmentOrderChange } | { ok: false; message: string } {
  let json: unknown;
  try {
    json = parseJsonLossless(raw);
  } catch (error) {
    return { ok: false, message: `not JSON: ${(error as Error).message}` };
  }
  const parsed = bodySchema.safeParse(json);
  if (!parsed.success) return { ok: false, message: parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') };
  const fo = parsed.data.fulfillment_order;
  const fulfillmentOrderId = toGid('FulfillmentOrder', fo.id);
  if (!fulfillmentOrderId) return { ok: false, message: `fulfillment_order.id ${fo.id} is neither a FulfillmentOrder gid nor a number` };
  const hold = parsed.data.created_fulfillment_hold ?? parsed.data.fulfillment_hold ?? fo.fulfillment_holds?.at(-1);
  const orderId = fo.order_id ? toGid('Order', fo.order_id) : undefined;
  return {
    ok: true,
    change: {
      topic,
      fulfillmentOrderId,
      ...(orderId ? { orderId } : {}),
      ...(hold?.reason ? { hold: `${hold.reason.toLowerCase().replace(/_/g, ' ')}${hold.reason_notes ? `: ${hold.reason_notes}` : ''}` } : {}),
    },
  };
}

function toGid(kind: string, id: string): string | undefined {
  if (new RegExp(`^gid://shopify/${kind}/\\d+$`).test(id)) return id;
  return /^\d+$/.test(id) ? `gid://shopify/${kind}/${id}` : undefined;
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
  if (change.topic === 'fulfillment_orders/placed_on_hold') {
    await deps.store.note(shop, orderId, {
      event: 'Shopify placed a fulfillment order on hold',
      source: 'shopify',
      detail: `${change.fulfillmentOrderId}${change.hold ? ` (${change.hold})` : ''}: shipments that need it are fulfilled once it is released`,
    });
    return { kind: 'recorded', orderId };
  }
  await deps.store.note(shop, orderId, {
    event: change.topic === 'fulfillment_orders/hold_released' ? 'Shopify released a fulfillment hold' : 'A scheduled fulfillment order became ready',
    source: 'shopify',
    detail: change.fulfillmentOrderId,
  });
  return { kind: 'fulfilled', orderId, outcomes: await fulfilWaitingShipments(deps, shop, orderId) };
}
