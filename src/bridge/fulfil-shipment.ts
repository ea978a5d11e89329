import { about, markShipmentApplied, markShipmentFulfilled, markShipmentShipped, replaceProblems, updateShipment } from '../orders/transitions.js';
import type { Logger } from 'pino';
import type { PrintEvent } from '../print-service/postback.js';
import { ShopifyUserError } from '../shopify/admin-api.js';
import type { OrderForFulfillment, TrackingInfo } from './shopify-data.js';
import { acceptBeforeFulfilling, serviceFulfillmentOrderIds } from './fulfillment-requests.js';
import { planFulfillment, type HeldFulfillmentOrder, type Shortfall } from '../shopify/fulfillment-plan.js';
import { recordHoldWait, releaseOwnHolds, waitingShipments } from './fulfillment-holds.js';
import type { OrderLink, ShipmentLink } from '../orders/model.js';
import type { ApplyPrintEventDeps, ApplyPrintEventOutcome } from './apply-print-event.js';
import { describe, eventTime } from './print-event-history.js';
import { showInShopify } from './print-event-status.js';
import { withShipmentLease } from './shipment-lease.js';

/**
 * A shipment the print service reports shipped, fulfilled in Shopify with its tracking (or waiting for Shopify to
 * release a fulfillment hold).
 *
 * Fulfillments are the one effect Shopify does not de-duplicate. Before creating one, the order's fulfillments are
 * read and one that already carries this shipment (its line items, its tracking number, not claimed by another
 * shipment) is adopted, so a job that died between Shopify's answer and the store write does not fulfil twice on
 * retry. The remaining quantities of the fulfillment orders are a second guard: a plan never asks for more than
 * remains open. A lease per order (shipment-lease.ts) keeps two jobs of one order from acting on the same read.
 */

/** A shipment fulfilled without the tracking link the mapping's table has, because its URL template could not render. */
export const TRACKING_URL_PROBLEM = 'tracking-url';

/** The event names an order or a shipment the link does not have: retrying will not change that. */
export class PrintEventMismatchError extends Error {
  readonly retryable = false;
  constructor(message: string) {
    super(message);
    this.name = 'PrintEventMismatchError';
  }
}

/**
 * Fulfils, with their tracking, the order's shipments that shipped at the printer and are not carried out in Shopify
 * yet: those that waited for Shopify to release a fulfillment hold. Run by the fulfillment-order webhooks and by the
 * hold re-checks; one still held keeps waiting (and gets its next re-check).
 */
export async function fulfilWaitingShipments(deps: ApplyPrintEventDeps, shop: string, orderId: string): Promise<ApplyPrintEventOutcome[]> {
  const initial = await deps.store.get(shop, orderId);
  if (!initial || initial.status === 'cancelled' || waitingShipments(initial).length === 0) return [];
  const log = deps.logger.child({ shop, orderId, sourceOrderId: initial.sourceOrderId });
  return withShipmentLease(deps, initial, log, async (leaseHeld) => {
    const outcomes: ApplyPrintEventOutcome[] = [];
    for (const index of waitingShipments((await deps.store.get(shop, orderId)) ?? initial)) {
      const link = (await deps.store.get(shop, orderId)) ?? initial;
      const shipment = link.shipments.find((s) => s.index === index)!;
      // The URL rendered when the shipment shipped is the one kept: a render that fails now cannot take it away.
      const { info } = await trackingOf(deps, shop, { trackingNumber: shipment.trackingNumber, carrier: shipment.carrier });
      const tracking = info && shipment.trackingUrl ? { ...info, url: shipment.trackingUrl } : info;
      outcomes.push(await fulfilShipment(deps, link, shipment, tracking, log, leaseHeld));
    }
    if (outcomes.some((o) => o.kind !== 'waiting-for-release')) await showInShopify(deps, initial);
    return outcomes;
  });
}

/**
 * The tracking Shopify gets: the company and URL the store's mapping names for the carrier. The URL template renders
 * in the render pool within the budget (`deps.tracking`); one that could not render gives no URL and `problem`.
 */
async function trackingOf(deps: ApplyPrintEventDeps, shop: string, event: Pick<PrintEvent, 'trackingNumber' | 'carrier'>): Promise<{ info?: TrackingInfo; problem?: string }> {
  if (!event.trackingNumber) return {};
  const code = event.carrier?.code ?? event.carrier?.alias;
  const found = code ? await deps.tracking(shop, code, event.trackingNumber) : {};
  return { info: { number: event.trackingNumber, company: found.company ?? null, url: found.url ?? null }, problem: found.problem };
}

export async function shipped(deps: ApplyPrintEventDeps, initial: OrderLink, event: PrintEvent, log: Logger, leaseHeld: () => void): Promise<ApplyPrintEventOutcome> {
  const { shop, orderId } = initial;
  const index = event.shipmentIndex ?? (initial.shipments.length === 1 ? initial.shipments[0]!.index : undefined);
  if (index === undefined) throw new PrintEventMismatchError(`Shipment Shipped for ${initial.sourceOrderId ?? orderId} names no shipmentIndex, and the order has ${initial.shipments.length} shipments`);
  if (!initial.shipments.some((s) => s.index === index)) {
    throw new PrintEventMismatchError(`Shipment Shipped for ${initial.sourceOrderId ?? orderId} names shipment ${index}, which the order does not have (it has ${initial.shipments.map((s) => s.index).join(', ') || 'none'})`);
  }

  // The tracking URL is rendered once here, in the render pool within the budget, and kept with the shipment: the
  // pages show it as kept. A template that could not give one leaves the shipment without a link, and says why.
  const { info: tracking, problem } = await trackingOf(deps, shop, event);
  // The shipment's facts are recorded first: they are true whatever Shopify does next.
  const at = eventTime(deps, event);
  const { link } = await deps.store.update(shop, orderId, (current) => {
    if (!current) return undefined;
    const before = current.shipments.find((s) => s.index === index);
    const { link: marked, changed, moved, target } = markShipmentShipped(current, index, { trackingNumber: event.trackingNumber, carrier: event.carrier, at });
    // A repeated event whose render fails keeps the URL rendered for the same tracking number before.
    const keptUrl = before?.trackingNumber === event.trackingNumber ? before?.trackingUrl : undefined;
    const cancelled = current.status === 'cancelled';
    const subject = `tracking of shipment ${index}`;
    const next = replaceProblems(
      tracking ? updateShipment(marked, index, (s) => ({ ...s, trackingUrl: tracking.url ?? (problem ? keptUrl : undefined) })) : marked,
      (p) => p.kind === TRACKING_URL_PROBLEM && p.subject === subject,
      problem ? [{ kind: TRACKING_URL_PROBLEM, subject, message: problem, at }] : [],
    );
    return {
      link: next,
      history: [
        {
          event: cancelled
            ? `print service: shipment ${index} shipped after the order was cancelled (not fulfilled)`
            : `print service: shipment ${index} shipped${changed ? '' : ' (repeat)'}`,
          source: 'print-service',
          status: moved ? target : undefined,
          detail: describe(event) || undefined,
        },
      ],
    };
  });
  if (!link) throw new PrintEventMismatchError(`order ${orderId} disappeared from the store`);
  const shipment = link.shipments.find((s) => s.index === index)!;

  if (link.status === 'cancelled') {
    await deps.shopify.appendOrderNote(
      shop,
      orderId,
      `print-bridge: the print service reported shipment ${index + 1} shipped${event.trackingNumber ? ` (tracking ${event.trackingNumber})` : ''} after the order was cancelled; it was not fulfilled in Shopify. Check with the printer.`,
    );
    return { kind: 'not-fulfilled-cancelled', shipmentIndex: index };
  }

  const outcome = await fulfilShipment(deps, link, shipment, tracking, log, leaseHeld);
  await showInShopify(deps, link);
  return outcome;
}

async function fulfilShipment(
  deps: ApplyPrintEventDeps,
  link: OrderLink,
  shipment: ShipmentLink,
  tracking: TrackingInfo | undefined,
  log: Logger,
  leaseHeld: () => void,
): Promise<ApplyPrintEventOutcome> {
  const { shop, orderId } = link;
  const notify = deps.notifyCustomer ?? true;
  const wantedNumber = tracking?.number ?? undefined;

  if (shipment.fulfillmentId) {
    // An empty tracking number never clears the tracking a fulfillment already has.
    if (!wantedNumber || wantedNumber === shipment.fulfilledTrackingNumber) return { kind: 'unchanged', detail: `shipment ${shipment.index} is fulfilled as ${shipment.fulfillmentId}` };
    leaseHeld();
    await deps.shopify.updateFulfillmentTracking(shop, shipment.fulfillmentId, tracking!, notify);
    await recordFulfillment(deps, link, shipment.index, shipment.fulfillmentId, wantedNumber, `tracking changed to ${wantedNumber}`);
    log.info({ fulfillmentId: shipment.fulfillmentId, trackingNumber: wantedNumber }, 'fulfillment tracking updated');
    return { kind: 'tracking-updated', shipmentIndex: shipment.index, fulfillmentId: shipment.fulfillmentId };
  }
  if (shipment.appliedAt) return { kind: 'unchanged', detail: `shipment ${shipment.index} was applied at ${shipment.appliedAt} with nothing left to fulfill` };

  if (link.fulfillmentRequest) await acceptBeforeFulfilling(deps, link);
  const readOrder = async () => {
    const read = await deps.shopify.getOrderForFulfillment(shop, orderId);
    if (!read) throw new PrintEventMismatchError(`Shopify has no order ${orderId} on ${shop} (deleted?); shipment ${shipment.index} cannot be fulfilled`);
    return ownFulfillmentOrders(deps, link, read);
  };
  let order = await readOrder();
  const shipmentLines = shipment.lineItems.map((l) => l.lineItemId);
  if (await releaseOwnHolds(deps, link, shipmentLines, order)) order = await readOrder();

  const claimed = new Set(link.shipments.map((s) => s.fulfillmentId).filter((id): id is string => Boolean(id)));
  const existing = findOwnFulfillment(order, shipment, wantedNumber, claimed);
  if (existing) {
    await recordFulfillment(deps, link, shipment.index, existing.id, trackingNumbersOf(existing)[0], 'found in Shopify (created by an earlier attempt)');
    if (wantedNumber && !trackingNumbersOf(existing).includes(wantedNumber)) {
      leaseHeld();
      await deps.shopify.updateFulfillmentTracking(shop, existing.id, tracking!, notify);
      await recordFulfillment(deps, link, shipment.index, existing.id, wantedNumber, `tracking changed to ${wantedNumber}`);
    }
    return { kind: 'fulfilled', shipmentIndex: shipment.index, fulfillmentId: existing.id, adopted: true, shortfalls: [] };
  }

  const wanted = shipment.lineItems.map((l) => ({ lineItemId: l.lineItemId, quantity: l.quantity }));
  const plan = planFulfillment(order, wanted);
  // One parcel, one tracking number: a shipment any of whose items Shopify holds waits whole for the release.
  if (plan.held.length > 0) return await waitForRelease(deps, link, shipment.index, plan.held, tracking);
  if (plan.shortfalls.length > 0) await noteShortfalls(deps, link, order, shipment.index, plan.shortfalls);
  if (plan.fulfillmentOrders.length === 0) {
    await deps.store.update(shop, orderId, (current) =>
      current
        ? {
            link: markShipmentApplied(current, shipment.index, deps.clock().toISOString()),
            history: [{ event: `shipment ${shipment.index}: nothing left to fulfill in Shopify`, source: 'worker', detail: shortfallText(order, plan.shortfalls) }],
          }
        : undefined,
    );
    return { kind: 'nothing-to-fulfill', shipmentIndex: shipment.index, shortfalls: plan.shortfalls };
  }

  let created;
  leaseHeld();
  try {
    created = await deps.shopify.createFulfillment(shop, { orderGid: orderId, fulfillmentOrders: plan.fulfillmentOrders, trackingInfo: tracking, notifyCustomer: notify });
  } catch (error) {
    if (error instanceof ShopifyUserError) {
      // A hold placed between the read and the write: Shopify refuses the held fulfillment order. That is a wait.
      const again = await deps.shopify.getOrderForFulfillment(shop, orderId).catch(() => null);
      const held = again ? planFulfillment(again, wanted).held : [];
      if (held.length > 0) return await waitForRelease(deps, link, shipment.index, held, tracking);
      const at = deps.clock().toISOString();
      await deps.store.update(shop, orderId, (current) =>
        current
          ? {
              link: replaceProblems(current, about(`shipment ${shipment.index}`), [{ kind: 'fulfillment', subject: `shipment ${shipment.index}`, message: error.message, at }]),
              history: [{ event: `shipment ${shipment.index}: Shopify refused the fulfillment`, source: 'worker', detail: error.message }],
            }
          : undefined,
      );
    }
    throw error;
  }
  await recordFulfillment(deps, link, shipment.index, created.id, wantedNumber, `fulfilled as ${created.name}`);
  log.info({ fulfillmentId: created.id, shipmentIndex: shipment.index, trackingNumber: wantedNumber }, 'shipment fulfilled in Shopify');
  return { kind: 'fulfilled', shipmentIndex: shipment.index, fulfillmentId: created.id, adopted: false, shortfalls: plan.shortfalls };
}

/** In service mode, the order as far as the app may fulfil it: the fulfillment orders it accepted; the merchant's stay untouched. */
async function ownFulfillmentOrders(deps: ApplyPrintEventDeps, link: OrderLink, order: OrderForFulfillment): Promise<OrderForFulfillment> {
  const fresh = link.fulfillmentRequest ? await deps.store.get(link.shop, link.orderId) : undefined;
  const own = serviceFulfillmentOrderIds(fresh ?? link);
  return own ? { ...order, fulfillmentOrders: order.fulfillmentOrders.filter((fo) => own.has(fo.id)) } : order;
}

async function recordFulfillment(deps: ApplyPrintEventDeps, link: OrderLink, index: number, fulfillmentId: string, trackingNumber: string | undefined, detail: string): Promise<void> {
  await deps.store.update(link.shop, link.orderId, (current) => {
    const fulfilled = current && markShipmentFulfilled(current, index, { fulfillmentId, trackingNumber, at: deps.clock().toISOString() });
    if (!fulfilled) return undefined;
    return {
      link: fulfilled,
      history: [{ event: `shipment ${index} fulfilled in Shopify`, source: 'worker', detail: `${fulfillmentId}: ${detail}` }],
    };
  });
}

function trackingNumbersOf(fulfillment: OrderForFulfillment['fulfillments'][number]): string[] {
  return fulfillment.trackingInfo.map((t) => t.number).filter((n): n is string => Boolean(n));
}

/**
 * A fulfillment this shipment already has in Shopify: not cancelled, not claimed by another shipment, with the
 * tracking number wanted (or none when none is wanted) and only the shipment's line items, at most its quantities.
 */
function findOwnFulfillment(
  order: OrderForFulfillment,
  shipment: ShipmentLink,
  trackingNumber: string | undefined,
  claimed: Set<string>,
): OrderForFulfillment['fulfillments'][number] | undefined {
  const wanted = new Map<string, number>();
  for (const l of shipment.lineItems) wanted.set(l.lineItemId, (wanted.get(l.lineItemId) ?? 0) + l.quantity);
  const fits = (f: OrderForFulfillment['fulfillments'][number]) => {
    if (claimed.has(f.id) || /^(CANCELLED|ERROR|FAILURE)$/i.test(f.status)) return false;
    const numbers = trackingNumbersOf(f);
    if (trackingNumber ? !numbers.includes(trackingNumber) : numbers.length > 0) return false;
    const got = new Map<string, number>();
    for (const l of f.lineItems) got.set(l.lineItemId, (got.get(l.lineItemId) ?? 0) + l.quantity);
    return got.size > 0 && [...got].every(([id, q]) => q <= (wanted.get(id) ?? 0));
  };
  return order.fulfillments.filter(fits).sort((a, b) => total(b) - total(a))[0];
}

function total(f: OrderForFulfillment['fulfillments'][number]): number {
  return f.lineItems.reduce((sum, l) => sum + l.quantity, 0);
}

function shortfallText(order: OrderForFulfillment, shortfalls: Shortfall[]): string {
  const name = (id: string) => order.lineItems.find((l) => l.id === id)?.name ?? id;
  const why = {
    'already-fulfilled': 'already fulfilled in Shopify',
    cancelled: 'cancelled in Shopify',
    'not-in-order': 'no longer in the order',
    'on-hold': 'on hold in Shopify',
    scheduled: 'scheduled for later in Shopify',
  } as const;
  return shortfalls.map((s) => `${s.quantity} × ${name(s.lineItemId)} (${why[s.reason]})`).join(', ');
}

async function noteShortfalls(deps: ApplyPrintEventDeps, link: OrderLink, order: OrderForFulfillment, index: number, shortfalls: Shortfall[]): Promise<void> {
  await deps.shopify.appendOrderNote(
    link.shop,
    link.orderId,
    `print-bridge: shipment ${index + 1} shipped; not fulfilled again by print-bridge: ${shortfallText(order, shortfalls)}.`,
  );
}

/** Records the wait and tells the merchant in the Shopify order too, once per shipment and tracking number. */
async function waitForRelease(
  deps: ApplyPrintEventDeps,
  link: OrderLink,
  index: number,
  held: HeldFulfillmentOrder[],
  tracking: TrackingInfo | undefined,
): Promise<ApplyPrintEventOutcome> {
  const wait = await recordHoldWait(deps, link, index, held);
  const message = wait?.message ?? '';
  if (wait && wait.checks === 1) {
    await deps.shopify.appendOrderNote(
      link.shop,
      link.orderId,
      `print-bridge: shipment ${index + 1} shipped${tracking?.number ? ` with tracking ${tracking.number}` : ''}; Shopify holds its fulfillment order, so it will be fulfilled${tracking?.number ? ' with this tracking' : ''} once released.`,
    );
  }
  deps.logger.info({ shop: link.shop, orderId: link.orderId, shipmentIndex: index, wait: message }, 'shipment waits for Shopify to release its fulfillment order');
  return { kind: 'waiting-for-release', shipmentIndex: index, message };
}
