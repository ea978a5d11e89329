import { LINE_ITEMS_MAX_PAGES, LINE_ITEMS_PAGE, ORDER_AS_WEBHOOK_BODY, ORDER_LINE_ITEMS_PAGE, orderAsWebhookBody, orderAsWebhookBodySchema, orderLineItemsPageSchema } from './order-as-webhook-body.js';
import { z } from 'zod';
import {
  ShopifyProtocolError,
  ShopifyThrottledError,
  ShopifyUnauthorizedError,
  ShopifyUnavailableError,
  ShopifyUserError,
  type ShopifyUserErrorDetail,
} from './admin/errors.js';
import { ShopifyPacer, type CostReport } from './admin/pacing.js';
import type { AdminGraphqlTransport, GraphqlAnswer } from './admin/transport.js';

/**
 * print-bridge's Admin GraphQL operations, typed and parsed with zod at the boundary. Each one goes through the
 * shop's pacer; failures are the typed errors of admin/errors.ts. Records are named by gid strings throughout:
 * Shopify's numeric ids can exceed 2^53.
 */

export * from './admin/errors.js';
export { ShopifyPacer, JOB_INLINE_WAIT_MS, type PacingOptions, type PacingWait, type CostReport, type ReportCost } from './admin/pacing.js';
export { createShopifyApiTransport, type AdminGraphqlTransport, type GraphqlAnswer, type ShopifyApiTransportOptions } from './admin/transport.js';
export { routeAdminApi, clearAdminApiRoutes, configureAdminApiOrigin, SHOP_DOMAIN_HEADER } from './admin/routing.js';

/**
 * The order's print status, in the app-owned namespace (`$app`, which Shopify resolves to `app--<app id>`; only this
 * app writes it) with its definition declared in shopify.app.toml, so merchants see it on the order page.
 */
export const STATUS_METAFIELD = { namespace: '$app', key: 'print_status', type: 'json' } as const;

/**
 * Page sizes of the order read. Shopify admits a query only when the shop's bucket holds its requested cost (every
 * page full), so these set how much of the bucket one read needs before it may start, not what it costs: 540 of the
 * single-query limit of 1000 and of a standard shop's 2,000 points, where an order of two lines, one fulfillment order
 * and two fulfillments costs about 25 once Shopify has refunded the rest. An order one location fulfills is read whole
 * up to 25 line items, as before; beyond a page the read refuses (see getOrderForFulfillment).
 */
const FULFILLMENT_ORDERS_PAGE = 5;
const FULFILLMENT_ORDER_LINES_PAGE = 25;
// A print order has a fulfillment per shipment; the list only serves to find one an earlier attempt created, oldest
// first. One that is not read is still counted in the fulfillment orders' remaining quantities, so it is never
// fulfilled twice.
const FULFILLMENTS_PAGE = 5;
const FULFILLMENT_LINES_PAGE = 25;
const RECENT_ORDERS_PAGE = 50;

// ---------------------------------------------------------------------------------------------------------- schemas

const gid = (kind: string) =>
  z.string().regex(new RegExp(`^gid://shopify/${kind}/\\d+$`), `must be a gid://shopify/${kind}/<id>`);

const pageInfoSchema = z.object({ hasNextPage: z.boolean() });
const trackingInfoSchema = z.object({ company: z.string().nullable(), number: z.string().nullable(), url: z.string().nullable() });
const userErrorSchema = z.object({
  field: z.array(z.string()).nullable(),
  message: z.string(),
  code: z.string().nullish(),
});
const costSchema = z.object({
  requestedQueryCost: z.number(),
  actualQueryCost: z.number().nullable(),
  throttleStatus: z.object({ maximumAvailable: z.number(), currentlyAvailable: z.number(), restoreRate: z.number() }),
});
const graphqlErrorSchema = z.object({
  message: z.string(),
  extensions: z.object({ code: z.string().optional() }).loose().optional(),
});

const lineItemSchema = z.object({
  id: gid('LineItem'),
  sku: z.string().nullable(),
  name: z.string(),
  quantity: z.number().int(),
  currentQuantity: z.number().int(),
  unfulfilledQuantity: z.number().int(),
});

const fulfillmentSchema = z.object({
  id: gid('Fulfillment'),
  name: z.string(),
  status: z.string(),
  createdAt: z.string(),
  trackingInfo: z.array(trackingInfoSchema),
  fulfillmentLineItems: z.object({
    nodes: z.array(z.object({ id: z.string(), quantity: z.number().int(), lineItem: z.object({ id: gid('LineItem') }) })),
    pageInfo: pageInfoSchema,
  }),
});

const fulfillmentHoldSchema = z.object({ reason: z.string(), reasonNotes: z.string().nullable(), displayReason: z.string() });

const fulfillmentOrderOrderSchema = z.object({
  fulfillmentOrder: z.object({ id: gid('FulfillmentOrder'), status: z.string(), orderId: gid('Order') }).nullable(),
});

const orderForFulfillmentSchema = z.object({
  order: z
    .object({
      id: gid('Order'),
      name: z.string(),
      tags: z.array(z.string()),
      note: z.string().nullable(),
      cancelledAt: z.string().nullable(),
      updatedAt: z.string(),
      displayFulfillmentStatus: z.string(),
      fulfillmentOrders: z.object({
        nodes: z.array(
          z.object({
            id: gid('FulfillmentOrder'),
            status: z.string(),
            fulfillAt: z.string().nullable(),
            fulfillmentHolds: z.array(fulfillmentHoldSchema),
            lineItems: z.object({
              nodes: z.array(
                z.object({
                  id: gid('FulfillmentOrderLineItem'),
                  totalQuantity: z.number().int(),
                  remainingQuantity: z.number().int(),
                  lineItem: lineItemSchema,
                }),
              ),
              pageInfo: pageInfoSchema,
            }),
          }),
        ),
        pageInfo: pageInfoSchema,
      }),
      fulfillments: z.array(fulfillmentSchema),
      statusMetafield: z.object({ value: z.string(), updatedAt: z.string() }).nullable(),
    })
    .nullable(),
});

const fulfillmentPayloadSchema = z.object({
  fulfillment: z.object({ id: gid('Fulfillment'), name: z.string(), status: z.string(), trackingInfo: z.array(trackingInfoSchema) }).nullable(),
  userErrors: z.array(userErrorSchema),
});

// ------------------------------------------------------------------------------------------------------------ types

export interface TrackingInfo {
  company?: string | null;
  number?: string | null;
  url?: string | null;
}

export interface OrderForFulfillment {
  id: string;
  name: string;
  tags: string[];
  note: string | null;
  cancelledAt: string | null;
  updatedAt: string;
  displayFulfillmentStatus: string;
  /**
   * The order's line items that are in its fulfillment orders, i.e. all that Shopify can fulfill (a line item that
   * needs no shipping has no fulfillment order line and is not among them).
   */
  lineItems: { id: string; sku: string | null; name: string; quantity: number; currentQuantity: number; unfulfilledQuantity: number }[];
  fulfillmentOrders: {
    id: string;
    /** OPEN, IN_PROGRESS, CLOSED, CANCELLED, INCOMPLETE, ON_HOLD (see `holds`) or SCHEDULED (until `fulfillAt`). */
    status: string;
    /** When a SCHEDULED fulfillment order becomes fulfillable. */
    fulfillAt: string | null;
    /** The holds keeping an ON_HOLD fulfillment order from being fulfilled: Shopify's reason, notes and its wording. */
    holds: { reason: string; reasonNotes: string | null; displayReason: string }[];
    lineItems: { id: string; lineItemId: string; sku: string | null; totalQuantity: number; remainingQuantity: number }[];
  }[];
  fulfillments: {
    id: string;
    name: string;
    status: string;
    createdAt: string;
    trackingInfo: { company: string | null; number: string | null; url: string | null }[];
    lineItems: { lineItemId: string; quantity: number }[];
  }[];
  /** True when the order has more fulfillments than were read (the newest come last in Shopify's list). */
  moreFulfillments: boolean;
  /** The value of the `$app:print_status` metafield, parsed, or null. */
  status: { value: unknown; updatedAt: string } | null;
}

/** What a Shopify order shows of its print status: all its tags, and the `$app:print_status` value (parsed) or null. */
export interface StatusShown {
  tags: string[];
  status: unknown;
}

/** The writes that make an order show a status, only what differs from what it shows: one request (`showStatus`). */
export interface StatusChange {
  addTags: string[];
  removeTags: string[];
  /** The `$app:print_status` value to write; absent: the metafield is left as it is. */
  status?: unknown;
}

export interface CreateFulfillmentInput {
  /** The order the fulfillment orders belong to; named in error messages. */
  orderGid: string;
  fulfillmentOrders: { fulfillmentOrderId: string; lineItems: { id: string; quantity: number }[] }[];
  /** Omitted, or without a number: the items are fulfilled without tracking. */
  trackingInfo?: TrackingInfo;
  notifyCustomer: boolean;
}

export interface FulfillmentSummary {
  id: string;
  name: string;
  status: string;
  trackingInfo: { company: string | null; number: string | null; url: string | null }[];
}

export interface RecentOrder {
  id: string;
  name: string;
  createdAt: string;
  updatedAt: string;
  cancelledAt: string | null;
  tags: string[];
  displayFulfillmentStatus: string;
}

export interface ShopifyAdminApiOptions {
  /** Shared by every ShopifyAdminApi of the process so that each shop's budget is seen as a whole. */
  pacer?: ShopifyPacer;
  /** Called once per operation with how it ended (after the pacer's own retries); for metrics. */
  onCall?: (info: { operation: string; outcome: 'ok' | 'throttled' | 'user-error' | 'unavailable' | 'unauthorized' | 'error' }) => void;
}

// -------------------------------------------------------------------------------------------------------- documents

// The line items come with the fulfillment order lines: each line's lineItem object is paid for anyway and scalars
// cost nothing, so the order's own lineItems connection (52 points requested) is not read.
const ORDER_FOR_FULFILLMENT = /* GraphQL */ `
  query PrintBridgeOrderForFulfillment($id: ID!) {
    order(id: $id) {
      id
      name
      tags
      note
      cancelledAt
      updatedAt
      displayFulfillmentStatus
      fulfillmentOrders(first: ${FULFILLMENT_ORDERS_PAGE}) {
        nodes {
          id
          status
          fulfillAt
          fulfillmentHolds { reason reasonNotes displayReason }
          lineItems(first: ${FULFILLMENT_ORDER_LINES_PAGE}) {
            nodes { id totalQuantity remainingQuantity lineItem { id sku name quantity currentQuantity unfulfilledQuantity } }
            pageInfo { hasNextPage }
          }
        }
        pageInfo { hasNextPage }
      }
      fulfillments(first: ${FULFILLMENTS_PAGE}) {
        id
        name
        status
        createdAt
        trackingInfo(first: 5) { company number url }
        fulfillmentLineItems(first: ${FULFILLMENT_LINES_PAGE}) {
          nodes { id quantity lineItem { id } }
          pageInfo { hasNextPage }
        }
      }
      statusMetafield: metafield(namespace: "${STATUS_METAFIELD.namespace}", key: "${STATUS_METAFIELD.key}") { value updatedAt }
    }
  }
`;

const FULFILLMENT_ORDER_ORDER = /* GraphQL */ `
  query PrintBridgeFulfillmentOrderOrder($id: ID!) {
    fulfillmentOrder(id: $id) { id status orderId }
  }
`;

const FULFILLMENT_CREATE = /* GraphQL */ `
  mutation PrintBridgeFulfillmentCreate($fulfillment: FulfillmentInput!) {
    fulfillmentCreate(fulfillment: $fulfillment) {
      fulfillment { id name status trackingInfo { company number url } }
      userErrors { field message }
    }
  }
`;

const FULFILLMENT_TRACKING_UPDATE = /* GraphQL */ `
  mutation PrintBridgeFulfillmentTrackingInfoUpdate($fulfillmentId: ID!, $trackingInfoInput: FulfillmentTrackingInput!, $notifyCustomer: Boolean) {
    fulfillmentTrackingInfoUpdate(fulfillmentId: $fulfillmentId, trackingInfoInput: $trackingInfoInput, notifyCustomer: $notifyCustomer) {
      fulfillment { id name status trackingInfo { company number url } }
      userErrors { field message }
    }
  }
`;

/**
 * Calls that yield to the shop's other calls when its bucket is short (ShopifyPacer, `background`): showing a status
 * can wait a burst of fulfillments out; the fulfillments, with the customer's tracking e-mail, cannot.
 */
const BACKGROUND_OPERATIONS: ReadonlySet<string> = new Set(['orderShows', 'showStatus']);

// Whether the shop has the order: 1 point.
const ORDER_IN_SHOP = /* GraphQL */ `
  query PrintBridgeOrderInShop($id: ID!) {
    order(id: $id) {
      id
      createdAt
    }
  }
`;

// What the order shows of its print status: about 2 points (the order and its metafield).
const ORDER_SHOWS = /* GraphQL */ `
  query PrintBridgeOrderShows($id: ID!) {
    order(id: $id) {
      id
      tags
      statusMetafield: metafield(namespace: "${STATUS_METAFIELD.namespace}", key: "${STATUS_METAFIELD.key}") { value }
    }
  }
`;

const ORDER_NOTE = /* GraphQL */ `
  query PrintBridgeOrderNote($id: ID!) {
    order(id: $id) { id note }
  }
`;

const ORDER_UPDATE_NOTE = /* GraphQL */ `
  mutation PrintBridgeOrderUpdateNote($input: OrderInput!) {
    orderUpdate(input: $input) { order { id note } userErrors { field message } }
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

// ------------------------------------------------------------------------------------------------------- operations

export class ShopifyAdminApi {
  private readonly pacer: ShopifyPacer;

  constructor(
    private readonly transport: AdminGraphqlTransport,
    private readonly options: ShopifyAdminApiOptions = {},
  ) {
    this.pacer = options.pacer ?? new ShopifyPacer();
  }

  get shop(): string {
    return this.transport.shop;
  }

  /** The order with what fulfilling it needs, or null when the shop has no such order. */
  async getOrderForFulfillment(orderGid: string): Promise<OrderForFulfillment | null> {
    const operation = 'getOrderForFulfillment';
    const data = await this.call(operation, ORDER_FOR_FULFILLMENT, { id: orderGid }, orderForFulfillmentSchema, true);
    const order = data.order;
    if (!order) return null;
    const truncated = [
      order.fulfillmentOrders.pageInfo.hasNextPage && `more than ${FULFILLMENT_ORDERS_PAGE} fulfillment orders`,
      order.fulfillmentOrders.nodes.some((fo) => fo.lineItems.pageInfo.hasNextPage) &&
        `a fulfillment order with more than ${FULFILLMENT_ORDER_LINES_PAGE} line items`,
      order.fulfillments.some((f) => f.fulfillmentLineItems.pageInfo.hasNextPage) &&
        `a fulfillment with more than ${FULFILLMENT_LINES_PAGE} line items`,
    ].filter((t): t is string => typeof t === 'string');
    if (truncated.length > 0) {
      // Acting on part of an order could fulfill the wrong items; refuse plainly instead.
      throw new ShopifyProtocolError(operation, this.shop, `order ${order.id} has ${truncated.join(' and ')}, more than print-bridge reads`);
    }
    return {
      id: order.id,
      name: order.name,
      tags: order.tags,
      note: order.note,
      cancelledAt: order.cancelledAt,
      updatedAt: order.updatedAt,
      displayFulfillmentStatus: order.displayFulfillmentStatus,
      lineItems: distinctLineItems(order.fulfillmentOrders.nodes.flatMap((fo) => fo.lineItems.nodes.map((l) => l.lineItem))),
      fulfillmentOrders: order.fulfillmentOrders.nodes.map((fo) => ({
        id: fo.id,
        status: fo.status,
        fulfillAt: fo.fulfillAt,
        holds: fo.fulfillmentHolds,
        lineItems: fo.lineItems.nodes.map((l) => ({
          id: l.id,
          lineItemId: l.lineItem.id,
          sku: l.lineItem.sku,
          totalQuantity: l.totalQuantity,
          remainingQuantity: l.remainingQuantity,
        })),
      })),
      fulfillments: order.fulfillments.map((f) => ({
        id: f.id,
        name: f.name,
        status: f.status,
        createdAt: f.createdAt,
        trackingInfo: f.trackingInfo,
        lineItems: f.fulfillmentLineItems.nodes.map((l) => ({ lineItemId: l.lineItem.id, quantity: l.quantity })),
      })),
      moreFulfillments: order.fulfillments.length >= FULFILLMENTS_PAGE,
      status: order.statusMetafield ? { value: parseJsonValue(order.statusMetafield.value), updatedAt: order.statusMetafield.updatedAt } : null,
    };
  }

  /**
   * The order a fulfillment order belongs to, with its status; null when the shop has no such fulfillment order. The
   * fulfillment-order webhooks name only the fulfillment order.
   */
  async getFulfillmentOrderOrder(fulfillmentOrderGid: string): Promise<{ orderId: string; status: string } | null> {
    const data = await this.call('getFulfillmentOrderOrder', FULFILLMENT_ORDER_ORDER, { id: fulfillmentOrderGid }, fulfillmentOrderOrderSchema, true);
    return data.fulfillmentOrder ? { orderId: data.fulfillmentOrder.orderId, status: data.fulfillmentOrder.status } : null;
  }

  /**
   * One fulfillment of exactly these fulfillment order line items. Not idempotent: after an answer whose outcome is
   * unknown (500, dropped connection), re-read the order before sending it again.
   */
  async createFulfillment(input: CreateFulfillmentInput): Promise<FulfillmentSummary> {
    const operation = 'createFulfillment';
    const tracking = trackingInput(input.trackingInfo);
    const variables = {
      fulfillment: {
        lineItemsByFulfillmentOrder: input.fulfillmentOrders.map((fo) => ({
          fulfillmentOrderId: fo.fulfillmentOrderId,
          fulfillmentOrderLineItems: fo.lineItems.map((l) => ({ id: l.id, quantity: l.quantity })),
        })),
        ...(tracking ? { trackingInfo: tracking } : {}),
        notifyCustomer: input.notifyCustomer,
      },
    };
    const data = await this.call(operation, FULFILLMENT_CREATE, variables, z.object({ fulfillmentCreate: fulfillmentPayloadSchema }), false);
    return this.fulfillmentOf(operation, input.orderGid, data.fulfillmentCreate);
  }

  async updateFulfillmentTracking(fulfillmentGid: string, trackingInfo: TrackingInfo, notifyCustomer: boolean): Promise<FulfillmentSummary> {
    const operation = 'updateFulfillmentTracking';
    const variables = { fulfillmentId: fulfillmentGid, trackingInfoInput: trackingInput(trackingInfo) ?? {}, notifyCustomer };
    const data = await this.call(
      operation,
      FULFILLMENT_TRACKING_UPDATE,
      variables,
      z.object({ fulfillmentTrackingInfoUpdate: fulfillmentPayloadSchema }),
      true,
    );
    return this.fulfillmentOf(operation, fulfillmentGid, data.fulfillmentTrackingInfoUpdate);
  }

  /**
   * Whether this shop has the order (null when it has not): a webhook's shop header is not signed, so the order's
   * store is confirmed here before it is printed, cancelled or amended (DESIGN section 9). One point.
   */
  async orderInShop(orderGid: string): Promise<{ createdAt: string } | null> {
    const data = await this.call('orderInShop', ORDER_IN_SHOP, { id: orderGid }, z.object({ order: z.object({ id: z.string(), createdAt: z.string() }).nullable() }), true);
    return data.order && data.order.id === orderGid ? { createdAt: data.order.createdAt } : null;
  }

  /** What the order shows of its print status (tags and metafield); null when the shop has no such order. */
  async orderShows(orderGid: string): Promise<StatusShown | null> {
    const data = await this.call(
      'orderShows',
      ORDER_SHOWS,
      { id: orderGid },
      z.object({ order: z.object({ id: z.string(), tags: z.array(z.string()), statusMetafield: z.object({ value: z.string() }).nullable() }).nullable() }),
      true,
    );
    if (!data.order) return null;
    return { tags: data.order.tags, status: data.order.statusMetafield ? parseJsonValue(data.order.statusMetafield.value) : null };
  }

  /**
   * Tags added and removed and the status metafield written in one request: Shopify runs the mutations of a document
   * one after the other and charges each (10 points), so only the ones `change` needs are sent. Idempotent: tags are a
   * set and the metafield an upsert.
   */
  async showStatus(orderGid: string, change: StatusChange): Promise<void> {
    const operation = 'showStatus';
    const variables: string[] = [];
    const fields: string[] = [];
    const values: Record<string, unknown> = {};
    const errors = 'userErrors { field message }';
    if (change.addTags.length > 0 || change.removeTags.length > 0) {
      variables.push('$id: ID!');
      values.id = orderGid;
    }
    if (change.addTags.length > 0) {
      variables.push('$add: [String!]!');
      fields.push(`added: tagsAdd(id: $id, tags: $add) { ${errors} }`);
      values.add = change.addTags;
    }
    if (change.removeTags.length > 0) {
      variables.push('$remove: [String!]!');
      fields.push(`removed: tagsRemove(id: $id, tags: $remove) { ${errors} }`);
      values.remove = change.removeTags;
    }
    if (change.status !== undefined) {
      variables.push('$metafields: [MetafieldsSetInput!]!');
      fields.push(`status: metafieldsSet(metafields: $metafields) { ${errors} }`);
      values.metafields = [{ ownerId: orderGid, ...STATUS_METAFIELD, value: JSON.stringify(change.status) }];
    }
    if (fields.length === 0) return;
    const payload = z.object({ userErrors: z.array(userErrorSchema) }).nullable().optional();
    const data = await this.call(
      operation,
      `mutation PrintBridgeShowStatus(${variables.join(', ')}) { ${fields.join(' ')} }`,
      values,
      z.object({ added: payload, removed: payload, status: payload }),
      true,
    );
    this.throwUserErrors(operation, orderGid, [...(data.added?.userErrors ?? []), ...(data.removed?.userErrors ?? []), ...(data.status?.userErrors ?? [])]);
  }

  /**
   * Adds `text` as a line of the order's note unless the note has that line already, so a repeated job does not
   * repeat it. Returns whether the note changed.
   */
  async appendOrderNote(orderGid: string, text: string): Promise<{ changed: boolean; note: string }> {
    const operation = 'appendOrderNote';
    const line = text.trim();
    if (line === '') throw new RangeError('appendOrderNote needs a non-empty text');
    const read = await this.call(
      operation,
      ORDER_NOTE,
      { id: orderGid },
      z.object({ order: z.object({ id: z.string(), note: z.string().nullable() }).nullable() }),
      true,
    );
    if (!read.order) throw new ShopifyUserError(operation, this.shop, orderGid, [{ field: ['id'], message: 'Order does not exist' }]);
    const current = read.order.note ?? '';
    if (current.split(/\r?\n/).some((l) => l.trim() === line)) return { changed: false, note: current };
    const note = current.trim() === '' ? line : `${current.replace(/\s+$/, '')}\n${line}`;
    const data = await this.call(
      operation,
      ORDER_UPDATE_NOTE,
      { input: { id: orderGid, note } },
      z.object({
        orderUpdate: z.object({
          order: z.object({ id: z.string(), note: z.string().nullable() }).nullable(),
          userErrors: z.array(userErrorSchema),
        }),
      }),
      true,
    );
    this.throwUserErrors(operation, orderGid, data.orderUpdate.userErrors);
    return { changed: true, note: data.orderUpdate.order?.note ?? note };
  }

  /** Every order created at or after `sinceIso`, oldest first, for reconciliation. */
  /**
   * One cheap read that the app's work needs (orders, which read_orders grants): it fails with Shopify's answer when
   * the token is wrong, revoked, or lacks the scope.
   */
  async checkAccess(): Promise<void> {
    await this.call('checkAccess', '{ orders(first: 1) { nodes { id } } }', {}, z.object({ orders: z.object({ nodes: z.array(z.object({ id: z.string() })) }) }), true);
  }

  /**
   * An order in its webhook body's shape (the lost-order recovery), read through GraphQL (order-as-webhook-body.ts);
   * undefined when the shop has no such order. An order of more line items than one page is refused, never half-read.
   */
  async getOrderAsWebhookBody(orderGid: string): Promise<string | undefined> {
    const operation = 'getOrderAsWebhookBody';
    const data = await this.call(operation, ORDER_AS_WEBHOOK_BODY, { id: orderGid }, orderAsWebhookBodySchema, true);
    if (!data.order) return undefined;
    // An order with more line items than a page reads the rest page by page: a body missing lines would be printed
    // short.
    const order = data.order;
    let page = order.lineItems.pageInfo;
    for (let pages = 1; page.hasNextPage; pages++) {
      if (pages >= LINE_ITEMS_MAX_PAGES || !page.endCursor) {
        throw new ShopifyProtocolError(operation, this.shop, `order ${orderGid} has more than ${LINE_ITEMS_PAGE * LINE_ITEMS_MAX_PAGES} line items; it cannot be read whole`);
      }
      const next = await this.call(operation, ORDER_LINE_ITEMS_PAGE, { id: orderGid, after: page.endCursor }, orderLineItemsPageSchema, true);
      if (!next.order) return undefined;
      order.lineItems.nodes.push(...next.order.lineItems.nodes);
      page = next.order.lineItems.pageInfo;
    }
    return orderAsWebhookBody(order);
  }

  async listRecentOrders(sinceIso: string, options: { maxPages?: number } = {}): Promise<RecentOrder[]> {
    const operation = 'listRecentOrders';
    const since = Date.parse(sinceIso);
    if (Number.isNaN(since)) throw new RangeError(`listRecentOrders needs an ISO date, got ${JSON.stringify(sinceIso)}`);
    const query = `created_at:>='${new Date(since).toISOString().replace(/\.\d{3}Z$/, 'Z')}'`;
    const schema = z.object({
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
    const out: RecentOrder[] = [];
    let after: string | null = null;
    const maxPages = options.maxPages ?? 40;
    for (let page = 0; page < maxPages; page += 1) {
      const data: z.infer<typeof schema> = await this.call(operation, RECENT_ORDERS, { first: RECENT_ORDERS_PAGE, after, query }, schema, true);
      out.push(...data.orders.nodes);
      if (!data.orders.pageInfo.hasNextPage || !data.orders.pageInfo.endCursor) return out;
      after = data.orders.pageInfo.endCursor;
    }
    throw new ShopifyProtocolError(operation, this.shop, `more than ${maxPages * RECENT_ORDERS_PAGE} orders since ${sinceIso}; use a later date`);
  }

  /** The store's newest orders, newest first (the mapping editor previews them). */
  async latestOrders(count: number): Promise<{ id: string; name: string }[]> {
    const schema = z.object({ orders: z.object({ nodes: z.array(z.object({ id: gid('Order'), name: z.string() })) }) });
    const data = await this.call('latestOrders', LATEST_ORDERS, { first: Math.min(Math.max(1, count), 50) }, schema, true);
    return data.orders.nodes;
  }

  // ------------------------------------------------------------------------------------------------------ internals

  private async call<T>(operation: string, query: string, variables: Record<string, unknown>, schema: z.ZodType<T>, idempotent: boolean): Promise<T> {
    if (!this.options.onCall) return this.send(operation, query, variables, schema, idempotent);
    try {
      const result = await this.send(operation, query, variables, schema, idempotent);
      this.options.onCall({ operation, outcome: 'ok' });
      return result;
    } catch (error) {
      this.options.onCall({ operation, outcome: outcomeOf(error) });
      throw error;
    }
  }

  private async send<T>(operation: string, query: string, variables: Record<string, unknown>, schema: z.ZodType<T>, idempotent: boolean): Promise<T> {
    return this.pacer.run(this.shop, operation, { idempotent, background: BACKGROUND_OPERATIONS.has(operation) }, async (reportCost) => {
      const answer = await this.transport.request(operation, query, variables);
      const cost = readCost(answer);
      if (cost) reportCost(cost);
      const errors = readErrors(answer);
      if (errors.length > 0) {
        if (errors.some((e) => e.extensions?.code === 'THROTTLED')) {
          throw new ShopifyThrottledError(operation, this.shop, cost?.requestedQueryCost ?? this.pacer.expectedCost(operation), cost?.throttleStatus);
        }
        throw new ShopifyProtocolError(
          operation,
          this.shop,
          errors.map((e) => (e.extensions?.code ? `${e.extensions.code}: ${e.message}` : e.message)).join('; '),
        );
      }
      const parsed = schema.safeParse(answer.data);
      if (!parsed.success) {
        throw new ShopifyProtocolError(
          operation,
          this.shop,
          parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
        );
      }
      return parsed.data;
    });
  }

  private fulfillmentOf(operation: string, subject: string, payload: z.infer<typeof fulfillmentPayloadSchema>): FulfillmentSummary {
    this.throwUserErrors(operation, subject, payload.userErrors);
    if (!payload.fulfillment) throw new ShopifyProtocolError(operation, this.shop, `no fulfillment and no userErrors for ${subject}`);
    return payload.fulfillment;
  }

  private throwUserErrors(operation: string, subject: string, userErrors: ShopifyUserErrorDetail[]): void {
    if (userErrors.length > 0) throw new ShopifyUserError(operation, this.shop, subject, userErrors);
  }
}

function outcomeOf(error: unknown): 'throttled' | 'user-error' | 'unavailable' | 'unauthorized' | 'error' {
  if (error instanceof ShopifyThrottledError) return 'throttled';
  if (error instanceof ShopifyUserError) return 'user-error';
  if (error instanceof ShopifyUnavailableError) return 'unavailable';
  if (error instanceof ShopifyUnauthorizedError) return 'unauthorized';
  return 'error';
}

function readCost(answer: GraphqlAnswer): CostReport | undefined {
  const extensions = answer.extensions as { cost?: unknown } | undefined;
  const parsed = costSchema.safeParse(extensions?.cost);
  return parsed.success ? parsed.data : undefined;
}

function readErrors(answer: GraphqlAnswer): z.infer<typeof graphqlErrorSchema>[] {
  if (answer.errors === undefined || answer.errors === null) return [];
  const parsed = z.array(graphqlErrorSchema).safeParse(answer.errors);
  return parsed.success ? parsed.data : [{ message: JSON.stringify(answer.errors) }];
}

function trackingInput(tracking: TrackingInfo | undefined): { company?: string; number: string; url?: string } | undefined {
  const number = tracking?.number?.trim();
  if (!tracking || !number) return undefined;
  return {
    number,
    ...(tracking.company ? { company: tracking.company } : {}),
    ...(tracking.url ? { url: tracking.url } : {}),
  };
}

/** A line item split across fulfillment orders (e.g. two locations) is listed once. */
function distinctLineItems(lineItems: z.infer<typeof lineItemSchema>[]): z.infer<typeof lineItemSchema>[] {
  return [...new Map(lineItems.map((l) => [l.id, l])).values()];
}

function parseJsonValue(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}
