import {
  type FulfillmentHoldReason,
  type FulfillmentHoldRecord,
  type FulfillmentOrderRecord,
  type OrderRecord,
  type Result,
} from './records.js';
import { HOLD_REASON_WORDS } from '../../shopify/hold-reasons.js';
import type { StandInStore } from './store.js';

export { StandInWebhooks, type SentWebhook, type WebhookTarget } from './webhook-sender.js';

/**
 * Fulfillment holds and scheduled fulfillment orders, as Shopify keeps them, and the fulfillment-order webhooks it
 * sends about them. A merchant (or a fraud app, or a payment that has not cleared) places a hold: the fulfillment
 * order is `ON_HOLD` until every hold is released, and `fulfillmentCreate` refuses it meanwhile. A subscription or
 * pre-order item is `SCHEDULED` until its `fulfillAt`, then `OPEN`. The webhook bodies name the fulfillment order only
 * (`{fulfillment_order: {id, status}}`), never its order: a subscriber asks the Admin API which order it belongs to.
 */

export type FulfillmentOrderTopic =
  | 'fulfillment_orders/placed_on_hold'
  | 'fulfillment_orders/hold_released'
  | 'fulfillment_orders/scheduled_fulfillment_order_ready'
  | 'fulfillment_orders/moved';

export interface FulfillmentOrderWebhook {
  topic: FulfillmentOrderTopic;
  shop: string;
  body: Record<string, unknown>;
}

export interface HoldInput {
  /** Which fulfillment order; the order's first one that can be held when omitted. */
  fulfillmentOrderId?: string;
  reason?: FulfillmentHoldReason;
  reasonNotes?: string | null;
  /** Unique among one placer's holds on one fulfillment order (Shopify: one app's handles); '' by default. */
  handle?: string;
  /** Another app placing it (its title, Shopify's `heldByApp`); omitted: the merchant in Shopify admin. */
  app?: string;
}

export interface ReleaseInput {
  /** Which fulfillment order; every held one of the order when omitted. */
  fulfillmentOrderId?: string;
  /** Which holds; all of the fulfillment order's when omitted. */
  holdIds?: string[];
}

/** The title the holds placed through the Admin API carry as `heldByApp`: the stand-in answers one app's tokens. */
export const REQUESTING_APP_TITLE = 'Print Bridge';

/**
 * Shopify's rules for an app's holds, as its documentation of `fulfillmentOrderHold` and `fulfillmentOrderReleaseHold`
 * (2025-01 onwards) gives them and as this stand-in keeps them:
 * - an app may hold a fulfillment order that is OPEN or already ON_HOLD (several holds since 2025-01); one being
 *   fulfilled, closed, cancelled or scheduled offers no HOLD action, and the mutation is refused;
 * - a hold's `handle` is unique among the holds one app placed on one fulfillment order
 *   (DUPLICATE_FULFILLMENT_HOLD_HANDLE), and one app has at most 10 holds on one fulfillment order
 *   (FULFILLMENT_ORDER_HOLD_LIMIT_REACHED);
 * - `holdIds` releases only the named holds that belong to the fulfillment order; without it every hold goes, whoever
 *   placed it (Shopify warns apps against that). Our reading of INVALID_ACCESS ("the app doesn't have access to
 *   release the fulfillment hold"): an app releases only holds it placed, so naming the merchant's or another app's
 *   hold is refused with it.
 */
export const HOLDS_PER_APP = 10;

/** Who places or releases: the app through the Admin API, or the control surface (the merchant, or another app). */
export type HoldActor = { kind: 'api' } | { kind: 'control' };

export interface ScheduleInput {
  fulfillmentOrderId?: string;
  /** ISO date-time when it becomes ready. */
  fulfillAt: string;
}

// Shopify's wording of each reason (`displayReason`): the app's one list of them.
export function displayReason(reason: FulfillmentHoldReason): string {
  return HOLD_REASON_WORDS[reason];
}

export { isHoldReason } from '../../shopify/hold-reasons.js';

export class StandInHolds {
  /** Scheduled fulfillment orders and their shop, so that only these are looked at for being due. */
  private readonly scheduled = new Map<string, string>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly store: StandInStore,
    private readonly emit: (webhook: FulfillmentOrderWebhook) => void,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  place(
    shop: string,
    orderId: string,
    input: HoldInput = {},
    actor: HoldActor = { kind: 'control' },
  ): Result<{ fulfillmentOrder: FulfillmentOrderRecord; hold: FulfillmentHoldRecord }> {
    const order = this.store.findOrder(shop, orderId);
    if (!order) return fail(['id'], `Order ${orderId} does not exist.`);
    const fo = input.fulfillmentOrderId
      ? order.fulfillmentOrders.find((f) => f.id === input.fulfillmentOrderId)
      : order.fulfillmentOrders.find((f) => holdable(f.status));
    if (!fo) return fail(['id'], input.fulfillmentOrderId ? 'Fulfillment order does not exist.' : `Order ${orderId} has no fulfillment order that can be held.`, 'FULFILLMENT_ORDER_NOT_FOUND');
    return this.placeOn(order, fo, input, actor);
  }

  /** `fulfillmentOrderHold` by the app (the Admin API) or a hold placed in Shopify admin (the control surface). */
  placeOn(
    order: OrderRecord,
    fo: FulfillmentOrderRecord,
    input: HoldInput,
    actor: HoldActor,
  ): Result<{ fulfillmentOrder: FulfillmentOrderRecord; hold: FulfillmentHoldRecord }> {
    if (!holdable(fo.status)) return fail(['id'], `The fulfillment order's status is ${fo.status.toLowerCase()}, it cannot be placed on hold.`, 'FULFILLMENT_ORDER_NOT_FOUND');
    const byApi = actor.kind === 'api';
    const heldByApp = byApi ? REQUESTING_APP_TITLE : (input.app ?? null);
    const handle = input.handle ?? '';
    const samePlacer = fo.fulfillmentHolds.filter((h) => h.heldByRequestingApp === byApi && h.heldByApp === heldByApp);
    if (samePlacer.some((h) => h.handle === handle)) {
      return fail(['fulfillmentHold', 'handle'], `A hold with the handle '${handle}' already exists on this fulfillment order.`, 'DUPLICATE_FULFILLMENT_HOLD_HANDLE');
    }
    if (heldByApp !== null && samePlacer.length >= HOLDS_PER_APP) {
      return fail(['id'], `The maximum number of fulfillment holds (${HOLDS_PER_APP}) for this fulfillment order has been reached for this app.`, 'FULFILLMENT_ORDER_HOLD_LIMIT_REACHED');
    }
    const hold: FulfillmentHoldRecord = {
      id: this.store.nextGid('FulfillmentHold'),
      reason: input.reason ?? 'OTHER',
      reasonNotes: input.reasonNotes ?? null,
      handle,
      heldByApp,
      heldByRequestingApp: byApi,
    };
    fo.fulfillmentHolds.push(hold);
    this.touch(order, fo, 'ON_HOLD');
    this.emit({
      topic: 'fulfillment_orders/placed_on_hold',
      shop: order.shop,
      body: {
        fulfillment_order: {
          id: fo.id,
          status: 'on_hold',
          fulfillment_holds: fo.fulfillmentHolds.map((h) => ({ id: h.id, reason: h.reason.toLowerCase(), reason_notes: h.reasonNotes })),
        },
        remaining_fulfillment_order: null,
        // The app subscribed to the webhook is the app the stand-in answers: "requesting" is that app.
        created_fulfillment_hold: { id: hold.id, reason: hold.reason.toLowerCase(), reason_notes: hold.reasonNotes, handle: hold.handle, held_by_requesting_app: byApi },
      },
    });
    return { ok: true, value: { fulfillmentOrder: fo, hold } };
  }

  /** Releases holds; a fulfillment order left without any goes back to where it was (OPEN, IN_PROGRESS or SCHEDULED). */
  release(shop: string, orderId: string, input: ReleaseInput = {}, actor: HoldActor = { kind: 'control' }): Result<FulfillmentOrderRecord[]> {
    const order = this.store.findOrder(shop, orderId);
    if (!order) return fail(['id'], `Order ${orderId} does not exist.`);
    const targets = input.fulfillmentOrderId
      ? order.fulfillmentOrders.filter((f) => f.id === input.fulfillmentOrderId)
      : order.fulfillmentOrders.filter((f) => f.status === 'ON_HOLD');
    if (targets.length === 0) return fail(['id'], input.fulfillmentOrderId ? 'Fulfillment order does not exist.' : `Order ${orderId} has no fulfillment order on hold.`, 'FULFILLMENT_ORDER_NOT_FOUND');
    for (const fo of targets) {
      if (fo.status !== 'ON_HOLD') return fail(['id'], `The fulfillment order ${fo.id} is not on hold.`, 'INVALID_FULFILLMENT_ORDER_STATUS');
      const named = input.holdIds ? fo.fulfillmentHolds.filter((h) => input.holdIds!.includes(h.id)) : [];
      if (actor.kind === 'api' && named.some((h) => !h.heldByRequestingApp)) {
        return fail(['holdIds'], "The app doesn't have access to release the fulfillment hold.", 'INVALID_ACCESS');
      }
    }
    for (const fo of targets) {
      fo.fulfillmentHolds = input.holdIds ? fo.fulfillmentHolds.filter((h) => !input.holdIds!.includes(h.id)) : [];
      if (fo.fulfillmentHolds.length > 0) continue;
      this.touch(order, fo, this.resumedStatus(fo));
      this.emit({ topic: 'fulfillment_orders/hold_released', shop: order.shop, body: { fulfillment_order: { id: fo.id, status: fo.status.toLowerCase() } } });
      if (fo.status === 'SCHEDULED') this.watch(order.shop, fo);
    }
    return { ok: true, value: targets };
  }

  /** Makes a fulfillment order SCHEDULED until `fulfillAt` (a pre-order or subscription delivery), then OPEN. */
  schedule(shop: string, orderId: string, input: ScheduleInput): Result<FulfillmentOrderRecord> {
    const order = this.store.findOrder(shop, orderId);
    if (!order) return fail(['id'], `Order ${orderId} does not exist.`);
    const fo = input.fulfillmentOrderId
      ? order.fulfillmentOrders.find((f) => f.id === input.fulfillmentOrderId)
      : order.fulfillmentOrders.find((f) => f.status === 'OPEN' || f.status === 'SCHEDULED');
    if (!fo) return fail(['id'], 'Fulfillment order does not exist.');
    if (fo.status !== 'OPEN' && fo.status !== 'SCHEDULED') return fail(['id'], `The fulfillment order's status is ${fo.status.toLowerCase()}, it cannot be scheduled.`);
    const at = Date.parse(input.fulfillAt);
    if (Number.isNaN(at)) return fail(['fulfillAt'], 'fulfillAt must be an ISO 8601 date and time.');
    fo.fulfillAt = new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
    this.touch(order, fo, 'SCHEDULED');
    this.watch(order.shop, fo);
    return { ok: true, value: fo };
  }

  /** Opens every scheduled fulfillment order whose time has come, with its webhook; Shopify does this by itself. */
  openDue(): number {
    let opened = 0;
    const now = this.clock().getTime();
    for (const [foId, shop] of [...this.scheduled]) {
      const found = this.store.findFulfillmentOrder(shop, foId);
      if (!found || found.fo.status !== 'SCHEDULED') {
        if (!found || found.fo.status !== 'ON_HOLD') this.scheduled.delete(foId);
        continue;
      }
      if (!found.fo.fulfillAt || Date.parse(found.fo.fulfillAt) > now) continue;
      this.scheduled.delete(foId);
      this.touch(found.order, found.fo, found.fo.lineItems.some((l) => l.remainingQuantity < l.totalQuantity) ? 'IN_PROGRESS' : 'OPEN');
      this.emit({ topic: 'fulfillment_orders/scheduled_fulfillment_order_ready', shop, body: { fulfillment_order: { id: foId, status: found.fo.status.toLowerCase() } } });
      opened += 1;
    }
    return opened;
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.scheduled.clear();
  }

  private watch(shop: string, fo: FulfillmentOrderRecord): void {
    this.scheduled.set(fo.id, shop);
    const wait = Math.max(0, Date.parse(fo.fulfillAt ?? '') - this.clock().getTime());
    if (Number.isNaN(wait)) return;
    // Shopify opens it on its own at fulfillAt; a second tick covers a timer that fires a hair early.
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.openDue();
    }, Math.min(wait + 5, 2 ** 31 - 1));
    timer.unref();
    this.timers.add(timer);
  }

  private resumedStatus(fo: FulfillmentOrderRecord): FulfillmentOrderRecord['status'] {
    if (fo.fulfillAt && Date.parse(fo.fulfillAt) > this.clock().getTime()) return 'SCHEDULED';
    return fo.lineItems.some((l) => l.remainingQuantity < l.totalQuantity) ? 'IN_PROGRESS' : 'OPEN';
  }

  private touch(order: OrderRecord, fo: FulfillmentOrderRecord, status: FulfillmentOrderRecord['status']): void {
    const at = this.store.now();
    fo.status = status;
    fo.updatedAt = at;
    order.updatedAt = at;
  }
}

/** Only these offer the HOLD action (see HOLDS_PER_APP's note). */
function holdable(status: FulfillmentOrderRecord['status']): boolean {
  return status === 'OPEN' || status === 'ON_HOLD';
}

function fail<T>(field: string[] | null, message: string, code?: string): Result<T> {
  return { ok: false, userErrors: [{ field, message, ...(code ? { code } : {}) }] };
}
