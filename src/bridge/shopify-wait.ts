import type { OrderLink, Problem } from '../orders/model.js';
import { RECHECK_CAP_MS, DEFAULT_HOLD_RECHECK_MS } from './fulfillment-holds.js';
import type { BridgeDeps } from './ports.js';
import { heldFulfillmentOrders, riskProblem, riskToWaitFor, shopifyHoldProblem, type HoldPolicy } from './shopify-holds.js';
import type { OrderStanding } from './shopify-data.js';
import { recordWait } from './submission-checks.js';
import type { SubmitShopifyOutcome } from './submit-shopify-order.js';

/**
 * The submission's look at what Shopify says of the order before it is sent: a hold on a fulfillment order holding
 * lines the app would print, or a risk recommendation the store waits on. The order waits visibly, and is read again
 * on a schedule (a lost `hold_released` delays it, never strands it) as well as when Shopify's webhook says so.
 */
export async function shopifyWait(
  deps: BridgeDeps,
  link: OrderLink,
  standing: OrderStanding,
  policy: HoldPolicy,
  printedLineIds: readonly string[],
): Promise<Problem | undefined> {
  const at = deps.clock().toISOString();
  const held = heldFulfillmentOrders(standing, policy);
  if (standing.moreFulfillmentOrders) {
    deps.logger.warn({ shop: link.shop, orderId: link.orderId }, 'order has more fulfillment orders than were read for holds; only the first ones were checked');
  }
  if (held.length > 0) {
    const printed = new Set(printedLineIds);
    const holding = [];
    for (const fo of held) {
      // Only a held fulfillment order with lines the app would print keeps the order back (another location's
      // held items are not the printer's). One gone since the read (released and merged) holds nothing.
      const lines = await deps.shopify.fulfillmentOrderLineItemIds(link.shop, fo.fulfillmentOrderId);
      if (lines?.some((id) => printed.has(id))) holding.push(fo);
    }
    if (holding.length > 0) return shopifyHoldProblem(holding, at);
  }
  // Sent anyway by the merchant ("Send now"): Shopify's recommendation was seen and overruled.
  const risk = link.sendAnyway ? undefined : riskToWaitFor(standing, policy);
  return risk ? riskProblem(risk, at) : undefined;
}

/** Records the wait and has the order read again later: how long it has waited so far, between the base and six hours. */
export async function waitForShopify(deps: BridgeDeps, link: OrderLink, problem: Problem): Promise<SubmitShopifyOutcome> {
  const since = link.problems.find((p) => p.kind === problem.kind)?.at ?? problem.at;
  const outcome = await recordWait(deps, link, problem, true);
  const now = deps.clock().getTime();
  const base = deps.holdRecheckMs ?? DEFAULT_HOLD_RECHECK_MS;
  const delay = Math.min(RECHECK_CAP_MS, Math.max(base, now - Date.parse(since)));
  // The generation is the time of the look: each re-check is a job of its own (a finished one keeps its id).
  await deps.scheduler.submit(link.shop, link.orderId, delay, now + delay);
  return outcome;
}
