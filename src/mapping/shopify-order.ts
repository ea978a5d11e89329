import { z } from 'zod';
import { addressFields, lineItemFields, orderFields, shopifyId, unwrapOrder } from '../orders/shopify-order.js';
import { parseJsonLossless } from '../shopify/json.js';
import { exactId, gidTail } from './match.js';

/**
 * The parts of a Shopify order body (REST/webhook JSON) that the mapping reads and relies on. Unknown keys are
 * stripped from the parsed copy (cheaper than copying them); templates see the body itself as `order`, every key of
 * it.
 *
 * Big ids: Shopify ids can exceed 2^53 and `JSON.parse` rounds them. `parseShopifyOrderJson` reads the raw body with
 * every integer beyond 2^53 kept as its exact decimal string; line items and orders are identified by their
 * `admin_graphql_api_id` gid first (exact even in bodies that were once parsed and re-serialised), then by the
 * exact id.
 */

/**
 * JSON.parse, except that integers beyond 2^53 become strings holding their exact digits (digits inside strings are
 * never touched). One implementation for the whole app: src/shopify/json.ts.
 */
/** The one reader's lossless parse (src/orders/shopify-order.ts). */
export const parseShopifyOrderJson = parseJsonLossless;

export { unwrapOrder };

const id = shopifyId;
/** Text when the body has text there; anything else reads as absent. */
const lenientText = z.string().nullish().catch(undefined);

export const shopifyAddressSchema = z.object(addressFields);
export type ShopifyAddress = z.infer<typeof shopifyAddressSchema>;

const propertySchema = z.object({ name: z.union([z.string(), z.number()]), value: z.unknown() });
const keyValueSchema = z.object({ key: z.string(), value: z.unknown() });

export const shopifyLineItemSchema = z
  .object({
    ...lineItemFields,
    // Every order line item has a title; a record without one (a fulfillment order's line) is not an order's.
    title: z.string({ error: 'required: is this a Shopify order? (a fulfillment order or another record is not)' }),
    name: z.string().nullish(),
    variant_id: id.nullish(),
    product_id: id.nullish(),
    vendor: z.string().nullish(),
    product_type: z.string().nullish(),
    quantity: z.number().int().min(0),
    requires_shipping: z.boolean().nullish(),
    gift_card: z.boolean().nullish(),
    price: z.union([z.string(), z.number()]).nullish(),
    properties: z
      .union([z.array(z.union([propertySchema, keyValueSchema])), z.record(z.string(), z.unknown())])
      .nullish(),
  });
export type ShopifyLineItem = z.infer<typeof shopifyLineItemSchema>;

export const shopifyOrderSchema = z
  .object({
    ...orderFields,
    id: id.nullish(),
    name: z.string({ error: 'required: is this a Shopify order? (orders always have a name such as "#1001")' }),
    // Read only when they are text: the default ship-to's email and phone fall back to them. Another type reads as
    // absent rather than making the whole order unreadable, which no mapping could ever fix. order_status_url is not
    // read at all (shopDomainOf looks at the raw body): an old docs page printed it as an object. Templates see the
    // body itself, so nothing is lost.
    email: lenientText,
    contact_email: lenientText,
    phone: lenientText,
    line_items: z.array(shopifyLineItemSchema),
    shipping_address: shopifyAddressSchema.nullish(),
    shipping_lines: z
      .array(z.object({ code: z.string().nullish(), title: z.string().nullish() }))
      .nullish(),
    refunds: z
      .array(
        z
          .object({
            refund_line_items: z
              .array(z.object({ line_item_id: id, quantity: z.number().int().min(0) }))
              .nullish(),
          })
          ,
      )
      .nullish(),
  });
export type ShopifyOrder = z.infer<typeof shopifyOrderSchema>;

/** Shopify's array form `[{name, value}]` (and the GraphQL `{key, value}` form) as a name → value map. */
export function propertiesMap(properties: ShopifyLineItem['properties']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!properties) return out;
  const text = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));
  // Property names come from the storefront, i.e. from customers: `__proto__` must stay an ordinary key.
  const set = (name: string, value: string) => {
    if (name === '__proto__') Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
    else out[name] = value;
  };
  if (Array.isArray(properties)) {
    for (const p of properties) set('name' in p ? String(p.name) : String(p.key), text(p.value));
  } else {
    for (const [name, value] of Object.entries(properties)) set(name, text(value));
  }
  return out;
}

/** The exact decimal id of a line item: its gid first, then an exact id; undefined when only a rounded one exists. */
export function lineItemId(line: ShopifyLineItem): string | undefined {
  return gidTail(line.admin_graphql_api_id, 'LineItem') ?? exactId(line.id);
}

export function orderId(order: ShopifyOrder): string | undefined {
  return gidTail(order.admin_graphql_api_id, 'Order') ?? exactId(order.id);
}

/** The store's domain when the body says it (`order_status_url` lives on `<shop>.myshopify.com`). */
export function shopDomainOf(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  for (const key of ['myshopify_domain', 'shop_domain']) {
    const v = b[key];
    if (typeof v === 'string' && /\.myshopify\.com$/i.test(v)) return v.toLowerCase();
  }
  const url = b.order_status_url;
  if (typeof url === 'string' && URL.canParse(url)) {
    const host = new URL(url).hostname.toLowerCase();
    if (host.endsWith('.myshopify.com')) return host;
  }
  return undefined;
}
