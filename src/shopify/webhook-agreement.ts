import { isGid } from './gid.js';

/**
 * Shopify's HMAC covers a webhook's body only: `X-Shopify-Topic` and `X-Shopify-Shop-Domain` are not signed. A
 * correctly signed body of one store, re-sent with another topic and another store's domain, must not act on that
 * other store (a store's `orders/paid` body replayed as `shop/redact` for a second store deleted that store's orders).
 * So before anything is queued, the body must agree with the headers:
 *
 * - the shop is a valid `*.myshopify.com` domain, written as Shopify writes it (lower case, no port, no dot at the end);
 * - an order topic carries an order (an `id`, its `line_items`, and no shop or customer-request fields);
 * - `app/uninstalled` carries the shop itself (`myshopify_domain`, else `domain`), and it is the header's shop;
 * - `shop/redact` and `customers/*` carry `shop_domain`, and it is the header's shop, and each carries its own topic's
 *   body and no other's: a `customers/data_request` body re-sent as `shop/redact` deleted a live store's orders and
 *   print set-up. `shop/redact` names the shop and nothing of the customer topics (no `customer`, no order list),
 *   and neither customer topic carries the other's keys;
 * - the fulfillment-order topics carry a `fulfillment_order` with a FulfillmentOrder gid (`fulfillment_orders/moved`:
 *   an `original_fulfillment_order`, as Shopify sends it). They name no shop; the worker only ever looks the
 *   fulfillment order up in the header's store, where another store's id finds nothing.
 */

export type WebhookAgreement = { ok: true } | { ok: false; reason: string };

const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]{0,99}\.myshopify\.com$/;

export function isShopDomain(value: string): boolean {
  return SHOP_DOMAIN.test(value);
}

const ORDER_TOPICS = new Set(['orders/create', 'orders/paid', 'orders/updated', 'orders/cancelled']);
const SHOP_NAMING_TOPICS = new Set(['shop/redact', 'customers/redact', 'customers/data_request']);

/**
 * The keys of Shopify's privacy-webhook payloads that belong to another topic's body, and so must be absent: a
 * `shop/redact` names the shop and nothing of the customer topics; `customers/redact` has no data request's keys and
 * `customers/data_request` no redaction list. The shop object of `app/uninstalled` (`myshopify_domain`) and an order
 * (`line_items`) are refused under all three.
 */
const FOREIGN_KEYS: Record<string, string[]> = {
  'shop/redact': ['customer', 'orders_to_redact', 'orders_requested', 'data_request', 'myshopify_domain', 'line_items'],
  'customers/redact': ['orders_requested', 'data_request', 'myshopify_domain', 'line_items'],
  'customers/data_request': ['orders_to_redact', 'myshopify_domain', 'line_items'],
};

/** Whether the (verified) body agrees with the unsigned topic and shop headers. `body` is the parsed JSON. */
export function checkWebhookAgreement(topic: string, shop: string, body: unknown): WebhookAgreement {
  if (!isShopDomain(shop)) return refuse(`the shop header ${JSON.stringify(shop.slice(0, 120))} is not a *.myshopify.com domain`);
  if (!body || typeof body !== 'object' || Array.isArray(body)) return refuse('the body is not a JSON object');
  const record = body as Record<string, unknown>;

  if (topic === 'refunds/create') {
    const orderId = record.order_id;
    const ok = (typeof orderId === 'number' && Number.isInteger(orderId) && orderId > 0) || (typeof orderId === 'string' && /^\d+$/.test(orderId));
    return ok ? { ok: true } : refuse('a refunds/create webhook needs a refund body (an order_id)');
  }
  if (ORDER_TOPICS.has(topic)) {
    const order = 'order' in record && !('line_items' in record) && record.order && typeof record.order === 'object' ? (record.order as Record<string, unknown>) : record;
    const id = order.id;
    const hasId = (typeof id === 'number' && Number.isInteger(id) && id > 0) || (typeof id === 'string' && /^\d+$/.test(id));
    const gid = order.admin_graphql_api_id;
    if (!hasId || !Array.isArray(order.line_items)) return refuse(`a ${topic} webhook needs an order body (an id and line_items)`);
    if (gid !== undefined && gid !== null && !isGid('Order', gid)) {
      return refuse(`a ${topic} webhook needs an order body (admin_graphql_api_id is not an Order gid)`);
    }
    if ('shop_domain' in order || 'myshopify_domain' in order || 'orders_to_redact' in order) {
      return refuse(`a ${topic} webhook needs an order body, not a shop or customer-request body`);
    }
    return { ok: true };
  }
  if (topic === 'app/scopes_update') {
    const current = record.current;
    return Array.isArray(current) && current.every((scope) => typeof scope === 'string')
      ? { ok: true }
      : refuse('an app/scopes_update webhook needs the current scopes (current: [...])');
  }
  if (topic === 'app/uninstalled') {
    if ('shop_domain' in record || 'line_items' in record) return refuse('an app/uninstalled webhook needs the shop (a shop body), not a customer-request or order body');
    const named = typeof record.myshopify_domain === 'string' ? record.myshopify_domain : record.domain;
    return named === shop ? { ok: true } : refuse(`the app/uninstalled body names ${describe(named)}, not the header's shop`);
  }
  if (SHOP_NAMING_TOPICS.has(topic)) {
    if (record.shop_domain !== shop) return refuse(`the ${topic} body names ${describe(record.shop_domain)}, not the header's shop`);
    const other = FOREIGN_KEYS[topic]!.find((key) => key in record);
    if (other !== undefined) return refuse(`a ${topic} webhook needs its own body, and this one carries ${other} (another topic's)`);
    return { ok: true };
  }
  if (topic.startsWith('fulfillment_orders/')) {
    // Shopify's moved body names the fulfillment order that was moved `original_fulfillment_order` (beside
    // `moved_fulfillment_order`, where its lines are now) and has no `fulfillment_order`; every other topic has one.
    const key = topic === 'fulfillment_orders/moved' && !('fulfillment_order' in record) ? 'original_fulfillment_order' : 'fulfillment_order';
    const fo = record[key] as { id?: unknown } | null | undefined;
    return fo && typeof fo === 'object' && isGid('FulfillmentOrder', fo.id) ? { ok: true } : refuse(`a ${topic} webhook needs a ${key} with a FulfillmentOrder gid`);
  }
  // A topic without a rule of its own is never taken on trust: intake lets through only topics it handles, and one
  // added there without its rule here is refused until it has one.
  return refuse(`no rule says how a ${topic} body agrees with its headers`);
}

function refuse(reason: string): WebhookAgreement {
  return { ok: false, reason };
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 120)) : 'no shop';
}
