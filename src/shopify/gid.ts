/**
 * Shopify's global ids: `gid://shopify/<Type>/<digits>`, and for some types a query after the number that is part of
 * the id (a fulfillment service is `gid://shopify/FulfillmentService/53834285194?id=true`, an inventory level
 * `gid://shopify/InventoryLevel/1?inventory_item_id=2`). An id is kept and sent back exactly as Shopify gave it: the
 * query is never dropped, since Shopify does not promise that the bare number names the same record.
 */

/** The query Shopify appends to some ids: `name=value` pairs of URL-safe characters, nothing that could end a URL. */
const QUERY = String.raw`(?:\?[A-Za-z0-9_.~%-]+=[A-Za-z0-9_.~%-]*(?:&[A-Za-z0-9_.~%-]+=[A-Za-z0-9_.~%-]*)*)?`;

/** A regular expression matching a whole gid of `type`, with or without Shopify's query. */
export function gidPattern(type: string): RegExp {
  return new RegExp(String.raw`^gid://shopify/${type}/\d+${QUERY}$`);
}

export function isGid(type: string, value: unknown): value is string {
  return typeof value === 'string' && gidPattern(type).test(value);
}

/** A gid of `type` as given, or one made from a bare number (a REST-style body); undefined for anything else. */
export function toGid(type: string, id: string): string | undefined {
  if (isGid(type, id)) return id;
  return /^\d+$/.test(id) ? `gid://shopify/${type}/${id}` : undefined;
}
