import { about, clearProblems, markShipmentApplied, markShipmentFulfilled, markShipmentShipped, moveTo, ofKind, replaceProblems, setProblem } from '../orders/transitions.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { PrintEvent } from '../print-service/postback.js';
import { needsConfirmation, type ConfirmPrintEvent } from './confirm-print-event.js';
import { ShopifyUserError } from '../shopify/admin-api.js';
import type { OrderForFulfillment, TrackingInfo } from './shopify-data.js';
import { planFulfillment, type HeldFulfillmentOrder, type Shortfall } from '../shopify/fulfillment-plan.js';
import { OrderBusyError } from './errors.js';
import { recordHoldWait, waitingShipments, type ScheduleHoldRecheck } from './fulfillment-holds.js';
import type { OrderLink, Problem, ShipmentLink } from '../orders/model.js';
import type { ShopifyFulfillmentPort, TrackingLookup, OrderStore } from './ports.js';
import { isSettling, syncOrderToShopify } from './shopify-sync.js';
import { canMove, type OrderStatus } from '../orders/status.js';

/**
 * Applies one print-service event to the order link and to Shopify. Jobs are at-least-once and events come in any
 * order, so every branch is idempotent and statuses only move forward (`canMove`); a late or repeated event is kept
 * in the history and changes nothing else.
 *
 * Fulfillments are the one effect Shopify does not de-duplicate. Before creating one, the order's fulfillments are
 * read and one that already carries this shipment (its line items, its tracking number, not claimed by another
 * shipment) is adopted, so a job that died between Shopify's answer and the store write does not fulfil twice on
 * retry. The remaining quantities of the fulfillment orders are a second guard: a plan never asks for more than
 * remains open. A lease per order keeps two jobs of one order from acting on the same read.
 */

export interface ApplyPrintEventDeps {
  store: OrderStore;
  shopify: ShopifyFulfillmentPort;
  tracking: TrackingLookup;
  clock: () => Date;
  logger: Logger;
  /** Shopify's shipping e-mail to the customer on each fulfillment; on by default. */
  notifyCustomer?: boolean;
  /**
   * How long one order's lease lasts without renewal: a job renews it while it works, so this is only how long the
   * lease of a job whose worker died blocks the order's other events (default 10 s).
   */
  leaseMs?: number;
  /** Re-checks of shipments whose fulfillment orders Shopify holds (fulfillment-holds.ts); without it only webhooks end the wait. */
  scheduleHoldRecheck?: ScheduleHoldRecheck;
  /**
   * PRINT_CONFIRM_EVENTS: shipped, cancelled and errored claims are confirmed with the print service before they act
   * (confirm-print-event.ts). Without it every postback is believed (tests of the event logic alone).
   */
  confirm?: ConfirmPrintEvent;
  /** First re-check delay of a held shipment. */
  holdRecheckMs?: number;
  /**
   * Shows the order's status in Shopify later, by a sync job (Scheduler.syncShopify), instead of in the event's job:
   * the sync waits a moment (a minute for a status that seldom lasts: received, partially shipped) and repeats while
   * it waits are one, so an order's events close together (received, print-ready, its shipments) cost Shopify's query
   * budget one write instead of one each (issue 17). Without it the event's job shows the status itself.
   */
  showStatusLater?: (shop: string, orderId: string, options: { settling: boolean }) => Promise<void>;
}

export type ApplyPrintEventOutcome =
  | { kind: 'unknown-order'; reference: string }
  /** The order belongs to another store than the postback token's (or to a store on its own account). */
  | { kind: 'out-of-scope'; reference: string }
  | { kind: 'status'; status: OrderStatus; moved: boolean }
  | { kind: 'fulfilled'; shipmentIndex: number; fulfillmentId: string; adopted: boolean; shortfalls: Shortfall[] }
  | { kind: 'tracking-updated'; shipmentIndex: number; fulfillmentId: string }
  | { kind: 'nothing-to-fulfill'; shipmentIndex: number; shortfalls: Shortfall[] }
  | { kind: 'waiting-for-release'; shipmentIndex: number; message: string }
  | { kind: 'unchanged'; detail: string }
  | { kind: 'already-there'; detail: string }
  | { kind: 'not-fulfilled-cancelled'; shipmentIndex: number };

/** The event names an order or a shipment the link does not have: retrying will not change that. */
export class PrintEventMismatchError extends Error {
  readonly retryable = false;
  constructor(message: string) {
    super(message);
    this.name = 'PrintEventMismatchError';
  }
}

const DUPLICATE_SUBMISSION = /duplicate|already exists/i;

/**
 * `scope` is the store whose postback token delivered the event: it acts on that store's orders only. Without it (the
 * operator-wide token) it acts only on orders sent with the operator's account. An event outside its scope changes
 * nothing and is not retried; the order it names is not told (one store must not be able to write in another's history).
 */
export async function applyPrintEvent(deps: ApplyPrintEventDeps, event: PrintEvent, scope?: string): Promise<ApplyPrintEventOutcome> {
  const link = await findLink(deps.store, event, scope);
  if (!link) return { kind: 'unknown-order', reference: event.sourceOrderId ?? event.printOrderId ?? '?' };
  const log = deps.logger.child({ shop: link.shop, orderId: link.orderId, event: event.kind, sourceOrderId: link.sourceOrderId });
  const outside = scope ? link.shop !== scope : (link.printAccount ?? 'env') !== 'env';
  if (outside) {
    log.warn({ deliveredFor: scope ?? 'the operator-wide token' }, 'postback for an order outside its token\'s store refused; nothing changed');
    return { kind: 'out-of-scope', reference: event.sourceOrderId ?? event.printOrderId ?? '?' };
  }

  let confirmedErrors: string[] | undefined;
  if (deps.confirm && needsConfirmation(event.kind) && link.sourceOrderId && !onlyHistory(link, event)) {
    const confirmation = await deps.confirm(link, link.sourceOrderId, event);
    if (!confirmation.confirmed) return unconfirmed(deps, link, event, confirmation.reason, log);
    confirmedErrors = confirmation.errors;
  }

  switch (event.kind) {
    case 'received':
      return progress(deps, link, event, 'received');
    case 'print-ready':
      return progress(deps, link, event, 'print-ready');
    case 'errored':
      // What the service itself reports is the order's problem, not the text of whoever sent the postback.
      return failure(deps, link, confirmedErrors ? { ...event, errors: confirmedErrors } : event);
    case 'submission-error':
      return failure(deps, link, confirmedErrors ? { ...event, errors: confirmedErrors } : event);
    case 'cancelled':
      return cancelled(deps, link, event);
    case 'shipped':
      return withShipmentLease(deps, link, log, (leaseHeld) => shipped(deps, link, event, log, leaseHeld));
    case 'noted':
      return noted(deps, link, event);
  }
}

/**
 * An "errored" claim for an order that has shipped (or was cancelled) could not move it: it is kept in the history
 * only (failure), so there is nothing to confirm and no print-service read is spent on it.
 */
function onlyHistory(link: OrderLink, event: PrintEvent): boolean {
  // A refused duplicate submission changes no status either (failure: the order is there).
  if (event.kind === 'submission-error' && event.errors.some((m) => DUPLICATE_SUBMISSION.test(m))) return true;
  return (event.kind === 'errored' || event.kind === 'submission-error') && link.status !== 'error' && !canMove(link.status, 'error');
}

/**
 * A shipped, cancelled or errored postback the print service contradicts: no status changes and nothing is written to
 * Shopify; the order carries a problem saying so, with what the postback claimed (someone holding a postback token
 * sent it, or the service's trigger is wrong).
 */
async function unconfirmed(deps: ApplyPrintEventDeps, link: OrderLink, event: PrintEvent, reason: string, log: Logger): Promise<ApplyPrintEventOutcome> {
  const at = deps.clock().toISOString();
  const subject = event.kind === 'shipped' ? `shipment ${event.shipmentIndex ?? 0}` : event.kind === 'errored' ? 'print error' : 'cancellation';
  const claimed = event.kind === 'errored' ? event.errors.join('; ') : '';
  const claim = claimed ? ` It claimed: ${claimed.length > 500 ? `${claimed.slice(0, 499)}…` : claimed}` : '';
  const message = `A "${event.kind}" postback was not confirmed by the print service and changed nothing: ${reason}.${claim}`;
  await deps.store.update(link.shop, link.orderId, (c) =>
    c
      ? {
          link: setProblem(c, { kind: 'unconfirmed-postback', subject, message, at }),
          history: [{ event: `print service: ${event.kind} not confirmed (ignored)`, source: 'print-service', detail: [describe(event), reason].filter(Boolean).join('; ') }],
        }
      : undefined,
  );
  log.warn({ reason }, 'postback not confirmed by the print service; nothing written to Shopify');
  return { kind: 'unchanged', detail: `not confirmed: ${reason}` };
}

/** An event print-bridge does not act on: it goes into the order's history, and nothing else changes. */
async function noted(deps: ApplyPrintEventDeps, link: OrderLink, event: PrintEvent): Promise<ApplyPrintEventOutcome> {
  const detail = [describe(event), event.errors.length ? event.errors.join('; ') : ''].filter(Boolean).join('; ');
  await deps.store.note(link.shop, link.orderId, {
    event: `"${event.name ?? 'event'}" from the print service (recorded, not acted on)`,
    source: 'print-service',
    ...(detail ? { detail } : {}),
  });
  return { kind: 'unchanged', detail: `recorded ${event.name ?? 'an event'} without acting on it` };
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
      const tracking = trackingOf(deps, shop, { trackingNumber: shipment.trackingNumber, carrier: shipment.carrier });
      outcomes.push(await fulfilShipment(deps, link, shipment, tracking, log, leaseHeld));
    }
    if (outcomes.some((o) => o.kind !== 'waiting-for-release')) await showInShopify(deps, initial);
    return outcomes;
  });
}

/**
 * Runs `work` holding the order's lease. Renewed while Shopify is slow (a throttled bucket can hold a call for many
 * seconds), so the lease can be short and a dead worker's lease stops blocking the order soon.
 */
async function withShipmentLease<T>(deps: ApplyPrintEventDeps, link: OrderLink, log: Logger, work: (leaseHeld: () => void) => Promise<T>): Promise<T> {
  const leaseMs = deps.leaseMs ?? 10_000;
  const lease = await acquireLease(deps, link, leaseMs);
  let lost = false;
  const renewal = setInterval(() => {
    const markLost = () => {
      if (!lost) log.warn({ leaseMs }, 'order lease lost while applying a shipment (event loop or Redis stalled); stopping before the next Shopify write');
      lost = true;
    };
    deps.store.renewLease(link.shop, link.orderId, lease, leaseMs).then((held) => held || markLost(), markLost);
  }, Math.max(100, Math.floor(leaseMs / 3)));
  // Another job may hold the order once the lease is gone: no Shopify write after that; the job retries.
  const leaseHeld = () => {
    if (lost) throw new OrderBusyError(`order ${link.orderId}: lease lost while applying a shipment`, leaseMs / 5);
  };
  try {
    return await work(leaseHeld);
  } finally {
    clearInterval(renewal);
    await deps.store.releaseLease(link.shop, link.orderId, lease);
  }
}

/**
 * Shipments of one order usually ship together, so their jobs meet here; waiting a moment is cheaper than a failed
 * job and a queue round trip. A lease held longer (a slow Shopify) sends the job back to the queue to retry.
 */
async function acquireLease(deps: ApplyPrintEventDeps, link: OrderLink, leaseMs: number): Promise<string> {
  const deadline = Date.now() + 2_000;
  for (;;) {
    const lease = await deps.store.tryLease(link.shop, link.orderId, leaseMs);
    if (lease) return lease;
    // Short retries outlast a dead worker's lease (leaseMs) before the job falls back to its exponential backoff.
    if (Date.now() > deadline) throw new OrderBusyError(`order ${link.orderId} is being updated by another job`, Math.max(1_000, leaseMs / 5));
    await sleep(5 + Math.random() * 20);
  }
}

/** The store an event is about, for fairness between stores on the events queue; undefined when no order matches. */
export async function shopOfPrintEvent(store: OrderStore, event: PrintEvent, scope?: string): Promise<string | undefined> {
  return (await findLink(store, event, scope))?.shop;
}

/** sourceOrderIds are claimed per print account: `scope` (the token's store) says which claims the event can reach. */
async function findLink(store: OrderStore, event: PrintEvent, scope: string | undefined): Promise<OrderLink | undefined> {
  if (event.printOrderId) {
    const byPrint = await store.findByPrintOrderId(event.printOrderId);
    if (byPrint) return byPrint;
  }
  if (event.sourceOrderId) return store.findBySourceOrderId(event.sourceOrderId, scope);
  // A 24-hex OrderId may also be someone's sourceOrderId.
  return event.printOrderId ? store.findBySourceOrderId(event.printOrderId, scope) : undefined;
}

function eventTime(deps: ApplyPrintEventDeps, event: PrintEvent): string {
  return event.timestamp && !Number.isNaN(Date.parse(event.timestamp)) ? event.timestamp : deps.clock().toISOString();
}

function describe(event: PrintEvent): string {
  const parts = [
    event.shipmentIndex !== undefined ? `shipment ${event.shipmentIndex}` : '',
    event.trackingNumber ? `tracking ${event.trackingNumber}` : '',
    event.carrier?.code ? `carrier ${event.carrier.code}${event.carrier.service ? `/${event.carrier.service}` : ''}` : '',
    event.errors.length ? event.errors.join('; ') : '',
    event.timestamp ? `at ${event.timestamp}` : '',
  ];
  return parts.filter(Boolean).join(', ');
}

/** Moves the status when it is forward, records the event either way. */
async function moveStatus(
  deps: ApplyPrintEventDeps,
  link: OrderLink,
  event: PrintEvent,
  status: OrderStatus,
  change: (current: OrderLink, moved: boolean) => OrderLink = (c) => c,
): Promise<{ link: OrderLink; moved: boolean; from: OrderStatus }> {
  let moved = false;
  let from: OrderStatus = link.status;
  const at = eventTime(deps, event);
  const { link: stored } = await deps.store.update(link.shop, link.orderId, (current) => {
    if (!current) return undefined;
    from = current.status;
    // `error` is the one side exit an order can leave (canMove), so there the order of events matters: an event the
    // printer sent before the current status was reached cannot move the order in or out of error.
    const older = event.timestamp !== undefined && Date.parse(event.timestamp) < Date.parse(current.statusAt);
    const allowed = !(older && (current.status === 'error' || status === 'error'));
    const step = allowed ? moveTo(current, status, at) : { link: current, moved: false };
    moved = step.moved;
    return {
      link: change(step.link, moved),
      history: [
        {
          event: `print service: ${event.kind}${moved ? '' : ` (kept ${current.status})`}`,
          source: 'print-service',
          status: moved ? status : undefined,
          detail: describe(event) || undefined,
        },
      ],
    };
  });
  return { link: stored ?? link, moved, from };
}

/**
 * The order shows its print status in Shopify (tags and metafield) by the rule every writer uses (shopify-sync.ts),
 * so events in any order, repeats and other jobs' syncs all converge. With `showStatusLater` it is left to a sync job,
 * where the events of one order close together are shown once.
 */
async function showInShopify(deps: ApplyPrintEventDeps, link: OrderLink): Promise<void> {
  if (deps.showStatusLater) {
    await deps.showStatusLater(link.shop, link.orderId, { settling: isSettling(link.status) });
    return;
  }
  await syncOrderToShopify({ store: deps.store, shopify: deps.shopify }, link.shop, link.orderId);
}

async function progress(
  deps: ApplyPrintEventDeps,
  link: OrderLink,
  event: PrintEvent,
  status: 'received' | 'print-ready',
): Promise<ApplyPrintEventOutcome> {
  const result = await moveStatus(deps, link, event, status, (c, moved) =>
    // Progress at the printer clears what its earlier failure reported.
    moved ? clearProblems(c, ofKind('print-error', 'submission-error')) : c,
  );
  await showInShopify(deps, result.link);
  return { kind: 'status', status: result.link.status, moved: result.moved };
}

async function failure(deps: ApplyPrintEventDeps, link: OrderLink, event: PrintEvent): Promise<ApplyPrintEventOutcome> {
  const messages = event.errors.length > 0 ? event.errors : [event.kind === 'errored' ? 'the print service reported the order errored' : 'the print service reported a submission error'];
  if (event.kind === 'submission-error' && messages.some((m) => DUPLICATE_SUBMISSION.test(m))) {
    // A resubmission the printer refused because it has the order: the order is there, nothing failed.
    const detail = `the print service already has ${event.sourceOrderId ?? link.sourceOrderId}: ${messages.join('; ')}`;
    await deps.store.note(link.shop, link.orderId, { event: 'print service: duplicate submission refused (already there)', source: 'print-service', detail });
    return { kind: 'already-there', detail };
  }
  const kind = event.kind === 'errored' ? 'print-error' : 'submission-error';
  const at = eventTime(deps, event);
  const problems: Problem[] = messages.map((message) => ({ kind, message, at }));
  // A problem belongs to the error status it comes with: an "errored" that cannot move the order (it shipped
  // meanwhile, or the event is older than the current status) is kept in the history only, never as a stale problem.
  const result = await moveStatus(deps, link, event, 'error', (c, moved) =>
    moved || c.status === 'error' ? replaceProblems(c, ofKind(kind), problems) : c,
  );
  if (result.moved) await showInShopify(deps, result.link);
  return { kind: 'status', status: result.link.status, moved: result.moved };
}

async function cancelled(deps: ApplyPrintEventDeps, link: OrderLink, event: PrintEvent): Promise<ApplyPrintEventOutcome> {
  const ours = link.cancelRequested !== undefined && link.cancelRequested.by !== 'print-service';
  const at = eventTime(deps, event);
  const result = await moveStatus(deps, link, event, 'cancelled', (c) => ({
    ...c,
    cancelRequested: c.cancelRequested ?? { at, by: 'print-service' },
  }));
  if (!result.moved && result.link.status !== 'cancelled') {
    return { kind: 'unchanged', detail: `a ${result.link.status} order cannot be cancelled; the event is in the history` };
  }
  await showInShopify(deps, result.link);
  await deps.shopify.appendOrderNote(
    link.shop,
    link.orderId,
    ours
      ? `print-bridge: the print service confirmed the cancellation of ${link.sourceOrderId ?? 'this order'}.`
      : `print-bridge: ${link.sourceOrderId ?? 'this order'} was cancelled at the print service; nothing will be fulfilled by print-bridge.`,
  );
  return { kind: 'status', status: result.link.status, moved: result.moved };
}

// ------------------------------------------------------------------------------------------------------- shipments

function trackingOf(deps: ApplyPrintEventDeps, shop: string, event: Pick<PrintEvent, 'trackingNumber' | 'carrier'>): TrackingInfo | undefined {
  if (!event.trackingNumber) return undefined;
  const code = event.carrier?.code ?? event.carrier?.alias;
  const found = code ? deps.tracking(shop, code, event.trackingNumber) : {};
  return { number: event.trackingNumber, company: found.company ?? null, url: found.url ?? null };
}

async function shipped(deps: ApplyPrintEventDeps, initial: OrderLink, event: PrintEvent, log: Logger, leaseHeld: () => void): Promise<ApplyPrintEventOutcome> {
  const { shop, orderId } = initial;
  const index = event.shipmentIndex ?? (initial.shipments.length === 1 ? initial.shipments[0]!.index : undefined);
  if (index === undefined) throw new PrintEventMismatchError(`Shipment Shipped for ${initial.sourceOrderId ?? orderId} names no shipmentIndex, and the order has ${initial.shipments.length} shipments`);
  if (!initial.shipments.some((s) => s.index === index)) {
    throw new PrintEventMismatchError(`Shipment Shipped for ${initial.sourceOrderId ?? orderId} names shipment ${index}, which the order does not have (it has ${initial.shipments.map((s) => s.index).join(', ') || 'none'})`);
  }

  // The shipment's facts are recorded first: they are true whatever Shopify does next.
  const at = eventTime(deps, event);
  const { link } = await deps.store.update(shop, orderId, (current) => {
    if (!current) return undefined;
    const { link: next, changed, moved, target } = markShipmentShipped(current, index, { trackingNumber: event.trackingNumber, carrier: event.carrier, at });
    const cancelled = current.status === 'cancelled';
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

  const tracking = trackingOf(deps, shop, event);
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

  const order = await deps.shopify.getOrderForFulfillment(shop, orderId);
  if (!order) throw new PrintEventMismatchError(`Shopify has no order ${orderId} on ${shop} (deleted?); shipment ${shipment.index} cannot be fulfilled`);

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
