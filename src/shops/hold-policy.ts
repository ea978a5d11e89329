import { z } from 'zod';
import { letsThrough, resolveHoldPolicy, type HoldPolicy, type HoldPolicySource } from '../bridge/shopify-holds.js';
import { FULFILLMENT_HOLD_REASONS, HOLD_REASON_WORDS, isHoldReason, type FulfillmentHoldReason } from '../shopify/hold-reasons.js';
import type { ShopSettingsStore } from './settings-store.js';

/**
 * A store's choice of which of Shopify's holds and risk recommendations keep its orders from the printer, as the
 * Settings page and `print-bridge shops hold-policy` make it: stored in `shop_settings.hold_policy`, it wins over the
 * mapping's `submit.wait_for_holds` / `wait_for_risk` (resolveHoldPolicy). A choice that lets orders through asks for a
 * look at the store's waiting orders: one waiting only for what the store no longer waits for goes to the printer.
 */

export const RISK_CHOICES = ['cancel', 'investigate', 'none'] as const;

/** The stored form, checked whenever it crosses the database boundary. */
export const storedHoldPolicy = z.object({
  waitForHolds: z.union([
    z.enum(['all', 'none']),
    // In Shopify's order, each once: two saves of the same choice store the same value.
    z
      .array(z.enum(FULFILLMENT_HOLD_REASONS))
      .min(1)
      .transform((reasons) => FULFILLMENT_HOLD_REASONS.filter((r) => reasons.includes(r))),
  ]),
  waitForRisk: z.enum(RISK_CHOICES),
});

export interface HoldPolicyDeps {
  settings: Pick<ShopSettingsStore, 'get' | 'setHoldPolicy'>;
  /** The mapping's keys for the store, when a mapping serves it. */
  mappingHoldPolicy?(shop: string): HoldPolicy | undefined;
  /** Forgets this process's cached set-up of the store. */
  invalidate(shop: string): void;
  /** Queues a look at the store's waiting orders. */
  reexamine(shop: string, cause: string): Promise<void>;
}

export interface HoldPolicyInForce {
  policy: HoldPolicy;
  source: HoldPolicySource;
  /** What the mapping says (undefined: no mapping serves the store): what "Use the mapping's setting" goes back to. */
  mapping?: HoldPolicy;
}

export async function holdPolicyInForce(deps: Pick<HoldPolicyDeps, 'settings' | 'mappingHoldPolicy'>, shop: string): Promise<HoldPolicyInForce> {
  const setup = await deps.settings.get(shop);
  const mapping = deps.mappingHoldPolicy?.(shop);
  return { ...resolveHoldPolicy(setup.holdPolicy, mapping), mapping };
}

/** Stores the store's choice (undefined: back to the mapping's keys) and says what is in force before and after. */
export async function chooseHoldPolicy(
  deps: HoldPolicyDeps,
  shop: string,
  policy: HoldPolicy | undefined,
): Promise<{ before: HoldPolicyInForce; after: HoldPolicyInForce; lookedAgain: boolean }> {
  const before = await holdPolicyInForce(deps, shop);
  const setup = await deps.settings.setHoldPolicy(shop, policy);
  // This process reads the new choice at once; others when the revision the write bumped is read again (the submit
  // of an order waiting for Shopify reads its store's set-up afresh).
  deps.invalidate(shop);
  const after = { ...resolveHoldPolicy(setup.holdPolicy, before.mapping), mapping: before.mapping };
  const lookedAgain = letsThrough(before.policy, after.policy);
  if (lookedAgain) await deps.reexamine(shop, "the store's choice of Shopify's holds and risk changed");
  return { before, after, lookedAgain };
}

/** The policy in a merchant's words, one sentence. */
export function holdPolicyWords(policy: HoldPolicy): string {
  const holds =
    policy.waitForHolds === 'all'
      ? 'Orders wait for every hold Shopify places on them'
      : policy.waitForHolds === 'none'
        ? "Orders never wait for Shopify's holds"
        : `Orders wait only for these holds: ${policy.waitForHolds.map((r) => HOLD_REASON_WORDS[r].toLowerCase()).join(', ')}`;
  const risk = {
    cancel: 'and while Shopify recommends cancelling them',
    investigate: 'and while Shopify recommends cancelling or investigating them',
    none: "and never for Shopify's risk recommendation",
  }[policy.waitForRisk];
  return `${holds}, ${risk}.`;
}

export const SOURCE_WORDS: Record<HoldPolicySource, string> = { store: 'chosen here', mapping: 'from the mapping', default: 'default' };

/**
 * The holds part of a choice as the page's form or the command line gives it: `all`, `none`, or reasons (`only` with
 * the reasons ticked; on the command line `REASON,REASON`). A message in words when it is not one.
 */
export function holdsChoice(choice: string, reasons: readonly string[]): HoldPolicy['waitForHolds'] | { refused: string } {
  if (choice === 'all' || choice === 'none') return choice;
  if (choice !== 'only') return { refused: 'Choose which holds orders wait for.' };
  const unknown = reasons.filter((r) => !isHoldReason(r));
  if (unknown.length > 0) return { refused: `${unknown.join(', ')} ${unknown.length === 1 ? 'is not one of' : 'are not among'} Shopify's hold reasons (${FULFILLMENT_HOLD_REASONS.join(', ')}).` };
  if (reasons.length === 0) return { refused: 'Tick at least one hold to wait for, or choose to never wait for holds.' };
  return FULFILLMENT_HOLD_REASONS.filter((r) => reasons.includes(r)) as FulfillmentHoldReason[];
}

export function isRiskChoice(value: unknown): value is HoldPolicy['waitForRisk'] {
  return typeof value === 'string' && (RISK_CHOICES as readonly string[]).includes(value);
}
