import { z } from 'zod';
import { isGid } from '../../shopify/gid.js';
import type { FulfillmentOrderRecord, LineItemRecord, OrderRecord } from './records.js';
import { shopifyTimestamp } from './records.js';
import { normalizeShop, type StandInStore } from './store.js';

/**
 * Turns a Shopify order webhook body (REST JSON, the same body the app receives as `orders/paid`) into the records
 * the Admin GraphQL API would show for it, with one fulfillment order holding every line item, as a store with one
 * location has (or, for the SKUs a fulfillment service's location stocks, one more at that location). Only the fields the stand-in needs are read; the rest is ignored.
 */

const idSchema = z.union([z.number(), z.string()]);
const restLineItemSchema = z.object({
  id: idSchema.optional(),
  admin_graphql_api_id: z.string().optional(),
  name: z.string().nullish(),
  title: z.string().nullish(),
  sku: z.string().nullish(),
  variant_title: z.string().nullish(),
  vendor: z.string().nullish(),
  quantity: z.number().int().min(0),
  current_quantity: z.number().int().min(0).nullish(),
  fulfillable_quantity: z.number().int().min(0).nullish(),
  requires_shipping: z.boolean().nullish(),
});

export const restOrderSchema = z.object({
  id: idSchema.optional(),
  admin_graphql_api_id: z.string().optional(),
  name: z.string().nullish(),
  order_number: z.union([z.number(), z.string()]).nullish(),
  email: z.string().nullish(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
  cancelled_at: z.string().nullish(),
  note: z.string().nullish(),
  tags: z.string().nullish(),
  line_items: z.array(restLineItemSchema).min(1, 'an order needs at least one line item'),
});

export type RestOrder = z.infer<typeof restOrderSchema>;

export class SeedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SeedError';
  }
}

function restBodyOf(body: unknown): Record<string, unknown> {
  const candidate =
    body !== null && typeof body === 'object' && 'order' in body && typeof (body as { order: unknown }).order === 'object'
      ? (body as { order: unknown }).order
      : body;
  return structuredClone(candidate as Record<string, unknown>);
}

/** Accepts the bare webhook body or the REST API's `{ "order": {...} }` envelope. */
export function parseRestOrder(body: unknown): RestOrder {
  const candidate =
    body !== null && typeof body === 'object' && 'order' in body && typeof (body as { order: unknown }).order === 'object'
      ? (body as { order: unknown }).order
      : body;
  // A REST fulfillment order also has `id` and `line_items`; its `order_id` gives it away.
  if (candidate !== null && typeof candidate === 'object' && 'order_id' in candidate) {
    throw new SeedError('Not a Shopify order body: it has an order_id, so it looks like a fulfillment order or a fulfillment');
  }
  const parsed = restOrderSchema.safeParse(candidate);
  if (!parsed.success) {
    throw new SeedError(
      'Not a Shopify order body: ' + parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; '),
    );
  }
  return parsed.data;
}

export interface SeedResult {
  order: OrderRecord;
  created: boolean;
}

/**
 * Seeds one order. Seeding the same order again keeps what happened to it since (fulfillments, tags, notes), as
 * Shopify would when the same webhook is delivered twice; `replace` starts it afresh.
 */
export function seedOrder(store: StandInStore, shop: string, body: unknown, options: { replace?: boolean } = {}): SeedResult {
  const rest = parseRestOrder(body);
  const id = gidOf('Order', rest.admin_graphql_api_id, rest.id, 'order');
  const existing = store.findOrder(shop, id);
  if (existing && !options.replace) return { order: existing, created: false };

  const now = store.now();
  const lineItems: LineItemRecord[] = rest.line_items.map((li, index) => {
    const title = li.title ?? li.name ?? `Line item ${index + 1}`;
    return {
      id: gidOf('LineItem', li.admin_graphql_api_id, li.id, `line_items.${index}`),
      name: li.name ?? title,
      title,
      sku: li.sku && li.sku.length > 0 ? li.sku : null,
      variantTitle: li.variant_title ?? null,
      vendor: li.vendor ?? null,
      quantity: li.quantity,
      currentQuantity: li.current_quantity ?? li.quantity,
      requiresShipping: li.requires_shipping ?? true,
    };
  });
  const duplicate = lineItems.find((li, i) => lineItems.findIndex((other) => other.id === li.id) !== i);
  if (duplicate) throw new SeedError(`line item ${duplicate.id} appears twice`);

  const createdAt = timestampOf(rest.created_at) ?? now;
  const cancelledAt = timestampOf(rest.cancelled_at);
  const foLines = rest.line_items
    .map((li, index) => {
      const record = lineItems[index]!;
      const total = record.currentQuantity;
      const remaining = Math.min(li.fulfillable_quantity ?? total, total);
      return { id: store.nextGid('FulfillmentOrderLineItem'), lineItemId: record.id, totalQuantity: total, remainingQuantity: remaining };
    })
    .filter((l) => l.totalQuantity > 0);
  const primary = store.services.primaryLocation(shop);
  const fulfillmentOrder: FulfillmentOrderRecord = {
    id: store.nextGid('FulfillmentOrder'),
    orderId: id,
    status: foLines.every((l) => l.remainingQuantity === 0)
      ? 'CLOSED'
      : cancelledAt
        ? 'CANCELLED'
        : foLines.some((l) => l.remainingQuantity < l.totalQuantity)
          ? 'IN_PROGRESS'
          : 'OPEN',
    assignedLocation: { id: primary.id, name: primary.name },
    requestStatus: 'UNSUBMITTED',
    merchantRequests: [],
    serviceResponses: [],
    createdAt,
    updatedAt: now,
    lineItems: foLines,
    fulfillmentHolds: [],
    fulfillAt: null,
  };

  const order: OrderRecord = {
    id,
    shop: normalizeShop(shop),
    name: rest.name ?? (rest.order_number !== undefined && rest.order_number !== null ? `#${rest.order_number}` : `#${id.split('/').pop()}`),
    email: rest.email ?? null,
    createdAt,
    updatedAt: timestampOf(rest.updated_at) ?? createdAt,
    cancelledAt,
    note: rest.note ?? null,
    tags: [
      ...new Set(
        (rest.tags ?? '')
          .split(',')
          .map((t) => t.trim())
          .filter((t) => t.length > 0),
      ),
    ],
    lineItems,
    fulfillmentOrders: foLines.length > 0 ? [fulfillmentOrder] : [],
    fulfillments: [],
    metafields: [],
    restBody: restBodyOf(body),
  };
  // Lines whose SKU a fulfillment service's location stocks go to that location (fulfillment-services.ts).
  store.services.assign(order);
  store.addOrder(order);
  return { order, created: true };
}

/**
 * The gid comes from `admin_graphql_api_id`, which is exact. A bare numeric id is used only when it survived JSON
 * parsing intact; an id above 2^53 has already lost digits and would silently name another record.
 */
function gidOf(kind: string, gid: string | undefined, id: string | number | undefined, where: string): string {
  if (gid !== undefined) {
    if (!isGid(kind, gid)) {
      throw new SeedError(`${where}.admin_graphql_api_id must look like gid://shopify/${kind}/<digits>, got ${JSON.stringify(gid)}`);
    }
    return gid;
  }
  if (typeof id === 'string' && /^\d+$/.test(id)) return `gid://shopify/${kind}/${id}`;
  if (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) return `gid://shopify/${kind}/${id}`;
  throw new SeedError(
    `${where} has no admin_graphql_api_id and its id ${JSON.stringify(id)} cannot be used exactly (missing or above 2^53)`,
  );
}

function timestampOf(value: string | null | undefined): string | null {
  if (!value) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : shopifyTimestamp(new Date(ms));
}
