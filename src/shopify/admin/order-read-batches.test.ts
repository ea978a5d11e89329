import { describe, expect, it } from 'vitest';
import { ShopifyAdminApi } from '../admin-api.js';
import { ShopifyUnavailableError } from './errors.js';
import { orderReadBatches, OrderReadBatches, type OrderReads } from './order-read-batches.js';
import { orderInShop, ordersInShop } from './order-reads.js';
import { ShopifyPacer } from './pacing.js';
import type { AdminGraphqlTransport, GraphqlAnswer } from './transport.js';

const order = (n: number) => `gid://shopify/Order/${n}`;
const CREATED = '2026-11-20T10:00:00Z';
/** An order's standing as Shopify answers it: accepted, one open fulfillment order without holds. */
const standingAnswer = (id: string) => ({
  id,
  createdAt: CREATED,
  risk: { recommendation: 'NONE' },
  fulfillmentOrders: { nodes: [{ id: 'gid://shopify/FulfillmentOrder/7', status: 'OPEN', fulfillmentHolds: [] }], pageInfo: { hasNextPage: false } },
});
const STANDING = { createdAt: CREATED, riskRecommendation: 'NONE', fulfillmentOrders: [{ id: 'gid://shopify/FulfillmentOrder/7', status: 'OPEN', holds: [] }], moreFulfillmentOrders: false };

/** A shop holding `orders`; every request is recorded with its operation and variables. */
function fakeShop(shop: string, orders: readonly string[], fail?: () => Error) {
  const requests: { operation: string; variables: Record<string, unknown> }[] = [];
  const transport: AdminGraphqlTransport = {
    shop,
    async request(operation, _query, variables): Promise<GraphqlAnswer> {
      requests.push({ operation, variables });
      if (fail) throw fail();
      const fields = (id: string) => (operation.startsWith('orderInShop') || operation === 'ordersInShop' ? standingAnswer(id) : { id, tags: [`t-${id}`], statusMetafield: { value: '{"status":"submitted"}' } });
      if (operation === 'orderInShop' || operation === 'orderShows') {
        const id = variables.id as string;
        return { data: { order: orders.includes(id) ? fields(id) : null } };
      }
      // As Shopify answers nodes(ids:): in the order asked, null where the shop has no such node.
      return { data: { nodes: (variables.ids as string[]).map((id) => (orders.includes(id) ? fields(id) : null)) } };
    },
  };
  return { requests, transport };
}

function apiOn(transport: AdminGraphqlTransport, batches: OrderReads) {
  return new ShopifyAdminApi(transport, { pacer: new ShopifyPacer({ maxUnavailableRetries: 0 }), orderReads: batches });
}

describe('OrderReadBatches', () => {
  it('asks about the orders checked in one turn in one request, each answered by its own id', async () => {
    const shop = fakeShop('a.myshopify.com', [order(1), order(3)]);
    const batches = orderReadBatches();
    // Each check through its own client, as the app makes one per call.
    const answers = await Promise.all([1, 2, 3, 1].map((n) => apiOn(shop.transport, batches).orderInShop(order(n))));
    expect(answers).toEqual([STANDING, null, STANDING, STANDING]);
    expect(shop.requests).toEqual([{ operation: 'ordersInShop', variables: { ids: [order(1), order(2), order(3)] } }]);
  });

  it('asks about a lone order with the one-order query, without waiting for others', async () => {
    const shop = fakeShop('a.myshopify.com', [order(1)]);
    const batches = orderReadBatches();
    expect(await apiOn(shop.transport, batches).orderInShop(order(1))).toEqual(STANDING);
    expect(await apiOn(shop.transport, batches).orderInShop(order(2))).toBeNull();
    expect(shop.requests.map((r) => r.operation)).toEqual(['orderInShop', 'orderInShop']);
  });

  it('never confirms an order from an answer given for another id', async () => {
    const shop = fakeShop('a.myshopify.com', []);
    // An answer out of order, or naming an order that was not asked about.
    shop.transport.request = async () => ({ data: { nodes: [standingAnswer(order(2)), standingAnswer(order(9))] } });
    const batches = orderReadBatches();
    const answers = await Promise.all([order(1), order(2)].map((id) => apiOn(shop.transport, batches).orderInShop(id)));
    expect(answers).toEqual([null, STANDING]);
  });

  it("keeps each shop's checks to its own request", async () => {
    const a = fakeShop('a.myshopify.com', [order(1)]);
    const b = fakeShop('b.myshopify.com', [order(2)]);
    const batches = orderReadBatches();
    const answers = await Promise.all([
      apiOn(a.transport, batches).orderInShop(order(1)),
      apiOn(b.transport, batches).orderInShop(order(1)),
      apiOn(a.transport, batches).orderInShop(order(2)),
      apiOn(b.transport, batches).orderInShop(order(2)),
    ]);
    expect(answers).toEqual([STANDING, null, null, STANDING]);
    expect(a.requests).toEqual([{ operation: 'ordersInShop', variables: { ids: [order(1), order(2)] } }]);
    expect(b.requests).toEqual([{ operation: 'ordersInShop', variables: { ids: [order(1), order(2)] } }]);
  });

  it('sends a full batch at once and starts another', async () => {
    const shop = fakeShop('a.myshopify.com', [order(1), order(2), order(3)]);
    const batches = { ...orderReadBatches(), inShop: new OrderReadBatches({ one: orderInShop, many: ordersInShop }, 2) };
    await Promise.all([1, 2, 3].map((n) => apiOn(shop.transport, batches).orderInShop(order(n))));
    expect(shop.requests.map((r) => r.variables)).toEqual([{ ids: [order(1), order(2)] }, { id: order(3) }]);
  });

  it('asks about a malformed id alone, so it cannot make the batch fail', async () => {
    const shop = fakeShop('a.myshopify.com', [order(1), order(2)]);
    const batches = orderReadBatches();
    await Promise.all([order(1), 'gid://shopify/Order/x', order(2)].map((id) => apiOn(shop.transport, batches).orderInShop(id)));
    expect(shop.requests).toEqual([
      { operation: 'orderInShop', variables: { id: 'gid://shopify/Order/x' } },
      { operation: 'ordersInShop', variables: { ids: [order(1), order(2)] } },
    ]);
  });

  it("reads what several orders show in one request, apart from the checks of the same orders", async () => {
    const shop = fakeShop('a.myshopify.com', [order(1), order(2)]);
    const batches = orderReadBatches();
    const [shows1, shows2, shows3, in1] = await Promise.all([
      apiOn(shop.transport, batches).orderShows(order(1)),
      apiOn(shop.transport, batches).orderShows(order(2)),
      apiOn(shop.transport, batches).orderShows(order(3)),
      apiOn(shop.transport, batches).orderInShop(order(1)),
    ]);
    expect(shows1).toEqual({ tags: [`t-${order(1)}`], status: { status: 'submitted' } });
    expect(shows2).toEqual({ tags: [`t-${order(2)}`], status: { status: 'submitted' } });
    expect(shows3).toBeNull();
    expect(in1).toEqual(STANDING);
    expect(shop.requests.map((r) => r.operation).sort()).toEqual(['orderInShop', 'ordersShow']);
  });

  it("reads alone an order Shopify answered with an error of its own, so the error is that order's and not the others'", async () => {
    const shop = fakeShop('a.myshopify.com', [order(1), order(2), order(3)]);
    const answer = shop.transport.request.bind(shop.transport);
    shop.transport.request = async (operation, query, variables) => {
      const answered = await answer(operation, query, variables);
      if (operation === 'orderInShop' && variables.id === order(2)) throw new ShopifyUnavailableError('orderInShop', 'a.myshopify.com', 503, 'down');
      if (operation !== 'ordersInShop') return answered;
      const nodes = (answered.data as { nodes: unknown[] }).nodes;
      nodes[1] = null;
      return { data: { nodes }, errors: [{ message: 'Access denied for order.', path: ['nodes', 1], extensions: { code: 'ACCESS_DENIED' } }] };
    };
    const batches = orderReadBatches();
    const outcomes = await Promise.allSettled([1, 2, 3].map((n) => apiOn(shop.transport, batches).orderInShop(order(n))));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(shop.requests.map((r) => r.operation)).toEqual(['ordersInShop', 'orderInShop']);
    // An error that names no element still fails the whole request, as before.
    shop.transport.request = async () => ({ data: null, errors: [{ message: 'Internal error' }] });
    const failed = await Promise.allSettled([1, 3].map((n) => apiOn(shop.transport, batches).orderInShop(order(n))));
    expect(failed.map((o) => o.status)).toEqual(['rejected', 'rejected']);
  });

  it("never takes an order whose standing it cannot read for one the shop does not have: it is read alone, and fails there", async () => {
    const shop = fakeShop('a.myshopify.com', [order(1), order(2)]);
    const answer = shop.transport.request.bind(shop.transport);
    // Order 2 is the shop's, but a hold on it comes back in a shape this app does not read (a field null).
    const odd = (node: ReturnType<typeof standingAnswer>): unknown => ({
      ...node,
      fulfillmentOrders: { ...node.fulfillmentOrders, nodes: [{ id: 'gid://shopify/FulfillmentOrder/7', status: 'ON_HOLD', fulfillmentHolds: [{ id: 'gid://shopify/FulfillmentHold/1', reason: 'HIGH_RISK_OF_FRAUD', reasonNotes: null, displayReason: null, handle: null, heldByRequestingApp: false }] }] },
    });
    shop.transport.request = async (operation, query, variables) => {
      const answered = await answer(operation, query, variables);
      if (operation === 'orderInShop' && variables.id === order(2)) return { data: { order: odd(standingAnswer(order(2))) } };
      if (operation !== 'ordersInShop') return answered;
      const nodes = (answered.data as { nodes: unknown[] }).nodes;
      nodes[1] = odd(nodes[1] as ReturnType<typeof standingAnswer>);
      return { data: { nodes } };
    };
    const batches = orderReadBatches();
    const outcomes = await Promise.allSettled([1, 2].map((n) => apiOn(shop.transport, batches).orderInShop(order(n))));
    // Taken for "not the shop's", the order would be refused for good and its body deleted.
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    expect(shop.requests.map((r) => r.operation)).toEqual(['ordersInShop', 'orderInShop']);
  });

  it('gives a failure to every check of the batch', async () => {
    const shop = fakeShop('a.myshopify.com', [order(1)], () => new ShopifyUnavailableError('ordersInShop', 'a.myshopify.com', 503, 'down'));
    const batches = orderReadBatches();
    const outcomes = await Promise.allSettled([1, 2].map((n) => apiOn(shop.transport, batches).orderInShop(order(n))));
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(outcomes.every((o) => o.status === 'rejected' && o.reason instanceof ShopifyUnavailableError)).toBe(true);
  });
});
