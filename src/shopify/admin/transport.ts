import {
  GraphqlQueryError,
  HttpMaxRetriesError,
  HttpRequestError,
  HttpResponseError,
  type ApiVersion,
  type GraphqlClient,
  type Session,
} from '@shopify/shopify-api';
import { ShopifyProtocolError, ShopifyUnauthorizedError, ShopifyUnavailableError } from './errors.js';
import { routeAdminApi } from './routing.js';

/**
 * The one thing the Admin API operations need from the outside: send a GraphQL document for a shop, get the answer's
 * JSON. Use cases get a fake of this in unit tests; the app uses the `@shopify/shopify-api` client below.
 */
export interface GraphqlAnswer {
  data?: unknown;
  errors?: unknown;
  extensions?: unknown;
}

export interface AdminGraphqlTransport {
  readonly shop: string;
  /**
   * Resolves with the body of every HTTP 200 answer, GraphQL errors (such as THROTTLED) included. Rejects with
   * `ShopifyUnauthorizedError` (401/403), `ShopifyUnavailableError` (429, 5xx, no answer) or `ShopifyProtocolError`.
   */
  request(operation: string, query: string, variables: Record<string, unknown>): Promise<GraphqlAnswer>;
}

/** What the transport needs of `shopifyApi(...)`: its Admin GraphQL client class. */
export interface ShopifyGraphqlClients {
  clients: { Graphql: new (params: { session: Session; apiVersion?: ApiVersion }) => GraphqlClient };
}

export interface ShopifyApiTransportOptions {
  shopify: ShopifyGraphqlClients;
  /** An offline session of the shop (shop domain and access token). */
  session: Session;
  apiVersion?: ApiVersion;
  /** `SHOPIFY_ADMIN_API_ORIGIN`: send this shop's calls to a local stand-in (see routing.ts). */
  adminApiOrigin?: string;
}

/** The app's transport: `@shopify/shopify-api`'s own GraphqlClient, so URL, headers and token handling are Shopify's. */
export function createShopifyApiTransport(options: ShopifyApiTransportOptions): AdminGraphqlTransport {
  if (options.adminApiOrigin) routeAdminApi(options.adminApiOrigin, options.session.shop);
  const client = new options.shopify.clients.Graphql({
    session: options.session,
    ...(options.apiVersion ? { apiVersion: options.apiVersion } : {}),
  });
  const shop = options.session.shop;
  return {
    shop,
    async request(operation, query, variables) {
      try {
        // Retries are the pacer's job, which knows which operations are safe to repeat.
        const response = await client.request(query, { variables, retries: 0 });
        return { data: response.data, extensions: response.extensions };
      } catch (error) {
        if (error instanceof GraphqlQueryError) return answerOf(error);
        throw translateError(error, operation, shop);
      }
    },
  };
}

interface FailedBody {
  data?: unknown;
  extensions?: unknown;
  errors?: { graphQLErrors?: unknown; message?: string };
}

/**
 * The library throws for any answer with GraphQL errors; it comes back here as the answer it was, so THROTTLED and the
 * like are read in one place (admin-api.ts) whatever the transport.
 */
function answerOf(error: GraphqlQueryError): GraphqlAnswer {
  const body = (error.body ?? {}) as FailedBody;
  return {
    data: body.data,
    errors: body.errors?.graphQLErrors ?? [{ message: error.message }],
    extensions: body.extensions,
  };
}

function translateError(error: unknown, operation: string, shop: string): Error {
  if (error instanceof HttpResponseError) {
    const { code, statusText } = error.response;
    if (code === 401 || code === 403) return new ShopifyUnauthorizedError(operation, shop, code);
    if (code === 429 || code >= 500) {
      const retryAfter = retryAfterMs(error.response.retryAfter, error.response.headers);
      return new ShopifyUnavailableError(operation, shop, code, statusText || 'error answer', retryAfter, { cause: error });
    }
    return new ShopifyProtocolError(operation, shop, `HTTP ${code} ${statusText}`, { cause: error, httpStatus: code });
  }
  if (error instanceof HttpRequestError || error instanceof HttpMaxRetriesError) {
    return new ShopifyUnavailableError(operation, shop, undefined, error.message, undefined, { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}

function retryAfterMs(retryAfterSeconds: number | undefined, headers: Record<string, string | string[]> | undefined): number | undefined {
  if (retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds)) return Math.round(retryAfterSeconds * 1000);
  const raw = headers?.['Retry-After'] ?? headers?.['retry-after'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  const seconds = value === undefined ? NaN : Number.parseFloat(value);
  return Number.isFinite(seconds) ? Math.round(seconds * 1000) : undefined;
}
