import { ORDERS_BY_ID_MAX } from '../../src/shopify/admin/request.js';
import '@shopify/shopify-api/adapters/node';
import { readdirSync, readFileSync } from 'node:fs';
import { ApiVersion, LogSeverity, Session, shopifyApi } from '@shopify/shopify-api';
import { parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShopifyApiTransport, orderReadBatches, ShopifyAdminApi, StatusWriteBatches, ShopifyPacer, StatusMetafieldBatches } from '../../src/shopify/admin-api.js';
import { ADMIN_SCHEMA_VERSION, shopifyAdminSchema } from '../../src/dev/admin-stand-in/admin-schema.js';
import { startAdminStandIn, type AdminStandIn } from '../../src/dev/admin-stand-in/index.js';
import { planFulfillment } from '../../src/shopify/fulfillment-plan.js';

/**
 * Issue 23: every GraphQL document print-bridge sends to Shopify, with the variables the app builds, sent to the
 * stand-in, which validates it against Shopify's own Admin schema of the pinned version (not a hand-written copy).
 * The list below is every operation of the Admin API module; a new call site without a line here fails the guard.
 */
const SHOP = 'documents.myshopify.com';
const TOKEN = 'shpat_documents';
const ORDER_GID = 'gid://shopify/Order/9007199254740993';
const LINE_A = 'gid://shopify/LineItem/9007199254740995';

/** Each operation the app sends, by the name the Admin API module gives it. */
const OPERATIONS = [
  'getOrderForFulfillment',
  'getFulfillmentOrderOrder',
  'fulfillmentOrderHolds',
  'placeAppHold',
  'releaseHolds',
  'createFulfillment',
  'updateFulfillmentTracking',
  'orderInShop',
  'orderCancelled',
  'ordersInShop',
  'orderShows',
  'ordersShow',
  'showStatus',
  'showStatuses',
  'showStatusMetafields',
  'appendOrderNote (read)',
  'appendOrderNote (write)',
  'checkAccess',
  'getOrderAsWebhookBody',
  'getOrderAsWebhookBody (next page of line items)',
  'listRecentOrders',
  'latestOrders',
  'listFulfillmentServices',
  'createFulfillmentService',
  'deleteFulfillmentService',
  'assignedFulfillmentOrders',
  "assignedFulfillmentOrders (next page of a fulfillment order's lines)",
  'fulfillmentOrderLineItemIds',
  'acceptFulfillmentRequest',
  'rejectFulfillmentRequest',
  'acceptCancellationRequest',
  'rejectCancellationRequest',
  'flowTriggerReceive',
] as const;

const LARGE_GID = 'gid://shopify/Order/9007199254749999';

function orderBody(lines: number, gid = ORDER_GID) {
  return {
    id: Number(gid.split('/').pop()),
    admin_graphql_api_id: gid,
    name: '#1001',
    email: 'buyer@example.com',
    created_at: '2026-11-20T10:00:00Z',
    updated_at: '2026-11-20T10:00:00Z',
    cancelled_at: null,
    note: null,
    tags: 'vip',
    line_items: Array.from({ length: lines }, (_, i) => ({
      id: 900719925474 + i,
      admin_graphql_api_id: i === 0 && gid === ORDER_GID ? LINE_A : `gid://shopify/LineItem/${gid.split('/').pop()}${i}`,
      name: `Item ${i}`,
      title: `Item ${i}`,
      sku: `SKU-${i}`,
      quantity: 1,
      current_quantity: 1,
      fulfillable_quantity: 1,
      requires_shipping: true,
    })),
  };
}

let standIn: AdminStandIn;
let api: ShopifyAdminApi;
let shopify: ReturnType<typeof shopifyApi>;
let session: Session;
beforeAll(async () => {
  standIn = await startAdminStandIn({ accessTokens: { [SHOP]: TOKEN } });
  shopify = shopifyApi({ apiKey: 'k', apiSecretKey: 's', hostName: 'print-bridge.test', apiVersion: ApiVersion.January26, isEmbeddedApp: false, logger: { level: LogSeverity.Error } });
  session = new Session({ id: `offline_${SHOP}`, shop: SHOP, state: 'test', isOnline: false, accessToken: TOKEN });
  api = new ShopifyAdminApi(createShopifyApiTransport({ shopify, session, adminApiOrigin: standIn.origin }), { pacer: new ShopifyPacer({ unavailableBaseDelayMs: 10 }) });
});
afterAll(() => standIn?.close());

describe("the app's GraphQL documents against Shopify's schema", () => {
  it(`sends every document with the variables it builds, and Shopify's ${ADMIN_SCHEMA_VERSION} schema accepts each`, async () => {
    standIn.seedOrder(SHOP, orderBody(2));
    // An order with more line items than one page, so the next-page document is sent too.
    standIn.seedOrder(SHOP, orderBody(260, LARGE_GID));
    const sent: string[] = [];
    const run = async (name: (typeof OPERATIONS)[number], call: () => Promise<unknown>, requests = 1) => {
      const before = standIn.requests().length;
      await call();
      expect(standIn.requests().length - before, name).toBeGreaterThanOrEqual(requests);
      sent.push(name);
    };

    await run('checkAccess', () => api.checkAccess());
    await run('orderInShop', () => api.orderInShop(ORDER_GID));
    await run('orderCancelled', async () => expect(await api.orderCancelled(ORDER_GID)).toBe(false));
    // The process's order checks asked together (issue 27): one nodes(ids:) request for the orders checked in one turn.
    const together = new ShopifyAdminApi(createShopifyApiTransport({ shopify, session, adminApiOrigin: standIn.origin }), {
      pacer: new ShopifyPacer({ unavailableBaseDelayMs: 10 }),
      orderReads: orderReadBatches(),
    });
    await run('ordersInShop', async () => {
      // A full batch: Shopify refuses a query whose requested cost passes 1,000 points, so the standing of
      // ORDERS_BY_ID_MAX orders must fit in one.
      const unknown = Array.from({ length: ORDERS_BY_ID_MAX - 2 }, (_, i) => `gid://shopify/Order/${i + 1}`);
      const answers = await Promise.all([ORDER_GID, LARGE_GID, ...unknown].map((id) => together.orderInShop(id)));
      expect(answers.map((a) => a !== null)).toEqual([true, true, ...unknown.map(() => false)]);
    });
    const order = await api.getOrderForFulfillment(ORDER_GID);
    await run('getOrderForFulfillment', () => api.getOrderForFulfillment(ORDER_GID));
    const fo = order!.fulfillmentOrders[0]!;
    await run('getFulfillmentOrderOrder', () => api.getFulfillmentOrderOrder(fo.id));
    await run('fulfillmentOrderLineItemIds', async () => expect(await api.fulfillmentOrderLineItemIds(fo.id)).toContain(LINE_A));
    // print-bridge's own hold: the read of holds and lines, one placed, then released by its id.
    let holdId = '';
    await run('fulfillmentOrderHolds', async () => expect((await api.fulfillmentOrderHolds(ORDER_GID))?.[0]).toMatchObject({ id: fo.id, status: 'OPEN', atServiceLocation: false, holds: [] }));
    await run('placeAppHold', async () => {
      holdId = (await api.placeAppHold(fo.id, 'Print Bridge: edit window until 14:30 (store time)')).id;
    });
    expect((await api.getOrderForFulfillment(ORDER_GID))!.fulfillmentOrders[0]!.holds).toMatchObject([{ id: holdId, handle: 'print-bridge', heldByRequestingApp: true }]);
    await run('releaseHolds', () => api.releaseHolds(fo.id, [holdId]));
    const plan = planFulfillment(order!, [{ lineItemId: LINE_A, quantity: 1 }]);
    let fulfillmentId = '';
    await run('createFulfillment', async () => {
      fulfillmentId = (await api.createFulfillment({ orderGid: ORDER_GID, fulfillmentOrders: plan.fulfillmentOrders, trackingInfo: { company: 'Royal Mail', number: 'RM1', url: 'https://track.example/RM1' }, notifyCustomer: true })).id;
    });
    await run('updateFulfillmentTracking', () => api.updateFulfillmentTracking(fulfillmentId, { company: 'UPS', number: '1Z9', url: 'https://ups.example/1Z9' }, false));
    await run('orderShows', () => api.orderShows(ORDER_GID));
    await run('ordersShow', async () => {
      const answers = await Promise.all([together.orderShows(ORDER_GID), together.orderShows(LARGE_GID), together.orderShows('gid://shopify/Order/1')]);
      expect(answers.map((a) => a !== null)).toEqual([true, true, false]);
    });
    await run('showStatus', () => api.showStatus(ORDER_GID, { addTags: ['print-bridge:submitted'], removeTags: ['print-bridge:error'], status: { status: 'submitted', at: '2026-11-20T10:00:00Z' } }));
    // The process's status writes sent together (issue 27): several orders' tags and one metafieldsSet in one document.
    const writing = new ShopifyAdminApi(createShopifyApiTransport({ shopify, session, adminApiOrigin: standIn.origin }), {
      pacer: new ShopifyPacer({ unavailableBaseDelayMs: 10 }),
      statusWrites: new StatusWriteBatches(),
    });
    await run('showStatuses', async () => {
      await Promise.all([
        writing.showStatus(ORDER_GID, { addTags: ['print-bridge:received'], removeTags: ['print-bridge:error'], status: { status: 'received', at: '2026-11-20T10:30:00Z' } }),
        writing.showStatus(LARGE_GID, { addTags: ['print-bridge:submitted'], removeTags: [], status: { status: 'submitted', at: '2026-11-20T10:30:00Z' } }),
      ]);
      expect(standIn.getOrder(SHOP, LARGE_GID)?.tags).toContain('print-bridge:submitted');
    });
    // The process's status-metafield batches (issue 27): the metafield of the status in one metafieldsSet of several orders.
    const batched = new ShopifyAdminApi(createShopifyApiTransport({ shopify, session, adminApiOrigin: standIn.origin }), {
      pacer: new ShopifyPacer({ unavailableBaseDelayMs: 10 }),
      statusMetafields: new StatusMetafieldBatches({ windowMs: 1, roomyShare: Infinity }),
    });
    await run('showStatusMetafields', () => batched.showStatus(ORDER_GID, { addTags: [], removeTags: [], status: { status: 'shipped', at: '2026-11-20T11:00:00Z' } }));
    await run('appendOrderNote (read)', () => api.appendOrderNote(ORDER_GID, 'print-bridge: a line'), 2);
    sent.push('appendOrderNote (write)');
    await run('getOrderAsWebhookBody', () => api.getOrderAsWebhookBody(LARGE_GID), 2);
    sent.push('getOrderAsWebhookBody (next page of line items)');
    await run('listRecentOrders', () => api.listRecentOrders('2026-11-01T00:00:00Z'));
    await run('latestOrders', () => api.latestOrders(5));

    // Fulfillment-service mode (issue 25): the service, three orders whose lines its location stocks, every answer.
    let service = { id: '', locationId: '' };
    await run('createFulfillmentService', async () => {
      service = await api.createFulfillmentService({ name: 'print-bridge', callbackUrl: 'http://127.0.0.1:9/fulfillment_service' });
    });
    await run('listFulfillmentServices', () => api.listFulfillmentServices());
    expect(standIn.stockFulfillmentService(SHOP, service.id, Array.from({ length: 40 }, (_, i) => `SKU-${i}`)).ok).toBe(true);
    const serviceOrders = ['9007199254741001', '9007199254741002', '9007199254741003'].map((n) => `gid://shopify/Order/${n}`);
    // The first with more lines than the read's first page of a fulfillment order's lines: the rest by its id.
    serviceOrders.forEach((gid, i) => standIn.seedOrder(SHOP, orderBody(i === 0 ? 40 : 1, gid)));
    let requested: { id: string; orderId: string; lineItems: unknown[] }[] = [];
    await run('assignedFulfillmentOrders', async () => {
      requested = (await api.assignedFulfillmentOrders('FULFILLMENT_REQUESTED', service.locationId)).fulfillmentOrders;
    }, 2);
    sent.push("assignedFulfillmentOrders (next page of a fulfillment order's lines)");
    expect(requested.map((fo) => fo.orderId).sort()).toEqual([...serviceOrders].sort());
    expect(requested.find((fo) => fo.orderId === serviceOrders[0])?.lineItems).toHaveLength(40);
    const foOf = (gid: string) => requested.find((fo) => fo.orderId === gid)!.id;
    await run('acceptFulfillmentRequest', () => api.acceptFulfillmentRequest(foOf(serviceOrders[0]!), 'Sent to the printer.', '2026-11-30T10:00:00Z'));
    await api.acceptFulfillmentRequest(foOf(serviceOrders[2]!), 'Sent to the printer.');
    await run('rejectFulfillmentRequest', () =>
      api.rejectFulfillmentRequest(foOf(serviceOrders[1]!), { reason: 'INVALID_SKU', message: 'No mapping prints SKU-0.', lineItems: [] }),
    );
    for (const gid of [serviceOrders[0]!, serviceOrders[2]!]) expect(standIn.requestCancellation(SHOP, { fulfillmentOrderId: foOf(gid) }).ok).toBe(true);
    await run('acceptCancellationRequest', () => api.acceptCancellationRequest(foOf(serviceOrders[0]!), 'Cancelled at the printer.'));
    await run('rejectCancellationRequest', () => api.rejectCancellationRequest(foOf(serviceOrders[2]!), 'Already shipped.'));
    await run('deleteFulfillmentService', () => api.deleteFulfillmentService(service.id, 'KEEP'));
    await run('flowTriggerReceive', () => api.flowTriggerReceive('print-order-sent', { order_id: ORDER_GID }));
    expect([...sent].sort()).toEqual([...OPERATIONS].sort());

    // Every request the stand-in took was accepted by Shopify's schema, checked again here from the documents as sent.
    const schema = shopifyAdminSchema();
    const requests = standIn.requests().filter((r) => r.document);
    expect(requests.length).toBeGreaterThanOrEqual(OPERATIONS.length);
    for (const r of requests) {
      expect(r.refused, r.document).toBeUndefined();
      expect(validate(schema, parse(r.document!)).map((e) => e.message), r.document).toEqual([]);
    }
    const named = new Set(requests.map((r) => /(?:query|mutation)\s+(\w+)/.exec(r.document!)?.[1] ?? '(anonymous)'));
    // The documents by their own names, as a reviewer would look for them in Shopify's logs.
    expect([...named].sort()).toMatchInlineSnapshot(`
      [
        "(anonymous)",
        "PrintBridgeAcceptCancellationRequest",
        "PrintBridgeAcceptFulfillmentRequest",
        "PrintBridgeAssignedFulfillmentOrders",
        "PrintBridgeFlowTriggerReceive",
        "PrintBridgeFulfillmentCreate",
        "PrintBridgeFulfillmentOrderHold",
        "PrintBridgeFulfillmentOrderHolds",
        "PrintBridgeFulfillmentOrderLines",
        "PrintBridgeFulfillmentOrderOrder",
        "PrintBridgeFulfillmentOrderReleaseHold",
        "PrintBridgeFulfillmentServiceCreate",
        "PrintBridgeFulfillmentServiceDelete",
        "PrintBridgeFulfillmentServices",
        "PrintBridgeFulfillmentTrackingInfoUpdate",
        "PrintBridgeLatestOrders",
        "PrintBridgeOrderCancelled",
        "PrintBridgeOrderForFulfillment",
        "PrintBridgeOrderInShop",
        "PrintBridgeOrderNote",
        "PrintBridgeOrderShows",
        "PrintBridgeOrderUpdateNote",
        "PrintBridgeOrdersInShop",
        "PrintBridgeOrdersShow",
        "PrintBridgeRecentOrders",
        "PrintBridgeRejectCancellationRequest",
        "PrintBridgeRejectFulfillmentRequest",
        "PrintBridgeShowStatus",
        "PrintBridgeShowStatusMetafields",
        "PrintBridgeShowStatuses",
        "orderAsWebhookBody",
        "orderLineItemsPage",
      ]
    `);
  });

  it('a new call site of the Admin API module cannot go untested: every call is in the list above', () => {
    // The operation families of the Admin API module (src/shopify/admin/), each request sent through `api.call(`.
    const dir = new URL('../../src/shopify/admin/', import.meta.url);
    const files = readdirSync(dir).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
    const source = files.map((file) => readFileSync(new URL(file, dir), 'utf8')).join('\n');
    const calls = source.match(/(api|this)\.call\(/g) ?? [];
    // OPERATIONS counts each request; the module has one call site per request kind (appendOrderNote reads and writes).
    expect(calls.length).toBe(OPERATIONS.length);
  });
});
