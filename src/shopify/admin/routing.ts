import '@shopify/shopify-api/adapters/node';
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';

/**
 * `SHOPIFY_ADMIN_API_ORIGIN` (DESIGN section 4): development and tests send Admin API calls to a local origin instead
 * of `https://<shop>`.
 *
 * `@shopify/shopify-api` 13 has no option for this: its Admin clients always build `https://<shop>/admin/api/...`
 * (the protocol is forced to https) and send through the runtime's `abstractFetch`, which the node adapter sets to
 * `globalThis.fetch`. The library exports `setAbstractFetchFunc` for adapters, so the override is a fetch that
 * rewrites `https://<shop>/admin/...` to `<origin>/admin/...` and names the shop in `X-Shopify-Shop-Domain`, because
 * the Host header then names the local origin. Everything else of the library (URL building, headers, access token,
 * error handling) runs unchanged, which is the point of the stand-in.
 */

export const SHOP_DOMAIN_HEADER = 'X-Shopify-Shop-Domain';

const routes = new Map<string, string>();
let defaultOrigin: string | undefined;
let installed = false;
let passThrough: typeof fetch = globalThis.fetch;

/**
 * Sends the Admin API calls of `shop` (of every shop when `shop` is omitted) to `origin`. Process-wide, as the
 * library's fetch is; a shop's own route wins over the default one.
 */
export function routeAdminApi(origin: string, shop?: string): void {
  const normalized = normalizeOrigin(origin);
  if (shop === undefined) defaultOrigin = normalized;
  else routes.set(shop.trim().toLowerCase(), normalized);
  install();
}

/** Removes a shop's route, or with no argument every route: calls go to Shopify again. */
export function clearAdminApiRoutes(shop?: string): void {
  if (shop === undefined) {
    routes.clear();
    defaultOrigin = undefined;
  } else {
    routes.delete(shop.trim().toLowerCase());
  }
}

/** Installs the route of the configuration, if it names one; returns the origin used. */
export function configureAdminApiOrigin(config: { SHOPIFY_ADMIN_API_ORIGIN?: string | undefined }): string | undefined {
  if (!config.SHOPIFY_ADMIN_API_ORIGIN) return undefined;
  routeAdminApi(config.SHOPIFY_ADMIN_API_ORIGIN);
  return defaultOrigin;
}

/** Where a call to `url` goes: the local origin and the shop it is for, or undefined for the real Shopify. */
export function adminApiRouteFor(url: string): { target: string; shop: string } | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  if (!parsed.pathname.startsWith('/admin/')) return undefined;
  const shop = parsed.hostname.toLowerCase();
  const origin = routes.get(shop) ?? defaultOrigin;
  if (!origin) return undefined;
  return { target: `${origin}${parsed.pathname}${parsed.search}`, shop };
}

function install(): void {
  if (installed) return;
  installed = true;
  // The node adapter (imported above) has just set abstractFetch to globalThis.fetch; keep it for everything else.
  passThrough = globalThis.fetch;
  setAbstractFetchFunc(routingFetch);
}

const routingFetch: typeof fetch = (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const route = adminApiRouteFor(url);
  if (!route) return passThrough(input, init);
  if (input instanceof Request) {
    const request = new Request(route.target, new Request(input, init));
    request.headers.set(SHOP_DOMAIN_HEADER, route.shop);
    return passThrough(request);
  }
  const headers = new Headers(init?.headers);
  headers.set(SHOP_DOMAIN_HEADER, route.shop);
  return passThrough(route.target, { ...init, headers });
};

function normalizeOrigin(origin: string): string {
  if (!/^https?:\/\//i.test(origin) || !URL.canParse(origin)) {
    throw new TypeError(`SHOPIFY_ADMIN_API_ORIGIN must be an http(s) URL such as http://127.0.0.1:4020, got ${JSON.stringify(origin)}`);
  }
  return origin.replace(/\/+$/, '');
}
