import { describe, expect, it } from 'vitest';
import type { OrderForFulfillment } from '../bridge/shopify-data.js';
import { planFulfillment } from './fulfillment-plan.js';

const A = 'gid://shopify/LineItem/9007199254740995';
const B = 'gid://shopify/LineItem/9007199254740997';

function order(overrides: Partial<OrderForFulfillment> = {}): OrderForFulfillment {
  return {
    id: 'gid://shopify/Order/1',
    name: '#1',
    tags: [],
    note: null,
    cancelledAt: null,
    updatedAt: '2026-11-21T10:00:00Z',
    displayFulfillmentStatus: 'PARTIALLY_FULFILLED',
    lineItems: [],
    fulfillmentOrders: [
      {
        id: 'gid://shopify/FulfillmentOrder/10',
        status: 'IN_PROGRESS',
        fulfillAt: null,
        holds: [],
        lineItems: [
          { id: 'gid://shopify/FulfillmentOrderLineItem/11', lineItemId: A, sku: 'A', totalQuantity: 3, remainingQuantity: 2 },
          { id: 'gid://shopify/FulfillmentOrderLineItem/12', lineItemId: B, sku: 'B', totalQuantity: 1, remainingQuantity: 0 },
        ],
      },
      {
        id: 'gid://shopify/FulfillmentOrder/20',
        status: 'OPEN',
        fulfillAt: null,
        holds: [],
        lineItems: [{ id: 'gid://shopify/FulfillmentOrderLineItem/21', lineItemId: A, sku: 'A', totalQuantity: 2, remainingQuantity: 2 }],
      },
    ],
    fulfillments: [],
    moreFulfillments: false,
    status: null,
    ...overrides,
  };
}

describe('planFulfillment', () => {
  it('takes what remains across fulfillment orders, merging repeated lines', () => {
    const plan = planFulfillment(order(), [
      { lineItemId: A, quantity: 1 },
      { lineItemId: A, quantity: 2 },
    ]);
    expect(plan.fulfillmentOrders).toEqual([
      { fulfillmentOrderId: 'gid://shopify/FulfillmentOrder/10', lineItems: [{ id: 'gid://shopify/FulfillmentOrderLineItem/11', quantity: 2 }] },
      { fulfillmentOrderId: 'gid://shopify/FulfillmentOrder/20', lineItems: [{ id: 'gid://shopify/FulfillmentOrderLineItem/21', quantity: 1 }] },
    ]);
    expect(plan.shortfalls).toEqual([]);
  });

  it('reports what was fulfilled already, or is not in the order, instead of planning it', () => {
    const plan = planFulfillment(order(), [
      { lineItemId: A, quantity: 5 },
      { lineItemId: B, quantity: 1 },
      { lineItemId: 'gid://shopify/LineItem/404', quantity: 1 },
    ]);
    expect(plan.fulfillmentOrders.flatMap((fo) => fo.lineItems).reduce((s, l) => s + l.quantity, 0)).toBe(4);
    expect(plan.shortfalls).toEqual([
      { lineItemId: A, quantity: 1, reason: 'already-fulfilled' },
      { lineItemId: B, quantity: 1, reason: 'already-fulfilled' },
      { lineItemId: 'gid://shopify/LineItem/404', quantity: 1, reason: 'not-in-order' },
    ]);
  });

  it('plans nothing for a cancelled order', () => {
    const cancelled = order({ cancelledAt: '2026-11-21T11:00:00Z' });
    for (const fo of cancelled.fulfillmentOrders) fo.status = 'CANCELLED';
    const plan = planFulfillment(cancelled, [{ lineItemId: A, quantity: 1 }]);
    expect(plan).toEqual({ fulfillmentOrders: [], shortfalls: [{ lineItemId: A, quantity: 1, reason: 'cancelled' }], held: [] });
  });

  it('refuses quantities that are not whole numbers above 0', () => {
    expect(() => planFulfillment(order(), [{ lineItemId: A, quantity: 0 }])).toThrow(RangeError);
  });

  it('reports what sits on a held or scheduled fulfillment order as waiting for release, not as already fulfilled', () => {
    const base = order();
    const held = order({
      fulfillmentOrders: [
        { ...base.fulfillmentOrders[0]!, status: 'ON_HOLD', holds: [{ id: 'gid://shopify/FulfillmentHold/1', reason: 'AWAITING_PAYMENT', reasonNotes: 'bank transfer', displayReason: 'Awaiting payment', handle: '', heldByRequestingApp: false }] },
        { ...base.fulfillmentOrders[1]!, status: 'SCHEDULED', fulfillAt: '2026-12-01T09:00:00Z' },
      ],
    });
    const plan = planFulfillment(held, [{ lineItemId: A, quantity: 4 }]);
    expect(plan.fulfillmentOrders).toEqual([]);
    expect(plan.shortfalls).toEqual([
      { lineItemId: A, quantity: 2, reason: 'on-hold' },
      { lineItemId: A, quantity: 2, reason: 'scheduled' },
    ]);
    expect(plan.held).toEqual([
      { fulfillmentOrderId: 'gid://shopify/FulfillmentOrder/10', status: 'ON_HOLD', reasons: ['Awaiting payment (bank transfer)'], fulfillAt: null },
      { fulfillmentOrderId: 'gid://shopify/FulfillmentOrder/20', status: 'SCHEDULED', reasons: [], fulfillAt: '2026-12-01T09:00:00Z' },
    ]);
    // Open quantity is planned first; only the rest waits.
    const partly = order({ fulfillmentOrders: [base.fulfillmentOrders[1]!, { ...base.fulfillmentOrders[0]!, status: 'ON_HOLD' }] });
    const mixed = planFulfillment(partly, [{ lineItemId: A, quantity: 3 }]);
    expect(mixed.fulfillmentOrders).toEqual([{ fulfillmentOrderId: 'gid://shopify/FulfillmentOrder/20', lineItems: [{ id: 'gid://shopify/FulfillmentOrderLineItem/21', quantity: 2 }] }]);
    expect(mixed.shortfalls).toEqual([{ lineItemId: A, quantity: 1, reason: 'on-hold' }]);
  });
});
