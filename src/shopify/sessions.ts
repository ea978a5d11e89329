import { Session, type Shopify } from '@shopify/shopify-api';
import { RedisSessionStorage } from '@shopify/shopify-app-session-storage-redis';
import type { Redis } from 'ioredis';
import { SecretCipher, SecretKeyError } from '../secrets/cipher.js';

/**
 * Shopify sessions in Redis through the official storage. The app only needs offline sessions: an access token per
 * store that the worker uses for Admin API calls, obtained by OAuth or registered with `shops add` for a custom app.
 *
 * The access token is encrypted before the storage sees it (`ENCRYPTION_KEY`, src/secrets/cipher.ts): a Redis dump or
 * backup holds no usable token. A token stored in clear by an earlier version is still read, and is encrypted when
 * read; so is one under a rotated-out key. Storing needs the key: without it, storing refuses with the reason.
 */
export class ShopSessions {
  readonly storage: RedisSessionStorage;
  private readonly sessionKeyPrefix: string;
  private readonly storedListeners: ((shop: string) => Promise<void>)[] = [];

  constructor(
    private readonly shopify: Shopify,
    redisUrl: string,
    prefix: string,
    /** ENCRYPTION_KEY's keys; none: tokens can be read if stored in clear earlier, but none can be stored. */
    private readonly encryptionKeys: readonly string[] = [],
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

  private cipherOrUndefined(): SecretCipher | undefined {
    return this.encryptionKeys.length > 0 ? new SecretCipher(this.encryptionKeys) : undefined;
  }

  /** The store's offline access token, or undefined when the app is not installed there. */
  async accessToken(shop: string): Promise<string | undefined> {
    const session = await this.storage.loadSession(this.shopify.session.getOfflineId(shop));
    const stored = session?.accessToken;
    if (!session || !stored) return undefined;
    const cipher = this.cipherOrUndefined();
    if (!SecretCipher.isEncrypted(stored)) {
      // Stored in clear by an earlier version: encrypted now, when a key is configured.
      if (cipher) await this.storage.storeSession(this.sealed(session, stored, cipher));
      return stored;
    }
    if (!cipher) throw new SecretKeyError(`the access token of ${shop} is encrypted and ENCRYPTION_KEY is not set: set the key it was stored with`);
    const { plain, stale } = cipher.decrypt(stored);
    if (stale) await this.storage.storeSession(this.sealed(session, plain, cipher));
    return plain;
  }

  private sealed(session: Session, token: string, cipher: SecretCipher): Session {
    return new Session({ ...session.toObject(), accessToken: cipher.encrypt(token) });
  }

  private async storeEncrypted(session: Session): Promise<void> {
    if (!session.accessToken) throw new Error(`a session of ${session.shop} without an access token cannot be stored`);
    const cipher = this.cipherOrUndefined();
    if (!cipher) throw new SecretKeyError(`ENCRYPTION_KEY is not set: the access token of ${session.shop} cannot be stored (make a key with: openssl rand -base64 32)`);
    await this.storage.storeSession(this.sealed(session, session.accessToken, cipher));
  }

  async storeSession(session: Session): Promise<void> {
    await this.storeEncrypted(session);
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
    await this.storeEncrypted(session);
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
