import { ORDERS_VISIBLE_DAYS, pastShopifysWindow } from '../orders/model.js';
import { clearProblems, moveTo, ofKind, replaceProblems } from '../orders/transitions.js';
import type { OrderWebhook } from '../shopify/order-webhook.js';
import { OrderNotInShopYetError, OrderUnconfirmedError } from './errors.js';
import type { OrderLink, Problem } from '../orders/model.js';
import type { BridgeDeps } from './ports.js';
import type { OrderStanding } from './shopify-data.js';
import { canMove, isSubmittedStatus } from '../orders/status.js';
import type { SubmitShopifyOutcome } from './submit-shopify-order.js';
import { isWaitKind, recordProblems } from './submission-problems.js';
import { recordedText } from '../orders/recorded-text.js';

/**
 * The checks before an order is sent to the printer, and what each records when the order is not sent: it waits (its
 * store not connected, no mapping, no print account), it is not its store's, or nothing of it is for the printer.
 */

/**
 * The order waits for something outside it (its store connected, a mapping for its store). A pending order moves to
 * `waiting`; a held or errored one (resubmitted meanwhile) keeps its status and gains the reason. Either way the job
 * ends without error: nothing failed, and `reexamineWaitingOrders` releases the order when the condition is gone.
 */
export async function recordWait(deps: BridgeDeps, link: OrderLink, problem: Problem, syncTags: boolean): Promise<SubmitShopifyOutcome> {
  const { changed } = await deps.store.update(link.shop, link.orderId, (current) => {
    if (!current || isSubmittedStatus(current.status) || current.status === 'cancelled' || current.status === 'submitting' || current.status === 'not-printed') return undefined;
    const { link: next, moved } = moveTo(current, 'waiting', problem.at);
    const kept = current.problems.find((p) => p.kind === problem.kind);
    // Looked at again and still the same wait: nothing to record. A wait whose reason changed (another hold placed,
    // one of two released) shows the new reason.
    if (kept && (!moved || current.status === 'waiting') && kept.message === recordedText(problem.message)) return undefined;
    return {
      link: replaceProblems(next, ofKind(problem.kind), [kept ? { ...problem, at: kept.at } : problem]),
      history: [{ event: `waiting: ${problem.kind.replace(/-/g, ' ')}`, source: 'worker', status: moved ? 'waiting' : undefined, detail: `nothing was sent to the printer: ${problem.message}` }],
    };
  });
  if (changed && syncTags) await deps.scheduler.syncShopify(link.shop, link.orderId);
  deps.logger.info({ shop: link.shop, orderId: link.orderId, reason: problem.kind }, 'order waits; nothing sent to the printer');
  return { kind: 'waiting', reason: problem.kind };
}

/** How long after an order was placed Shopify's Admin API may not show it yet (asked again meanwhile). */
const ORDER_VISIBLE_WITHIN_MS = 120_000;

/**
 * The shop header of a webhook is not signed (DESIGN section 9): the order is this store's only if the store's own
 * Admin API shows it. Returns when it did, with what Shopify shows of the order's risk and holds (read together, and
 * read before every attempt: a hold can come and go while the order waits); `refused` for an order the store does not have (another store's body under
 * this store's domain). Moments after an order was placed Shopify is asked again; an order older than Shopify lets
 * the app see cannot be confirmed and is held with the reason (never refused for good: its body is kept).
 */
export async function confirmOrderOfShop(deps: BridgeDeps, link: OrderLink, createdAt: string | null | undefined): Promise<{ at: string; standing: OrderStanding } | 'refused'> {
  const orderName = link.orderName ?? link.orderId;
  const standing = await deps.shopify.orderInShop(link.shop, link.orderId);
  if (standing) return { at: deps.clock().toISOString(), standing };
  const placedAt = Date.parse(createdAt ?? '');
  const age = Number.isFinite(placedAt) ? deps.clock().getTime() - placedAt : Number.NaN;
  if (age < ORDER_VISIBLE_WITHIN_MS) throw new OrderNotInShopYetError(link.shop, orderName);
  if (pastShopifysWindow(placedAt, deps.clock().getTime())) {
    const problems = [{ message: `Shopify shows the app only the last ${ORDERS_VISIBLE_DAYS} days of orders, so it could not confirm that order ${orderName} is ${link.shop}'s; nothing was sent to the printer` }];
    await recordProblems(deps, link, 'held', 'order-unconfirmed', problems);
    throw new OrderUnconfirmedError(orderName, problems[0]!.message);
  }
  return 'refused';
}

/**
 * The store has no such order: never printed, recorded on the link with the reason, and the body (another store's
 * customer and address) deleted. Nothing is written in Shopify: the store has no order to write to.
 */
export async function refuseOrderNotInShop(deps: BridgeDeps, link: OrderLink): Promise<SubmitShopifyOutcome> {
  const reason = `${link.shop}'s Shopify admin has no order ${link.orderId}: the webhook was not this store's (a signed body of another store re-sent with this store's domain). Nothing was sent to the printer and the body was not kept.`;
  // The body goes first, so an order shown as refused never still holds it (a re-run refuses again: the store still
  // has no such order), and again after, for a delivery of the same order that kept its body in between.
  await deps.store.deleteOrderBody(link.shop, link.orderId);
  await deps.store.update(link.shop, link.orderId, (current) => {
    if (!current || current.notInShopAt) return undefined;
    const at = deps.clock().toISOString();
    const { link: next, moved } = moveTo(current, 'not-printed', at);
    return {
      link: { ...clearProblems(next, (p) => isWaitKind(p.kind)), notPrintedReason: moved ? reason : current.notPrintedReason, notInShopAt: at },
      history: [{ event: 'refused: not an order of this store', source: 'worker', status: moved ? 'not-printed' : undefined, detail: reason }],
    };
  });
  await deps.store.deleteOrderBody(link.shop, link.orderId);
  deps.logger.warn({ shop: link.shop, orderId: link.orderId }, 'order webhook for an order the store does not have (replayed under another store\'s domain?); refused, nothing sent');
  return { kind: 'not-printed', reason };
}

/** Nothing of the order is for the printer: a final state with the reason, not a problem to fix. */
export async function markNotPrinted(deps: BridgeDeps, link: OrderLink, reason: string): Promise<SubmitShopifyOutcome> {
  const { changed } = await deps.store.update(link.shop, link.orderId, (current) =>
    current && canMove(current.status, 'not-printed')
      ? {
          link: {
            ...clearProblems(moveTo(current, 'not-printed', deps.clock().toISOString()).link, (p) => p.kind === 'mapping' || isWaitKind(p.kind)),
            notPrintedReason: reason,
          },
          history: [{ event: 'not printed', source: 'worker', status: 'not-printed', detail: reason }],
        }
      : undefined,
  );
  if (changed) await deps.scheduler.syncShopify(link.shop, link.orderId);
  deps.logger.info({ shop: link.shop, orderId: link.orderId, reason }, 'nothing to print; nothing sent');
  return { kind: 'not-printed', reason };
}

/**
 * Shopify already has the whole order fulfilled (by the merchant, another app or an earlier print): every line item
 * says `fulfillable_quantity` 0. Bodies without the field (older payloads, tests) are never taken for fulfilled.
 */
export function isFullyFulfilled(order: OrderWebhook): boolean {
  const lines = order.line_items as (OrderWebhook['line_items'][number] & { fulfillable_quantity?: unknown })[];
  if ((order as { fulfillment_status?: unknown }).fulfillment_status === 'fulfilled') return true;
  return lines.length > 0 && lines.every((l) => l.fulfillable_quantity === 0);
}
