import type { OrderLink, Problem } from '../orders/model.js';
import { RECHECK_CAP_MS, DEFAULT_HOLD_RECHECK_MS } from './fulfillment-holds.js';
import type { BridgeDeps } from './ports.js';
import { heldFulfillmentOrders, riskProblem, riskToWaitFor, shopifyHoldProblem, type BlockingHold, type HoldPolicy } from './shopify-holds.js';
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
    const holding: BlockingHold[] = [];
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

/**
 * Records the wait and has the order read again later. The re-reads follow one schedule counted from when the wait
 * began (after the base, then at intervals twice as long each time, up to six hours), and the job of each is named by
 * its time: every look at the order (the scheduled one, the reconciliation's, a webhook's) asks for the same next
 * re-read, which is one job. Were each look to schedule its own, every extra look would start a chain of re-reads
 * that lasts as long as the order waits.
 */
export async function waitForShopify(deps: BridgeDeps, link: OrderLink, problem: Problem): Promise<SubmitShopifyOutcome> {
  const since = Date.parse(link.problems.find((p) => p.kind === problem.kind)?.at ?? problem.at);
  const outcome = await recordWait(deps, link, problem, true);
  const now = deps.clock().getTime();
  const due = nextRecheck(Number.isFinite(since) ? since : now, now, deps.holdRecheckMs ?? DEFAULT_HOLD_RECHECK_MS);
  await deps.scheduler.submit(link.shop, link.orderId, due - now, due);
  return outcome;
}

/** The first time of the schedule `since + base, + 2·base, + 4·base, …` (intervals capped at RECHECK_CAP_MS) after `now`. */
export function nextRecheck(since: number, now: number, baseMs: number): number {
  const base = Math.max(1_000, baseMs);
  let due = since + base;
  let step = base;
  // Jump whole capped intervals at once: an order may wait for weeks.
  while (due <= now && step < RECHECK_CAP_MS) {
    step = Math.min(RECHECK_CAP_MS, step * 2);
    due += step;
  }
  if (due <= now) due += Math.ceil((now - due + 1) / RECHECK_CAP_MS) * RECHECK_CAP_MS;
  return due;
}
