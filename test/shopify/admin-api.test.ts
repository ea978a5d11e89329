import '@shopify/shopify-api/adapters/node';
import { ApiVersion, LogSeverity, Session, shopifyApi } from '@shopify/shopify-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { STAND_IN_APP_NAMESPACE, startAdminStandIn, type AdminStandIn } from '../../src/dev/admin-stand-in/index.js';
import {
  createShopifyApiTransport,
  ShopifyAdminApi,
  ShopifyPacer,
  ShopifyProtocolError,
  ShopifyThrottledError,
  ShopifyUnauthorizedError,
  ShopifyUnavailableError,
  ShopifyUserError,
  type PacingWait,
} from '../../src/shopify/admin-api.js';
import { planFulfillment } from '../../src/shopify/fulfillment-plan.js';

/**
 * The operations module against the stand-in over HTTP, through `@shopify/shopify-api`'s own GraphqlClient: the only
 * thing swapped is the origin its fetch goes to (SHOPIFY_ADMIN_API_ORIGIN).
 */

const SHOP = 'bridge-test.myshopify.com';
const TOKEN = 'shpat_test_token';
// Both above 2^53: as JS numbers they would turn into other ids.
const ORDER_GID = 'gid://shopify/Order/9007199254740993';
const LINE_A = 'gid://shopify/LineItem/9007199254740995';
const LINE_B = 'gid://shopify/LineItem/9007199254740997';

/** A webhook body as Shopify sends it: the numeric ids have already lost precision, the gids have not. */
function orderBody(overrides: { gid?: string; createdAt?: string; note?: string | null; tags?: string } = {}): unknown {
  const text = `{
    "id": 9007199254740993,
    "admin_graphql_api_id": "${overrides.gid ?? ORDER_GID}",
    "name": "#1001",
    "email": "buyer@example.com",
    "created_at": "${overrides.createdAt ?? '2026-11-20T10:00:00Z'}",
    "updated_at": "${overrides.createdAt ?? '2026-11-20T10:00:00Z'}",
    "cancelled_at": null,
    "note": ${JSON.stringify(overrides.note ?? null)},
    "tags": "${overrides.tags ?? 'vip'}",
    "line_items": [
      { "id": 9007199254740995, "admin_graphql_api_id": "${LINE_A}", "name": "Book A5", "title": "Book A5",
        "sku": "BOOK-A5-01", "quantity": 3, "current_quantity": 3, "fulfillable_quantity": 3, "requires_shipping": true },
      { "id": 9007199254740997, "admin_graphql_api_id": "${LINE_B}", "name": "Poster", "title": "Poster",
        "sku": "POSTER-A2", "quantity": 1, "current_quantity": 1, "fulfillable_quantity": 1, "requires_shipping": true }
    ]
  }`;
  return JSON.parse(text) as unknown;
}

let standIn: AdminStandIn;
let waits: PacingWait[];

function adminApi(options: { token?: string; pacer?: ShopifyPacer } = {}): ShopifyAdminApi {
  const shopify = shopifyApi({
    apiKey: 'test-key',
    apiSecretKey: 'test-secret',
    hostName: 'print-bridge.test',
    apiVersion: ApiVersion.January26,
    isEmbeddedApp: false,
    logger: { level: LogSeverity.Error },
  });
  const session = new Session({ id: `offline_${SHOP}`, shop: SHOP, state: 'test', isOnline: false, accessToken: options.token ?? TOKEN });
  const transport = createShopifyApiTransport({ shopify, session, adminApiOrigin: standIn.origin });
  const pacer =
    options.pacer ??
    new ShopifyPacer({ unavailableBaseDelayMs: 10, onWait: (w) => waits.push(w) });
  return new ShopifyAdminApi(transport, { pacer });
}

beforeAll(async () => {
  // A slow refill makes waits measurable while keeping each one short (a mutation costs 10 points: 200 ms).
  standIn = await startAdminStandIn({ accessTokens: { [SHOP]: TOKEN }, bucket: { restoreRate: 50 } });
});

afterAll(async () => {
  await standIn.close();
});

beforeEach(() => {
  standIn.reset();
  waits = [];
  standIn.seedOrder(SHOP, orderBody());
});

describe('reading an order', () => {
  it('returns line items, fulfillment orders with remaining quantities and exact gids above 2^53', async () => {
    const order = await adminApi().getOrderForFulfillment(ORDER_GID);
    expect(order).not.toBeNull();
    expect(order!.id).toBe(ORDER_GID);
    expect(order!.name).toBe('#1001');
    expect(order!.tags).toEqual(['vip']);
    expect(order!.cancelledAt).toBeNull();
    expect(order!.lineItems.map((l) => [l.id, l.sku, l.quantity])).toEqual([
      [LINE_A, 'BOOK-A5-01', 3],
      [LINE_B, 'POSTER-A2', 1],
    ]);
    expect(order!.fulfillmentOrders).toHaveLength(1);
    const fo = order!.fulfillmentOrders[0]!;
    expect(fo.status).toBe('OPEN');
    expect(fo.id).toMatch(/^gid:\/\/shopify\/FulfillmentOrder\/\d{16,}$/);
    expect(BigInt(fo.id.split('/').pop()!)).toBeGreaterThan(2n ** 53n);
    expect(fo.lineItems.map((l) => [l.lineItemId, l.totalQuantity, l.remainingQuantity])).toEqual([
      [LINE_A, 3, 3],
      [LINE_B, 1, 1],
    ]);
    expect(order!.fulfillments).toEqual([]);
    expect(order!.status).toBeNull();
  });

  it('requests little enough that a standard bucket admits several reads at once, and is refunded to what it read', async () => {
    await adminApi().getOrderForFulfillment(ORDER_GID);
    const [read] = standIn.requests();
    // fulfillmentOrders (2 + 5 × (1 + fulfillmentHolds 1 + (2 + 25 × (node 1 + lineItem 1)))) + fulfillments (1 + 5 ×
    // (trackingInfo 1 + (2 + 25 × 2))) + order 1 + metafield 1
    expect(read!.requestedQueryCost).toBe(540);
    // One fulfillment order of two lines and no hold, no fulfillment, no metafield: 1 + (2 + (1 + 1 + (2 + 2 × 2))) + 1 + 1
    expect(read!.actualQueryCost).toBe(13);
    expect(standIn.throttleStatus(SHOP).currentlyAvailable).toBeGreaterThanOrEqual(2000 - 13);
  });

  it('lists a line item split across fulfillment orders once', async () => {
    const line = (id: string, remaining: number) => ({
      id: `gid://shopify/FulfillmentOrderLineItem/${id}`,
      totalQuantity: remaining,
      remainingQuantity: remaining,
      lineItem: { id: LINE_A, sku: 'BOOK-A5-01', name: 'Book A5', quantity: 3, currentQuantity: 3, unfulfilledQuantity: 3 },
    });
    const fulfillmentOrder = (id: string, lines: ReturnType<typeof line>[]) => ({
      id: `gid://shopify/FulfillmentOrder/${id}`,
      status: 'OPEN',
      fulfillAt: null,
      fulfillmentHolds: [],
      lineItems: { nodes: lines, pageInfo: { hasNextPage: false } },
    });
    const transport = {
      shop: SHOP,
      request: async () => ({
        data: {
          order: {
            id: ORDER_GID,
            name: '#1001',
            tags: [],
            note: null,
            cancelledAt: null,
            updatedAt: '2026-11-21T09:00:00Z',
            displayFulfillmentStatus: 'UNFULFILLED',
            fulfillmentOrders: { nodes: [fulfillmentOrder('1', [line('11', 2)]), fulfillmentOrder('2', [line('21', 1)])], pageInfo: { hasNextPage: false } },
            fulfillments: [],
            statusMetafield: null,
          },
        },
      }),
    };
    const order = await new ShopifyAdminApi(transport).getOrderForFulfillment(ORDER_GID);
    expect(order!.lineItems.map((l) => [l.id, l.name])).toEqual([[LINE_A, 'Book A5']]);
    expect(order!.fulfillmentOrders.map((fo) => fo.lineItems.map((l) => [l.lineItemId, l.remainingQuantity]))).toEqual([[[LINE_A, 2]], [[LINE_A, 1]]]);
  });

  it('answers null for an order the shop does not have', async () => {
    expect(await adminApi().getOrderForFulfillment('gid://shopify/Order/1')).toBeNull();
  });

  it('sends the shop name and the access token the stand-in checks', async () => {
    await adminApi().getOrderForFulfillment(ORDER_GID);
    const [entry] = standIn.requests();
    expect(entry).toMatchObject({ shop: SHOP, apiVersion: '2026-01', status: 200, operation: 'query order', throttled: false });
    expect(entry!.requestedQueryCost).toBeGreaterThan(100);
    expect(entry!.requestedQueryCost).toBeLessThanOrEqual(1000);
  });
});

describe('fulfillments', () => {
  async function openFulfillmentOrder(api: ShopifyAdminApi) {
    const order = await api.getOrderForFulfillment(ORDER_GID);
    return order!.fulfillmentOrders[0]!;
  }

  it('fulfills a subset of line items with tracking and notifies the customer', async () => {
    const api = adminApi();
    const fo = await openFulfillmentOrder(api);
    const lineA = fo.lineItems.find((l) => l.lineItemId === LINE_A)!;
    const created = await api.createFulfillment({
      orderGid: ORDER_GID,
      fulfillmentOrders: [{ fulfillmentOrderId: fo.id, lineItems: [{ id: lineA.id, quantity: 2 }] }],
      trackingInfo: { company: 'Royal Mail', number: 'RM123456789GB', url: 'https://track.example/RM123456789GB' },
      notifyCustomer: true,
    });
    expect(created.id).toMatch(/^gid:\/\/shopify\/Fulfillment\/\d+$/);
    expect(created.name).toBe('#1001-F1');
    expect(created.trackingInfo).toEqual([{ company: 'Royal Mail', number: 'RM123456789GB', url: 'https://track.example/RM123456789GB' }]);

    const after = await api.getOrderForFulfillment(ORDER_GID);
    expect(after!.fulfillmentOrders[0]!.status).toBe('IN_PROGRESS');
    expect(after!.fulfillmentOrders[0]!.lineItems.map((l) => l.remainingQuantity)).toEqual([1, 1]);
    expect(after!.displayFulfillmentStatus).toBe('PARTIALLY_FULFILLED');
    expect(after!.fulfillments).toEqual([
      expect.objectContaining({ id: created.id, lineItems: [{ lineItemId: LINE_A, quantity: 2 }] }),
    ]);
    const recorded = standIn.getOrder(SHOP, ORDER_GID)!.fulfillments[0]!;
    expect(recorded.notifyCustomer).toBe(true);
    expect(recorded.source).toBe('api');
    expect(recorded.customerNotifications).toEqual([
      expect.objectContaining({ reason: 'fulfillment-created', trackingNumbers: ['RM123456789GB'] }),
    ]);
  });

  it('refuses more than remains with a permanent ShopifyUserError naming the operation and the order', async () => {
    const api = adminApi();
    const fo = await openFulfillmentOrder(api);
    const error = await api
      .createFulfillment({
        orderGid: ORDER_GID,
        fulfillmentOrders: [{ fulfillmentOrderId: fo.id, lineItems: [{ id: fo.lineItems[1]!.id, quantity: 2 }] }],
        notifyCustomer: false,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShopifyUserError);
    const userError = error as ShopifyUserError;
    expect(userError.retryable).toBe(false);
    expect(userError.message).toContain('createFulfillment');
    expect(userError.message).toContain(ORDER_GID);
    expect(userError.message).toContain('Invalid fulfillment order line item quantity requested');
    expect(userError.userErrors[0]!.field).toEqual(['fulfillment', 'lineItemsByFulfillmentOrder', '0', 'fulfillmentOrderLineItems', '0', 'quantity']);
    // Nothing changed.
    expect(standIn.getOrder(SHOP, ORDER_GID)!.fulfillments).toEqual([]);
  });

  it('updates the tracking of an existing fulfillment', async () => {
    const api = adminApi();
    const fo = await openFulfillmentOrder(api);
    const created = await api.createFulfillment({
      orderGid: ORDER_GID,
      fulfillmentOrders: [{ fulfillmentOrderId: fo.id, lineItems: [{ id: fo.lineItems[0]!.id, quantity: 3 }] }],
      trackingInfo: { company: 'UPS', number: '1Z999', url: 'https://ups.example/1Z999' },
      notifyCustomer: true,
    });
    const updated = await api.updateFulfillmentTracking(created.id, { company: 'UPS', number: '1Z000', url: 'https://ups.example/1Z000' }, true);
    expect(updated.id).toBe(created.id);
    expect(updated.trackingInfo).toEqual([{ company: 'UPS', number: '1Z000', url: 'https://ups.example/1Z000' }]);
    const recorded = standIn.getOrder(SHOP, ORDER_GID)!.fulfillments[0]!;
    expect(recorded.customerNotifications.map((n) => [n.reason, n.trackingNumbers])).toEqual([
      ['fulfillment-created', ['1Z999']],
      ['tracking-updated', ['1Z000']],
    ]);
  });

  it('fulfills without tracking when there is no tracking number, and closes the fulfillment order', async () => {
    const api = adminApi();
    const fo = await openFulfillmentOrder(api);
    const created = await api.createFulfillment({
      orderGid: ORDER_GID,
      fulfillmentOrders: [{ fulfillmentOrderId: fo.id, lineItems: fo.lineItems.map((l) => ({ id: l.id, quantity: l.remainingQuantity })) }],
      trackingInfo: { company: 'Royal Mail', number: '' },
      notifyCustomer: false,
    });
    expect(created.trackingInfo).toEqual([]);
    const after = await api.getOrderForFulfillment(ORDER_GID);
    expect(after!.fulfillmentOrders[0]!.status).toBe('CLOSED');
    expect(after!.displayFulfillmentStatus).toBe('FULFILLED');
    expect(standIn.getOrder(SHOP, ORDER_GID)!.fulfillments[0]!.customerNotifications).toEqual([]);
  });

  it('shows items a merchant fulfilled by hand, so they are not fulfilled twice', async () => {
    const response = await fetch(`${standIn.origin}/_stand-in/shops/${SHOP}/orders/${encodeURIComponent(ORDER_GID)}/fulfill`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ lineItems: [{ sku: 'POSTER-A2' }] }),
    });
    expect(response.status).toBe(201);
    const order = await adminApi().getOrderForFulfillment(ORDER_GID);
    const poster = order!.fulfillmentOrders[0]!.lineItems.find((l) => l.lineItemId === LINE_B)!;
    expect(poster.remainingQuantity).toBe(0);
    expect(order!.fulfillments).toHaveLength(1);
    expect(order!.fulfillments[0]!.lineItems).toEqual([{ lineItemId: LINE_B, quantity: 1 }]);
    expect(standIn.getOrder(SHOP, ORDER_GID)!.fulfillments[0]!.source).toBe('merchant');
  });

  it('plans a shipment around items fulfilled by hand, fulfills the rest and notes why', async () => {
    expect(standIn.fulfillByHand(SHOP, ORDER_GID, { lineItems: [{ id: LINE_B }] }).ok).toBe(true);
    const api = adminApi();
    const order = await api.getOrderForFulfillment(ORDER_GID);
    const plan = planFulfillment(order!, [
      { lineItemId: LINE_A, quantity: 3 },
      { lineItemId: LINE_B, quantity: 1 },
    ]);
    expect(plan.shortfalls).toEqual([{ lineItemId: LINE_B, quantity: 1, reason: 'already-fulfilled' }]);
    await api.createFulfillment({ orderGid: ORDER_GID, fulfillmentOrders: plan.fulfillmentOrders, notifyCustomer: true });
    await api.appendOrderNote(ORDER_GID, 'print-bridge: Poster (POSTER-A2) was already fulfilled in Shopify; not fulfilled again.');
    const after = standIn.getOrder(SHOP, ORDER_GID)!;
    expect(after.displayFulfillmentStatus).toBe('FULFILLED');
    expect(after.fulfillments.map((f) => [f.source, f.lineItems.map((l) => [l.lineItemId, l.quantity])])).toEqual([
      ['merchant', [[LINE_B, 1]]],
      ['api', [[LINE_A, 3]]],
    ]);
    expect(after.note).toContain('already fulfilled in Shopify');
  });
});

describe('tags, metafield and note', () => {
  it('adds and removes tags as a set', async () => {
    const api = adminApi();
    await api.showStatus(ORDER_GID, { addTags: ['print-bridge:print-ready'], removeTags: [] });
    await api.showStatus(ORDER_GID, { addTags: ['print-bridge:print-ready', 'print-bridge:error'], removeTags: [] });
    expect(standIn.getOrder(SHOP, ORDER_GID)!.tags).toEqual(['vip', 'print-bridge:print-ready', 'print-bridge:error']);
    await api.showStatus(ORDER_GID, { addTags: [], removeTags: ['print-bridge:error'] });
    await api.showStatus(ORDER_GID, { addTags: [], removeTags: ['print-bridge:error', 'never-there'] });
    expect(standIn.getOrder(SHOP, ORDER_GID)!.tags).toEqual(['vip', 'print-bridge:print-ready']);
  });

  it('refuses tags on an order that does not exist', async () => {
    await expect(adminApi().showStatus('gid://shopify/Order/2', { addTags: ['x'], removeTags: [] })).rejects.toBeInstanceOf(ShopifyUserError);
  });

  it('upserts the status metafield', async () => {
    const api = adminApi();
    await api.showStatus(ORDER_GID, { addTags: [], removeTags: [], status: { status: 'received', at: '2026-11-21T10:00:00Z' } });
    const first = standIn.getOrder(SHOP, ORDER_GID)!.metafields[0]!;
    await api.showStatus(ORDER_GID, { addTags: [], removeTags: [], status: { status: 'print-ready', at: '2026-11-21T11:00:00Z' } });
    const metafields = standIn.getOrder(SHOP, ORDER_GID)!.metafields;
    expect(metafields).toHaveLength(1);
    expect(metafields[0]!.id).toBe(first.id);
    expect(JSON.parse(metafields[0]!.value)).toEqual({ status: 'print-ready', at: '2026-11-21T11:00:00Z' });
    // $app resolves to the app's own namespace, as Shopify does.
    expect(metafields[0]).toMatchObject({ namespace: STAND_IN_APP_NAMESPACE, key: 'print_status', type: 'json' });
    const order = await api.getOrderForFulfillment(ORDER_GID);
    expect(order!.status!.value).toEqual({ status: 'print-ready', at: '2026-11-21T11:00:00Z' });
  });

  it('shows a status in one request of only the mutations it needs, and reads back what the order shows', async () => {
    const api = adminApi();
    expect(await api.orderShows(ORDER_GID)).toEqual({ tags: ['vip'], status: null });
    const before = standIn.requests().length;
    await api.showStatus(ORDER_GID, { addTags: ['print-bridge:shipped'], removeTags: ['vip'], status: { status: 'shipped', at: '2026-11-24T10:00:00Z' } });
    const sent = standIn.requests().slice(before);
    expect(sent).toHaveLength(1);
    // Shopify charges each mutation of a document: three here.
    expect(sent[0]!.actualQueryCost).toBe(30);
    expect(await api.orderShows(ORDER_GID)).toEqual({ tags: ['print-bridge:shipped'], status: { status: 'shipped', at: '2026-11-24T10:00:00Z' } });

    await api.showStatus(ORDER_GID, { addTags: [], removeTags: [], status: { status: 'shipped', at: '2026-11-24T11:00:00Z' } });
    expect(standIn.requests().slice(before + 2)).toEqual([expect.objectContaining({ actualQueryCost: 10 })]);
    // Nothing to change: no request at all.
    await api.showStatus(ORDER_GID, { addTags: [], removeTags: [] });
    expect(standIn.requests()).toHaveLength(before + 3);
    expect(await api.orderShows('gid://shopify/Order/2')).toBeNull();
    await expect(api.showStatus('gid://shopify/Order/2', { addTags: ['x'], removeTags: [] })).rejects.toBeInstanceOf(ShopifyUserError);
  });

  it('appends a note line once, keeping what the note said', async () => {
    standIn.seedOrder(SHOP, orderBody({ note: 'Gift wrap please' }), { replace: true });
    const api = adminApi();
    const line = 'print-bridge: Poster was already fulfilled in Shopify; not sent again.';
    expect(await api.appendOrderNote(ORDER_GID, line)).toEqual({ changed: true, note: `Gift wrap please\n${line}` });
    expect(await api.appendOrderNote(ORDER_GID, line)).toEqual({ changed: false, note: `Gift wrap please\n${line}` });
    expect(standIn.getOrder(SHOP, ORDER_GID)!.note).toBe(`Gift wrap please\n${line}`);
  });
});

describe('listing recent orders', () => {
  it('returns the orders created since a time, over several pages', async () => {
    standIn.reset();
    standIn.seedOrder(SHOP, orderBody({ gid: 'gid://shopify/Order/100', createdAt: '2026-11-01T00:00:00Z' }));
    for (let i = 0; i < 60; i += 1) {
      const minute = String(i % 60).padStart(2, '0');
      standIn.seedOrder(SHOP, orderBody({ gid: `gid://shopify/Order/${200 + i}`, createdAt: `2026-11-20T10:${minute}:00Z` }));
    }
    const orders = await adminApi().listRecentOrders('2026-11-20T00:00:00Z');
    expect(orders).toHaveLength(60);
    expect(orders[0]!.id).toBe('gid://shopify/Order/200');
    expect(orders.at(-1)!.id).toBe('gid://shopify/Order/259');
    expect(standIn.requests().filter((r) => r.operation === 'query orders')).toHaveLength(2);
  });
});

describe('failures', () => {
  it('reports a wrong access token as a permanent ShopifyUnauthorizedError', async () => {
    const error = await adminApi({ token: 'wrong' })
      .getOrderForFulfillment(ORDER_GID)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShopifyUnauthorizedError);
    expect((error as ShopifyUnauthorizedError).retryable).toBe(false);
    expect((error as ShopifyUnauthorizedError).status).toBe(401);
    expect(standIn.requests()).toHaveLength(1);
  });

  it('waits for the bucket after a THROTTLED answer and then succeeds', async () => {
    standIn.throttleNext(1);
    const started = Date.now();
    await adminApi().showStatus(ORDER_GID, { addTags: ['print-bridge:received'], removeTags: [] });
    const elapsed = Date.now() - started;
    // The bucket was empty and refills 50 points a second; the mutation costs 10: about 200 ms.
    expect(waits).toEqual([expect.objectContaining({ reason: 'throttled', operation: 'showStatus' })]);
    expect(waits[0]!.ms).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(standIn.requests().map((r) => r.throttled)).toEqual([true, false]);
    expect(standIn.getOrder(SHOP, ORDER_GID)!.tags).toContain('print-bridge:received');
  });

  it('paces before a call when the last answer showed a low bucket, instead of being throttled', async () => {
    const api = adminApi();
    await api.showStatus(ORDER_GID, { addTags: ['a'], removeTags: [] });
    standIn.drainBucket(SHOP, 0);
    await api.showStatus(ORDER_GID, { addTags: ['b'], removeTags: [] }); // throttled once: the pacer did not know the bucket was drained
    await api.showStatus(ORDER_GID, { addTags: ['c'], removeTags: [] }); // the answer before showed an empty bucket: wait first
    expect(standIn.requests().map((r) => r.throttled)).toEqual([false, true, false, false]);
    expect(waits.map((w) => w.reason)).toEqual(['throttled', 'bucket-low']);
  });

  it('slows a burst of concurrent calls down to the bucket without losing any', async () => {
    const api = adminApi();
    standIn.drainBucket(SHOP, 40); // other apps have used the shop's budget
    await api.showStatus(ORDER_GID, { addTags: ['warm-up'], removeTags: [] }); // the pacer learns the bucket from this answer
    const tags = Array.from({ length: 8 }, (_, i) => `burst-${i}`);
    const started = Date.now();
    await Promise.all(tags.map((tag) => api.showStatus(ORDER_GID, { addTags: [tag], removeTags: [] })));
    expect(standIn.getOrder(SHOP, ORDER_GID)!.tags).toEqual(expect.arrayContaining(tags));
    // 80 points against about 30 in the bucket, refilling 50 a second: the pacer queued the calls (about 1 s)
    // rather than sending them into a wall of THROTTLED answers.
    expect(waits.filter((w) => w.reason === 'bucket-low').length).toBeGreaterThanOrEqual(5);
    expect(standIn.requests().filter((r) => r.throttled).length).toBeLessThanOrEqual(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
  });

  it('loses nothing when a burst runs into a bucket drained behind its back', async () => {
    const api = adminApi();
    await api.showStatus(ORDER_GID, { addTags: ['warm-up'], removeTags: [] }); // the pacer believes the bucket is nearly full
    standIn.drainBucket(SHOP, 25);
    const tags = Array.from({ length: 6 }, (_, i) => `wall-${i}`);
    await Promise.all(tags.map((tag) => api.showStatus(ORDER_GID, { addTags: [tag], removeTags: [] })));
    expect(standIn.getOrder(SHOP, ORDER_GID)!.tags).toEqual(expect.arrayContaining(tags));
    const answers = standIn.requests().slice(1);
    // The first wave hits the wall; after one THROTTLED answer each call queues behind the others.
    expect(answers.filter((r) => !r.throttled)).toHaveLength(6);
    expect(answers.filter((r) => r.throttled).length).toBeLessThanOrEqual(6);
  });

  it('gives up after the bounded number of THROTTLED answers with a retryable error', async () => {
    standIn.setForcedThrottle(true);
    const pacer = new ShopifyPacer({ maxThrottledRetries: 2, sleep: async () => {} });
    const error = await adminApi({ pacer })
      .showStatus(ORDER_GID, { addTags: ['x'], removeTags: [] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShopifyThrottledError);
    expect((error as ShopifyThrottledError).retryable).toBe(true);
    expect((error as ShopifyThrottledError).retryAfterMs).toBe(200);
    expect(standIn.requests()).toHaveLength(3);
  });

  it('retries 429 and 503 answers', async () => {
    standIn.failNext(1, 429, { retryAfterSeconds: 0.05 });
    standIn.failNext(1, 503);
    await adminApi().showStatus(ORDER_GID, { addTags: ['after-outage'], removeTags: [] });
    expect(standIn.requests().map((r) => r.status)).toEqual([429, 503, 200]);
    expect(waits.map((w) => [w.reason, w.ms])).toEqual([
      ['unavailable', 50],
      ['unavailable', 20],
    ]);
    expect(standIn.getOrder(SHOP, ORDER_GID)!.tags).toContain('after-outage');
  });

  it('retries a 503 of fulfillmentCreate but not a 500, whose outcome is unknown', async () => {
    const api = adminApi();
    const order = await api.getOrderForFulfillment(ORDER_GID);
    const fo = order!.fulfillmentOrders[0]!;
    const input = {
      orderGid: ORDER_GID,
      fulfillmentOrders: [{ fulfillmentOrderId: fo.id, lineItems: [{ id: fo.lineItems[0]!.id, quantity: 1 }] }],
      notifyCustomer: false,
    };
    standIn.failNext(1, 503);
    await api.createFulfillment(input);
    standIn.failNext(1, 500);
    const error = await api.createFulfillment(input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShopifyUnavailableError);
    expect((error as ShopifyUnavailableError).retryable).toBe(true);
    expect((error as ShopifyUnavailableError).outcomeUnknown).toBe(true);
    expect((error as ShopifyUnavailableError).status).toBe(500);
    expect(standIn.getOrder(SHOP, ORDER_GID)!.fulfillments).toHaveLength(1);
  });

  it('retries a dropped connection for a call that is safe to repeat', async () => {
    standIn.failNext(1, 'network');
    await adminApi().showStatus(ORDER_GID, { addTags: ['after-drop'], removeTags: [] });
    expect(standIn.requests().map((r) => r.status)).toEqual([0, 200]);
    expect(standIn.getOrder(SHOP, ORDER_GID)!.tags).toContain('after-drop');
  });

  it('reports an unreachable Admin API as ShopifyUnavailableError once retries are spent', async () => {
    const closed = await startAdminStandIn({ accessTokens: { [SHOP]: TOKEN } });
    await closed.close();
    const shopify = shopifyApi({
      apiKey: 'k',
      apiSecretKey: 's',
      hostName: 'print-bridge.test',
      apiVersion: ApiVersion.January26,
      isEmbeddedApp: false,
      logger: { level: LogSeverity.Error },
    });
    const shop = 'gone.myshopify.com';
    const session = new Session({ id: 'x', shop, state: 'x', isOnline: false, accessToken: TOKEN });
    const api = new ShopifyAdminApi(createShopifyApiTransport({ shopify, session, adminApiOrigin: closed.origin }), {
      pacer: new ShopifyPacer({ maxUnavailableRetries: 1, unavailableBaseDelayMs: 1 }),
    });
    const error = await api.showStatus(ORDER_GID, { addTags: ['x'], removeTags: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShopifyUnavailableError);
    expect((error as ShopifyUnavailableError).status).toBeUndefined();
  });

  it('reports an order too large to read whole as a protocol error rather than acting on part of it', async () => {
    const lines = Array.from({ length: 51 }, (_, i) => ({
      admin_graphql_api_id: `gid://shopify/LineItem/${5000 + i}`,
      name: `Item ${i}`,
      sku: `SKU-${i}`,
      quantity: 1,
    }));
    standIn.seedOrder(SHOP, { admin_graphql_api_id: 'gid://shopify/Order/777', name: '#777', line_items: lines });
    await expect(adminApi().getOrderForFulfillment('gid://shopify/Order/777')).rejects.toBeInstanceOf(ShopifyProtocolError);
  });
});
