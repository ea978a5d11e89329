import { describe, expect, it } from 'vitest';
import { blankOrder, type OrderLink } from '../orders/model.js';
import { appHoldNotes, REASON_NOTES_MAX, storeTimeOf } from './app-hold-notes.js';
import { appHoldChanges, printedLineItemIds } from './app-hold-plan.js';
import type { FulfillmentOrderHolds } from './shopify-data.js';
import { WAIT_KINDS } from './waiting-problems.js';

const NOW = new Date('2026-11-28T15:00:00Z');
const STORE = storeTimeOf('2026-11-28T10:00:00-05:00');

function link(extra: Partial<OrderLink>): OrderLink {
  return { ...blankOrder('notes.myshopify.com', 'gid://shopify/Order/1', NOW), ...extra };
}
const problem = (kind: string, message = kind, subject?: string) => ({ kind, message, at: NOW.toISOString(), ...(subject ? { subject } : {}) });

describe('appHoldNotes: what print-bridge keeps back, in the merchant\'s words', () => {
  it('names the end of the edit window in the store\'s time, with the date when it is not today there', () => {
    expect(STORE).toEqual({ offsetMinutes: -300 });
    expect(appHoldNotes(link({ submitAfter: '2026-11-28T19:30:00Z' }), NOW, STORE)).toBe('Print Bridge: edit window until 14:30 (store time)');
    expect(appHoldNotes(link({ submitAfter: '2026-11-29T06:00:00Z' }), NOW, STORE)).toBe('Print Bridge: edit window until 2026-11-29 01:00 (store time)');
    expect(appHoldNotes(link({ submitAfter: '2026-11-28T19:30:00Z' }), NOW)).toBe('Print Bridge: edit window until 19:30 (UTC)');
  });

  it('says nothing once the window is over, without one, or when the merchant sent it anyway', () => {
    expect(appHoldNotes(link({ submitAfter: '2026-11-28T14:59:00Z' }), NOW, STORE)).toBeUndefined();
    expect(appHoldNotes(link({}), NOW, STORE)).toBeUndefined();
    expect(appHoldNotes(link({ submitAfter: '2026-11-28T19:30:00Z', sendAnyway: { at: NOW.toISOString(), by: 'merchant' } }), NOW, STORE)).toBeUndefined();
  });

  it('names the line a mapping problem is about, and how many more there are', () => {
    const held = link({
      status: 'held',
      problems: [
        problem('mapping', 'no product rule matches; unmapped: hold keeps the order back', 'line item gid://shopify/LineItem/7 (SKU MUG-1, "Mug") order.line_items[1]'),
        problem('mapping', 'another'),
      ],
    });
    expect(appHoldNotes(held, NOW)).toBe('Print Bridge: line 2 (SKU MUG-1): no product rule matches; unmapped: hold keeps the order back (+1 more)');
  });

  it("shows print-bridge's own waits and none of the others'", () => {
    const waiting = (kind: string) => appHoldNotes(link({ status: 'waiting', problems: [problem(kind)] }), NOW);
    expect(waiting(WAIT_KINDS.testMode)).toBe('Print Bridge: test mode — goes to the printer when the store goes live');
    expect(waiting(WAIT_KINDS.risk)).toBe("Print Bridge: Shopify's risk analysis flagged this order; Send now in the app prints it anyway");
    expect(waiting(WAIT_KINDS.noMapping)).toMatch(/^Print Bridge: no mapping/);
    expect(waiting(WAIT_KINDS.noPrintAccount)).toMatch(/^Print Bridge: no print account/);
    expect(waiting(WAIT_KINDS.storeNotConnected)).toBeUndefined();
    expect(waiting(WAIT_KINDS.shopifyHold)).toBeUndefined();
    for (const status of ['submitting', 'submitted', 'shipped', 'cancelled', 'not-printed', 'error'] as const) {
      expect(appHoldNotes(link({ status, submitAfter: '2026-11-28T19:30:00Z', problems: [problem('mapping')] }), NOW)).toBeUndefined();
    }
  });

  it('keeps long notes within the bound, cut on a whole character', () => {
    const long = appHoldNotes(link({ status: 'held', problems: [problem('mapping', `${'é'.repeat(300)}😀`)] }), NOW)!;
    expect([...long].length).toBe(REASON_NOTES_MAX);
    expect(long.endsWith('…')).toBe(true);
  });
});

const fo = (id: string, extra: Partial<FulfillmentOrderHolds> = {}): FulfillmentOrderHolds => ({ id, status: 'OPEN', atServiceLocation: false, holds: [], lineItemIds: ['L1'], ...extra });
const own = (id: string, reasonNotes: string) => ({ id, reason: 'OTHER', reasonNotes, handle: 'print-bridge', heldByRequestingApp: true });
const merchant = { id: 'H-merchant', reason: 'AWAITING_PAYMENT', reasonNotes: null, handle: '', heldByRequestingApp: false };
const otherApp = { id: 'H-other', reason: 'OTHER', reasonNotes: 'x', handle: 'print-bridge', heldByRequestingApp: false };

describe('appHoldChanges: desired against what Shopify shows', () => {
  it('places on the open and held fulfillment orders of the merchant that hold printed lines, nowhere else', () => {
    const changes = appHoldChanges('N', new Set(['L1']), [
      fo('A'),
      fo('B', { status: 'ON_HOLD', holds: [merchant] }),
      fo('C', { lineItemIds: ['L9'] }),
      fo('D', { atServiceLocation: true }),
      fo('E', { status: 'IN_PROGRESS' }),
      fo('F', { status: 'CLOSED' }),
    ]);
    expect(changes).toEqual({ release: [], place: [{ fulfillmentOrderId: 'A', reasonNotes: 'N' }, { fulfillmentOrderId: 'B', reasonNotes: 'N' }] });
  });

  it('holds every open fulfillment order of the merchant before the order is mapped', () => {
    expect(printedLineItemIds({ shipments: [] })).toBeUndefined();
    expect(appHoldChanges('N', undefined, [fo('A', { lineItemIds: ['L9'] })]).place).toHaveLength(1);
  });

  it('changes nothing where its hold already says so: a second run places nothing', () => {
    expect(appHoldChanges('N', undefined, [fo('A', { status: 'ON_HOLD', holds: [own('H1', 'N'), merchant] })])).toEqual({ release: [], place: [] });
  });

  it('replaces its hold when the notes change: its own released by id, then placed again', () => {
    expect(appHoldChanges('New', undefined, [fo('A', { status: 'ON_HOLD', holds: [merchant, own('H1', 'Old'), otherApp] })])).toEqual({
      release: [{ fulfillmentOrderId: 'A', holdIds: ['H1'] }],
      place: [{ fulfillmentOrderId: 'A', reasonNotes: 'New' }],
    });
  });

  it("releases only its own holds when the wait is over, never the merchant's or another app's with the same handle", () => {
    expect(appHoldChanges(undefined, undefined, [fo('A', { status: 'ON_HOLD', holds: [merchant, own('H1', 'N'), otherApp] }), fo('B', { status: 'ON_HOLD', holds: [merchant] })])).toEqual({
      release: [{ fulfillmentOrderId: 'A', holdIds: ['H1'] }],
      place: [],
    });
  });
});
