import type { GraphQLSchema } from 'graphql';
import { shopifyAdminSchema } from './admin-schema.js';
import type {
  FulfillmentHoldRecord,
  FulfillmentInput,
  FulfillmentOrderLineItemRecord,
  FulfillmentOrderRecord,
  FulfillmentRecord,
  LineItemRecord,
  MetafieldInput,
  MetafieldRecord,
  OrderRecord,
  TrackingInput,
  UserError,
} from './records.js';
import type { StandInStore } from './store.js';
import type { StandInFlow } from './flow.js';
import { displayFulfillmentStatus } from './fulfillments.js';
import { resolveAppNamespace } from './metafields.js';
import type { OrderUpdateInput } from './order-edits.js';
import { displayReason, type StandInHolds } from './holds.js';
import { assignedLocationView } from './service-views.js';
import { connection, type PageArgs } from './paging.js';
import { compareOrders, orderFilter, type OrderSortKey } from './order-search.js';

export { connection, type PageArgs } from './paging.js';
export { orderFilter } from './order-search.js';

/**
 * Root values and views for graphql-js's default resolver: a view is an object whose properties are field values and
 * whose methods are fields with arguments, computed from the live records at the time the field is read.
 */

export interface ResolverContext {
  shop: string;
  store: StandInStore;
  /** The holds placed and released through the Admin API (hold-resolvers.ts). */
  holds: StandInHolds;
  /** Shopify Flow's side (flow.ts): the triggers the app sends. */
  flow?: StandInFlow;
}

/** Shopify's own schema of the pinned version (admin-schema.ts); the resolvers below answer the part the app uses. */
export function buildAdminSchema(): GraphQLSchema {
  return shopifyAdminSchema();
}

function lineItemView(order: OrderRecord, li: LineItemRecord) {
  const remaining = order.fulfillmentOrders
    .flatMap((fo) => fo.lineItems)
    .filter((l) => l.lineItemId === li.id)
    .reduce((sum, l) => sum + l.remainingQuantity, 0);
  const rest = restLineOf(order, li);
  const currency = String(order.restBody?.currency ?? 'USD');
  return {
    __typename: 'LineItem',
    ...li,
    unfulfilledQuantity: remaining,
    isGiftCard: rest?.gift_card === true,
    customAttributes: attributesOf(rest?.properties),
    variant: rest?.variant_id != null ? { id: `gid://shopify/ProductVariant/${String(rest.variant_id)}` } : null,
    product: rest?.product_id != null ? { id: `gid://shopify/Product/${String(rest.product_id)}`, productType: typeof rest.product_type === 'string' ? rest.product_type : '' } : null,
    originalUnitPriceSet: { shopMoney: { amount: String(rest?.price ?? '0.00'), currencyCode: currency } },
  };
}

/**
 * The REST line item a stored line item was seeded from (the stand-in keeps the seeded body): what the extra
 * GraphQL fields (custom attributes, variant and product, price, gift card) are read from.
 */
function restLineOf(order: OrderRecord, li: LineItemRecord): Record<string, unknown> | undefined {
  const lines = (order.restBody?.line_items as Record<string, unknown>[] | undefined) ?? [];
  const tail = li.id.split('/').pop();
  return lines.find((l) => l.admin_graphql_api_id === li.id || String(l.id) === tail);
}

/** REST `properties` / `note_attributes` (`[{name, value}]`) as GraphQL attributes (`[{key, value}]`). */
function attributesOf(list: unknown): { key: string; value: string | null }[] {
  if (!Array.isArray(list)) return [];
  return list
    .filter((p): p is { name: unknown; value: unknown } => typeof p === 'object' && p !== null && 'name' in p)
    .map((p) => ({ key: String(p.name), value: p.value === null || p.value === undefined ? null : String(p.value) }));
}

function mailingAddressOf(address: unknown) {
  if (typeof address !== 'object' || address === null) return null;
  const a = address as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    name: text(a.name), firstName: text(a.first_name), lastName: text(a.last_name), company: text(a.company),
    address1: text(a.address1), address2: text(a.address2), city: text(a.city), zip: text(a.zip),
    province: text(a.province), provinceCode: text(a.province_code), country: text(a.country),
    countryCodeV2: text(a.country_code), phone: text(a.phone),
  };
}

const FINANCIAL_STATUS = new Set(['pending', 'authorized', 'partially_paid', 'partially_refunded', 'voided', 'paid', 'refunded', 'expired']);

function foLineView(order: OrderRecord, line: FulfillmentOrderLineItemRecord) {
  const li = order.lineItems.find((l) => l.id === line.lineItemId)!;
  return {
    __typename: 'FulfillmentOrderLineItem',
    id: line.id,
    sku: li.sku,
    totalQuantity: line.totalQuantity,
    remainingQuantity: line.remainingQuantity,
    lineItem: () => lineItemView(order, li),
  };
}

export function holdView(hold: FulfillmentHoldRecord) {
  return {
    __typename: 'FulfillmentHold',
    ...hold,
    displayReason: displayReason(hold.reason),
    heldByApp: hold.heldByApp === null ? null : { __typename: 'App', title: hold.heldByApp },
  };
}

export function fulfillmentOrderView(order: OrderRecord, fo: FulfillmentOrderRecord) {
  return {
    __typename: 'FulfillmentOrder',
    id: fo.id,
    status: fo.status,
    requestStatus: fo.requestStatus,
    assignedLocation: assignedLocationView(order.shop, fo),
    merchantRequests: (args: PageArgs & { kind?: string | null }) =>
      connection(fo.merchantRequests.filter((r) => !args.kind || r.kind === args.kind), args, (r) => ({ __typename: 'FulfillmentOrderMerchantRequest', ...r, fulfillmentOrder: () => fulfillmentOrderView(order, fo) })),
    createdAt: fo.createdAt,
    updatedAt: fo.updatedAt,
    orderId: order.id,
    orderName: order.name,
    order: () => orderView(order),
    lineItems: (args: PageArgs) => connection(fo.lineItems, args, (l) => foLineView(order, l)),
    fulfillAt: fo.fulfillAt,
    fulfillmentHolds: fo.fulfillmentHolds.map(holdView),
  };
}

function fulfillmentView(order: OrderRecord, f: FulfillmentRecord) {
  return {
    __typename: 'Fulfillment',
    id: f.id,
    name: f.name,
    status: f.status,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
    order: () => orderView(order),
    totalQuantity: f.lineItems.reduce((sum, l) => sum + l.quantity, 0),
    trackingInfo: (args: { first?: number | null }) => f.trackingInfo.slice(0, args.first ?? undefined),
    fulfillmentLineItems: (args: PageArgs) =>
      connection(f.lineItems, args, (l) => ({
        __typename: 'FulfillmentLineItem',
        id: l.id,
        quantity: l.quantity,
        lineItem: () => lineItemView(order, order.lineItems.find((li) => li.id === l.lineItemId)!),
      })),
  };
}

function metafieldView(m: MetafieldRecord) {
  return { __typename: 'Metafield', ...m, ownerType: 'ORDER' };
}

function orderView(order: OrderRecord) {
  return {
    __typename: 'Order',
    id: order.id,
    name: order.name,
    email: order.email,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
    cancelledAt: order.cancelledAt,
    note: order.note,
    tags: [...order.tags],
    number: Number(order.restBody?.order_number ?? order.name.replace(/\D/g, '') ?? 0) || 0,
    phone: typeof order.restBody?.phone === 'string' ? order.restBody.phone : null,
    currencyCode: String(order.restBody?.currency ?? 'USD'),
    displayFinancialStatus: FINANCIAL_STATUS.has(String(order.restBody?.financial_status)) ? String(order.restBody!.financial_status).toUpperCase() : null,
    customAttributes: attributesOf(order.restBody?.note_attributes),
    shippingAddress: mailingAddressOf(order.restBody?.shipping_address),
    shippingLines: (args: PageArgs) =>
      connection(
        ((order.restBody?.shipping_lines as Record<string, unknown>[] | undefined) ?? []).map((l, i) => ({ id: `gid://shopify/ShippingLine/${String(l.id ?? i + 1)}`, title: String(l.title ?? ''), code: typeof l.code === 'string' ? l.code : null })),
        args,
        (l) => ({ __typename: 'ShippingLine', ...l }),
      ),
    displayFulfillmentStatus: () => displayFulfillmentStatus(order),
    // Shopify's summary of the order's risk assessments; the stand-in keeps the recommendation alone.
    risk: { recommendation: order.risk ?? 'NONE', assessments: [] },
    lineItems: (args: PageArgs) => connection(order.lineItems, args, (li) => lineItemView(order, li)),
    fulfillmentOrders: (args: PageArgs) => connection(order.fulfillmentOrders, args, (fo) => fulfillmentOrderView(order, fo)),
    fulfillments: (args: { first?: number | null }) =>
      order.fulfillments.slice(0, args.first ?? undefined).map((f) => fulfillmentView(order, f)),
    metafield: (args: { namespace?: string | null; key: string }) => {
      const namespace = args.namespace == null ? null : resolveAppNamespace(args.namespace);
      const found = order.metafields.find((m) => m.key === args.key && (namespace == null || m.namespace === namespace));
      return found ? metafieldView(found) : null;
    },
    metafields: (args: PageArgs & { namespace?: string | null }) =>
      connection(
        order.metafields.filter((m) => args.namespace == null || m.namespace === resolveAppNamespace(args.namespace)),
        args,
        metafieldView,
      ),
  };
}

export function payload<K extends string, T>(key: K, result: { ok: true; value: T } | { ok: false; userErrors: UserError[] }, view: (v: T) => unknown) {
  return result.ok
    ? ({ [key]: view(result.value), userErrors: [] } as Record<K | 'userErrors', unknown>)
    : ({ [key]: null, userErrors: result.userErrors } as Record<K | 'userErrors', unknown>);
}

function orderOf(store: StandInStore, shop: string, id: string): OrderRecord {
  return store.findOrder(shop, id)!;
}

export const rootValue = {
  order: (args: { id: string }, ctx: ResolverContext) => {
    const order = ctx.store.findOrder(ctx.shop, args.id);
    return order ? orderView(order) : null;
  },
  // Only orders are answered by id here (what the app reads this way); any other id is null, as Shopify answers an id
  // the shop does not have.
  nodes: (args: { ids: string[] }, ctx: ResolverContext) =>
    args.ids.map((id) => {
      const order = ctx.store.findOrder(ctx.shop, id);
      return order ? orderView(order) : null;
    }),
  orders: (args: PageArgs & { query?: string | null; sortKey?: OrderSortKey | null }, ctx: ResolverContext) => {
    const matches = orderFilter(args.query);
    const list = [...ctx.store.ordersOf(ctx.shop).values()].filter(matches).sort(compareOrders(args.sortKey ?? 'ID'));
    return connection(list, args, orderView);
  },
  fulfillmentOrder: (args: { id: string }, ctx: ResolverContext) => {
    const found = ctx.store.findFulfillmentOrder(ctx.shop, args.id);
    return found ? fulfillmentOrderView(found.order, found.fo) : null;
  },
  fulfillment: (args: { id: string }, ctx: ResolverContext) => {
    const found = ctx.store.findFulfillment(ctx.shop, args.id);
    return found ? fulfillmentView(found.order, found.fulfillment) : null;
  },

  fulfillmentCreate: (args: { fulfillment: FulfillmentInput }, ctx: ResolverContext) =>
    payload('fulfillment', ctx.store.createFulfillment(ctx.shop, args.fulfillment, 'api'), (f) =>
      fulfillmentView(orderOf(ctx.store, ctx.shop, f.orderId), f),
    ),
  fulfillmentTrackingInfoUpdate: (
    args: { fulfillmentId: string; trackingInfoInput: TrackingInput; notifyCustomer?: boolean | null },
    ctx: ResolverContext,
  ) =>
    payload(
      'fulfillment',
      ctx.store.updateTracking(ctx.shop, args.fulfillmentId, args.trackingInfoInput, args.notifyCustomer ?? false),
      (f) => fulfillmentView(orderOf(ctx.store, ctx.shop, f.orderId), f),
    ),
  tagsAdd: (args: { id: string; tags: string[] }, ctx: ResolverContext) =>
    payload('node', ctx.store.addTags(ctx.shop, args.id, args.tags), orderView),
  tagsRemove: (args: { id: string; tags: string[] }, ctx: ResolverContext) =>
    payload('node', ctx.store.removeTags(ctx.shop, args.id, args.tags), orderView),
  metafieldsSet: (args: { metafields: MetafieldInput[] }, ctx: ResolverContext) =>
    payload('metafields', ctx.store.setMetafields(ctx.shop, args.metafields), (list) => list.map(metafieldView)),
  orderUpdate: (args: { input: OrderUpdateInput }, ctx: ResolverContext) =>
    payload('order', ctx.store.updateOrder(ctx.shop, args.input), orderView),
  flowTriggerReceive: (args: { handle?: string | null; payload?: unknown; body?: string | null }, ctx: ResolverContext) =>
    ctx.flow ? ctx.flow.receive(ctx.shop, args) : { userErrors: [{ field: ['handle'], message: 'Shopify Flow is not set up on this stand-in' }] },
};
