import { updateShipment } from '../orders/transitions.js';
import type { Logger } from 'pino';
import type { HeldFulfillmentOrder } from '../shopify/fulfillment-plan.js';
import type { HoldWait, OrderLink } from '../orders/model.js';
import type { OrderStore } from './ports.js';
import { recordedText } from '../orders/recorded-text.js';
import { isOwnHold } from '../shopify/app-hold.js';
import type { OrderForFulfillment } from './shopify-data.js';

/**
 * A shipment whose fulfillment orders Shopify holds (ON_HOLD: a payment to clear, a fraud check, an address to fix;
 * SCHEDULED: a pre-order or subscription not due yet) cannot be fulfilled: `fulfillmentCreate` refuses them. Marking
 * it done would lose the tracking the customer needs, so the shipment waits, visibly, and is fulfilled with its
 * tracking once Shopify releases the hold. Three things end the wait: the fulfillment-order webhooks
 * (`hold_released`, `scheduled_fulfillment_order_ready`), a re-check job that reads the order again (spaced out,
 * so a lost webhook cannot strand the shipment), and any later postback for the order.
 */

/** The first re-check comes after this long; each further one waits twice as long, up to RECHECK_CAP_MS. */
export const DEFAULT_HOLD_RECHECK_MS = 15 * 60_000;
export const RECHECK_CAP_MS = 6 * 3600_000;

/** Schedules a re-check of an order's waiting shipments after `delayMs` (a delayed job on the Shopify queue). */
export type ScheduleHoldRecheck = (shop: string, orderId: string, delayMs: number, check: number) => Promise<void>;

export interface HoldWaitDeps {
  store: OrderStore;
  clock: () => Date;
  logger: Logger;
  scheduleHoldRecheck?: ScheduleHoldRecheck;
  /** First re-check delay (default DEFAULT_HOLD_RECHECK_MS). */
  holdRecheckMs?: number;
}

/** The wait as the merchant reads it on the order page. */
export function describeHoldWait(held: readonly HeldFulfillmentOrder[]): string {
  const onHold = held.filter((h) => h.status === 'ON_HOLD');
  if (onHold.length > 0) {
    const reasons = [...new Set(onHold.flatMap((h) => h.reasons))];
    return `waiting for the fulfillment hold to be released: ${reasons.length > 0 ? reasons.join('; ') : 'no reason given'}`;
  }
  const dates = held.map((h) => h.fulfillAt).filter((d): d is string => Boolean(d)).sort();
  return `waiting for the scheduled fulfillment order to become ready${dates.length > 0 ? ` at ${dates[0]}` : ''}`;
}

/** When to look again: at a scheduled order's time (a little after), else spaced out from `baseMs`, doubling. */
export function recheckDelayMs(check: number, held: readonly HeldFulfillmentOrder[], now: Date, baseMs = DEFAULT_HOLD_RECHECK_MS): number {
  const backoff = Math.min(RECHECK_CAP_MS, baseMs * 2 ** Math.max(0, check - 1));
  if (held.some((h) => h.status === 'ON_HOLD')) return backoff;
  const due = held.map((h) => (h.fulfillAt ? Date.parse(h.fulfillAt) : Number.NaN)).filter((t) => !Number.isNaN(t));
  if (due.length === 0) return backoff;
  // Shopify opens it at fulfillAt and sends its webhook; the re-check follows shortly after in case that is lost.
  return Math.min(RECHECK_CAP_MS, Math.max(baseMs, Math.min(...due) - now.getTime() + baseMs));
}

/**
 * Records that shipment `index` waits for Shopify to release `held`, and schedules the next re-check. The history
 * gets an entry when the wait starts or its reason changes, not on every re-check.
 */
export async function recordHoldWait(deps: HoldWaitDeps, link: OrderLink, index: number, held: readonly HeldFulfillmentOrder[]): Promise<HoldWait | undefined> {
  const now = deps.clock();
  const message = describeHoldWait(held);
  let wait: HoldWait | undefined;
  await deps.store.update(link.shop, link.orderId, (current) => {
    if (!current) return undefined;
    const shipment = current.shipments.find((s) => s.index === index);
    if (!shipment || shipment.fulfillmentId || shipment.appliedAt) return undefined;
    const previous = shipment.waitingForRelease;
    const checks = (previous?.checks ?? 0) + 1;
    const delay = recheckDelayMs(checks, held, now, deps.holdRecheckMs);
    wait = {
      since: previous?.since ?? now.toISOString(),
      message,
      fulfillmentOrderIds: held.map((h) => h.fulfillmentOrderId),
      checks,
      nextCheckAt: new Date(now.getTime() + delay).toISOString(),
    };
    // The store keeps the message cut to its limit: compared as kept, a long hold note is no change on each re-check.
    const changed = previous?.message !== recordedText(message);
    return {
      link: updateShipment(current, index, (s) => ({ ...s, waitingForRelease: wait })),
      history: changed ? [{ event: `shipment ${index}: not fulfilled yet, Shopify holds its fulfillment order`, source: 'worker', detail: message }] : [],
    };
  });
  if (wait && deps.scheduleHoldRecheck) {
    const delay = Math.max(0, Date.parse(wait.nextCheckAt!) - now.getTime());
    await deps.scheduleHoldRecheck(link.shop, link.orderId, delay, wait.checks);
  } else if (wait) {
    deps.logger.warn({ shop: link.shop, orderId: link.orderId, shipmentIndex: index }, 'no re-check scheduler: the held shipment waits for a fulfillment-order webhook');
  }
  return wait;
}

/** Shipments shipped at the printer and still waiting to be carried out in Shopify. */
export function waitingShipments(link: OrderLink): number[] {
  return link.shipments.filter((s) => s.status === 'shipped' && !s.fulfillmentId && !s.appliedAt).map((s) => s.index);
}

/**
 * print-bridge's own hold (app-holds.ts) never makes it wait: on the fulfillment orders a shipment needs, the app's own
 * holds are released (by id; the merchant's and other apps' stay) before it plans the fulfillment. True when it
 * released any: the order is to be read again.
 */
export async function releaseOwnHolds(
  deps: { shopify: { releaseHolds(shop: string, fulfillmentOrderId: string, holdIds: readonly string[]): Promise<void> } },
  link: OrderLink,
  lineItemIds: readonly string[],
  order: OrderForFulfillment,
): Promise<boolean> {
  const wanted = new Set(lineItemIds);
  let released = false;
  for (const fo of order.fulfillmentOrders) {
    const own = fo.holds.filter(isOwnHold).map((h) => h.id);
    if (fo.status !== 'ON_HOLD' || own.length === 0 || !fo.lineItems.some((l) => wanted.has(l.lineItemId))) continue;
    await deps.shopify.releaseHolds(link.shop, fo.id, own);
    released = true;
  }
  return released;
}
