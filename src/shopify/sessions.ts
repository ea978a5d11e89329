import { Session, type Shopify } from '@shopify/shopify-api';
import { RedisSessionStorage } from '@shopify/shopify-app-session-storage-redis';
import type { Redis } from 'ioredis';

/**
 * Shopify sessions in Redis through the official storage. The app only needs offline sessions: an access token per
 * store that the worker uses for Admin API calls, obtained by OAuth or registered with `shops add` for a custom app.
 */
export class ShopSessions {
  readonly storage: RedisSessionStorage;
  private readonly sessionKeyPrefix: string;
  private readonly storedListeners: ((shop: string) => Promise<void>)[] = [];

  constructor(
    private readonly shopify: Shopify,
    redisUrl: string,
    prefix: string,
  ) {
    this.sessionKeyPrefix = `${prefix}shopify-session`;
    this.storage = new RedisSessionStorage(redisUrl, { sessionKeyPrefix: this.sessionKeyPrefix });
  }

  /**
   * Every store with an offline session. The storage keeps no list of stores, so its keys are scanned (the storage
   * names them `<sessionKeyPrefix>_offline_<shop>`); `redis` is any connection to the same Redis.
   */
  async installedShops(redis: Redis): Promise<string[]> {
    const keyStart = `${this.sessionKeyPrefix}_offline_`;
    const pattern = `${keyStart.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}*`;
    const shops = new Set<string>();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      for (const key of keys) shops.add(key.slice(keyStart.length));
    } while (cursor !== '0');
    return [...shops].sort();
  }

  async ready(): Promise<void> {
    await this.storage.ready;
  }

  /** The store's offline access token, or undefined when the app is not installed there. */
  async accessToken(shop: string): Promise<string | undefined> {
    const session = await this.storage.loadSession(this.shopify.session.getOfflineId(shop));
    return session?.accessToken;
  }

  async storeSession(session: Session): Promise<void> {
    await this.storage.storeSession(session);
    await this.notifyStored(session.shop);
  }

  /**
   * Called after a store's session is stored (OAuth, `shops add`): orders that waited for the store to be connected
   * are released. A listener that fails does not undo the install; the periodic sweep releases them later.
   */
  onStored(listener: (shop: string) => Promise<void>): void {
    this.storedListeners.push(listener);
  }

  private async notifyStored(shop: string): Promise<void> {
    await Promise.allSettled(this.storedListeners.map((listener) => listener(shop)));
  }

  /** Registers a custom app's Admin API access token as the store's offline session. */
  async addCustomAppToken(shop: string, token: string, scopes: readonly string[]): Promise<Session> {
    const session = new Session({
      id: this.shopify.session.getOfflineId(shop),
      shop,
      state: 'custom-app',
      isOnline: false,
      accessToken: token,
      scope: scopes.join(','),
    });
    await this.storage.storeSession(session);
    await this.notifyStored(shop);
    return session;
  }

  async deleteShopSessions(shop: string): Promise<number> {
    const sessions = await this.storage.findSessionsByShop(shop);
    if (sessions.length) await this.storage.deleteSessions(sessions.map((s) => s.id));
    return sessions.length;
  }

  async close(): Promise<void> {
    await this.storage.disconnect();
  }
}

/** `acme` or `acme.myshopify.com` → `acme.myshopify.com`; undefined for anything else. */
export function normaliseShopDomain(shopify: Shopify, input: string): string | undefined {
  const candidate = input.includes('.') ? input.trim().toLowerCase() : `${input.trim().toLowerCase()}.myshopify.com`;
  return shopify.utils.sanitizeShop(candidate, false) ?? undefined;
}

/** The app has no access token for a store: nothing can be done there until it is installed (or a token registered). */
export class ShopNotInstalledError extends Error {
  readonly retryable = false;
  constructor(readonly shop: string) {
    super(`print-bridge has no access token for ${shop}: install the app on the store, or run \`print-bridge shops add ${shop} --token <token>\`.`);
    this.name = 'ShopNotInstalledError';
  }
}
