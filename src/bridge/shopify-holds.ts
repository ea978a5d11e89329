import type { Problem } from '../orders/model.js';
import { isOwnHold } from '../shopify/app-hold.js';
import { FULFILLMENT_HOLD_REASONS, holdWords, isHoldReason, type FulfillmentHoldReason } from '../shopify/hold-reasons.js';
import type { FulfillmentHoldRead, OrderStanding } from './shopify-data.js';
import { WAIT_KINDS } from './waiting-problems.js';

/**
 * What of Shopify's own judgement keeps an order from the printer (merchant-managed mode): a hold on a fulfillment
 * order the app would print (a fraud check, a payment to clear, an address to fix; whoever placed it, except the
 * app's own hold), and Shopify's risk recommendation. Printing cannot be undone, so the order waits until the hold is
 * released or the merchant sends it anyway; the store's policy says which reasons it waits for.
 */

/**
 * Which holds and risk recommendations the store waits for: its choice on the Settings page (`shops hold-policy`), else
 * the mapping's `submit.wait_for_holds` / `wait_for_risk` (resolveHoldPolicy).
 */
export interface HoldPolicy {
  /** `all` reasons (the default), `none`, or only these. */
  waitForHolds: 'all' | 'none' | readonly FulfillmentHoldReason[];
  /** `cancel`: wait while Shopify recommends cancelling (the default); `investigate`: also while it recommends investigating. */
  waitForRisk: 'cancel' | 'investigate' | 'none';
}

export const DEFAULT_HOLD_POLICY: HoldPolicy = { waitForHolds: 'all', waitForRisk: 'cancel' };

/** Where the policy in force comes from: the store's own choice, its mapping's keys, or neither. */
export type HoldPolicySource = 'store' | 'mapping' | 'default';

/**
 * The policy in force, decided here alone: the store's choice wins; else the mapping's keys; else the default. A
 * mapping always carries the keys (they default to the default), so one that says what the default says counts as the
 * default: the page names the mapping as the source only when the mapping changes something.
 */
export function resolveHoldPolicy(chosen: HoldPolicy | undefined, mapping: HoldPolicy | undefined): { policy: HoldPolicy; source: HoldPolicySource } {
  if (chosen) return { policy: chosen, source: 'store' };
  if (mapping && !sameHoldPolicy(mapping, DEFAULT_HOLD_POLICY)) return { policy: mapping, source: 'mapping' };
  return { policy: DEFAULT_HOLD_POLICY, source: 'default' };
}

export function sameHoldPolicy(a: HoldPolicy, b: HoldPolicy): boolean {
  const holds = (p: HoldPolicy) => (typeof p.waitForHolds === 'string' ? p.waitForHolds : [...p.waitForHolds].sort().join(','));
  return holds(a) === holds(b) && a.waitForRisk === b.waitForRisk;
}

const RISK_RANK: Record<HoldPolicy['waitForRisk'], number> = { none: 0, cancel: 1, investigate: 2 };

/**
 * Whether `after` lets through an order `before` kept back: a reason no longer waited for (or, leaving `all`, a hold
 * with a reason the list cannot name), or a risk recommendation no longer waited on. Such a change is worth a look at
 * the store's waiting orders; one that only adds waits is not (the next read of each order applies it).
 */
export function letsThrough(before: HoldPolicy, after: HoldPolicy): boolean {
  if (RISK_RANK[after.waitForRisk] < RISK_RANK[before.waitForRisk]) return true;
  if (before.waitForHolds === 'all' && after.waitForHolds !== 'all') return true;
  return FULFILLMENT_HOLD_REASONS.some((reason) => waitsFor(before, reason) && !waitsFor(after, reason));
}

/** A fulfillment order that keeps the order back, with the holds it waits for. */
export interface BlockingHold {
  fulfillmentOrderId: string;
  holds: FulfillmentHoldRead[];
}

function waitsFor(policy: HoldPolicy, reason: string): boolean {
  if (policy.waitForHolds === 'all') return true;
  if (policy.waitForHolds === 'none') return false;
  // A reason Shopify adds later is not in a store's list: the store named what it lets through by naming what it waits for.
  return isHoldReason(reason) && policy.waitForHolds.includes(reason);
}

/**
 * The fulfillment orders whose holds the store waits for. The app's own hold is never one (it shows the app's wait,
 * it is not a reason for it). An ON_HOLD fulfillment order that lists no hold the app can see is taken as held for a
 * reason unknown, unless the store waits for no holds at all.
 */
export function heldFulfillmentOrders(standing: OrderStanding, policy: HoldPolicy): BlockingHold[] {
  if (policy.waitForHolds === 'none') return [];
  const blocking: BlockingHold[] = [];
  for (const fo of standing.fulfillmentOrders) {
    if (fo.status !== 'ON_HOLD') continue;
    const others = fo.holds.filter((h) => !isOwnHold(h));
    if (fo.holds.length > 0 && others.length === 0) continue;
    const waited = others.filter((h) => waitsFor(policy, h.reason));
    if (others.length === 0 && policy.waitForHolds === 'all') blocking.push({ fulfillmentOrderId: fo.id, holds: [] });
    else if (waited.length > 0) blocking.push({ fulfillmentOrderId: fo.id, holds: waited });
  }
  return blocking;
}

/** The risk recommendation the order waits on, if it waits on one. */
export function riskToWaitFor(standing: OrderStanding, policy: HoldPolicy): 'CANCEL' | 'INVESTIGATE' | undefined {
  const recommendation = standing.riskRecommendation;
  if (policy.waitForRisk === 'none') return undefined;
  if (recommendation === 'CANCEL') return 'CANCEL';
  if (recommendation === 'INVESTIGATE' && policy.waitForRisk === 'investigate') return 'INVESTIGATE';
  return undefined;
}


export function shopifyHoldProblem(held: readonly BlockingHold[], at: string): Problem {
  const reasons = [...new Set(held.flatMap((b) => (b.holds.length > 0 ? b.holds.map(holdWords) : ['no reason given'])))];
  return {
    kind: WAIT_KINDS.shopifyHold,
    message: `waiting for Shopify's hold: ${reasons.join('; ')}. Nothing was sent to the printer; the order goes out by itself once the hold is released in Shopify (or cancel the order there).`,
    at,
  };
}

export function riskProblem(recommendation: 'CANCEL' | 'INVESTIGATE', at: string): Problem {
  return {
    kind: WAIT_KINDS.risk,
    message:
      recommendation === 'CANCEL'
        ? 'Shopify recommends cancelling this order (its fraud analysis found a high risk). Nothing was sent to the printer: cancel the order in Shopify, or use Send now to print it anyway.'
        : 'Shopify recommends investigating this order before fulfilling it, and this store waits for that. Nothing was sent to the printer: check the order in Shopify, then use Send now to print it (or cancel it).',
    at,
  };
}
