import { setProblem } from '../orders/transitions.js';
import type { Logger } from 'pino';
import type { PrintEvent } from '../print-service/postback.js';
import { needsConfirmation, type ConfirmPrintEvent } from './confirm-print-event.js';
import type { Shortfall } from '../shopify/fulfillment-plan.js';
import type { ScheduleHoldRecheck } from './fulfillment-holds.js';
import type { OrderLink } from '../orders/model.js';
import type { FulfillmentRequestsPort, ShopifyFulfillmentPort, TrackingLookup, OrderStore } from './ports.js';
import { canMove, type OrderStatus } from '../orders/status.js';
import { describe } from './print-event-history.js';
import { cancelled, DUPLICATE_SUBMISSION, failure, progress } from './print-event-status.js';
import { shipped } from './fulfil-shipment.js';
import { withShipmentLease } from './shipment-lease.js';

/**
 * Applies one print-service event to the order link and to Shopify. Jobs are at-least-once and events come in any
 * order, so every branch is idempotent and statuses only move forward (`canMove`); a late or repeated event is kept
 * in the history and changes nothing else.
 *
 * The dispatch is here; the status events (received, print ready, errored, cancelled) are in print-event-status.ts,
 * a shipment and its Shopify fulfillment in fulfil-shipment.ts.
 */

export interface ApplyPrintEventDeps {
  store: OrderStore;
  shopify: ShopifyFulfillmentPort;
  /** Fulfillment-service mode: a request still unanswered when its shipment ships is accepted first. */
  fulfillmentRequests?: FulfillmentRequestsPort;
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
  /**
   * Has an order that waits for Shopify's hold looked at again now (a submit job, which reads the holds and sends the
   * order if none it waits for is left). Without it the order's scheduled re-check does.
   */
  submitAgain?: (shop: string, orderId: string) => Promise<void>;
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

/**
 * `scope` is the store whose postback token delivered the event: it acts on that store's orders only. Without it (the
 * operator-wide token) it acts only on orders sent with the operator's account. An event outside its scope changes
 * nothing and is not retried; the order it names is not told (one store must not be able to write in another's history).
 */
export async function applyPrintEvent(deps: ApplyPrintEventDeps, event: PrintEvent, scope?: string): Promise<ApplyPrintEventOutcome> {
  const link = await findLink(deps.store, event, scope);
  if (!link) return { kind: 'unknown-order', reference: event.sourceOrderId ?? event.printOrderId ?? '?' };
  const log = deps.logger.child({ shop: link.shop, orderId: link.orderId, event: event.kind, sourceOrderId: link.sourceOrderId });
  if (!withinScope(link, scope)) {
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

/** The store an event is about, for fairness between stores on the events queue; undefined when no order matches. */
export async function shopOfPrintEvent(store: OrderStore, event: PrintEvent, scope?: string): Promise<string | undefined> {
  return (await findLink(store, event, scope))?.shop;
}

/** Whether a postback of `scope`'s token may act on the order: its store's own, or (operator-wide) one on the env account. */
function withinScope(link: OrderLink, scope: string | undefined): boolean {
  return scope ? link.shop === scope : (link.printAccount ?? 'env') === 'env';
}

/** sourceOrderIds are claimed per print account: `scope` (the token's store) says which claims the event can reach. */
async function findLink(store: OrderStore, event: PrintEvent, scope: string | undefined): Promise<OrderLink | undefined> {
  if (event.printOrderId) {
    const byPrint = await store.findByPrintOrderId(event.printOrderId, scope ? { shop: scope } : 'env-account');
    // Only another store's order has this print id: the event's sourceOrderId may still name one of the token's own.
    if (byPrint && !withinScope(byPrint, scope) && event.sourceOrderId) return (await store.findBySourceOrderId(event.sourceOrderId, scope)) ?? byPrint;
    if (byPrint) return byPrint;
  }
  if (event.sourceOrderId) return store.findBySourceOrderId(event.sourceOrderId, scope);
  // A 24-hex OrderId may also be someone's sourceOrderId.
  return event.printOrderId ? store.findBySourceOrderId(event.printOrderId, scope) : undefined;
}
