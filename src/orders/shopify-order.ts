import { z } from 'zod';
import { parseJsonLossless } from '../shopify/json.js';

/**
 * The one reader of a Shopify order body (REST JSON: a webhook's body, or `{"order": ...}`), shared by the pipeline
 * (src/shopify/order-webhook.ts: what it needs to link, schedule and fingerprint an order) and the mapping engine
 * (src/mapping/shopify-order.ts: what templates may read). The JSON is read once, losslessly (ids above 2^53 stay
 * exact, as strings), unwrapped the same way, and each field has one definition here; each side picks the fields it
 * relies on and how strict it is about them.
 */

/** Parses the body text; big integers are kept exact (as strings). */
export function readOrderJson(text: string): unknown {
  return unwrapOrder(parseJsonLossless(text));
}

/** A webhook body is the order itself; the REST API wraps it as `{"order": {...}}`. */
export function unwrapOrder(body: unknown): unknown {
  if (body && typeof body === 'object' && !Array.isArray(body) && 'order' in body && !('line_items' in body) && !('admin_graphql_api_id' in body)) {
    return (body as { order: unknown }).order;
  }
  return body;
}

/** A Shopify id as read losslessly: a number, or the exact digits as text. */
export const shopifyId = z.union([z.number(), z.string()]);
const optText = z.string().nullish();

/** The shipping address fields (both sides read the same ones). */
export const addressFields = {
  name: optText,
  first_name: optText,
  last_name: optText,
  company: optText,
  address1: optText,
  address2: optText,
  city: optText,
  zip: optText,
  province: optText,
  province_code: optText,
  country: optText,
  country_code: optText,
  phone: optText,
};

/** Line item fields every reader agrees on. */
export const lineItemFields = {
  id: shopifyId,
  admin_graphql_api_id: z.string().nullish(),
  sku: z.string().nullish(),
  current_quantity: z.number().int().min(0).nullish(),
};

/** Order fields every reader agrees on. */
export const orderFields = {
  admin_graphql_api_id: z.string().nullish(),
  order_number: z.union([z.number(), z.string()]).nullish(),
};
