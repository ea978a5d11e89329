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

/**
 * A Shopify id as read losslessly: a number, or the exact digits as text. A union's own error is zod's bare "Invalid
 * input", which says neither that the id is missing nor what an id is.
 */
function idSchema(what: string) {
  return z.union([z.number(), z.string()], {
    error: (issue) =>
      issue.input === undefined || issue.input === null
        ? `required: ${what} (a number, or its digits as text)`
        : `expected a Shopify id (a number, or its digits as text), received ${Array.isArray(issue.input) ? 'array' : typeof issue.input}`,
  });
}
export const shopifyId = idSchema('a Shopify id');
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
  id: idSchema('every line item has an id'),
  admin_graphql_api_id: z.string().nullish(),
  sku: z.string().nullish(),
  current_quantity: z.number().int().min(0).nullish(),
};

/** Order fields every reader agrees on. */
export const orderFields = {
  admin_graphql_api_id: z.string().nullish(),
  order_number: z.union([z.number(), z.string()]).nullish(),
};

/** A line item as problems name it: its exact id ("?" when it has none), SKU and title. */
export interface NamedLineItem {
  /** Exact decimal id (from `admin_graphql_api_id` when the body has it). */
  id: string;
  sku: string | null;
  title: string | null;
}

/** `line item 123 (SKU "A5", "Poems")`: how every problem of a line item names it (mapping problems, unread bodies). */
export function describeLineItem(line: NamedLineItem): string {
  return `line item ${line.id} (SKU ${line.sku ? JSON.stringify(line.sku) : 'none'}, ${JSON.stringify(line.title ?? '')})`;
}

/**
 * The line item a reading issue is about (its path starts `line_items, N`), named from the raw body, since the body
 * did not read: a line item without an id is still the one with its title and SKU. Undefined for order-level issues.
 */
export function lineItemOfIssue(body: unknown, path: readonly PropertyKey[]): NamedLineItem | undefined {
  const index = path[1];
  if (path[0] !== 'line_items' || typeof index !== 'number') return undefined;
  const lines = body && typeof body === 'object' ? (body as { line_items?: unknown }).line_items : undefined;
  const line: unknown = Array.isArray(lines) ? lines[index] : undefined;
  const l = (line && typeof line === 'object' ? line : {}) as Record<string, unknown>;
  const gid = typeof l.admin_graphql_api_id === 'string' ? /\/LineItem\/(\d+)$/.exec(l.admin_graphql_api_id)?.[1] : undefined;
  const id = gid ?? ((typeof l.id === 'number' && Number.isFinite(l.id)) || (typeof l.id === 'string' && l.id !== '') ? String(l.id) : '?');
  return { id, sku: typeof l.sku === 'string' && l.sku !== '' ? l.sku : null, title: typeof l.title === 'string' ? l.title : null };
}
