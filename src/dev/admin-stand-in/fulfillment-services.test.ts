import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAdminStandIn, type AdminStandIn } from './index.js';

/** The fulfillment-service flow over raw HTTP, as a print app (a fulfillment service) sees it. */

const SHOP = 'service-test.myshopify.com';
const TOKEN = 'shpat_service';
const SECRET = 'shpss_service_secret';

interface Ping {
  url: string;
  headers: Record<string, string | string[] | undefined>;
  raw: string;
}

let standIn: AdminStandIn;
let receiver: Server;
let callbackUrl: string;
const pings: Ping[] = [];
let waiters: { count: number; resolve: () => void }[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      pings.push({ url: req.url ?? '', headers: req.headers, raw });
      res.writeHead(200).end();
      waiters = waiters.filter((w) => (pings.length >= w.count ? (w.resolve(), false) : true));
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/shopify`;
  standIn = await startAdminStandIn({ accessTokens: { [SHOP]: TOKEN }, app: { apiKey: 'key', apiSecret: SECRET } });
});
afterAll(async () => {
  await standIn.close();
  await new Promise<void>((r) => receiver.close(() => r()));
});
beforeEach(() => {
  standIn.reset();
  pings.length = 0;
  waiters = [];
});

/** Resolves when the receiver has had `count` pings in all: waits on the requests, not on time. */
function receivedPings(count: number): Promise<Ping[]> {
  if (pings.length >= count) return Promise.resolve(pings);
  return new Promise((resolve) => waiters.push({ count, resolve: () => resolve(pings) }));
}

async function gql(query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${standIn.origin}/admin/api/2026-10/graphql.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-shopify-access-token': TOKEN, 'x-shopify-shop-domain': SHOP },
    body: JSON.stringify({ query, variables }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return (await response.json()) as any;
}

/** A call whose document must pass Shopify's schema and run without errors; its data. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function data(query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const answer = await gql(query, variables);
  expect(answer.errors).toBeUndefined();
  return answer.data;
}

async function control(method: string, path: string, payload?: unknown) {
  const response = await fetch(`${standIn.origin}/_stand-in${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(payload !== undefined ? { body: JSON.stringify(payload) } : {}),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, json: (await response.json()) as any };
}

const CREATE_SERVICE = `mutation($name: String!, $url: URL) { fulfillmentServiceCreate(name: $name, callbackUrl: $url, trackingSupport: true,
  inventoryManagement: false, fulfillmentOrdersOptIn: true, requiresShippingMethod: true) {
  fulfillmentService { id serviceName handle callbackUrl trackingSupport inventoryManagement location { id name } } userErrors { field message } } }`;
const DELETE_SERVICE = `mutation($id: ID!, $action: FulfillmentServiceDeleteInventoryAction, $to: ID) {
  fulfillmentServiceDelete(id: $id, inventoryAction: $action, destinationLocationId: $to) { deletedId userErrors { field message } } }`;
const LIST = `{ shop { fulfillmentServices { id serviceName handle callbackUrl location { id } } } }`;
const ORDER_FOS = `query($id: ID!) { order(id: $id) { fulfillmentOrders(first: 5) { nodes { id status requestStatus orderId
  order { id name } assignedLocation { name location { id } } lineItems(first: 5) { nodes { id sku remainingQuantity } } } } } }`;
const ASSIGNED = `query($status: FulfillmentOrderAssignmentStatus, $locations: [ID!], $first: Int!, $after: String) {
  assignedFulfillmentOrders(assignmentStatus: $status, locationIds: $locations, first: $first, after: $after, sortKey: ID) {
    nodes { id requestStatus order { name } merchantRequests(first: 5) { nodes { kind message } } }
    edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }`;
const fo = (name: string) => `mutation($id: ID!, $message: String) { ${name}(id: $id, message: $message) { fulfillmentOrder { id status requestStatus } userErrors { field message } } }`;
const ACCEPT = `mutation($id: ID!) { fulfillmentOrderAcceptFulfillmentRequest(id: $id, message: "printing", estimatedShippedAt: "2026-12-01T00:00:00Z") {
  fulfillmentOrder { id status requestStatus } userErrors { field message } } }`;
const REJECT = `mutation($id: ID!, $lines: [IncomingRequestLineItemInput!]) { fulfillmentOrderRejectFulfillmentRequest(id: $id, reason: INVALID_SKU,
  message: "cannot print", lineItems: $lines) { fulfillmentOrder { id status requestStatus } userErrors { field message } } }`;
const FULFILL = `mutation($f: FulfillmentInput!) { fulfillmentCreate(fulfillment: $f) { fulfillment { id } userErrors { field message } } }`;

let orderCount = 0;
/** Creates an order through the control surface (as a checkout would): a printed SKU and, when mixed, a shop SKU. */
async function createOrder(skus: string[] = ['POSTER-A2', 'MUG']): Promise<string> {
  orderCount += 1;
  const id = `gid://shopify/Order/${9007199254750000n + BigInt(orderCount)}`;
  const seeded = await control('POST', `/shops/${SHOP}/orders`, {
    admin_graphql_api_id: id,
    name: `#${5000 + orderCount}`,
    line_items: skus.map((sku, i) => ({ admin_graphql_api_id: `gid://shopify/LineItem/${9007199254760000n + BigInt(orderCount * 10 + i)}`, sku, title: sku, quantity: 1 })),
  });
  expect(seeded.status).toBe(201);
  return id;
}

async function createService(name = 'Print Bridge', stock: string[] = ['POSTER-A2']) {
  const created = (await data(CREATE_SERVICE, { name, url: callbackUrl })).fulfillmentServiceCreate;
  expect(created.userErrors).toEqual([]);
  const service = created.fulfillmentService;
  expect((await control('POST', `/shops/${SHOP}/fulfillment-services/stock`, { serviceId: service.id, skus: stock })).status).toBe(200);
  return service as { id: string; location: { id: string; name: string } };
}

async function serviceFo(orderId: string, locationId: string) {
  const nodes = (await data(ORDER_FOS, { id: orderId })).order.fulfillmentOrders.nodes as { id: string; assignedLocation: { location: { id: string } | null } }[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return nodes.find((n) => n.assignedLocation.location?.id === locationId) as any;
}

describe('fulfillment services', () => {
  it('creates a service with its own location, refuses a second of the same name, lists it and deletes it once', async () => {
    const created = (await data(CREATE_SERVICE, { name: 'Print Bridge', url: callbackUrl })).fulfillmentServiceCreate;
    expect(created.userErrors).toEqual([]);
    const service = created.fulfillmentService;
    expect(service).toMatchObject({ serviceName: 'Print Bridge', handle: 'print-bridge', callbackUrl, trackingSupport: true, inventoryManagement: false, location: { name: 'Print Bridge' } });
    expect(service.id).toMatch(/^gid:\/\/shopify\/FulfillmentService\/\d+\?id=true$/);
    expect(service.location.id).toMatch(/^gid:\/\/shopify\/Location\/\d+$/);

    const again = (await data(CREATE_SERVICE, { name: 'Print Bridge', url: callbackUrl })).fulfillmentServiceCreate;
    expect(again).toEqual({ fulfillmentService: null, userErrors: [{ field: ['name'], message: 'Name has already been taken' }] });

    expect((await data(LIST)).shop.fulfillmentServices).toEqual([{ id: service.id, serviceName: 'Print Bridge', handle: 'print-bridge', callbackUrl, location: { id: service.location.id } }]);
    expect((await data(`query($id: ID!) { fulfillmentService(id: $id) { id serviceName location { id } } }`, { id: service.id })).fulfillmentService.location.id).toBe(service.location.id);

    // The schema's default inventoryAction is TRANSFER, which needs a destination.
    expect((await data(DELETE_SERVICE, { id: service.id })).fulfillmentServiceDelete.userErrors[0].field).toEqual(['destinationLocationId']);
    expect((await data(DELETE_SERVICE, { id: service.id, action: 'KEEP' })).fulfillmentServiceDelete).toEqual({ deletedId: service.id, userErrors: [] });
    const twice = (await data(DELETE_SERVICE, { id: service.id, action: 'KEEP' })).fulfillmentServiceDelete;
    expect(twice.deletedId).toBeNull();
    expect(twice.userErrors[0].field).toEqual(['id']);
    expect((await data(LIST)).shop.fulfillmentServices).toEqual([]);
    expect((await data(`query($id: ID!) { fulfillmentService(id: $id) { id } }`, { id: service.id })).fulfillmentService).toBeNull();
    // Other Shop fields are not answered, and say so.
    expect((await gql('{ shop { name } }')).errors[0].message).toMatch(/'name' of the shop/);
  });

  it('sends a mixed cart to two fulfillment orders, requests the printed one at once and pings the service, signed', async () => {
    const service = await createService();
    const plain = await createOrder(['MUG']);
    expect((await data(ORDER_FOS, { id: plain })).order.fulfillmentOrders.nodes).toHaveLength(1);

    const mixed = await createOrder(['POSTER-A2', 'MUG']);
    const nodes = (await data(ORDER_FOS, { id: mixed })).order.fulfillmentOrders.nodes;
    expect(nodes).toHaveLength(2);
    const printed = nodes.find((n: { assignedLocation: { location: { id: string } } }) => n.assignedLocation.location.id === service.location.id);
    const shop = nodes.find((n: { id: string }) => n !== printed);
    expect(printed).toMatchObject({ status: 'OPEN', requestStatus: 'SUBMITTED', orderId: mixed, order: { id: mixed }, assignedLocation: { name: 'Print Bridge' } });
    expect(printed.lineItems.nodes.map((l: { sku: string }) => l.sku)).toEqual(['POSTER-A2']);
    expect(shop).toMatchObject({ status: 'OPEN', requestStatus: 'UNSUBMITTED', assignedLocation: { name: 'Shop location' } });
    expect(shop.lineItems.nodes.map((l: { sku: string }) => l.sku)).toEqual(['MUG']);

    const [ping] = await receivedPings(1);
    expect(ping!.url).toBe('/shopify/fulfillment_order_notification');
    expect(JSON.parse(ping!.raw)).toEqual({ kind: 'FULFILLMENT_REQUEST' });
    expect(ping!.headers['content-type']).toBe('application/json');
    expect(ping!.headers['x-shopify-shop-domain']).toBe(SHOP);
    expect(ping!.headers['x-shopify-hmac-sha256']).toBe(createHmac('sha256', SECRET).update(ping!.raw, 'utf8').digest('base64'));
    await standIn.fulfillmentPingsSettled();
    expect((await control('GET', '/fulfillment-pings')).json.pings).toEqual([
      expect.objectContaining({ shop: SHOP, serviceId: service.id, kind: 'FULFILLMENT_REQUEST', fulfillmentOrderIds: [printed.id], status: 200 }),
    ]);
  });

  it('drops the next ping when asked (a lost callback), and sends the one after', async () => {
    await createService();
    expect((await control('POST', '/fulfillment-pings', { dropNext: 1 })).status).toBe(200);
    await createOrder(['POSTER-A2']);
    expect(standIn.fulfillmentPings()).toEqual([expect.objectContaining({ kind: 'FULFILLMENT_REQUEST', status: null, notSent: 'dropped' })]);
    await createOrder(['POSTER-A2']);
    await receivedPings(1);
    await standIn.fulfillmentPingsSettled();
    expect(pings).toHaveLength(1);
    expect(standIn.fulfillmentPings().map((p) => p.status)).toEqual([null, 200]);
  });

  it('lists the assigned fulfillment orders by assignment status and location, in pages; the merchant requests by hand', async () => {
    const service = await createService();
    const other = await createService('Other Prints', ['TOTE']);
    expect((await control('POST', '/fulfillment-requests', { automatic: false })).status).toBe(200);
    const orders = [await createOrder(), await createOrder(['POSTER-A2']), await createOrder(['POSTER-A2'])];
    await createOrder(['TOTE']);
    expect(standIn.fulfillmentPings()).toEqual([]);

    const page1 = (await data(ASSIGNED, { status: 'FULFILLMENT_UNSUBMITTED', locations: [service.location.id], first: 2 })).assignedFulfillmentOrders;
    expect(page1.nodes).toHaveLength(2);
    expect(page1.pageInfo.hasNextPage).toBe(true);
    const page2 = (await data(ASSIGNED, { status: 'FULFILLMENT_UNSUBMITTED', locations: [service.location.id], first: 2, after: page1.pageInfo.endCursor })).assignedFulfillmentOrders;
    expect(page2.nodes).toHaveLength(1);
    expect(page2.pageInfo.hasNextPage).toBe(false);
    expect([...page1.nodes, ...page2.nodes].map((n: { order: { name: string } }) => n.order.name)).toHaveLength(3);
    // Both services' locations without locationIds; never the shop's own location.
    expect((await data(ASSIGNED, { first: 10 })).assignedFulfillmentOrders.nodes).toHaveLength(4);
    expect((await data(ASSIGNED, { locations: [other.location.id], first: 10 })).assignedFulfillmentOrders.nodes).toHaveLength(1);

    const target = await serviceFo(orders[0]!, service.location.id);
    const requested = await control('POST', `/shops/${SHOP}/fulfillment-orders/request`, { fulfillmentOrderId: target.id, message: 'rush please' });
    expect(requested.status).toBe(200);
    expect(requested.json.order.fulfillmentOrders.find((f: { id: string }) => f.id === target.id)).toMatchObject({ requestStatus: 'SUBMITTED', merchantRequests: [{ kind: 'FULFILLMENT_REQUEST', message: 'rush please' }] });
    expect(JSON.parse((await receivedPings(1))[0]!.raw)).toEqual({ kind: 'FULFILLMENT_REQUEST' });
    const submitted = (await data(ASSIGNED, { status: 'FULFILLMENT_REQUESTED', first: 10 })).assignedFulfillmentOrders.nodes;
    expect(submitted).toEqual([{ id: target.id, requestStatus: 'SUBMITTED', order: { name: expect.any(String) }, merchantRequests: { nodes: [{ kind: 'FULFILLMENT_REQUEST', message: 'rush please' }] } }]);
    expect((await control('POST', `/shops/${SHOP}/fulfillment-orders/request`, { fulfillmentOrderId: target.id })).status).toBe(422);
  });

  it('refuses a page whose cost is above the single-query limit', async () => {
    const answer = await gql('{ assignedFulfillmentOrders(first: 100) { nodes { id lineItems(first: 50) { nodes { id } } } } }');
    expect(answer.data).toBeUndefined();
    // 2 + 100 × (1 + (2 + 50 × 1)) = 5302
    expect(answer.errors[0].extensions).toMatchObject({ code: 'MAX_COST_EXCEEDED', cost: 5302 });
  });
});

describe('answering requests', () => {
  it('accepts only a submitted request; fulfillmentCreate is refused before acceptance and closes it after', async () => {
    const service = await createService();
    const order = await createOrder(['POSTER-A2']);
    const target = await serviceFo(order, service.location.id);
    const refused = (await data(FULFILL, { f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: target.id }] } })).fulfillmentCreate;
    expect(refused).toEqual({ fulfillment: null, userErrors: [{ field: ['fulfillment', 'lineItemsByFulfillmentOrder', '0', 'fulfillmentOrderId'], message: 'The fulfillment order is not in an accepted state.' }] });
    expect(standIn.getOrder(SHOP, order)!.fulfillments).toEqual([]);

    expect((await data(ACCEPT, { id: target.id })).fulfillmentOrderAcceptFulfillmentRequest).toEqual({ fulfillmentOrder: { id: target.id, status: 'IN_PROGRESS', requestStatus: 'ACCEPTED' }, userErrors: [] });
    expect((await data(ACCEPT, { id: target.id })).fulfillmentOrderAcceptFulfillmentRequest).toEqual({ fulfillmentOrder: null, userErrors: [{ field: ['id'], message: 'Cannot accept fulfillment request for the fulfillment order.' }] });
    expect((await data(ACCEPT, { id: 'gid://shopify/FulfillmentOrder/1' })).fulfillmentOrderAcceptFulfillmentRequest.userErrors).toEqual([{ field: ['id'], message: 'Fulfillment order does not exist.' }]);
    expect((await data(fo('fulfillmentOrderAcceptCancellationRequest'), { id: target.id })).fulfillmentOrderAcceptCancellationRequest.userErrors[0].message).toBe('Cannot accept cancellation request for the fulfillment order.');

    expect((await data(FULFILL, { f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: target.id }] } })).fulfillmentCreate.userErrors).toEqual([]);
    const closed = standIn.getOrder(SHOP, order)!.fulfillmentOrders[0]!;
    expect(closed).toMatchObject({ status: 'CLOSED', requestStatus: 'CLOSED', serviceResponses: [{ kind: 'FULFILLMENT_ACCEPTED', message: 'printing', estimatedShippedAt: '2026-12-01T00:00:00Z' }] });
  });

  it('rejects a submitted request with its reason and line messages, shown by the order snapshot', async () => {
    const service = await createService();
    const order = await createOrder(['POSTER-A2', 'MUG']);
    const target = await serviceFo(order, service.location.id);
    const line = target.lineItems.nodes[0].id;
    const rejected = (await data(REJECT, { id: target.id, lines: [{ fulfillmentOrderLineItemId: line, message: 'unknown SKU' }] })).fulfillmentOrderRejectFulfillmentRequest;
    expect(rejected).toEqual({ fulfillmentOrder: { id: target.id, status: 'OPEN', requestStatus: 'REJECTED' }, userErrors: [] });
    expect((await data(REJECT, { id: target.id })).fulfillmentOrderRejectFulfillmentRequest.userErrors[0].message).toBe('Cannot reject fulfillment request for the fulfillment order.');
    const snapshot = (await control('GET', `/shops/${SHOP}/orders/${encodeURIComponent(order)}`)).json.order;
    expect(snapshot.fulfillmentOrders.find((f: { id: string }) => f.id === target.id)).toMatchObject({
      assignedLocation: { id: service.location.id, name: 'Print Bridge' },
      requestStatus: 'REJECTED',
      serviceResponses: [{ kind: 'FULFILLMENT_REJECTED', reason: 'INVALID_SKU', message: 'cannot print', lineItems: [{ fulfillmentOrderLineItemId: line, message: 'unknown SKU' }] }],
    });
    // A shop-location fulfillment order is not the service's to answer.
    const shopFo = snapshot.fulfillmentOrders.find((f: { id: string }) => f.id !== target.id);
    expect((await data(ACCEPT, { id: shopFo.id })).fulfillmentOrderAcceptFulfillmentRequest.userErrors[0].field).toEqual(['id']);
  });

  it('answers cancellation requests: accepted closes it, rejected keeps it fulfillable', async () => {
    const service = await createService();
    const [first, second] = [await createOrder(['POSTER-A2']), await createOrder(['POSTER-A2'])];
    const a = await serviceFo(first, service.location.id);
    const b = await serviceFo(second, service.location.id);
    await receivedPings(2);
    expect((await control('POST', `/shops/${SHOP}/fulfillment-orders/cancellation-request`, { fulfillmentOrderId: a.id })).status).toBe(422);
    for (const x of [a, b]) expect((await data(ACCEPT, { id: x.id })).fulfillmentOrderAcceptFulfillmentRequest.userErrors).toEqual([]);
    for (const x of [a, b]) {
      const asked = await control('POST', `/shops/${SHOP}/fulfillment-orders/cancellation-request`, { fulfillmentOrderId: x.id, message: 'customer changed mind' });
      expect(asked.status).toBe(200);
    }
    const cancellationPings = (await receivedPings(4)).slice(2);
    expect(cancellationPings.map((p) => JSON.parse(p.raw))).toEqual([{ kind: 'CANCELLATION_REQUEST' }, { kind: 'CANCELLATION_REQUEST' }]);
    expect((await data(ASSIGNED, { status: 'CANCELLATION_REQUESTED', first: 10 })).assignedFulfillmentOrders.nodes).toHaveLength(2);

    const accepted = (await data(fo('fulfillmentOrderAcceptCancellationRequest'), { id: a.id, message: 'stopped' })).fulfillmentOrderAcceptCancellationRequest;
    expect(accepted.fulfillmentOrder).toEqual({ id: a.id, status: 'CLOSED', requestStatus: 'CANCELLATION_ACCEPTED' });
    // Closed fulfillment orders are no longer listed as assigned.
    expect((await data(ASSIGNED, { first: 10 })).assignedFulfillmentOrders.nodes.map((n: { id: string }) => n.id)).toEqual([b.id]);
    const refused = (await data(FULFILL, { f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: a.id }] } })).fulfillmentCreate;
    expect(refused.userErrors[0].message).toContain('unfulfillable status= closed');

    const kept = (await data(fo('fulfillmentOrderRejectCancellationRequest'), { id: b.id, message: 'already printed' })).fulfillmentOrderRejectCancellationRequest;
    expect(kept.fulfillmentOrder).toEqual({ id: b.id, status: 'IN_PROGRESS', requestStatus: 'CANCELLATION_REJECTED' });
    expect((await data(fo('fulfillmentOrderRejectCancellationRequest'), { id: b.id })).fulfillmentOrderRejectCancellationRequest.userErrors[0].message).toBe('Cannot reject cancellation request for the fulfillment order.');
    expect((await data(FULFILL, { f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: b.id }] } })).fulfillmentCreate.userErrors).toEqual([]);
  });
});

describe('deleting a service', () => {
  it('KEEP leaves the location merchant-managed, DELETE moves open work to the primary location, TRANSFER to the destination', async () => {
    const keep = await createService('Keep Prints', ['K']);
    const del = await createService('Delete Prints', ['D']);
    const transfer = await createService('Transfer Prints', ['T']);
    const order = await createOrder(['K', 'D', 'T', 'MUG']);
    const primary = (await data(ORDER_FOS, { id: order })).order.fulfillmentOrders.nodes.find((n: { assignedLocation: { name: string } }) => n.assignedLocation.name === 'Shop location');
    const primaryLocation = primary.assignedLocation.location.id;
    const [k, d, t] = [await serviceFo(order, keep.location.id), await serviceFo(order, del.location.id), await serviceFo(order, transfer.location.id)];

    expect((await data(DELETE_SERVICE, { id: transfer.id, action: 'TRANSFER' })).fulfillmentServiceDelete.userErrors[0].field).toEqual(['destinationLocationId']);
    expect((await data(DELETE_SERVICE, { id: keep.id, action: 'KEEP' })).fulfillmentServiceDelete.userErrors).toEqual([]);
    expect((await data(DELETE_SERVICE, { id: del.id, action: 'DELETE' })).fulfillmentServiceDelete.userErrors).toEqual([]);
    expect((await data(DELETE_SERVICE, { id: transfer.id, action: 'TRANSFER', to: keep.location.id })).fulfillmentServiceDelete.userErrors).toEqual([]);

    const after = standIn.getOrder(SHOP, order)!.fulfillmentOrders;
    const byId = (id: string) => after.find((f) => f.id === id)!;
    expect(byId(k.id)).toMatchObject({ assignedLocation: { id: keep.location.id }, requestStatus: 'UNSUBMITTED', status: 'OPEN' });
    expect(byId(d.id)).toMatchObject({ assignedLocation: { id: primaryLocation }, requestStatus: 'UNSUBMITTED' });
    expect(byId(t.id)).toMatchObject({ assignedLocation: { id: keep.location.id }, requestStatus: 'UNSUBMITTED' });
    // No service is left, so none of them waits for one: the merchant fulfills them all.
    expect((await data(FULFILL, { f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: d.id }] } })).fulfillmentCreate.userErrors).toEqual([]);
    expect((await data(ASSIGNED, { first: 10 })).assignedFulfillmentOrders.nodes).toEqual([]);
  });

  it('removes every service of a shop as an uninstall would, and lists the control routes', async () => {
    await createService();
    expect((await control('GET', `/shops/${SHOP}/fulfillment-services`)).json.fulfillmentServices).toEqual([expect.objectContaining({ serviceName: 'Print Bridge', stockedSkus: ['POSTER-A2'] })]);
    expect((await control('POST', `/shops/${SHOP}/fulfillment-services/remove`)).json.fulfillmentServices).toEqual([]);
    expect((await data(LIST)).shop.fulfillmentServices).toEqual([]);
    const routes = (await control('GET', '/')).json.routes as string[];
    expect(routes).toEqual(expect.arrayContaining(['POST /_stand-in/shops/:shop/fulfillment-services/stock {serviceId, skus}', 'GET  /_stand-in/fulfillment-pings']));
  });
});
