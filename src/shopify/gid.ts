/**
 * Shopify's global ids: `gid://shopify/<Type>/<digits>`, and for some types a query after the number that is part of
 * the id (a fulfillment service is `gid://shopify/FulfillmentService/53834285194?id=true`, an inventory level
 * `gid://shopify/InventoryLevel/1?inventory_item_id=2`). An id is kept and sent back exactly as Shopify gave it: the
 * query is never dropped, since Shopify does not promise that the bare number names the same record.
 */

/** The query Shopify appends to some ids: `name=value` pairs of URL-safe characters, nothing that could end a URL. */
const QUERY = String.raw`(?:\?[A-Za-z0-9_.~%-]+=[A-Za-z0-9_.~%-]*(?:&[A-Za-z0-9_.~%-]+=[A-Za-z0-9_.~%-]*)*)?`;

/**
 * The types whose ids Shopify writes with a query (its documented answers): only these take one, so an order or a
 * fulfillment order id stays the one plain form the app compares and stores.
 */
const TYPES_WITH_QUERY: ReadonlySet<string> = new Set(['FulfillmentService', 'InventoryLevel', 'MailingAddress', 'AppSubscriptionLineItem']);

/** A regular expression matching a whole gid of `type`, with Shopify's query where that type has one. */
export function gidPattern(type: string): RegExp {
  return new RegExp(String.raw`^gid://shopify/${type}/\d+${TYPES_WITH_QUERY.has(type) ? QUERY : ''}$`);
}

export function isGid(type: string, value: unknown): value is string {
  return typeof value === 'string' && gidPattern(type).test(value);
}

/** A gid of `type` as given, or one made from a bare number (a REST-style body); undefined for anything else. */
export function toGid(type: string, id: string): string | undefined {
  if (isGid(type, id)) return id;
  return /^\d+$/.test(id) ? `gid://shopify/${type}/${id}` : undefined;
}
