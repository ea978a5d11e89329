import { DEFAULT_SHOPIFY_API_VERSION } from '../../config.js';
import { randomUUID } from 'node:crypto';
import { postSigned } from './signed-post.js';
import {
  FULFILLMENT_HOLD_REASONS,
  type FulfillmentHoldReason,
  type FulfillmentHoldRecord,
  type FulfillmentOrderRecord,
  type OrderRecord,
  type Result,
} from './records.js';
import type { StandInStore } from './store.js';

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
  /** Unique among one fulfillment order's holds (Shopify: one app's handles); '' by default. */
  handle?: string;
}

export interface ReleaseInput {
  /** Which fulfillment order; every held one of the order when omitted. */
  fulfillmentOrderId?: string;
  /** Which holds; all of the fulfillment order's when omitted. */
  holdIds?: string[];
}

export interface ScheduleInput {
  fulfillmentOrderId?: string;
  /** ISO date-time when it becomes ready. */
  fulfillAt: string;
}

const DISPLAY_REASON: Record<FulfillmentHoldReason, string> = {
  AWAITING_PAYMENT: 'Awaiting payment',
  AWAITING_RETURN_ITEMS: 'Awaiting return items',
  HIGH_RISK_OF_FRAUD: 'High risk of fraud',
  INCORRECT_ADDRESS: 'Incorrect address',
  INVENTORY_OUT_OF_STOCK: 'Inventory out of stock',
  ONLINE_STORE_POST_PURCHASE_CROSS_SELL: 'Post-purchase upsell',
  OTHER: 'Other',
  UNKNOWN_DELIVERY_DATE: 'Unknown delivery date',
};

export function displayReason(reason: FulfillmentHoldReason): string {
  return DISPLAY_REASON[reason];
}

export function isHoldReason(value: string): value is FulfillmentHoldReason {
  return (FULFILLMENT_HOLD_REASONS as readonly string[]).includes(value);
}

export class StandInHolds {
  /** Scheduled fulfillment orders and their shop, so that only these are looked at for being due. */
  private readonly scheduled = new Map<string, string>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly store: StandInStore,
    private readonly emit: (webhook: FulfillmentOrderWebhook) => void,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  place(shop: string, orderId: string, input: HoldInput = {}): Result<{ fulfillmentOrder: FulfillmentOrderRecord; hold: FulfillmentHoldRecord }> {
    const order = this.store.findOrder(shop, orderId);
    if (!order) return fail(['id'], `Order ${orderId} does not exist.`);
    const fo = input.fulfillmentOrderId
      ? order.fulfillmentOrders.find((f) => f.id === input.fulfillmentOrderId)
      : order.fulfillmentOrders.find((f) => holdable(f.status));
    if (!fo) return fail(['id'], input.fulfillmentOrderId ? 'Fulfillment order does not exist.' : `Order ${orderId} has no fulfillment order that can be held.`);
    if (!holdable(fo.status)) return fail(['id'], `The fulfillment order's status is ${fo.status.toLowerCase()}, it cannot be placed on hold.`, 'FULFILLMENT_ORDER_NOT_FOUND');
    const handle = input.handle ?? '';
    if (fo.fulfillmentHolds.some((h) => h.handle === handle)) {
      return fail(['fulfillmentHold', 'handle'], `A hold with the handle '${handle}' already exists on this fulfillment order.`, 'DUPLICATE_FULFILLMENT_HOLD_HANDLES');
    }
    const hold: FulfillmentHoldRecord = {
      id: this.store.nextGid('FulfillmentHold'),
      reason: input.reason ?? 'OTHER',
      reasonNotes: input.reasonNotes ?? null,
      handle,
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
        created_fulfillment_hold: { id: hold.id, reason: hold.reason.toLowerCase(), reason_notes: hold.reasonNotes, handle: hold.handle, held_by_requesting_app: false },
      },
    });
    return { ok: true, value: { fulfillmentOrder: fo, hold } };
  }

  /** Releases holds; a fulfillment order left without any goes back to where it was (OPEN, IN_PROGRESS or SCHEDULED). */
  release(shop: string, orderId: string, input: ReleaseInput = {}): Result<FulfillmentOrderRecord[]> {
    const order = this.store.findOrder(shop, orderId);
    if (!order) return fail(['id'], `Order ${orderId} does not exist.`);
    const targets = input.fulfillmentOrderId
      ? order.fulfillmentOrders.filter((f) => f.id === input.fulfillmentOrderId)
      : order.fulfillmentOrders.filter((f) => f.status === 'ON_HOLD');
    if (targets.length === 0) return fail(['id'], input.fulfillmentOrderId ? 'Fulfillment order does not exist.' : `Order ${orderId} has no fulfillment order on hold.`);
    for (const fo of targets) {
      if (fo.status !== 'ON_HOLD') return fail(['id'], `The fulfillment order ${fo.id} is not on hold.`, 'INVALID_FULFILLMENT_ORDER_STATUS');
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

function holdable(status: FulfillmentOrderRecord['status']): boolean {
  return status === 'OPEN' || status === 'IN_PROGRESS' || status === 'SCHEDULED' || status === 'ON_HOLD';
}

function fail<T>(field: string[] | null, message: string, code?: string): Result<T> {
  return { ok: false, userErrors: [{ field, message, ...(code ? { code } : {}) }] };
}

export interface WebhookTarget {
  /** Where Shopify would deliver: the app's `/webhooks`. */
  url: string;
  /** The app's client secret (SHOPIFY_API_SECRET): bodies are signed with it as Shopify does. */
  secret: string;
  apiVersion?: string;
}

export interface SentWebhook {
  at: string;
  topic: FulfillmentOrderTopic;
  shop: string;
  webhookId: string;
  body: Record<string, unknown>;
  /** HTTP status of the app's answer, 0 when it could not be reached, null when sending is off. */
  status: number | null;
}

/**
 * Delivers the fulfillment-order webhooks to the app, signed with its secret, as Shopify would. Sending can be turned
 * off (`paused`) to play a webhook Shopify failed to deliver; what would have been sent is still logged.
 */
export class StandInWebhooks {
  private target: WebhookTarget | undefined;
  private paused = false;
  private readonly sent: SentWebhook[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(target?: WebhookTarget) {
    this.target = target;
  }

  configure(target: WebhookTarget | undefined, options: { paused?: boolean } = {}): void {
    this.target = target;
    if (options.paused !== undefined) this.paused = options.paused;
  }

  pause(paused: boolean): void {
    this.paused = paused;
  }

  /** The secret webhooks are signed with (the app's), when a target is configured. */
  secret(): string | undefined {
    return this.target?.secret;
  }

  log(): SentWebhook[] {
    return this.sent.map((s) => ({ ...s }));
  }

  /** Resolves once every delivery started so far has had its answer. */
  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  send(webhook: FulfillmentOrderWebhook): void {
    const entry: SentWebhook = { at: new Date().toISOString(), topic: webhook.topic, shop: webhook.shop, webhookId: randomUUID(), body: webhook.body, status: null };
    this.sent.push(entry);
    if (this.sent.length > 1000) this.sent.splice(0, this.sent.length - 1000);
    const target = this.target;
    if (!target || this.paused) return;
    const raw = JSON.stringify(webhook.body);
    postSigned(
      target.url,
      raw,
      target.secret,
      {
        'x-shopify-topic': webhook.topic,
        'x-shopify-shop-domain': webhook.shop,
        'x-shopify-webhook-id': entry.webhookId,
        'x-shopify-event-id': randomUUID(),
        'x-shopify-api-version': target.apiVersion ?? DEFAULT_SHOPIFY_API_VERSION,
        'x-shopify-triggered-at': entry.at,
      },
      entry,
      this.inFlight,
    );
  }
}
