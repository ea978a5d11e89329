import { describe, expect, it } from 'vitest';
import type { FulfillmentHoldRead, OrderStanding } from './shopify-data.js';
import { holdWords } from '../shopify/hold-reasons.js';
import { DEFAULT_HOLD_POLICY, heldFulfillmentOrders, riskToWaitFor, shopifyHoldProblem } from './shopify-holds.js';

const hold = (reason: string, extra: Partial<FulfillmentHoldRead> = {}): FulfillmentHoldRead => ({
  id: `gid://shopify/FulfillmentHold/${reason}`,
  reason,
  reasonNotes: null,
  displayReason: reason === 'HIGH_RISK_OF_FRAUD' ? 'High risk of fraud' : reason === 'AWAITING_PAYMENT' ? 'Awaiting payment' : 'Other',
  handle: null,
  heldByRequestingApp: false,
  ...extra,
});
const standing = (fos: OrderStanding['fulfillmentOrders'], risk: string | null = 'NONE'): OrderStanding => ({ createdAt: '2026-11-28T10:00:00Z', riskRecommendation: risk, fulfillmentOrders: fos, moreFulfillmentOrders: false });
const fo = (id: number, status: string, holds: FulfillmentHoldRead[] = []) => ({ id: `gid://shopify/FulfillmentOrder/${id}`, status, holds });

describe("Shopify's holds that keep an order from the printer", () => {
  it('waits for every reason by default, whoever placed it, and names the holds in Shopify\'s words', () => {
    const held = heldFulfillmentOrders(standing([fo(1, 'OPEN'), fo(2, 'ON_HOLD', [hold('HIGH_RISK_OF_FRAUD', { reasonNotes: 'flagged', handle: 'fraud-app' })])]), DEFAULT_HOLD_POLICY);
    expect(held.map((h) => h.fulfillmentOrderId)).toEqual(['gid://shopify/FulfillmentOrder/2']);
    expect(shopifyHoldProblem(held, 'now').message).toMatch(/^waiting for Shopify's hold: High risk of fraud \(flagged\)\./);
  });

  it("never waits for the app's own hold, but does for another app's hold of the same handle", () => {
    const own = hold('OTHER', { handle: 'print-bridge', heldByRequestingApp: true });
    expect(heldFulfillmentOrders(standing([fo(1, 'ON_HOLD', [own])]), DEFAULT_HOLD_POLICY)).toEqual([]);
    const impostor = hold('OTHER', { handle: 'print-bridge', heldByRequestingApp: false });
    expect(heldFulfillmentOrders(standing([fo(1, 'ON_HOLD', [own, impostor])]), DEFAULT_HOLD_POLICY)[0]!.holds).toEqual([impostor]);
  });

  it('lets through the reasons a store does not list, and everything with none', () => {
    const payment = standing([fo(1, 'ON_HOLD', [hold('AWAITING_PAYMENT')])]);
    expect(heldFulfillmentOrders(payment, { waitForHolds: ['HIGH_RISK_OF_FRAUD'], waitForRisk: 'cancel' })).toEqual([]);
    expect(heldFulfillmentOrders(payment, { waitForHolds: ['AWAITING_PAYMENT'], waitForRisk: 'cancel' })).toHaveLength(1);
    expect(heldFulfillmentOrders(payment, { waitForHolds: 'none', waitForRisk: 'cancel' })).toEqual([]);
  });

  it('takes an ON_HOLD fulfillment order whose holds it cannot see as held, for a reason unknown', () => {
    const held = heldFulfillmentOrders(standing([fo(3, 'ON_HOLD')]), DEFAULT_HOLD_POLICY);
    expect(shopifyHoldProblem(held, 'now').message).toContain('no reason given');
  });

  it('waits on CANCEL by default, on INVESTIGATE only where chosen, never with none', () => {
    expect(riskToWaitFor(standing([], 'CANCEL'), DEFAULT_HOLD_POLICY)).toBe('CANCEL');
    expect(riskToWaitFor(standing([], 'INVESTIGATE'), DEFAULT_HOLD_POLICY)).toBeUndefined();
    expect(riskToWaitFor(standing([], 'INVESTIGATE'), { waitForHolds: 'all', waitForRisk: 'investigate' })).toBe('INVESTIGATE');
    expect(riskToWaitFor(standing([], 'CANCEL'), { waitForHolds: 'all', waitForRisk: 'none' })).toBeUndefined();
    expect(riskToWaitFor(standing([], null), DEFAULT_HOLD_POLICY)).toBeUndefined();
  });

  it("words a hold without Shopify's wording from its reason", () => {
    expect(holdWords({ reason: 'INCORRECT_ADDRESS', reasonNotes: 'no flat number', displayReason: '' })).toBe('Incorrect address (no flat number)');
  });
});
