import { describe, expect, it } from 'vitest';
import { blankOrder, type OrderLink } from './model.js';
import { about, beginSubmission, clearProblems, markShipmentApplied, markShipmentFulfilled, markShipmentShipped, moveTo, ofKind, replaceProblems, setProblem, settleIn } from './transitions.js';

const AT = '2026-11-24T10:00:00.000Z';
const LATER = '2026-11-24T11:00:00.000Z';

function order(extra: Partial<OrderLink> = {}): OrderLink {
  return {
    ...blankOrder('acme.myshopify.com', 'gid://shopify/Order/1', new Date(AT)),
    shipments: [
      { index: 0, lineItems: [{ lineItemId: 'gid://shopify/LineItem/1', quantity: 1 }], status: 'pending' },
      { index: 1, lineItems: [{ lineItemId: 'gid://shopify/LineItem/2', quantity: 2 }], status: 'pending' },
    ],
    ...extra,
  };
}

describe('the order model', () => {
  it('moves forward only, and leaves the argument alone', () => {
    const submitted = order({ status: 'submitted' });
    const moved = moveTo(submitted, 'print-ready', LATER);
    expect(moved).toMatchObject({ moved: true, link: { status: 'print-ready', statusAt: LATER } });
    expect(submitted.status).toBe('submitted');
    expect(moveTo(moved.link, 'received', LATER)).toEqual({ link: moved.link, moved: false });
    expect(moveTo(order({ status: 'shipped' }), 'cancelled', LATER).moved).toBe(false);
    expect(settleIn(order({ status: 'held', statusAt: AT }), 'held', LATER)).toMatchObject({ moved: true, link: { statusAt: AT } });
  });

  it('begins a submission from every status one may start from, keeping the time of a repeat, and from no other', () => {
    for (const status of ['pending', 'waiting', 'held', 'error', 'not-printed'] as const) {
      expect(beginSubmission(order({ status }), LATER), status).toMatchObject({ status: 'submitting', statusAt: LATER });
    }
    expect(beginSubmission(order({ status: 'submitting', statusAt: AT }), LATER)).toMatchObject({ status: 'submitting', statusAt: AT });
    for (const status of ['submitted', 'received', 'shipped', 'cancelled'] as const) expect(beginSubmission(order({ status }), LATER), status).toBeUndefined();
  });

  it('replaces, sets and clears problems by kind and subject', () => {
    const p = (kind: string, subject?: string) => ({ kind, message: kind, at: AT, ...(subject ? { subject } : {}) });
    let link = replaceProblems(order(), ofKind('mapping'), [p('mapping', 'line 1'), p('mapping', 'line 2')]);
    link = setProblem(link, p('fulfillment', 'shipment 0'));
    link = setProblem(link, { ...p('fulfillment', 'shipment 0'), message: 'again' });
    expect(link.problems.map((x) => `${x.kind}:${x.subject}:${x.message}`)).toEqual(['mapping:line 1:mapping', 'mapping:line 2:mapping', 'fulfillment:shipment 0:again']);
    expect(clearProblems(link, about('shipment 0')).problems).toHaveLength(2);
    expect(clearProblems(link, ofKind('mapping')).problems).toHaveLength(1);
    const none = order();
    expect(clearProblems(none, ofKind('x'))).toBe(none);
  });

  it('ships a shipment, then the order; a repeat tells nothing new; a cancelled order keeps its status', () => {
    const first = markShipmentShipped(order({ status: 'print-ready' }), 0, { trackingNumber: 'T0', carrier: { code: 'royalmail' }, at: AT });
    expect(first).toMatchObject({ changed: true, moved: true, target: 'partially-shipped', link: { status: 'partially-shipped' } });
    expect(first.link.shipments[0]).toMatchObject({ status: 'shipped', trackingNumber: 'T0', shippedAt: AT });
    const repeat = markShipmentShipped(first.link, 0, { trackingNumber: 'T0', at: LATER });
    expect(repeat).toMatchObject({ changed: false, moved: false });
    expect(repeat.link.shipments[0]!.shippedAt).toBe(AT);
    const newTracking = markShipmentShipped(first.link, 0, { trackingNumber: 'T0-NEW', at: LATER });
    expect(newTracking).toMatchObject({ changed: true, link: { shipments: [{ trackingNumber: 'T0-NEW', carrier: { code: 'royalmail' } }, { status: 'pending' }] } });
    const both = markShipmentShipped(first.link, 1, { trackingNumber: 'T1', at: LATER });
    expect(both).toMatchObject({ moved: true, target: 'shipped', link: { status: 'shipped', statusAt: LATER } });
    const cancelled = markShipmentShipped(order({ status: 'cancelled' }), 0, { at: AT });
    expect(cancelled).toMatchObject({ moved: false, link: { status: 'cancelled', shipments: [{ status: 'shipped' }, { status: 'pending' }] } });
  });

  it('records a fulfillment once, ending the shipment wait and its problems', () => {
    const waiting = order({
      status: 'shipped',
      problems: [{ kind: 'fulfillment', subject: 'shipment 0', message: 'refused', at: AT }, { kind: 'other', message: 'x', at: AT }],
      shipments: [{ index: 0, lineItems: [], status: 'shipped', waitingForRelease: { since: AT, message: 'held', fulfillmentOrderIds: [], checks: 1 } }],
    });
    const fulfilled = markShipmentFulfilled(waiting, 0, { fulfillmentId: 'gid://shopify/Fulfillment/9', trackingNumber: 'T0', at: LATER })!;
    expect(fulfilled.shipments[0]).toMatchObject({ fulfillmentId: 'gid://shopify/Fulfillment/9', fulfilledTrackingNumber: 'T0', appliedAt: LATER });
    expect(fulfilled.shipments[0]!.waitingForRelease).toBeUndefined();
    expect(fulfilled.problems.map((p) => p.kind)).toEqual(['other']);
    expect(markShipmentFulfilled(fulfilled, 0, { fulfillmentId: 'gid://shopify/Fulfillment/9', trackingNumber: 'T0', at: LATER })).toBeUndefined();
    expect(markShipmentApplied(waiting, 0, LATER).shipments[0]).toMatchObject({ appliedAt: LATER, waitingForRelease: undefined });
  });
});
