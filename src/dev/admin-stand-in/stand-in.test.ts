import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startAdminStandIn, type AdminStandIn } from './index.js';

/** The stand-in over raw HTTP, as any client (or curl) sees it. */

const SHOP = 'raw-test.myshopify.com';
const TOKEN = 'shpat_raw';
const ORDER = 'gid://shopify/Order/9007199254740993';

let standIn: AdminStandIn;

beforeAll(async () => {
  standIn = await startAdminStandIn({ accessTokens: { [SHOP]: TOKEN } });
});
afterAll(async () => {
  await standIn.close();
});
beforeEach(() => {
  standIn.reset();
});

function body(overrides: Record<string, unknown> = {}) {
  return {
    admin_graphql_api_id: ORDER,
    name: '#2001',
    created_at: '2026-11-20T10:00:00+01:00',
    tags: 'a, b,a',
    line_items: [
      { admin_graphql_api_id: 'gid://shopify/LineItem/11', sku: 'X', title: 'X', quantity: 2 },
      { admin_graphql_api_id: 'gid://shopify/LineItem/12', sku: 'Y', title: 'Y', quantity: 1 },
    ],
    ...overrides,
  };
}

async function gql(query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const response = await fetch(`${standIn.origin}/admin/api/2026-01/graphql.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-shopify-access-token': TOKEN, 'x-shopify-shop-domain': SHOP, ...headers },
    body: JSON.stringify({ query, variables }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, json: (await response.json()) as any };
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

const FO_QUERY = `query($id: ID!) { order(id: $id) { id tags createdAt displayFulfillmentStatus
  fulfillmentOrders(first: 5) { nodes { id status lineItems(first: 10) { nodes { id remainingQuantity lineItem { id } } } } } } }`;

const CREATE = `mutation($f: FulfillmentInput!) { fulfillmentCreate(fulfillment: $f) {
  fulfillment { id trackingInfo { company number url } } userErrors { field message } } }`;

describe('control surface', () => {
  it('seeds an order from a webhook body, once, and lists it', async () => {
    const seeded = await control('POST', `/shops/${SHOP}/orders`, body());
    expect(seeded.status).toBe(201);
    expect(seeded.json.order).toMatchObject({ id: ORDER, name: '#2001', tags: ['a', 'b'], createdAt: '2026-11-20T09:00:00Z' });
    expect(seeded.json.order.fulfillmentOrders[0].lineItems.map((l: { remainingQuantity: number }) => l.remainingQuantity)).toEqual([2, 1]);

    const again = await control('POST', `/shops/${SHOP}/orders`, { order: body({ name: '#changed' }) });
    expect(again.status).toBe(200);
    expect(again.json.created).toBe(false);
    expect(again.json.order.name).toBe('#2001');

    const listed = await control('GET', `/shops/${SHOP}/orders`);
    expect(listed.json.orders.map((o: { id: string }) => o.id)).toEqual([ORDER]);
    const one = await control('GET', `/shops/${SHOP}/orders/9007199254740993`);
    expect(one.json.order.id).toBe(ORDER);
  });

  it("answers a line item's product type as Shopify does when the webhook body has none (an empty text, never null)", async () => {
    // A webhook's line item names its product but not its type; Shopify's productType is non-null (String!).
    standIn.seedOrder(SHOP, body({ line_items: [{ admin_graphql_api_id: 'gid://shopify/LineItem/11', sku: 'X', title: 'X', quantity: 1, product_id: 7001 }, { admin_graphql_api_id: 'gid://shopify/LineItem/12', sku: 'Y', title: 'Y', quantity: 1, product_id: 7002, product_type: 'Poster' }] }));
    const read = await gql('query Q($id: ID!) { order(id: $id) { lineItems(first: 5) { nodes { product { id productType } } } } }', { id: ORDER });
    expect(read.json.errors).toBeUndefined();
    expect(read.json.data.order.lineItems.nodes).toEqual([
      { product: { id: 'gid://shopify/Product/7001', productType: '' } },
      { product: { id: 'gid://shopify/Product/7002', productType: 'Poster' } },
    ]);
  });

  it('refuses a body whose ids cannot be kept exact', async () => {
    const lossy = JSON.parse('{"id": 9007199254740993, "line_items": [{"id": 1, "quantity": 1}]}') as unknown;
    const answer = await control('POST', `/shops/${SHOP}/orders`, lossy);
    expect(answer.status).toBe(400);
    expect(answer.json.error).toContain('above 2^53');
  });

  it('registers shops, cancels orders and resets', async () => {
    expect((await control('POST', '/shops', { shop: 'Other.myshopify.com', accessToken: 't2' })).status).toBe(201);
    expect((await control('GET', '/shops')).json.shops).toContain('other.myshopify.com');
    await control('POST', `/shops/${SHOP}/orders`, body());
    const cancelled = await control('POST', `/shops/${SHOP}/orders/${encodeURIComponent(ORDER)}/cancel`);
    expect(cancelled.json.order.cancelledAt).toMatch(/Z$/);
    expect(cancelled.json.order.fulfillmentOrders[0].status).toBe('CANCELLED');
    expect((await control('POST', '/reset')).status).toBe(200);
    expect((await control('GET', `/shops/${SHOP}/orders`)).json.orders).toEqual([]);
  });
});

describe('Admin GraphQL', () => {
  it('answers 404 for an unknown shop and 401 for a wrong token', async () => {
    expect((await gql('{ orders(first: 1) { nodes { id } } }', {}, { 'x-shopify-shop-domain': 'nope.myshopify.com' })).status).toBe(404);
    const denied = await gql('{ orders(first: 1) { nodes { id } } }', {}, { 'x-shopify-access-token': 'bad' });
    expect(denied.status).toBe(401);
    expect(denied.json.errors).toContain('Invalid API key or access token');
  });

  it('answers only the API versions it was given', async () => {
    const pinned = await startAdminStandIn({ accessTokens: { [SHOP]: TOKEN }, apiVersion: '2026-01' });
    try {
      const call = (version: string) =>
        fetch(`${pinned.origin}/admin/api/${version}/graphql.json`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-shopify-access-token': TOKEN, 'x-shopify-shop-domain': SHOP },
          body: JSON.stringify({ query: '{ orders(first: 1) { nodes { id } } }' }),
        });
      expect((await call('2026-01')).status).toBe(200);
      expect((await call('2019-04')).status).toBe(404);
    } finally {
      await pinned.close();
    }
  });

  it("refuses a document or variables Shopify's schema refuses, in Shopify's words, and runs nothing", async () => {
    standIn.seedOrder(SHOP, body());
    const before = standIn.requests().length;
    const field = await gql('query Q($id: ID!) { order(id: $id) { id notAField } }', { id: ORDER });
    expect(field.status).toBe(200);
    expect(field.json.data).toBeUndefined();
    expect(field.json.errors).toEqual([
      { message: "Field 'notAField' doesn't exist on type 'Order'", locations: [{ line: 1, column: 41 }], extensions: { code: 'undefinedField', typeName: 'Order', fieldName: 'notAField' } },
    ]);
    // The same document again (its parse and validation are kept by its text): the same refusal.
    const again = await gql('query Q($id: ID!) { order(id: $id) { id notAField } }', { id: ORDER });
    expect(again.json.errors).toEqual(field.json.errors);
    const argument = await gql('{ orders(first: 1, colour: "red") { nodes { id } } }');
    expect(argument.json.errors[0]).toMatchObject({ message: "Field 'orders' doesn't accept argument 'colour'", extensions: { code: 'argumentNotAccepted' } });
    const missing = await gql('{ order { id } }');
    expect(missing.json.errors[0]).toMatchObject({ message: "Field 'order' is missing required arguments: id", extensions: { code: 'missingRequiredArguments' } });
    const variable = await gql('query Q($first: Int!) { orders(first: $first) { nodes { id } } }', { first: 'ten' });
    expect(variable.json.data).toBeUndefined();
    expect(variable.json.errors[0]).toMatchObject({
      message: 'Variable $first of type Int! was provided invalid value',
      extensions: { code: 'INVALID_VARIABLE', value: 'ten', problems: [{ path: [], explanation: 'Could not coerce value "ten" to Int' }] },
    });
    // Nothing ran: no cost was charged for any of them.
    expect(standIn.requests().slice(before).every((r) => r.requestedQueryCost === null && (r.refused?.length ?? 0) > 0)).toBe(true);
    // A document that does not parse, twice: the same syntax error.
    for (let i = 0; i < 2; i++) {
      const syntax = await gql('{ orders(first: 1) { nodes { id }');
      expect(syntax.json.data).toBeUndefined();
      expect(syntax.json.errors[0].message).toMatch(/^Syntax Error/);
    }
    // A field of Shopify's schema the stand-in does not answer passes validation, as at Shopify, and says so.
    const unanswered = await gql('{ shop { name } }');
    expect(unanswered.json.errors[0].message).toMatch(/shop/);
  });

  it('puts the query cost and the bucket on every answer, refunding what the query did not use', async () => {
    standIn.seedOrder(SHOP, body());
    const first = await gql(FO_QUERY, { id: ORDER });
    const second = await gql(FO_QUERY, { id: ORDER });
    const cost = first.json.extensions.cost;
    // order 1 + fulfillmentOrders (2 + 5 × (node 1 + lineItems (2 + 10 × (node 1 + lineItem 1)))) = 118
    expect(cost.requestedQueryCost).toBe(118);
    // The order has one fulfillment order of two lines: 1 + (2 + 1 × (1 + (2 + 2 × 2))) = 10
    expect(cost.actualQueryCost).toBe(10);
    expect(cost.throttleStatus).toMatchObject({ maximumAvailable: 2000, restoreRate: 100 });
    // Took 118, gave back 108 before answering (and the bucket refills a little while the query runs).
    expect(cost.throttleStatus.currentlyAvailable).toBeGreaterThanOrEqual(2000 - 10);
    expect(cost.throttleStatus.currentlyAvailable).toBeLessThan(2000);
    expect(second.json.extensions.cost.throttleStatus.currentlyAvailable).toBeGreaterThanOrEqual(2000 - 20);
    expect(standIn.requests().map((r) => [r.requestedQueryCost, r.actualQueryCost])).toEqual([
      [118, 10],
      [118, 10],
    ]);
  });

  it('refunds a throttled query nothing and charges a mutation in full', async () => {
    standIn.seedOrder(SHOP, body());
    await control('POST', '/throttle', { shop: SHOP, drainTo: 100 });
    const refused = await gql(FO_QUERY, { id: ORDER });
    expect(refused.json.extensions.cost).toMatchObject({ requestedQueryCost: 118, actualQueryCost: null });
    expect(refused.json.extensions.cost.throttleStatus.currentlyAvailable).toBeLessThan(118);
    const tagged = await gql(`mutation($id: ID!) { tagsAdd(id: $id, tags: ["x"]) { node { id } userErrors { message } } }`, { id: ORDER });
    expect(tagged.json.extensions.cost).toMatchObject({ requestedQueryCost: 10, actualQueryCost: 10 });
  });

  it('refuses a query above the single-query cost limit', async () => {
    const answer = await gql('{ orders(first: 250) { nodes { lineItems(first: 250) { nodes { id } } } } }');
    expect(answer.json.errors[0].extensions).toMatchObject({ code: 'MAX_COST_EXCEEDED' });
    expect(answer.json.data).toBeUndefined();
  });

  it('answers THROTTLED with the bucket when it cannot pay, as long as throttling is forced', async () => {
    await control('POST', '/throttle', { forced: true });
    const answer = await gql('{ orders(first: 1) { nodes { id } } }');
    expect(answer.status).toBe(200);
    expect(answer.json.errors).toEqual([expect.objectContaining({ message: 'Throttled', extensions: expect.objectContaining({ code: 'THROTTLED' }) })]);
    expect(answer.json.extensions.cost).toMatchObject({ requestedQueryCost: 3, actualQueryCost: null });
    expect(answer.json.extensions.cost.throttleStatus.currentlyAvailable).toBeLessThan(3);
    await control('POST', '/throttle', { forced: false });
    // The forced answers emptied the bucket; it refills at 100 points a second.
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect((await gql('{ orders(first: 1) { nodes { id } } }')).json.errors).toBeUndefined();
  });

  it('throttles by the bucket alone when it is drained', async () => {
    await control('POST', '/throttle', { shop: SHOP, drainTo: 1 });
    // 252 points: seconds of refill away, however long the request takes to arrive.
    const answer = await gql('{ orders(first: 250) { nodes { id } } }');
    expect(answer.json.errors[0].extensions.code).toBe('THROTTLED');
  });

  it('fails the next calls with the status asked for', async () => {
    await control('POST', '/fail', { next: 2, status: 502 });
    expect((await gql('{ orders(first: 1) { nodes { id } } }')).status).toBe(502);
    expect((await gql('{ orders(first: 1) { nodes { id } } }')).status).toBe(502);
    expect((await gql('{ orders(first: 1) { nodes { id } } }')).status).toBe(200);
    const log = await control('GET', '/requests');
    expect(log.json.requests.map((r: { status: number }) => r.status)).toEqual([502, 502, 200]);
  });

  it("keeps a fault aimed at one shop for that shop's calls, whoever calls first", async () => {
    const other = { 'x-shopify-access-token': 't-other', 'x-shopify-shop-domain': 'other.myshopify.com' };
    await control('POST', '/shops', { shop: 'other.myshopify.com', accessToken: 't-other' });
    const query = '{ orders(first: 1) { nodes { id } } }';
    // Shop names are matched as Shopify spells them: case and spaces do not matter.
    await control('POST', '/fail', { next: 1, status: 503, shop: ' Raw-Test.myshopify.com' });
    await control('POST', '/throttle', { next: 1, shop: SHOP });
    expect((await gql(query, {}, other)).status).toBe(200);
    expect((await gql(query, {}, other)).json.errors).toBeUndefined();
    expect((await control('GET', '')).json.faults).toMatchObject({
      throttleNext: 1,
      failNext: [{ failure: 503, remaining: 1, shop: SHOP }],
    });
    expect((await gql(query)).status).toBe(503);
    expect((await gql(query)).json.errors[0].extensions.code).toBe('THROTTLED');
    // (The throttle emptied this shop's bucket, which refills at its own rate; the other shop's is untouched.)
    expect((await gql(query, {}, other)).json.errors).toBeUndefined();
    // An unaimed fault goes to the next call of any shop, as an outage would.
    standIn.failNext(1, 500);
    expect((await gql(query, {}, other)).status).toBe(500);
    expect((await gql(query)).status).toBe(200);
    // The token endpoint takes a fault aimed at the shop whose token it is asked for, and only that one.
    standIn.failNext(1, 503, { shop: 'other.myshopify.com' });
    expect((await gql(query)).status).toBe(200);
    const exchange = await fetch(`${standIn.origin}/admin/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-shop-domain': 'other.myshopify.com' },
      body: '{}',
    });
    expect(exchange.status).toBe(503);
  });

  it('applies fulfillment order rules: open status and remaining quantities', async () => {
    standIn.seedOrder(SHOP, body());
    const read = await gql(FO_QUERY, { id: ORDER });
    const fo = read.json.data.order.fulfillmentOrders.nodes[0];
    const [x, y] = fo.lineItems.nodes;

    const unknownLine = await gql(CREATE, {
      f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo.id, fulfillmentOrderLineItems: [{ id: 'gid://shopify/FulfillmentOrderLineItem/1', quantity: 1 }] }] },
    });
    expect(unknownLine.json.data.fulfillmentCreate.userErrors[0].message).toContain('does not belong');

    // Omitting the line items fulfills everything that remains.
    const partial = await gql(CREATE, {
      f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo.id, fulfillmentOrderLineItems: [{ id: x.id, quantity: 1 }] }] },
    });
    expect(partial.json.data.fulfillmentCreate.userErrors).toEqual([]);
    const rest = await gql(CREATE, { f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo.id }] } });
    expect(rest.json.data.fulfillmentCreate.userErrors).toEqual([]);
    const after = await gql(FO_QUERY, { id: ORDER });
    expect(after.json.data.order.fulfillmentOrders.nodes[0].status).toBe('CLOSED');
    expect(after.json.data.order.displayFulfillmentStatus).toBe('FULFILLED');
    const closed = await gql(CREATE, {
      f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo.id, fulfillmentOrderLineItems: [{ id: y.id, quantity: 1 }] }] },
    });
    expect(closed.json.data.fulfillmentCreate.userErrors[0].message).toContain('unfulfillable status= closed');
  });

  it('refuses to fulfill a cancelled order', async () => {
    standIn.seedOrder(SHOP, body());
    const fo = (await gql(FO_QUERY, { id: ORDER })).json.data.order.fulfillmentOrders.nodes[0];
    expect(standIn.cancelOrder(SHOP, ORDER).ok).toBe(true);
    const answer = await gql(CREATE, { f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo.id }] } });
    expect(answer.json.data.fulfillmentCreate.userErrors[0].message).toContain('cancelled');
  });

  it('validates metafield values and saves nothing when one is wrong', async () => {
    standIn.seedOrder(SHOP, body());
    const answer = await gql(
      `mutation($m: [MetafieldsSetInput!]!) { metafieldsSet(metafields: $m) { metafields { id } userErrors { field message code elementIndex } } }`,
      {
        m: [
          { ownerId: ORDER, namespace: 'print_bridge', key: 'ok', type: 'single_line_text_field', value: 'fine' },
          { ownerId: ORDER, namespace: 'print_bridge', key: 'status', type: 'json', value: '{not json' },
        ],
      },
    );
    expect(answer.json.data.metafieldsSet.userErrors).toEqual([
      { field: ['metafields', '1', 'value'], message: 'Value must be valid JSON.', code: 'INVALID_VALUE', elementIndex: 1 },
    ]);
    expect(standIn.getOrder(SHOP, ORDER)!.metafields).toEqual([]);
  });

  describe('orderUpdate (issue 27): tags replaced, metafields upserted, 10 points', () => {
    const UPDATE = `mutation($input: OrderInput!) { orderUpdate(input: $input) {
      order { id tags metafield(namespace: "$app", key: "print_status") { value } } userErrors { field message } } }`;
    const statusOf = (order: { metafields: { namespace: string; key: string; value: string }[] }) =>
      order.metafields.filter((m) => m.key === 'print_status').map((m) => m.value);

    it('replaces the whole tag list: a tag left out is gone, whoever added it', async () => {
      standIn.seedOrder(SHOP, body({ tags: 'vip, print-bridge:submitted' }));
      // A merchant adds a tag after the app read ["vip", "print-bridge:submitted"]: the app's list does not have it.
      await gql(`mutation($id: ID!) { tagsAdd(id: $id, tags: ["gift-wrap"]) { userErrors { message } } }`, { id: ORDER });
      const answer = await gql(UPDATE, { input: { id: ORDER, tags: ['vip', 'print-bridge:submitted', 'print-bridge:shipped'] } });
      expect(answer.json.data.orderUpdate.userErrors).toEqual([]);
      expect(standIn.getOrder(SHOP, ORDER)!.tags).toEqual(['vip', 'print-bridge:submitted', 'print-bridge:shipped']);
      expect(answer.json.extensions.cost).toMatchObject({ requestedQueryCost: 10, actualQueryCost: 10 });
    });

    it('leaves the tags alone without `tags`, and upserts metafields by namespace and key, keeping the others', async () => {
      standIn.seedOrder(SHOP, body({ tags: 'vip' }));
      const other = { namespace: 'merchant', key: 'gift', type: 'single_line_text_field', value: 'yes' };
      await gql(`mutation($m: [MetafieldsSetInput!]!) { metafieldsSet(metafields: $m) { userErrors { message } } }`, { m: [{ ownerId: ORDER, ...other }] });
      const first = await gql(UPDATE, { input: { id: ORDER, metafields: [{ namespace: '$app', key: 'print_status', type: 'json', value: '{"status":"submitted"}' }] } });
      expect(first.json.data.orderUpdate.order.metafield).toEqual({ value: '{"status":"submitted"}' });
      const second = await gql(UPDATE, { input: { id: ORDER, tags: ['vip', 'print-bridge:shipped'], metafields: [{ namespace: '$app', key: 'print_status', type: 'json', value: '{"status":"shipped"}' }] } });
      expect(second.json.data.orderUpdate.order).toMatchObject({ tags: ['vip', 'print-bridge:shipped'], metafield: { value: '{"status":"shipped"}' } });
      const order = standIn.getOrder(SHOP, ORDER)!;
      expect(statusOf(order)).toEqual(['{"status":"shipped"}']);
      expect(order.metafields.find((m) => m.namespace === 'merchant')).toMatchObject({ value: 'yes' });
      expect(order.metafields).toHaveLength(2);
      // Tags and metafields in one mutation: one mutation's 10 points.
      expect(second.json.extensions.cost).toMatchObject({ requestedQueryCost: 10, actualQueryCost: 10 });
    });

    it('writes nothing when a metafield is refused', async () => {
      standIn.seedOrder(SHOP, body({ tags: 'vip' }));
      const answer = await gql(UPDATE, { input: { id: ORDER, tags: ['other'], metafields: [{ namespace: '$app', key: 'print_status', type: 'json', value: '{not json' }] } });
      expect(answer.json.data.orderUpdate.userErrors).toEqual([{ field: ['metafields', '0', 'value'], message: 'Value must be valid JSON.' }]);
      expect(standIn.getOrder(SHOP, ORDER)).toMatchObject({ tags: ['vip'], metafields: [] });
    });
  });

  it('filters and sorts orders by created_at and updated_at', async () => {
    standIn.seedOrder(SHOP, body({ admin_graphql_api_id: 'gid://shopify/Order/3', created_at: '2026-11-03T00:00:00Z' }));
    standIn.seedOrder(SHOP, body({ admin_graphql_api_id: 'gid://shopify/Order/1', created_at: '2026-11-01T00:00:00Z' }));
    standIn.seedOrder(SHOP, body({ admin_graphql_api_id: 'gid://shopify/Order/2', created_at: '2026-11-02T00:00:00Z' }));
    const q = `query($q: String) { orders(first: 10, query: $q, sortKey: CREATED_AT) { nodes { id } } }`;
    const ids = async (query: string) => (await gql(q, { q: query })).json.data.orders.nodes.map((n: { id: string }) => n.id);
    expect(await ids("created_at:>'2026-11-01T00:00:00Z'")).toEqual(['gid://shopify/Order/2', 'gid://shopify/Order/3']);
    expect(await ids('created_at:>=2026-11-01 AND created_at:<2026-11-03')).toEqual(['gid://shopify/Order/1', 'gid://shopify/Order/2']);
    expect(await ids('updated_at:>2030-01-01')).toEqual([]);
    const unsupported = await gql(q, { q: 'financial_status:paid' });
    expect(unsupported.json.errors[0].message).toContain('financial_status');
  });
});
