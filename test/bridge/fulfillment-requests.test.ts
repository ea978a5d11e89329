import { describe, expect, it } from 'vitest';
import { answerFulfillmentRequests, takeFulfillmentRequests } from '../../src/bridge/fulfillment-requests.js';
import type { FulfillmentRequestsPort } from '../../src/bridge/ports.js';
import type { AssignedFulfillmentOrder, RequestRejection, UnreadableFulfillmentOrder } from '../../src/bridge/shopify-data.js';
import { plannedRejection } from '../../src/bridge/service-submission.js';
import { mergeRequests, onlyRequestedLines, pendingRequests, requestedQuantities } from '../../src/orders/service-request.js';
import { ShopifyUserError } from '../../src/shopify/admin-api.js';
import { memoryDeps, shopifyOrderBody } from '../helpers/bridge-fakes.js';

/** Fulfillment-service mode's rules and use cases on the in-memory store (the end-to-end run is test/integration/fulfillment-service.test.ts). */
const SHOP = 'acme.myshopify.com';
const LOCATION = 'gid://shopify/Location/77';

class FakeRequests implements FulfillmentRequestsPort {
  requested: AssignedFulfillmentOrder[] = [];
  cancellations: AssignedFulfillmentOrder[] = [];
  answers: { kind: string; id: string; detail?: unknown }[] = [];
  refuse = new Set<string>();
  bodies = new Map<string, string>();
  location: string | undefined = LOCATION;
  async serviceLocation() {
    return this.location;
  }
  unreadable: UnreadableFulfillmentOrder[] = [];
  async pending(_shop: string, kind: 'FULFILLMENT_REQUESTED' | 'CANCELLATION_REQUESTED') {
    return kind === 'FULFILLMENT_REQUESTED' ? { fulfillmentOrders: this.requested, unreadable: this.unreadable } : { fulfillmentOrders: this.cancellations, unreadable: [] };
  }
  private answer(kind: string, id: string, detail?: unknown) {
    if (this.refuse.has(id)) throw new ShopifyUserError(kind, SHOP, id, [{ field: ['id'], message: 'Cannot accept fulfillment request for the fulfillment order.' }]);
    this.answers.push({ kind, id, detail });
  }
  async accept(_shop: string, id: string, message: string) {
    this.answer('accept', id, message);
  }
  async reject(_shop: string, id: string, rejection: RequestRejection) {
    this.answer('reject', id, rejection);
  }
  async acceptCancellation(_shop: string, id: string, message: string) {
    this.answer('accept-cancellation', id, message);
  }
  async rejectCancellation(_shop: string, id: string, message: string) {
    this.answer('reject-cancellation', id, message);
  }
  async orderBody(_shop: string, orderId: string) {
    return this.bodies.get(orderId);
  }
  async forgetService() {
    this.location = undefined;
  }
}

function assigned(orderId: string, id: string, lines: { lineItemId: string; sku: string; quantity: number }[]): AssignedFulfillmentOrder {
  return {
    id,
    status: 'OPEN',
    requestStatus: 'SUBMITTED',
    orderId,
    orderName: '#1001',
    lineItems: lines.map((l, i) => ({ id: `${id}-line-${i}`, lineItemId: l.lineItemId, sku: l.sku, totalQuantity: l.quantity, remainingQuantity: l.quantity })),
  };
}

function setup() {
  const deps = memoryDeps();
  const requests = new FakeRequests();
  return { deps: { ...deps, fulfillmentRequests: requests }, requests };
}

describe('the requests an order keeps (orders/service-request.ts)', () => {
  const read = [{ id: 'fo-1', lineItems: [{ id: 'l1', lineItemId: 'gid://shopify/LineItem/1', sku: 'A', quantity: 2 }] }];

  it('takes a request read twice as one, and one sent again after a rejection afresh', () => {
    const first = mergeRequests(undefined, read, '2026-11-25T10:00:00Z')!;
    expect(pendingRequests(first).map((fo) => fo.id)).toEqual(['fo-1']);
    expect(mergeRequests(first, read, '2026-11-25T10:01:00Z')).toBeUndefined();
    const rejected = { ...first, fulfillmentOrders: first.fulfillmentOrders.map((fo) => ({ ...fo, answer: 'rejected' as const })), rejection: { reason: 'INVALID_SKU' as const, message: 'x', lineItems: [] } };
    const again = mergeRequests(rejected, read, '2026-11-25T11:00:00Z')!;
    expect(pendingRequests(again)).toHaveLength(1);
    expect(again.rejection).toBeUndefined();
    expect(requestedQuantities(again).get('gid://shopify/LineItem/1')).toBe(2);
  });

  it("keeps only the requested lines of a body, at the requested quantity, ids past 2^53 exact", () => {
    const body = JSON.stringify(shopifyOrderBody()).replace('"line_items":[', '"line_items":[{"id":9007199254740993,"admin_graphql_api_id":"gid://shopify/LineItem/9007199254740993","sku":"HAT","title":"Hat","quantity":1},');
    const kept = onlyRequestedLines(body, new Map([['gid://shopify/LineItem/9007199254740993', 1]]));
    expect(kept).toContain('"id":"9007199254740993"');
    const parsed = JSON.parse(kept) as { line_items: { sku: string; quantity: number }[]; refunds?: unknown };
    expect(parsed.line_items.map((l) => `${l.sku}×${l.quantity}`)).toEqual(['HAT×1']);
    expect(parsed.refunds).toBeUndefined();
  });

  it('rejects with the reason Shopify shows: an unknown SKU, an address, test mode; lines named by their SKU', () => {
    const link = {
      ...memoryDeps().store.blank(SHOP, 'gid://shopify/Order/5'),
      orderName: '#5',
      fulfillmentRequest: mergeRequests(undefined, [{ id: 'fo-5', lineItems: [{ id: 'fol-5', lineItemId: 'gid://shopify/LineItem/55', sku: 'MUG', quantity: 1 }] }], 'now')!,
    };
    const unmapped = plannedRejection(link, 'mapping', [{ subject: 'line item 55 (SKU MUG, "Mug")', message: 'no product rule matches SKU MUG', mappingKind: 'unmapped' }]);
    expect(unmapped.reason).toBe('INVALID_SKU');
    expect(unmapped.message).toContain('MUG');
    expect(unmapped.lineItems).toEqual([{ fulfillmentOrderLineItemId: 'fol-5', message: 'no product rule matches SKU MUG' }]);
    expect(plannedRejection(link, 'mapping', [{ subject: 'shipTo.postcode', message: 'is empty', mappingKind: 'address' }]).reason).toBe('INCORRECT_ADDRESS');
    const test = plannedRejection(link, 'test-mode', []);
    expect(test).toMatchObject({ reason: 'OTHER', lineItems: [] });
    expect(test.message).toMatch(/test mode.*Go live/);
  });
});

describe('takeFulfillmentRequests / answerFulfillmentRequests', () => {
  it('does nothing for a store in merchant mode', async () => {
    const { deps, requests } = setup();
    requests.location = undefined;
    expect(await takeFulfillmentRequests(deps, SHOP)).toEqual({ kind: 'not-in-service-mode' });
  });

  it('records a request (reading the order from Shopify when its webhook has not come) and schedules its submission once', async () => {
    const { deps, requests } = setup();
    const body = shopifyOrderBody();
    requests.bodies.set(body.admin_graphql_api_id, JSON.stringify(body));
    requests.requested = [assigned(body.admin_graphql_api_id, 'fo-1', [{ lineItemId: body.line_items[0]!.admin_graphql_api_id, sku: 'BOOK-A5', quantity: 2 }])];
    expect(await takeFulfillmentRequests(deps, SHOP)).toMatchObject({ kind: 'taken', fulfillmentRequests: 1 });
    await takeFulfillmentRequests(deps, SHOP);
    expect(deps.scheduler.calls.filter((c) => c.kind === 'submit')).toHaveLength(1);
    const link = await deps.store.get(SHOP, body.admin_graphql_api_id);
    expect(pendingRequests(link!.fulfillmentRequest).map((fo) => fo.id)).toEqual(['fo-1']);
    expect(await deps.store.getOrderBody(SHOP, body.admin_graphql_api_id)).toBeDefined();
  });

  it('accepts only once the order is at the printer, and records what Shopify refused instead of retrying it', async () => {
    const { deps, requests } = setup();
    const orderId = 'gid://shopify/Order/9';
    const lineItemId = 'gid://shopify/LineItem/91';
    await deps.store.update(SHOP, orderId, () => ({
      link: { ...deps.store.blank(SHOP, orderId), fulfillmentRequest: mergeRequests(undefined, [{ id: 'fo-9', lineItems: [{ id: 'fol-9', lineItemId, sku: 'A', quantity: 1 }] }, { id: 'fo-10', lineItems: [{ id: 'fol-10', lineItemId, sku: 'A', quantity: 0 }] }], 'now')! },
    }));
    expect((await answerFulfillmentRequests(deps, SHOP, orderId)).waiting.sort()).toEqual(['fo-10', 'fo-9']);
    expect(requests.answers).toEqual([]);
    await deps.store.update(SHOP, orderId, (current) => ({
      link: { ...current!, status: 'submitted', printOrderId: 'p-1', sourceOrderId: 's-1', shipments: [{ index: 0, status: 'pending', lineItems: [{ lineItemId, quantity: 1 }] }] },
    }));
    requests.refuse.add('fo-10');
    const outcome = await answerFulfillmentRequests(deps, SHOP, orderId);
    expect(outcome.accepted).toEqual(['fo-9']);
    const link = await deps.store.get(SHOP, orderId);
    expect(link!.fulfillmentRequest!.fulfillmentOrders.find((fo) => fo.id === 'fo-10')!.answerRefused).toMatch(/Cannot accept/);
    // Answered: a repeated job sends nothing again.
    await answerFulfillmentRequests(deps, SHOP, orderId);
    expect(requests.answers.filter((a) => a.kind === 'accept')).toHaveLength(1);
  });

  it('rejects a request for lines the print order already sent does not have', async () => {
    const { deps, requests } = setup();
    const orderId = 'gid://shopify/Order/11';
    await deps.store.update(SHOP, orderId, () => ({
      link: {
        ...deps.store.blank(SHOP, orderId),
        status: 'submitted',
        printOrderId: 'p-11',
        shipments: [{ index: 0, status: 'pending', lineItems: [{ lineItemId: 'gid://shopify/LineItem/1', quantity: 1 }] }],
        fulfillmentRequest: mergeRequests(undefined, [{ id: 'fo-11', lineItems: [{ id: 'fol-11', lineItemId: 'gid://shopify/LineItem/2', sku: 'LATE', quantity: 1 }] }], 'now')!,
      },
    }));
    expect((await answerFulfillmentRequests(deps, SHOP, orderId)).rejected).toEqual(['fo-11']);
    const rejection = requests.answers[0]!.detail as RequestRejection;
    expect(rejection.lineItems[0]!.message).toContain('LATE');
  });

  it('answers a cancellation request by what the order became: cancelled accepted, shipped rejected, in flight waits', async () => {
    const { deps, requests } = setup();
    const make = async (orderId: string, status: 'cancelled' | 'shipped' | 'submitted') =>
      deps.store.update(SHOP, orderId, () => ({
        link: {
          ...deps.store.blank(SHOP, orderId),
          status,
          printOrderId: 'p',
          fulfillmentRequest: { fulfillmentOrders: [{ id: `fo-${status}`, lineItems: [], requestedAt: 'now', answer: 'accepted' as const, cancellation: 'requested' as const }] },
        },
      }));
    await make('gid://shopify/Order/21', 'cancelled');
    await make('gid://shopify/Order/22', 'shipped');
    await make('gid://shopify/Order/23', 'submitted');
    expect((await answerFulfillmentRequests(deps, SHOP, 'gid://shopify/Order/21')).cancellations).toEqual({ 'fo-cancelled': 'accepted' });
    expect((await answerFulfillmentRequests(deps, SHOP, 'gid://shopify/Order/22')).cancellations).toEqual({ 'fo-shipped': 'rejected' });
    expect((await answerFulfillmentRequests(deps, SHOP, 'gid://shopify/Order/23')).waiting).toEqual(['fo-submitted']);
    expect(requests.answers.map((a) => a.kind)).toEqual(['accept-cancellation', 'reject-cancellation']);
  });
});

describe('fulfillment_orders/moved', () => {
  it("closes a request moved away from print-bridge's location: not printed, not fulfilled by the app", async () => {
    const { parseFulfillmentOrderWebhook, onFulfillmentOrderChanged } = await import('../../src/bridge/fulfillment-order-changed.js');
    const { deps, requests } = setup();
    const orderId = 'gid://shopify/Order/31';
    await deps.store.update(SHOP, orderId, () => ({
      link: { ...deps.store.blank(SHOP, orderId), fulfillmentRequest: mergeRequests(undefined, [{ id: 'gid://shopify/FulfillmentOrder/310', lineItems: [{ id: 'fol', lineItemId: 'gid://shopify/LineItem/3', sku: 'A', quantity: 1 }] }], 'now')! },
    }));
    const body = '{"original_fulfillment_order":{"id":"gid://shopify/FulfillmentOrder/310","status":"closed","assigned_location_id":"gid://shopify/Location/77"},"moved_fulfillment_order":{"id":"gid://shopify/FulfillmentOrder/311","status":"open","assigned_location_id":"gid://shopify/Location/1"},"destination_location_id":"gid://shopify/Location/1"}';
    const parsed = parseFulfillmentOrderWebhook('fulfillment_orders/moved', body);
    expect(parsed).toMatchObject({ ok: true, change: { fulfillmentOrderId: 'gid://shopify/FulfillmentOrder/310', movedTo: 'gid://shopify/FulfillmentOrder/311', destinationLocationId: 'gid://shopify/Location/1' } });
    if (!parsed.ok) return;
    const shopify = { getFulfillmentOrderOrder: async () => ({ orderId, status: 'CLOSED' }) } as never;
    const outcome = await onFulfillmentOrderChanged({ store: deps.store, shopify, tracking: () => ({}), clock: deps.clock, logger: deps.logger, fulfillmentRequests: requests }, SHOP, parsed.change);
    expect(outcome).toEqual({ kind: 'recorded', orderId });
    const link = await deps.store.get(SHOP, orderId);
    expect(pendingRequests(link!.fulfillmentRequest)).toEqual([]);
    expect(requestedQuantities(link!.fulfillmentRequest).size).toBe(0);
    expect((await deps.store.history(SHOP, orderId))[0]!.detail).toContain("left print-bridge's location");
  });
});
