import type { Shopify } from '@shopify/shopify-api';
import { Session } from '@shopify/shopify-api';
import type { ShopifyEffects } from '../bridge/ports.js';
import type { Metrics } from '../metrics.js';
import { JOB_INLINE_WAIT_MS, ShopifyAdminApi, ShopifyPacer } from '../shopify/admin-api.js';
import { createShopifyApiTransport } from '../shopify/admin/transport.js';
import { ShopNotInstalledError, type ShopSessions } from '../shopify/sessions.js';

/** Builds a store's Admin API client from its offline session; one pacer for the process sees each store's budget whole. */
export class ShopifyAdminClients {
  private readonly pacer: ShopifyPacer;

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

  async forShop(shop: string): Promise<ShopifyAdminApi> {
    const token = await this.sessions?.accessToken(shop);
    if (!token) {
      throw new ShopNotInstalledError(shop);
    }
    return this.forToken(shop, token);
  }

  /** A client for a token not stored yet (`shops add` checks it with one call before storing it). */
  forToken(shop: string, token: string): ShopifyAdminApi {
    const session = new Session({ id: this.shopify.session.getOfflineId(shop), shop, state: '', isOnline: false, accessToken: token });
    const metrics = this.metrics;
    return new ShopifyAdminApi(createShopifyApiTransport({ shopify: this.shopify, session, adminApiOrigin: this.adminApiOrigin }), {
      pacer: this.pacer,
      onCall: metrics ? ({ operation, outcome }) => metrics.shopifyCalls.inc({ operation, outcome }) : undefined,
    });
  }
}

export function adminApiEffects(clients: ShopifyAdminClients): ShopifyEffects {
  return {
    async orderInShop(shop, orderId) {
      return (await clients.forShop(shop)).orderInShop(orderId);
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
