import { createHmac } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAdminStandIn, type AdminStandIn } from './index.js';

/** Fulfillment holds, scheduled fulfillment orders and their webhooks, over raw HTTP as any client sees them. */

const SHOP = 'holds-test.myshopify.com';
const TOKEN = 'shpat_holds';
const SECRET = 'shpss_holds_secret';
const ORDER = 'gid://shopify/Order/9007199254740995';

interface Delivery {
  headers: Record<string, string | string[] | undefined>;
  raw: string;
}

let standIn: AdminStandIn;
let receiver: Server;
const deliveries: Delivery[] = [];
/** Emits `delivery` for each one received. */
const received = new EventEmitter();

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, raw });
      received.emit('delivery');
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  standIn = await startAdminStandIn({ accessTokens: { [SHOP]: TOKEN }, webhooks: { url, secret: SECRET } });
});
afterAll(async () => {
  await standIn.close();
  await new Promise<void>((r) => receiver.close(() => r()));
});
beforeEach(() => {
  standIn.reset();
  standIn.pauseWebhooks(false);
  deliveries.length = 0;
  standIn.seedOrder(SHOP, {
    admin_graphql_api_id: ORDER,
    name: '#3001',
    created_at: '2026-11-20T10:00:00Z',
    line_items: [{ admin_graphql_api_id: 'gid://shopify/LineItem/31', sku: 'X', title: 'X', quantity: 2 }],
  });
});

async function gql(query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${standIn.origin}/admin/api/2026-01/graphql.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-shopify-access-token': TOKEN, 'x-shopify-shop-domain': SHOP },
    body: JSON.stringify({ query, variables }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return (await response.json()) as any;
}

async function control(path: string, payload: unknown = {}) {
  const response = await fetch(`${standIn.origin}/_stand-in${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, json: (await response.json()) as any };
}

const FO = `query($id: ID!) { order(id: $id) { fulfillmentOrders(first: 5) { nodes { id status fulfillAt
  fulfillmentHolds { id reason reasonNotes displayReason } lineItems(first: 5) { nodes { id remainingQuantity } } } } } }`;
const CREATE = `mutation($f: FulfillmentInput!) { fulfillmentCreate(fulfillment: $f) { fulfillment { id } userErrors { field message } } }`;

/** Waits for the n-th delivery itself (a scheduled order's comes about 2 s in), then for every one under way. */
async function waitForDeliveries(n: number): Promise<Delivery[]> {
  while (deliveries.length < n) await once(received, 'delivery');
  await standIn.webhooksSettled();
  return deliveries;
}

describe('fulfillment holds', () => {
  it('puts the fulfillment order ON_HOLD with its hold, refuses fulfillmentCreate, then releases it to OPEN, with signed webhooks', async () => {
    const held = await control(`/shops/${SHOP}/orders/9007199254740995/hold`, { reason: 'awaiting_payment', reasonNotes: 'bank transfer' });
    expect(held.status).toBe(200);
    const read = (await gql(FO, { id: ORDER })).data.order.fulfillmentOrders.nodes[0];
    expect(read).toMatchObject({ status: 'ON_HOLD', fulfillAt: null, fulfillmentHolds: [{ reason: 'AWAITING_PAYMENT', reasonNotes: 'bank transfer', displayReason: 'Awaiting payment' }] });
    expect(read.fulfillmentHolds[0].id).toMatch(/^gid:\/\/shopify\/FulfillmentHold\/\d+$/);

    const refused = await gql(CREATE, { f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: read.id }] } });
    expect(refused.data.fulfillmentCreate).toEqual({
      fulfillment: null,
      userErrors: [{ field: ['fulfillment', 'lineItemsByFulfillmentOrder', '0', 'fulfillmentOrderId'], message: `Fulfillment order ${read.id} has an unfulfillable status= on_hold.` }],
    });

    expect((await control(`/shops/${SHOP}/orders/9007199254740995/release-hold`)).status).toBe(200);
    const released = (await gql(FO, { id: ORDER })).data.order.fulfillmentOrders.nodes[0];
    expect(released).toMatchObject({ status: 'OPEN', fulfillmentHolds: [] });
    expect((await gql(CREATE, { f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: read.id }] } })).data.fulfillmentCreate.userErrors).toEqual([]);

    const sent = await waitForDeliveries(2);
    expect(sent.map((d) => d.headers['x-shopify-topic'])).toEqual(['fulfillment_orders/placed_on_hold', 'fulfillment_orders/hold_released']);
    for (const d of sent) {
      expect(d.headers['x-shopify-hmac-sha256']).toBe(createHmac('sha256', SECRET).update(d.raw, 'utf8').digest('base64'));
      expect(d.headers['x-shopify-shop-domain']).toBe(SHOP);
    }
    expect(JSON.parse(sent[0]!.raw)).toMatchObject({
      fulfillment_order: { id: read.id, status: 'on_hold', fulfillment_holds: [{ reason: 'awaiting_payment', reason_notes: 'bank transfer' }] },
      created_fulfillment_hold: { reason: 'awaiting_payment', reason_notes: 'bank transfer' },
    });
    // The body names the fulfillment order, not its order.
    expect(JSON.parse(sent[1]!.raw)).toEqual({ fulfillment_order: { id: read.id, status: 'open' } });
  });

  it('keeps a fulfillment order on hold until its last hold is released, and refuses a duplicate handle', async () => {
    await control(`/shops/${SHOP}/orders/9007199254740995/hold`, { reason: 'HIGH_RISK_OF_FRAUD', handle: 'fraud' });
    expect((await control(`/shops/${SHOP}/orders/9007199254740995/hold`, { reason: 'OTHER', handle: 'fraud' })).status).toBe(422);
    const second = await control(`/shops/${SHOP}/orders/9007199254740995/hold`, { reason: 'INCORRECT_ADDRESS', handle: 'address' });
    const holds = second.json.order.fulfillmentOrders[0].fulfillmentHolds as { id: string; handle: string }[];
    expect(holds.map((h) => h.handle)).toEqual(['fraud', 'address']);
    await control(`/shops/${SHOP}/orders/9007199254740995/release-hold`, { holdIds: [holds[0]!.id] });
    expect(standIn.getOrder(SHOP, ORDER)!.fulfillmentOrders[0]!.status).toBe('ON_HOLD');
    await control(`/shops/${SHOP}/orders/9007199254740995/release-hold`, { holdIds: [holds[1]!.id] });
    expect(standIn.getOrder(SHOP, ORDER)!.fulfillmentOrders[0]!.status).toBe('OPEN');
    const topics = (await waitForDeliveries(3)).map((d) => d.headers['x-shopify-topic']);
    expect(topics).toEqual(['fulfillment_orders/placed_on_hold', 'fulfillment_orders/placed_on_hold', 'fulfillment_orders/hold_released']);
  });

  it('logs but does not deliver webhooks while paused (a delivery Shopify lost)', async () => {
    standIn.pauseWebhooks(true);
    standIn.placeHold(SHOP, ORDER, { reason: 'OTHER' });
    await standIn.webhooksSettled();
    expect(deliveries).toHaveLength(0);
    expect(standIn.sentWebhooks().at(-1)).toMatchObject({ topic: 'fulfillment_orders/placed_on_hold', status: null });
  });
});

const HOLD = `mutation($id: ID!, $hold: FulfillmentOrderHoldInput!) { fulfillmentOrderHold(id: $id, fulfillmentHold: $hold) {
  fulfillmentHold { id handle reasonNotes heldByRequestingApp heldByApp { title } } userErrors { field message code } } }`;
const RELEASE = `mutation($id: ID!, $holdIds: [ID!]) { fulfillmentOrderReleaseHold(id: $id, holdIds: $holdIds) {
  fulfillmentOrder { id status } userErrors { field message code } } }`;
const HOLDS = `query($id: ID!) { order(id: $id) { fulfillmentOrders(first: 5) { nodes { id status
  fulfillmentHolds { id handle reasonNotes heldByRequestingApp heldByApp { title } } } } } }`;

describe("an app's own holds through the Admin API", () => {
  // Their webhooks are answered before the next test counts its own.
  afterEach(() => standIn.webhooksSettled());
  const foId = () => standIn.getOrder(SHOP, ORDER)!.fulfillmentOrders[0]!.id;
  const appHold = (handle: string, notes = 'Print Bridge: edit window') => gql(HOLD, { id: foId(), hold: { reason: 'OTHER', handle, reasonNotes: notes, notifyMerchant: false } });

  it("marks the app's holds as the requesting app's and the merchant's and other apps' as not", async () => {
    standIn.placeHold(SHOP, ORDER, { reason: 'AWAITING_PAYMENT' });
    standIn.placeHold(SHOP, ORDER, { reason: 'HIGH_RISK_OF_FRAUD', handle: 'fraud-check', app: 'Fraud Guard' });
    const placed = (await appHold('print-bridge')).data.fulfillmentOrderHold;
    expect(placed).toMatchObject({ userErrors: [], fulfillmentHold: { handle: 'print-bridge', reasonNotes: 'Print Bridge: edit window', heldByRequestingApp: true, heldByApp: { title: 'Print Bridge' } } });
    const holds = (await gql(HOLDS, { id: ORDER })).data.order.fulfillmentOrders.nodes[0].fulfillmentHolds;
    expect(holds.map((h: { heldByRequestingApp: boolean; heldByApp: { title: string } | null }) => [h.heldByRequestingApp, h.heldByApp?.title ?? null])).toEqual([
      [false, null],
      [false, 'Fraud Guard'],
      [true, 'Print Bridge'],
    ]);
  });

  it('refuses a handle the app already used on the fulfillment order, but not one another app used', async () => {
    standIn.placeHold(SHOP, ORDER, { handle: 'print-bridge', app: 'Another App' });
    expect((await appHold('print-bridge')).data.fulfillmentOrderHold.userErrors).toEqual([]);
    expect((await appHold('print-bridge')).data.fulfillmentOrderHold).toMatchObject({ fulfillmentHold: null, userErrors: [{ code: 'DUPLICATE_FULFILLMENT_HOLD_HANDLE' }] });
  });

  it('refuses an eleventh hold of the app on one fulfillment order', async () => {
    for (let i = 0; i < 10; i++) expect((await appHold(`h${i}`)).data.fulfillmentOrderHold.userErrors).toEqual([]);
    expect((await appHold('h10')).data.fulfillmentOrderHold.userErrors).toMatchObject([{ code: 'FULFILLMENT_ORDER_HOLD_LIMIT_REACHED' }]);
    // Another app's holds do not count against it.
    expect(standIn.placeHold(SHOP, ORDER, { handle: 'x', app: 'Another App' }).ok).toBe(true);
  });

  it('refuses to hold a fulfillment order that is neither OPEN nor ON_HOLD', async () => {
    const fo = (await gql(FO, { id: ORDER })).data.order.fulfillmentOrders.nodes[0];
    await gql(CREATE, { f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo.id, fulfillmentOrderLineItems: [{ id: fo.lineItems.nodes[0].id, quantity: 1 }] }] } });
    expect(standIn.getOrder(SHOP, ORDER)!.fulfillmentOrders[0]!.status).toBe('IN_PROGRESS');
    expect((await appHold('print-bridge')).data.fulfillmentOrderHold.userErrors).toHaveLength(1);
    expect(standIn.placeHold(SHOP, ORDER, { fulfillmentOrderId: fo.id }).ok).toBe(false);
  });

  it("releases only the holds named, refuses the merchant's to the app, and reopens the order when the last goes", async () => {
    const merchant = standIn.placeHold(SHOP, ORDER, { reason: 'AWAITING_PAYMENT' });
    const merchantHoldId = merchant.ok ? merchant.value.fulfillmentOrders[0]!.fulfillmentHolds[0]!.id : '';
    const own = (await appHold('print-bridge')).data.fulfillmentOrderHold.fulfillmentHold.id as string;
    expect((await gql(RELEASE, { id: foId(), holdIds: [merchantHoldId] })).data.fulfillmentOrderReleaseHold.userErrors).toMatchObject([{ code: 'INVALID_ACCESS' }]);
    const released = (await gql(RELEASE, { id: foId(), holdIds: [own] })).data.fulfillmentOrderReleaseHold;
    expect(released).toEqual({ fulfillmentOrder: { id: foId(), status: 'ON_HOLD' }, userErrors: [] });
    expect(standIn.getOrder(SHOP, ORDER)!.fulfillmentOrders[0]!.fulfillmentHolds.map((h) => h.id)).toEqual([merchantHoldId]);
    standIn.releaseHold(SHOP, ORDER);
    const again = (await appHold('print-bridge')).data.fulfillmentOrderHold.fulfillmentHold.id as string;
    expect((await gql(RELEASE, { id: foId(), holdIds: [again] })).data.fulfillmentOrderReleaseHold.fulfillmentOrder.status).toBe('OPEN');
  });
});

describe('scheduled fulfillment orders', () => {
  it('is SCHEDULED with fulfillAt, refuses fulfillmentCreate, and opens by itself at fulfillAt with its webhook', async () => {
    const fulfillAt = new Date(Date.now() + 2_000).toISOString();
    expect((await control(`/shops/${SHOP}/orders/9007199254740995/schedule`, { fulfillAt })).status).toBe(200);
    const read = (await gql(FO, { id: ORDER })).data.order.fulfillmentOrders.nodes[0];
    expect(read).toMatchObject({ status: 'SCHEDULED', fulfillAt: fulfillAt.replace(/\.\d{3}Z$/, 'Z') });
    const refused = await gql(CREATE, { f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: read.id }] } });
    expect(refused.data.fulfillmentCreate.userErrors[0].message).toBe(`Fulfillment order ${read.id} has an unfulfillable status= scheduled.`);

    const sent = await waitForDeliveries(1);
    expect(sent.map((d) => d.headers['x-shopify-topic'])).toEqual(['fulfillment_orders/scheduled_fulfillment_order_ready']);
    expect(JSON.parse(sent[0]!.raw)).toEqual({ fulfillment_order: { id: read.id, status: 'open' } });
    expect((await gql(FO, { id: ORDER })).data.order.fulfillmentOrders.nodes[0].status).toBe('OPEN');
  });
});
