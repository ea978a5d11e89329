import { describe, expect, it } from 'vitest';
import { DEFAULT_HOLD_POLICY, letsThrough, resolveHoldPolicy, type HoldPolicy } from '../../src/bridge/shopify-holds.js';
import type { ShopSetup } from '../../src/shops/model.js';
import { chooseHoldPolicy, holdPolicyWords, holdsChoice, type HoldPolicyDeps } from '../../src/shops/hold-policy.js';

/** Where the policy in force comes from (the store's choice, the mapping, the default), and what a change asks for. */
const ONLY_FRAUD: HoldPolicy = { waitForHolds: ['HIGH_RISK_OF_FRAUD'], waitForRisk: 'cancel' };
const NO_PAYMENT: HoldPolicy = { waitForHolds: ['HIGH_RISK_OF_FRAUD', 'INCORRECT_ADDRESS'], waitForRisk: 'investigate' };

describe('resolveHoldPolicy', () => {
  it("takes the store's choice first, then the mapping's keys, then the default", () => {
    expect(resolveHoldPolicy(ONLY_FRAUD, NO_PAYMENT)).toEqual({ policy: ONLY_FRAUD, source: 'store' });
    expect(resolveHoldPolicy(undefined, NO_PAYMENT)).toEqual({ policy: NO_PAYMENT, source: 'mapping' });
    expect(resolveHoldPolicy(undefined, undefined)).toEqual({ policy: DEFAULT_HOLD_POLICY, source: 'default' });
    // A mapping whose keys say what the default says (they default to it) changes nothing: the default is in force.
    expect(resolveHoldPolicy(undefined, { waitForHolds: 'all', waitForRisk: 'cancel' }).source).toBe('default');
    // The store's choice wins even when it is the default (the merchant chose it over the mapping's).
    expect(resolveHoldPolicy(DEFAULT_HOLD_POLICY, NO_PAYMENT)).toEqual({ policy: DEFAULT_HOLD_POLICY, source: 'store' });
  });
});

describe('letsThrough', () => {
  it('is true only when a hold reason or a risk recommendation is no longer waited for', () => {
    expect(letsThrough(DEFAULT_HOLD_POLICY, ONLY_FRAUD)).toBe(true);
    expect(letsThrough(ONLY_FRAUD, DEFAULT_HOLD_POLICY)).toBe(false);
    expect(letsThrough(NO_PAYMENT, ONLY_FRAUD)).toBe(true);
    expect(letsThrough(ONLY_FRAUD, { ...ONLY_FRAUD, waitForRisk: 'investigate' })).toBe(false);
    expect(letsThrough(ONLY_FRAUD, { ...ONLY_FRAUD, waitForRisk: 'none' })).toBe(true);
    expect(letsThrough(DEFAULT_HOLD_POLICY, DEFAULT_HOLD_POLICY)).toBe(false);
    // Every reason listed still lets through a hold whose reason Shopify adds later (or gives none).
    expect(letsThrough(DEFAULT_HOLD_POLICY, { waitForHolds: holdsChoice('only', ['AWAITING_PAYMENT', 'AWAITING_RETURN_ITEMS', 'HIGH_RISK_OF_FRAUD', 'INCORRECT_ADDRESS', 'INVENTORY_OUT_OF_STOCK', 'ONLINE_STORE_POST_PURCHASE_CROSS_SELL', 'OTHER', 'UNKNOWN_DELIVERY_DATE']) as HoldPolicy['waitForHolds'], waitForRisk: 'cancel' })).toBe(true);
  });
});

describe('the choice in words and from a form', () => {
  it('says the policy in a sentence and reads the holds choice', () => {
    expect(holdPolicyWords(DEFAULT_HOLD_POLICY)).toBe('Orders wait for every hold Shopify places on them, and while Shopify recommends cancelling them.');
    expect(holdPolicyWords(NO_PAYMENT)).toBe('Orders wait only for these holds: high risk of fraud, incorrect address, and while Shopify recommends cancelling or investigating them.');
    expect(holdsChoice('only', ['INCORRECT_ADDRESS', 'HIGH_RISK_OF_FRAUD'])).toEqual(['HIGH_RISK_OF_FRAUD', 'INCORRECT_ADDRESS']);
    expect(holdsChoice('none', ['HIGH_RISK_OF_FRAUD'])).toBe('none');
    expect(holdsChoice('only', [])).toEqual({ refused: expect.stringContaining('Tick at least one hold') });
    expect(holdsChoice('only', ['FRAUD'])).toEqual({ refused: expect.stringMatching(/^FRAUD is not one of Shopify's hold reasons/) });
    expect(holdsChoice('some', [])).toEqual({ refused: expect.any(String) });
  });
});

describe('chooseHoldPolicy', () => {
  function fakeDeps(mapping?: HoldPolicy) {
    let stored: HoldPolicy | undefined;
    const calls: string[] = [];
    const setup = (): ShopSetup => ({ shop: 's.myshopify.com', mode: 'live', fulfillment: 'merchant', revision: 1, ...(stored ? { holdPolicy: stored } : {}) });
    const deps: HoldPolicyDeps = {
      settings: {
        get: async () => setup(),
        setHoldPolicy: async (_shop, policy) => {
          stored = policy;
          return setup();
        },
      },
      mappingHoldPolicy: () => mapping,
      invalidate: (shop) => calls.push(`invalidate ${shop}`),
      reexamine: async (shop) => void calls.push(`reexamine ${shop}`),
    };
    return { deps, calls };
  }

  it('stores the choice, forgets the cached set-up, and looks at the waiting orders only when it lets orders through', async () => {
    const { deps, calls } = fakeDeps(NO_PAYMENT);
    const looser = await chooseHoldPolicy(deps, 's.myshopify.com', ONLY_FRAUD);
    expect(looser).toMatchObject({ before: { source: 'mapping', policy: NO_PAYMENT }, after: { source: 'store', policy: ONLY_FRAUD }, lookedAgain: true });
    expect(calls).toEqual(['invalidate s.myshopify.com', 'reexamine s.myshopify.com']);
    calls.length = 0;
    // Back to the mapping's keys: stricter, so nothing is looked at again.
    const back = await chooseHoldPolicy(deps, 's.myshopify.com', undefined);
    expect(back).toMatchObject({ after: { source: 'mapping', policy: NO_PAYMENT, mapping: NO_PAYMENT }, lookedAgain: false });
    expect(calls).toEqual(['invalidate s.myshopify.com']);
  });
});
