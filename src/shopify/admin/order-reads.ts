import { z } from 'zod';
import { LINE_ITEMS_MAX_PAGES, LINE_ITEMS_PAGE, ORDER_AS_WEBHOOK_BODY, ORDER_LINE_ITEMS_PAGE, orderAsWebhookBody, orderAsWebhookBodySchema, orderLineItemsPageSchema } from '../order-as-webhook-body.js';
import { ShopifyProtocolError } from './errors.js';
import type { OrderStanding } from '../../bridge/shopify-data.js';
import { batchAnswers, gid, ORDERS_BY_ID_MAX, pageInfoSchema, type AdminRequests, type BatchAnswers } from './request.js';

/**
 * Reads of a shop's orders: whether it has one, the access check, an order in its webhook body's shape (lost-order
 * recovery), the orders since a date (reconciliation) and the newest ones (the mapping editor's preview).
 */

const RECENT_ORDERS_PAGE = 50;

export interface RecentOrder {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  cancelledAt: string | null;
  tags: string[];
  displayFulfillmentStatus: string;
}

/**
 * Fulfillment orders read with an order's standing. An order has one per location that fulfils part of it; more than
 * this many is an order split over more locations than print shops run, and the read says so (moreFulfillmentOrders).
 * The bound is set by the batch: an order's standing is requested at 14 points (the order, its risk, the connection
 * and each fulfillment order with its list of holds), and ORDERS_BY_ID_MAX of them must stay within Shopify's
 * single-query limit of 1,000 points (50 × 14 = 700; ten fulfillment orders would be 1,200, which Shopify refuses).
 */
const STANDING_FULFILLMENT_ORDERS = 5;

// What the app must know of an order before printing it: that the shop has it, Shopify's risk recommendation, and the
// holds on its fulfillment orders. One order's lines are read only when one of its fulfillment orders is held.
const ORDER_STANDING_FIELDS = `
      id
      createdAt
      risk { recommendation }
      fulfillmentOrders(first: ${STANDING_FULFILLMENT_ORDERS}) {
        nodes { id status fulfillmentHolds { id reason reasonNotes displayReason handle heldByRequestingApp } }
        pageInfo { hasNextPage }
      }`;

const ORDER_IN_SHOP = /* GraphQL */ `
  query PrintBridgeOrderInShop($id: ID!) {
    order(id: $id) {${ORDER_STANDING_FIELDS}
    }
  }
`;

const ORDER_CANCELLED = /* GraphQL */ `
  query PrintBridgeOrderCancelled($id: ID!) {
    order(id: $id) {
      id
      cancelledAt
    }
  }
`;

// The standing of each of these orders, for the orders asked about together (OrderReadBatches).
const ORDERS_IN_SHOP = /* GraphQL */ `
  query PrintBridgeOrdersInShop($ids: [ID!]!) {
    nodes(ids: $ids) {
      ... on Order {${ORDER_STANDING_FIELDS}
      }
    }
  }
`;

const LATEST_ORDERS = /* GraphQL */ `
  query PrintBridgeLatestOrders($first: Int!) {
    orders(first: $first, sortKey: CREATED_AT, reverse: true) {
      nodes { id name }
    }
  }
`;

const RECENT_ORDERS = /* GraphQL */ `
  query PrintBridgeRecentOrders($first: Int!, $after: String, $query: String!) {
    orders(first: $first, after: $after, query: $query, sortKey: CREATED_AT) {
      nodes { id name createdAt updatedAt cancelledAt tags displayFulfillmentStatus }
      pageInfo { hasNextPage endCursor }
    }
  }
`;

const standingSchema = z.object({
  id: z.string(),
  createdAt: z.string(),
  risk: z.object({ recommendation: z.string() }).nullish(),
  fulfillmentOrders: z.object({
    nodes: z.array(
      z.object({
        id: gid('FulfillmentOrder'),
        status: z.string(),
        fulfillmentHolds: z.array(
          z.object({
            id: z.string(),
            reason: z.string(),
            reasonNotes: z.string().nullable(),
            displayReason: z.string(),
            handle: z.string().nullable(),
            heldByRequestingApp: z.boolean(),
          }),
        ),
      }),
    ),
    pageInfo: pageInfoSchema,
  }),
});

function standingOf(node: z.infer<typeof standingSchema>): OrderStanding {
  return {
    createdAt: node.createdAt,
    riskRecommendation: node.risk?.recommendation ?? null,
    fulfillmentOrders: node.fulfillmentOrders.nodes.map((fo) => ({ id: fo.id, status: fo.status, holds: fo.fulfillmentHolds })),
    moreFulfillmentOrders: node.fulfillmentOrders.pageInfo.hasNextPage,
  };
}

/**
 * Whether this shop has the order (null when it has not), with what keeps it from the printer in Shopify (its risk
 * recommendation, the holds on its fulfillment orders): a webhook's shop header is not signed, so the order's store is
 * confirmed here before it is printed, cancelled or amended (DESIGN section 9), in the read that finds its holds.
 */
const orderInShopSchema = z.object({ order: standingSchema.nullable() });

export async function orderInShop(api: AdminRequests, orderGid: string): Promise<OrderStanding | null> {
  const data = await api.call('orderInShop', ORDER_IN_SHOP, { id: orderGid }, orderInShopSchema, true);
  return data.order && data.order.id === orderGid ? standingOf(data.order) : null;
}

const orderCancelledSchema = z.object({ order: z.object({ id: z.string(), cancelledAt: z.string().nullable() }).nullable() });

/**
 * Whether Shopify shows the order cancelled (null when the shop has no such order): an `orders/cancelled` delivery
 * whose body is not a cancelled order is checked here before the print order is cancelled. One point.
 */
export async function orderCancelled(api: AdminRequests, orderGid: string): Promise<boolean | null> {
  const data = await api.call('orderCancelled', ORDER_CANCELLED, { id: orderGid }, orderCancelledSchema, true);
  return data.order && data.order.id === orderGid ? data.order.cancelledAt !== null : null;
}

// A node of another type, or an id the shop does not have, answers null (or an object without the Order's fields).
const ordersInShopSchema = z.object({
  nodes: z.array(z.union([standingSchema, z.object({ id: z.string().optional() }).loose()]).nullable()),
});

/**
 * `orderInShop` for several orders of one shop in one request (`nodes(ids:)`, up to ORDERS_BY_ID_MAX): the answer
 * for each id given, null where the shop has no such order. Each answer is matched to its id by the id it carries, so
 * an answer in another order, or one missing, never confirms the wrong order.
 */
export async function ordersInShop(api: AdminRequests, orderGids: readonly string[]): Promise<BatchAnswers<OrderStanding>> {
  if (orderGids.length > ORDERS_BY_ID_MAX) throw new RangeError(`ordersInShop reads at most ${ORDERS_BY_ID_MAX} orders at once, got ${orderGids.length}`);
  const nodeErrors: number[] = [];
  // An order and its one fulfillment order (the usual order) cost about 3 points once Shopify refunds the rest.
  const pacing = { key: `ordersInShop×${orderGids.length}`, estimate: orderGids.length * 3 };
  const data = await api.call('ordersInShop', ORDERS_IN_SHOP, { ids: orderGids }, ordersInShopSchema, true, { pacing, nodeErrors });
  const found = new Map<string, OrderStanding>();
  for (const node of data.nodes) {
    const standing = standingSchema.safeParse(node);
    if (standing.success) found.set(standing.data.id, standingOf(standing.data));
    // An order answered in a shape this app does not read is the shop's all the same: read alone, where the one-order
    // read fails loudly, it is never taken for an order the shop does not have (refused for good, its body deleted).
    else if (node?.id !== undefined && orderGids.includes(node.id)) nodeErrors.push(orderGids.indexOf(node.id));
  }
  return batchAnswers(orderGids, found, nodeErrors);
}

/**
 * One cheap read that the app's work needs (orders, which read_orders grants): it fails with Shopify's answer when
 * the token is wrong, revoked, or lacks the scope.
 */
export async function checkAccess(api: AdminRequests): Promise<void> {
  await api.call('checkAccess', '{ orders(first: 1) { nodes { id } } }', {}, checkAccessSchema, true);
}

/**
 * An order in its webhook body's shape (the lost-order recovery), read through GraphQL (order-as-webhook-body.ts);
 * undefined when the shop has no such order. An order of more line items than one page is refused, never half-read.
 */
export async function getOrderAsWebhookBody(api: AdminRequests, orderGid: string): Promise<string | undefined> {
  const operation = 'getOrderAsWebhookBody';
  const data = await api.call(operation, ORDER_AS_WEBHOOK_BODY, { id: orderGid }, orderAsWebhookBodySchema, true);
  if (!data.order) return undefined;
  // An order with more line items than a page reads the rest page by page: a body missing lines would be printed
  // short.
  const order = data.order;
  let page = order.lineItems.pageInfo;
  for (let pages = 1; page.hasNextPage; pages++) {
    if (pages >= LINE_ITEMS_MAX_PAGES || !page.endCursor) {
      throw new ShopifyProtocolError(operation, api.shop, `order ${orderGid} has more than ${LINE_ITEMS_PAGE * LINE_ITEMS_MAX_PAGES} line items; it cannot be read whole`);
    }
    const next = await api.call(operation, ORDER_LINE_ITEMS_PAGE, { id: orderGid, after: page.endCursor }, orderLineItemsPageSchema, true);
    if (!next.order) return undefined;
    order.lineItems.nodes.push(...next.order.lineItems.nodes);
    page = next.order.lineItems.pageInfo;
  }
  return orderAsWebhookBody(order);
}

const checkAccessSchema = z.object({ orders: z.object({ nodes: z.array(z.object({ id: z.string() })) }) });

const recentOrdersSchema = z.object({
  orders: z.object({
    nodes: z.array(
      z.object({
        id: gid('Order'),
        name: z.string(),
        createdAt: z.string(),
        updatedAt: z.string(),
        cancelledAt: z.string().nullable(),
        tags: z.array(z.string()),
        displayFulfillmentStatus: z.string(),
      }),
    ),
    pageInfo: z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() }),
  }),
});

const latestOrdersSchema = z.object({ orders: z.object({ nodes: z.array(z.object({ id: gid('Order'), name: z.string() })) }) });

/** Every order created at or after `sinceIso`, oldest first, for reconciliation. */
export async function listRecentOrders(api: AdminRequests, sinceIso: string, options: { maxPages?: number } = {}): Promise<RecentOrder[]> {
  const operation = 'listRecentOrders';
  const since = Date.parse(sinceIso);
  if (Number.isNaN(since)) throw new RangeError(`listRecentOrders needs an ISO date, got ${JSON.stringify(sinceIso)}`);
  const query = `created_at:>='${new Date(since).toISOString().replace(/\.\d{3}Z$/, 'Z')}'`;
  const out: RecentOrder[] = [];
  let after: string | null = null;
  const maxPages = options.maxPages ?? 40;
  for (let page = 0; page < maxPages; page += 1) {
    const data: z.infer<typeof recentOrdersSchema> = await api.call(operation, RECENT_ORDERS, { first: RECENT_ORDERS_PAGE, after, query }, recentOrdersSchema, true);
    out.push(...data.orders.nodes);
    if (!data.orders.pageInfo.hasNextPage || !data.orders.pageInfo.endCursor) return out;
    after = data.orders.pageInfo.endCursor;
  }
  throw new ShopifyProtocolError(operation, api.shop, `more than ${maxPages * RECENT_ORDERS_PAGE} orders since ${sinceIso}; use a later date`);
}

/** The store's newest orders, newest first (the mapping editor previews them). */
export async function latestOrders(api: AdminRequests, count: number): Promise<{ id: string; name: string }[]> {
  const data = await api.call('latestOrders', LATEST_ORDERS, { first: Math.min(Math.max(1, count), 50) }, latestOrdersSchema, true);
  return data.orders.nodes;
}
