import type { OrderLink } from '../orders/model.js';
import { mergeRequests, pendingRequests, recordAnswer, type PlannedRejection, type RequestedFulfillmentOrder, type ServiceRequest } from '../orders/service-request.js';
import { isSubmittedStatus } from '../orders/status.js';
import { ShopifyProtocolError, ShopifyUserError } from '../shopify/admin-api.js';
import { parseOrderWebhook } from '../shopify/order-webhook.js';
import type { AssignedFulfillmentOrder, UnreadableFulfillmentOrder } from './shopify-data.js';
import type { BridgeDeps, FulfillmentRequestsPort } from './ports.js';

/**
 * Fulfillment-service mode (docs/fulfillment.md). Shopify pings the app's callback when it requests a fulfillment
 * or a cancellation of the app's location; the callback names nothing, so the app reads every pending request
 * (`takeFulfillmentRequests`, also on a schedule, so a lost callback delays an order by minutes, not for ever). An
 * order is submitted with only the requested lines; its requests are answered (`answerFulfillmentRequests`) once the
 * print service has stored it (accept), or when it cannot be printed (reject, with what to fix). Every step is
 * idempotent: a request read twice is one, an answer is recorded on the order before the next read could repeat it.
 */

export type TakeRequestsOutcome =
  | { kind: 'not-in-service-mode' }
  | { kind: 'taken'; fulfillmentRequests: number; cancellationRequests: number; orders: string[]; rejected: string[] };

export async function takeFulfillmentRequests(deps: BridgeDeps, shop: string): Promise<TakeRequestsOutcome> {
  const port = deps.fulfillmentRequests;
  const location = port && (await port.serviceLocation(shop));
  if (!port || !location) return { kind: 'not-in-service-mode' };

  const requested = await port.pending(shop, 'FULFILLMENT_REQUESTED', location);
  const orders = new Set<string>();
  const rejected: string[] = [];
  // Each order on its own: one that cannot be read is rejected with the reason, one that fails for a passing reason
  // is left for the next read, and neither keeps the store's other requests from being taken.
  let retry: unknown;
  for (const unreadable of requested.unreadable) {
    if (await rejectUnreadable(deps, port, shop, unreadable)) rejected.push(unreadable.id!);
  }
  for (const [orderId, fulfillmentOrders] of byOrder(requested.fulfillmentOrders)) {
    orders.add(orderId);
    try {
      await takeRequestsOfOrder(deps, port, shop, orderId, fulfillmentOrders);
    } catch (error) {
      if (!isUnreadableOrder(error)) {
        retry ??= error;
        deps.logger.warn({ shop, orderId, err: error }, 'the fulfillment requests of an order were not taken; tried again, the other orders go on');
        continue;
      }
      const reason = `Shopify's answer for the order could not be used (${(error as Error).message})`;
      for (const fo of fulfillmentOrders) {
        if (await rejectUnreadable(deps, port, shop, { id: fo.id, orderId, orderName: fo.orderName, reason })) rejected.push(fo.id);
      }
    }
  }
  const cancellations = await port.pending(shop, 'CANCELLATION_REQUESTED', location);
  for (const unreadable of cancellations.unreadable) {
    deps.logger.warn({ shop, fulfillmentOrderId: unreadable.id, orderId: unreadable.orderId, reason: unreadable.reason }, 'a cancellation request print-bridge cannot read; left for the merchant');
  }
  for (const [orderId, fulfillmentOrders] of byOrder(cancellations.fulfillmentOrders)) {
    orders.add(orderId);
    await takeCancellationsOfOrder(deps, shop, orderId, fulfillmentOrders);
  }
  if (retry !== undefined) throw retry;
  return { kind: 'taken', fulfillmentRequests: requested.fulfillmentOrders.length, cancellationRequests: cancellations.fulfillmentOrders.length, orders: [...orders], rejected };
}

/** An answer about this order alone that trying again will not change (a store-wide one has a status or a GraphQL error code; Shopify failing this time is retryable). */
function isUnreadableOrder(error: unknown): boolean {
  return error instanceof ShopifyProtocolError && error.unreadableAnswer;
}

/**
 * A request print-bridge cannot read whole is rejected, so the merchant sees on the fulfillment order which order it
 * is and why, instead of a request that stays pending; requesting it again reads it afresh.
 */
async function rejectUnreadable(deps: BridgeDeps, port: FulfillmentRequestsPort, shop: string, fo: UnreadableFulfillmentOrder): Promise<boolean> {
  const name = fo.orderName ?? fo.orderId ?? 'an order';
  deps.logger.warn({ shop, fulfillmentOrderId: fo.id, orderId: fo.orderId, reason: fo.reason }, 'a fulfillment request print-bridge cannot read; rejected with the reason');
  if (!fo.id) return false;
  const message = `print-bridge could not read fulfillment order ${fo.id} of ${name}: ${fo.reason}. Nothing of it was printed. Fulfil it from another location, or request fulfillment again; if this persists, contact the people who run print-bridge.`;
  try {
    await port.reject(shop, fo.id, { reason: 'OTHER', message: message.length > 1000 ? `${message.slice(0, 999)}…` : message, lineItems: [] });
  } catch (error) {
    if (!(error instanceof ShopifyUserError)) throw error;
    return false;
  }
  if (fo.orderId && (await deps.store.get(shop, fo.orderId))) {
    await deps.store.note(shop, fo.orderId, { event: 'fulfillment request rejected', source: 'worker', detail: `${fo.id}: ${fo.reason}` });
  }
  return true;
}

async function takeRequestsOfOrder(deps: BridgeDeps, port: FulfillmentRequestsPort, shop: string, orderId: string, fulfillmentOrders: AssignedFulfillmentOrder[]): Promise<void> {
  // A request may come before the order's webhook (or instead of it): the order is read from Shopify then.
  if (!(await deps.store.getOrderBody(shop, orderId))) {
    const body = await port.orderBody(shop, orderId);
    if (!body) {
      deps.logger.warn({ shop, orderId }, 'a fulfillment request names an order Shopify does not show the app; left unanswered');
      return;
    }
    const parsed = parseOrderWebhook(body);
    const updatedAt = (parsed.ok ? parsed.order.updated_at : undefined) ?? deps.clock().toISOString();
    await deps.store.saveOrderBody(shop, orderId, updatedAt, body);
  }
  const at = deps.clock().toISOString();
  const read = fulfillmentOrders.map((fo) => ({
    id: fo.id,
    lineItems: fo.lineItems.filter((l) => l.remainingQuantity > 0).map((l) => ({ id: l.id, lineItemId: l.lineItemId, sku: l.sku, quantity: l.remainingQuantity })),
  }));
  const { link, changed } = await deps.store.update(shop, orderId, (current) => {
    const base = current ?? { ...deps.store.blank(shop, orderId), orderName: fulfillmentOrders[0]?.orderName };
    const merged = mergeRequests(base.fulfillmentRequest, read, at);
    if (!merged) return undefined;
    return {
      link: { ...base, fulfillmentRequest: merged },
      history: [{ event: 'fulfillment requested by Shopify', source: 'shopify', detail: `${read.map((fo) => `${fo.id} (${fo.lineItems.length} line(s))`).join(', ')} at print-bridge's location` }],
    };
  });
  if (!changed || !link) return;
  // Before submission the order goes out with the requested lines; after it, the requests are answered from what was sent.
  if (isSubmittedStatus(link.status) || link.status === 'submitting' || link.status === 'cancelled' || link.status === 'not-printed') {
    await deps.scheduler.answerFulfillmentRequests(shop, orderId);
  } else {
    await deps.scheduler.submit(shop, orderId, 0, link.version);
  }
}

async function takeCancellationsOfOrder(deps: BridgeDeps, shop: string, orderId: string, fulfillmentOrders: AssignedFulfillmentOrder[]): Promise<void> {
  const ids = new Set(fulfillmentOrders.map((fo) => fo.id));
  const { link, changed } = await deps.store.update(shop, orderId, (current) => {
    if (!current) return undefined;
    const request: ServiceRequest = current.fulfillmentRequest ?? { fulfillmentOrders: [] };
    const known = new Set(request.fulfillmentOrders.map((fo) => fo.id));
    const fresh = fulfillmentOrders.filter((fo) => !known.has(fo.id) || request.fulfillmentOrders.some((k) => k.id === fo.id && k.cancellation !== 'requested'));
    if (fresh.length === 0) return undefined;
    const at = deps.clock().toISOString();
    const next: ServiceRequest = {
      ...request,
      fulfillmentOrders: [
        ...request.fulfillmentOrders.map((fo) => (ids.has(fo.id) ? { ...fo, cancellation: 'requested' as const } : fo)),
        ...fulfillmentOrders.filter((fo) => !known.has(fo.id)).map((fo) => ({ id: fo.id, lineItems: [], requestedAt: at, answer: 'accepted' as const, cancellation: 'requested' as const })),
      ],
    };
    return { link: { ...current, fulfillmentRequest: next }, history: [{ event: 'cancellation requested by Shopify', source: 'shopify', detail: [...ids].join(', ') }] };
  });
  if (!link) {
    deps.logger.warn({ shop, orderId }, 'a cancellation request names an order print-bridge never had; left for the merchant');
    return;
  }
  // The print service decides (cancel-print-order.ts); its outcome schedules the answer.
  if (changed) await deps.scheduler.cancel(shop, orderId);
}

export type AnswerOutcome = { kind: 'answered'; accepted: string[]; rejected: string[]; cancellations: Record<string, 'accepted' | 'rejected'>; waiting: string[] };

/** Sends the order's pending answers: accept what the print service has, reject what cannot be printed, answer cancellations. */
export async function answerFulfillmentRequests(deps: BridgeDeps, shop: string, orderId: string): Promise<AnswerOutcome> {
  const outcome: AnswerOutcome = { kind: 'answered', accepted: [], rejected: [], cancellations: {}, waiting: [] };
  const port = deps.fulfillmentRequests;
  const link = await deps.store.get(shop, orderId);
  if (!port || !link?.fulfillmentRequest) return outcome;
  const name = link.orderName ?? orderId;
  for (const fo of pendingRequests(link.fulfillmentRequest)) {
    const decision = decide(link, fo);
    if (decision.kind === 'wait') {
      outcome.waiting.push(fo.id);
      continue;
    }
    try {
      if (decision.kind === 'accept') {
        await port.accept(shop, fo.id, `Sent to the printer as ${link.sourceOrderId ?? name}${link.printOrderId ? ` (print order ${link.printOrderId})` : ''}.`);
      } else {
        await port.reject(shop, fo.id, decision.rejection);
      }
      await record(deps, link, fo.id, { answer: decision.kind === 'accept' ? 'accepted' : 'rejected', at: deps.clock().toISOString() });
      (decision.kind === 'accept' ? outcome.accepted : outcome.rejected).push(fo.id);
    } catch (error) {
      if (!(error instanceof ShopifyUserError)) throw error;
      // Withdrawn by the merchant, or answered before (a repeated job): Shopify's word is kept, never retried.
      await record(deps, link, fo.id, { refused: error.message });
    }
  }
  for (const fo of link.fulfillmentRequest.fulfillmentOrders.filter((f) => f.cancellation === 'requested')) {
    const decision = decideCancellation(link);
    if (!decision) {
      outcome.waiting.push(fo.id);
      continue;
    }
    try {
      if (decision.accept) await port.acceptCancellation(shop, fo.id, decision.message);
      else await port.rejectCancellation(shop, fo.id, decision.message);
    } catch (error) {
      if (!(error instanceof ShopifyUserError)) throw error;
      deps.logger.warn({ shop, orderId, fulfillmentOrderId: fo.id, err: error }, 'Shopify refused the answer to a cancellation request');
    }
    const answer = decision.accept ? 'accepted' : 'rejected';
    await deps.store.update(shop, orderId, (current) =>
      current?.fulfillmentRequest
        ? {
            link: { ...current, fulfillmentRequest: { ...current.fulfillmentRequest, fulfillmentOrders: current.fulfillmentRequest.fulfillmentOrders.map((f) => (f.id === fo.id ? { ...f, cancellation: answer } : f)) } },
            history: [{ event: `cancellation request ${answer}`, source: 'worker', detail: `${fo.id}: ${decision.message}` }],
          }
        : undefined,
    );
    outcome.cancellations[fo.id] = answer;
  }
  return outcome;
}

/**
 * A shipment of a service-mode order is fulfilled only on fulfillment orders Shopify requested of the app and the app
 * accepted (Shopify refuses the rest): a request still unanswered when the printer ships is accepted first.
 */
export async function acceptBeforeFulfilling(
  deps: Pick<BridgeDeps, 'store' | 'clock' | 'logger'> & { fulfillmentRequests?: FulfillmentRequestsPort },
  link: OrderLink,
): Promise<void> {
  const port = deps.fulfillmentRequests;
  if (!port) return;
  for (const fo of pendingRequests(link.fulfillmentRequest)) {
    if (link.fulfillmentRequest?.rejection) continue;
    try {
      await port.accept(link.shop, fo.id, `Shipped by the printer (${link.sourceOrderId ?? link.orderName ?? link.orderId}).`);
      await record(deps, link, fo.id, { answer: 'accepted', at: deps.clock().toISOString() });
    } catch (error) {
      if (!(error instanceof ShopifyUserError)) throw error;
      await record(deps, link, fo.id, { refused: error.message });
    }
  }
}

/** The fulfillment orders a shipment may be fulfilled on: in service mode only those the app was asked for and accepted. */
export function serviceFulfillmentOrderIds(link: OrderLink): Set<string> | undefined {
  if (!link.fulfillmentRequest) return undefined;
  return new Set(link.fulfillmentRequest.fulfillmentOrders.filter((fo) => fo.answer === 'accepted' && fo.cancellation !== 'accepted' && fo.movedAway === undefined).map((fo) => fo.id));
}

type Decision = { kind: 'wait' } | { kind: 'accept' } | { kind: 'reject'; rejection: PlannedRejection };

function decide(link: OrderLink, fo: RequestedFulfillmentOrder): Decision {
  if (link.fulfillmentRequest?.rejection) return { kind: 'reject', rejection: rejectionFor(link.fulfillmentRequest.rejection, fo) };
  if (link.status === 'not-printed' || link.status === 'cancelled') {
    const why = link.status === 'cancelled' ? 'the order was cancelled before it was printed' : (link.notPrintedReason ?? 'nothing of it is for the printer');
    return { kind: 'reject', rejection: { reason: 'OTHER', message: `print-bridge will not print ${link.orderName ?? link.orderId}: ${why}.`, lineItems: [] } };
  }
  if (!isSubmittedStatus(link.status) || !link.printOrderId) return { kind: 'wait' };
  // Requested after the order went out: accepted only when every requested line is in what the printer has.
  const sent = new Map<string, number>();
  for (const shipment of link.shipments) for (const l of shipment.lineItems) sent.set(l.lineItemId, (sent.get(l.lineItemId) ?? 0) + l.quantity);
  const missing = fo.lineItems.filter((l) => (sent.get(l.lineItemId) ?? 0) < l.quantity);
  if (missing.length === 0) return { kind: 'accept' };
  return {
    kind: 'reject',
    rejection: {
      reason: 'OTHER',
      message: `${link.orderName ?? link.orderId} was already sent to the printer without these lines; print-bridge sends one print order per Shopify order. Fulfil them from another location, or cancel and resubmit the order from print-bridge's order page.`,
      lineItems: missing.map((l) => ({ fulfillmentOrderLineItemId: l.id, message: `not in the print order already sent (SKU ${l.sku ?? 'none'})` })),
    },
  };
}

/** The planned rejection, with only the lines of this fulfillment order named. */
function rejectionFor(rejection: PlannedRejection, fo: RequestedFulfillmentOrder): PlannedRejection {
  const ids = new Set(fo.lineItems.map((l) => l.id));
  return { ...rejection, lineItems: rejection.lineItems.filter((l) => ids.has(l.fulfillmentOrderLineItemId)) };
}

function decideCancellation(link: OrderLink): { accept: boolean; message: string } | undefined {
  if (link.status === 'cancelled' || link.status === 'not-printed') return { accept: true, message: 'Cancelled: nothing of it will be printed.' };
  if (link.status === 'shipped' || link.status === 'partially-shipped') {
    return { accept: false, message: 'Already shipped by the printer: it cannot be cancelled; the shipment is fulfilled with its tracking.' };
  }
  const refused = link.problems.find((p) => p.kind === 'cancel-refused');
  if (refused) return { accept: false, message: `${refused.message}. The order is produced and fulfilled as it ships.` };
  if (!isSubmittedStatus(link.status) && link.status !== 'submitting' && !link.printOrderId) return { accept: true, message: 'Cancelled before it was sent to the printer.' };
  return undefined;
}

async function record(deps: Pick<BridgeDeps, 'store'>, link: OrderLink, fulfillmentOrderId: string, outcome: { answer: 'accepted' | 'rejected'; at: string } | { refused: string }): Promise<void> {
  await deps.store.update(link.shop, link.orderId, (current) => {
    if (!current?.fulfillmentRequest) return undefined;
    const detail = 'refused' in outcome ? `Shopify refused the answer: ${outcome.refused}` : undefined;
    return {
      link: { ...current, fulfillmentRequest: recordAnswer(current.fulfillmentRequest, fulfillmentOrderId, outcome) },
      history: [{ event: 'refused' in outcome ? 'fulfillment request not answered' : `fulfillment request ${outcome.answer}`, source: 'worker', detail: detail ?? fulfillmentOrderId }],
    };
  });
}

function byOrder(fulfillmentOrders: AssignedFulfillmentOrder[]): Map<string, AssignedFulfillmentOrder[]> {
  const out = new Map<string, AssignedFulfillmentOrder[]>();
  for (const fo of fulfillmentOrders) out.set(fo.orderId, [...(out.get(fo.orderId) ?? []), fo]);
  return out;
}
