import type { Shopify } from '@shopify/shopify-api';
import { Session } from '@shopify/shopify-api';
import type { ShopifyEffects } from '../bridge/ports.js';
import type { AppHoldsPort } from '../bridge/app-holds.js';
import type { Metrics } from '../metrics.js';
import { JOB_INLINE_WAIT_MS, orderReadBatches, ShopifyAdminApi, ShopifyPacer, StatusMetafieldBatches, StatusWriteBatches } from '../shopify/admin-api.js';
import { ShopifyProtocolError, ShopifyUnauthorizedError } from '../shopify/admin/errors.js';
import { type AdminGraphqlTransport, createShopifyApiTransport } from '../shopify/admin/transport.js';
import { routeAdminApi } from '../shopify/admin/routing.js';
import { ShopNotInstalledError, type ShopSessions, ShopTokenRefreshError } from '../shopify/sessions.js';

/** Stores whose Admin API client this process keeps ready (a Map kept in order of use: the least recently used goes first). */
const TRANSPORTS_KEPT = 1_000;

/**
 * Builds a store's Admin API client from its offline session; one pacer for the process sees each store's budget whole,
 * and one set of status-metafield batches gathers each store's status writes.
 */
export class ShopifyAdminClients {
  private readonly pacer: ShopifyPacer;
  private readonly transports = new Map<string, AdminGraphqlTransport>();
  /** The status metafields of each store's orders written together, up to 25 a request (issue 27). */
  private readonly statusMetafields = new StatusMetafieldBatches();
  /** The reads of each store's orders made in one turn asked together (issue 27). */
  private readonly orderReads = orderReadBatches();
  /** The status writes of each store's orders made in one turn sent together (issue 27). */
  private readonly statusWrites = new StatusWriteBatches();

  constructor(
    private readonly shopify: Shopify,
    /** Undefined where only `forToken` is used (checking a token before it is stored). */
    private readonly sessions: Pick<ShopSessions, 'accessToken'> | undefined,
    private readonly adminApiOrigin?: string,
    private readonly metrics?: Metrics,
  ) {
    // Every Admin API call of the app runs in a queue job: a long wait for the bucket is spent outside the worker slot.
    this.pacer = new ShopifyPacer({
      maxInlineWaitMs: JOB_INLINE_WAIT_MS,
      onWait: metrics ? (wait) => metrics.shopifyThrottleWait.inc(wait.ms / 1000) : undefined,
    });
  }

  /**
   * The store's client with its stored token. A call Shopify refuses with 401/403 is sent once more when the stored
   * token has changed meanwhile: another process replaced it (token exchange on an embedded open, `shops
   * migrate-tokens`) and the old one stopped working while this process still had it (the session cache). Shopify
   * runs nothing it refuses with 401, so the second send is safe for mutations too.
   */
  async forShop(shop: string): Promise<ShopifyAdminApi> {
    const sessions = this.sessions;
    const token = await sessions?.accessToken(shop);
    if (!sessions || !token) {
      throw new ShopNotInstalledError(shop);
    }
    let current = { token, transport: this.transportFor(shop, token) };
    const transport: AdminGraphqlTransport = {
      shop,
      request: async (operation, query, variables) => {
        try {
          return await current.transport.request(operation, query, variables);
        } catch (error) {
          if (!(error instanceof ShopifyUnauthorizedError)) throw error;
          const stored = await sessions.accessToken(shop, { fresh: true }).catch(() => undefined);
          if (!stored || stored === current.token) throw error;
          current = { token: stored, transport: this.transportFor(shop, stored) };
          return current.transport.request(operation, query, variables);
        }
      },
    };
    return this.apiOn(transport);
  }

  /** A client for a token not stored yet (`shops add` checks it with one call before storing it). */
  forToken(shop: string, token: string): ShopifyAdminApi {
    // Not in the process's batches: they ask with the store's stored token, and this one is being checked.
    return this.apiOn(this.transportFor(shop, token), { batched: false });
  }

  private transportFor(shop: string, token: string): AdminGraphqlTransport {
    // One client per store and token, kept: a Session and a GraphqlClient made for every call cost more than the call's
    // own work in the flash-sale profile (issue 27). A new token (refresh, exchange) is a new entry; the oldest go.
    const key = `${shop}\n${token}`;
    const kept = this.transports.get(key);
    if (kept) {
      // Most recently used last, so the store least recently used is the one dropped; the route is set again, since
      // routes are process-wide and may have been changed (development and tests).
      this.transports.delete(key);
      this.transports.set(key, kept);
      if (this.adminApiOrigin) routeAdminApi(this.adminApiOrigin, shop);
      return kept;
    }
    const transport = this.newTransport(shop, token);
    this.transports.set(key, transport);
    if (this.transports.size > TRANSPORTS_KEPT) this.transports.delete(this.transports.keys().next().value!);
    return transport;
  }

  private newTransport(shop: string, token: string): AdminGraphqlTransport {
    const session = new Session({ id: this.shopify.session.getOfflineId(shop), shop, state: '', isOnline: false, accessToken: token });
    return createShopifyApiTransport({ shopify: this.shopify, session, adminApiOrigin: this.adminApiOrigin });
  }

  private apiOn(transport: AdminGraphqlTransport, options: { batched?: boolean } = {}): ShopifyAdminApi {
    const metrics = this.metrics;
    const batched = options.batched ?? true;
    return new ShopifyAdminApi(transport, {
      pacer: this.pacer,
      ...(batched ? { statusMetafields: this.statusMetafields, orderReads: this.orderReads, statusWrites: this.statusWrites } : {}),
      onCall: metrics ? ({ operation, outcome }) => metrics.shopifyCalls.inc({ operation, outcome }) : undefined,
    });
  }
}

export function adminApiEffects(clients: ShopifyAdminClients): ShopifyEffects {
  return {
    async orderInShop(shop, orderId) {
      return (await clients.forShop(shop)).orderInShop(orderId);
    },
    async fulfillmentOrderLineItemIds(shop, fulfillmentOrderId) {
      return (await clients.forShop(shop)).fulfillmentOrderLineItemIds(fulfillmentOrderId);
    },
    async orderCancelled(shop, orderId) {
      try {
        return await (await clients.forShop(shop)).orderCancelled(orderId);
      } catch (error) {
        if (isNoAccess(error)) return null;
        throw error;
      }
    },
    async orderShows(shop, orderId) {
      return (await clients.forShop(shop)).orderShows(orderId);
    },
    async showStatus(shop, orderId, change) {
      await (await clients.forShop(shop)).showStatus(orderId, change);
    },
    async appendNote(shop, orderId, line) {
      await (await clients.forShop(shop)).appendOrderNote(orderId, line);
    },
  };
}

/** print-bridge's own hold on the app's Admin API clients; `shown` is the store's switch and fulfillment mode. */
export function adminApiAppHolds(clients: ShopifyAdminClients, shown: (shop: string) => Promise<boolean>): AppHoldsPort {
  return {
    shown,
    read: async (shop, orderId) => (await clients.forShop(shop)).fulfillmentOrderHolds(orderId),
    place: async (shop, fulfillmentOrderId, reasonNotes) => (await clients.forShop(shop)).placeAppHold(fulfillmentOrderId, reasonNotes),
    release: async (shop, fulfillmentOrderId, holdIds) => (await clients.forShop(shop)).releaseHolds(fulfillmentOrderId, holdIds),
  };
}

/**
 * Shopify's answer that the app cannot act for the store: no token stored, its refresh refused, the token refused
 * (401), or the store itself closed, frozen or locked (404, 402, 423). None of these can be brought about by someone
 * re-sending a webhook; Shopify being unreachable (5xx, 429, no answer) is not among them and is retried.
 */
function isNoAccess(error: unknown): boolean {
  if (error instanceof ShopNotInstalledError || error instanceof ShopTokenRefreshError) return true;
  if (error instanceof ShopifyUnauthorizedError) return error.status === 401;
  if (error instanceof ShopifyProtocolError) return error.httpStatus === 402 || error.httpStatus === 404 || error.httpStatus === 423;
  return false;
}
