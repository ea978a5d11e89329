import { abstractFetch } from '@shopify/shopify-api/runtime';
import { parseJsonLossless } from './json.js';
import { ShopifyProtocolError, ShopifyUnauthorizedError, ShopifyUnavailableError } from './admin/errors.js';

/**
 * The one REST read of the app: an order in the webhook's own shape (`GET /admin/api/<version>/orders/<id>.json`).
 * Recovering an order whose webhooks never arrived must feed the mapping exactly what a webhook would have carried,
 * and the REST order resource is that shape field for field; GraphQL would need a translation that merchants'
 * templates could trip over. It goes through the library's fetch, so SHOPIFY_ADMIN_API_ORIGIN routes it like every
 * other Admin API call. Shopify calls REST "legacy": when it goes, this function is the one place to replace.
 *
 * Returns the order's JSON text (ids above 2^53 kept exact, as strings), or undefined when Shopify has no such order.
 */
export async function fetchOrderWebhookBody(options: {
  shop: string;
  accessToken: string;
  apiVersion: string;
  orderGid: string;
  timeoutMs?: number;
}): Promise<string | undefined> {
  const operation = 'getOrderRest';
  const numericId = /^gid:\/\/shopify\/Order\/(\d+)$/.exec(options.orderGid)?.[1];
  if (!numericId) throw new ShopifyProtocolError(operation, options.shop, `expected an Order gid, got ${JSON.stringify(options.orderGid)}`);
  const url = `https://${options.shop}/admin/api/${options.apiVersion}/orders/${numericId}.json`;
  let response: Response;
  try {
    response = await abstractFetch(url, {
      headers: { 'X-Shopify-Access-Token': options.accessToken, Accept: 'application/json' },
      signal: AbortSignal.timeout(options.timeoutMs ?? 20_000),
    });
  } catch (error) {
    throw new ShopifyUnavailableError(operation, options.shop, undefined, (error as Error).message, undefined, { cause: error });
  }
  const text = await response.text();
  if (response.status === 404) return undefined;
  if (response.status === 401 || response.status === 403) throw new ShopifyUnauthorizedError(operation, options.shop, response.status);
  if (response.status === 429 || response.status >= 500) {
    const retryAfter = Number.parseFloat(response.headers.get('retry-after') ?? '');
    throw new ShopifyUnavailableError(operation, options.shop, response.status, response.statusText || 'error answer', Number.isFinite(retryAfter) ? retryAfter * 1000 : undefined);
  }
  if (!response.ok) throw new ShopifyProtocolError(operation, options.shop, `HTTP ${response.status} for order ${options.orderGid}`);
  let parsed: unknown;
  try {
    parsed = parseJsonLossless(text);
  } catch {
    throw new ShopifyProtocolError(operation, options.shop, `order ${options.orderGid}: the answer is not JSON`);
  }
  const order = (parsed as { order?: unknown }).order;
  if (order === null || typeof order !== 'object') {
    throw new ShopifyProtocolError(operation, options.shop, `order ${options.orderGid}: the answer has no "order" object`);
  }
  return JSON.stringify(order);
}
