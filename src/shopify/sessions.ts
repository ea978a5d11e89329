import { RequestedTokenType, Session, type Shopify } from '@shopify/shopify-api';
import type { Database } from '../db/database.js';
import { SecretCipher, SecretKeyError } from '../secrets/cipher.js';
import { SessionTable } from './session-table.js';

/** An expiring token is refreshed this long before it runs out. */
const REFRESH_MARGIN_MS = 5 * 60_000;

/** The `state` a custom app's token (`shops add`) is stored with; OAuth and token exchange store anything else. */
export const CUSTOM_APP_STATE = 'custom-app';

/**
 * What kind of offline token a store has:
 * - `custom-app`: registered with `shops add` (a custom app's token; Shopify's expiring-token rule does not apply);
 * - `expiring`: from OAuth or token exchange, with a refresh token;
 * - `non-expiring`: from OAuth or token exchange before expiring tokens were asked for; Shopify refuses these for
 *   public apps from 1 January 2027, so it is replaced (next embedded open, or `shops migrate-tokens`).
 */
export type OfflineTokenKind = 'custom-app' | 'expiring' | 'non-expiring';

export function offlineTokenKind(session: Session): OfflineTokenKind {
  if (session.state === CUSTOM_APP_STATE) return 'custom-app';
  return session.refreshToken || session.expires ? 'expiring' : 'non-expiring';
}

/** What `migrateToExpiring` did for a store. */
export type TokenMigration =
  | { kind: 'migrated'; expires?: Date; refreshTokenExpires?: Date }
  | { kind: 'none' | 'custom-app' | 'expiring' }
  /** Shopify refused the exchange (the token is revoked, the app uninstalled): only the merchant can reconnect. */
  | { kind: 'refused'; reason: string };

/**
 * Shopify sessions in the database (src/shopify/session-table.ts). The app only needs offline sessions: an access token per
 * store that the worker uses for Admin API calls, obtained by OAuth or registered with `shops add` for a custom app.
 *
 * The access token is encrypted before the storage sees it (`ENCRYPTION_KEY`, src/secrets/cipher.ts): a database dump
 * or backup holds no usable token. A token stored in clear by an earlier version is still read, and is encrypted when
 * read; so is one under a rotated-out key. Storing needs the key: without it, storing refuses with the reason.
 */
export class ShopSessions {
  readonly storage: SessionTable;
  private readonly storedListeners: ((shop: string) => Promise<void>)[] = [];
  private readonly refreshing = new Map<string, Promise<string>>();

  constructor(
    private readonly shopify: Shopify,
    database: Database,
    /** ENCRYPTION_KEY's keys; none: tokens can be read if stored in clear earlier, but none can be stored. */
    private readonly encryptionKeys: readonly string[] = [],
  ) {
    this.storage = new SessionTable(database);
  }

  /** Every store with an offline session. */
  async installedShops(): Promise<string[]> {
    return this.storage.offlineShops();
  }

  /** The kind of the store's stored offline token, or undefined when none is stored. */
  async tokenKind(shop: string): Promise<OfflineTokenKind | undefined> {
    const session = await this.storage.loadSession(this.shopify.session.getOfflineId(shop));
    return session?.accessToken ? offlineTokenKind(session) : undefined;
  }

  /**
   * Replaces a stored non-expiring offline token (OAuth or token exchange, never a custom app's) by an expiring one
   * with a refresh token, with Shopify's token exchange of the old token (the library's `migrateToExpiringToken`).
   * After it the old token no longer works at Shopify. A custom app's token and an expiring one are left alone.
   * Shopify refusing (400/401) is answered as `refused`; anything else (an outage) is thrown, to be tried again: a
   * retry with the same old token within seven days gets the same pair back, so an answer lost on the way is not lost.
   */
  async migrateToExpiring(shop: string): Promise<TokenMigration> {
    const session = await this.storage.loadSession(this.shopify.session.getOfflineId(shop));
    if (!session?.accessToken) return { kind: 'none' };
    const kind = offlineTokenKind(session);
    if (kind !== 'non-expiring') return { kind };
    const { accessToken } = await this.opened(session);
    let migrated: Session;
    try {
      ({ session: migrated } = await this.shopify.auth.migrateToExpiringToken({ shop, nonExpiringOfflineAccessToken: accessToken }));
    } catch (error) {
      const status = (error as { response?: { code?: number } }).response?.code;
      if (status === 400 || status === 401) return { kind: 'refused', reason: (error as Error).message };
      throw error;
    }
    await this.storeEncrypted(migrated);
    return { kind: 'migrated', expires: migrated.expires, refreshTokenExpires: migrated.refreshTokenExpires };
  }

  /** Made once: every Admin API call opens the stored token, and parsing the keys each time showed in profiles (issue 27). */
  private cipher: SecretCipher | undefined | null = null;

  private cipherOrUndefined(): SecretCipher | undefined {
    if (this.cipher === null) this.cipher = this.encryptionKeys.length > 0 ? new SecretCipher(this.encryptionKeys) : undefined;
    return this.cipher;
  }

  /**
   * The store's offline access token, or undefined when the app is not installed there. An expiring token (token
   * exchange) is refreshed shortly before it runs out; one refresh per store at a time in this process, and a refresh
   * another process did first is picked up instead of failing. `fresh` reads past the session cache.
   */
  async accessToken(shop: string, options: { fresh?: boolean } = {}): Promise<string | undefined> {
    // fresh: read past the session cache (another process may have just replaced the token).
    if (options.fresh) this.storage.forget(this.shopify.session.getOfflineId(shop));
    const session = await this.storage.loadSession(this.shopify.session.getOfflineId(shop));
    if (!session?.accessToken) return undefined;
    const { accessToken, refreshToken } = await this.opened(session);
    const expiresAt = session.expires?.getTime();
    if (expiresAt !== undefined && refreshToken && expiresAt - Date.now() < REFRESH_MARGIN_MS) {
      // Keyed by the refresh token, and kept a minute after it succeeds: a caller that read the session before this
      // refresh stored its successor gets the same answer instead of spending the used refresh token again.
      const key = `${shop}\n${refreshToken}`;
      let refreshing = this.refreshing.get(key);
      if (!refreshing) {
        refreshing = this.refresh(shop, refreshToken);
        this.refreshing.set(key, refreshing);
        refreshing.then(
          () => setTimeout(() => this.refreshing.delete(key), 60_000).unref(),
          () => this.refreshing.delete(key),
        );
      }
      return refreshing;
    }
    return accessToken;
  }

  /**
   * Whether the app must ask Shopify for an offline token for this store (token exchange): none stored, its scopes
   * differ from the configured ones, it is a non-expiring one (not a custom app's: Shopify refuses those of public
   * apps from 1 January 2027), or it can no longer be refreshed.
   */
  async needsToken(shop: string): Promise<boolean> {
    return (await this.tokenNeed(shop)) !== undefined;
  }

  /** Why the app must ask Shopify for an offline token for this store (see needsToken), or undefined. */
  async tokenNeed(shop: string): Promise<'missing' | 'scopes changed' | 'non-expiring' | 'expired' | undefined> {
    const session = await this.storage.loadSession(this.shopify.session.getOfflineId(shop));
    if (!session?.accessToken) return 'missing';
    if (session.isScopeChanged(this.shopify.config.scopes)) return 'scopes changed';
    if (offlineTokenKind(session) === 'non-expiring') return 'non-expiring';
    const now = Date.now();
    if (session.refreshTokenExpires && session.refreshTokenExpires.getTime() <= now) return 'expired';
    if (!session.refreshToken && session.expires !== undefined && session.expires.getTime() <= now) return 'expired';
    return undefined;
  }

  /** app/scopes_update: the scopes Shopify now grants; tokens are left as stored (still sealed). */
  async updateScopes(shop: string, scopes: readonly string[]): Promise<boolean> {
    const session = await this.storage.loadSession(this.shopify.session.getOfflineId(shop));
    if (!session) return false;
    await this.storage.storeSession(new Session({ ...session.toObject(), scope: scopes.join(',') }));
    return true;
  }

  /**
   * Managed install: exchanges an App Bridge session token (already verified by the caller) for an expiring offline
   * access token with a refresh token, and stores it. Orders that waited for the store go out (onStored).
   */
  async exchangeSessionToken(shop: string, sessionToken: string): Promise<void> {
    const { session } = await this.shopify.auth.tokenExchange({
      shop,
      sessionToken,
      requestedTokenType: RequestedTokenType.OfflineAccessToken,
      expiring: true,
    });
    await this.storeSession(session);
  }

  private async refresh(shop: string, refreshToken: string): Promise<string> {
    try {
      const { session } = await this.shopify.auth.refreshToken({ shop, refreshToken });
      await this.storeEncrypted(session);
      return session.accessToken!;
    } catch (error) {
      // Another process may have used the refresh token first (a refresh token works once): take what it stored.
      // Read past the session cache, which still holds the session this refresh started from (read moments ago).
      const id = this.shopify.session.getOfflineId(shop);
      this.storage.forget(id);
      const now = await this.storage.loadSession(id);
      if (now?.accessToken) {
        const opened = await this.opened(now);
        if (opened.refreshToken && opened.refreshToken !== refreshToken) return opened.accessToken;
      }
      // Refused (400/401: the refresh token is spent or revoked) is for the merchant; anything else is retried.
      const status = (error as { response?: { code?: number } }).response?.code;
      if (status === 400 || status === 401) throw new ShopTokenRefreshError(shop, error as Error);
      throw error;
    }
  }

  /** The tokens of a stored session in clear; a token stored in clear or under a rotated-out key is sealed again. */
  private async opened(session: Session): Promise<{ accessToken: string; refreshToken?: string }> {
    const cipher = this.cipherOrUndefined();
    const read = (value: string): { plain: string; reseal: boolean } => {
      if (!SecretCipher.isEncrypted(value)) return { plain: value, reseal: Boolean(cipher) };
      if (!cipher) throw new SecretKeyError(`the access token of ${session.shop} is encrypted and ENCRYPTION_KEY is not set: set the key it was stored with`);
      const { plain, stale } = cipher.decrypt(value);
      return { plain, reseal: stale };
    };
    const access = read(session.accessToken!);
    const refresh = session.refreshToken ? read(session.refreshToken) : undefined;
    if (cipher && (access.reseal || refresh?.reseal)) {
      // Stored in clear by an earlier version, or under a key being rotated out: sealed with the current key now.
      await this.storage.storeSession(this.sealed(session, access.plain, cipher, refresh?.plain));
    }
    return { accessToken: access.plain, ...(refresh ? { refreshToken: refresh.plain } : {}) };
  }

  private sealed(session: Session, token: string, cipher: SecretCipher, refreshToken = session.refreshToken): Session {
    return new Session({
      ...session.toObject(),
      accessToken: cipher.encrypt(token),
      ...(refreshToken ? { refreshToken: cipher.encrypt(refreshToken) } : {}),
    });
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
      state: CUSTOM_APP_STATE,
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

/** Shopify refused to refresh a store's expiring token: the merchant must open the app again (a new token exchange). */
export class ShopTokenRefreshError extends Error {
  readonly retryable = false;
  constructor(readonly shop: string, cause: Error) {
    super(`Shopify refused to refresh print-bridge's access token for ${shop} (${cause.message}): open print-bridge in the store's Shopify admin to reconnect it.`);
    this.name = 'ShopTokenRefreshError';
  }
}
