import { Session } from '@shopify/shopify-api';
import type { SessionStorage } from '@shopify/shopify-app-session-storage';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database.js';

/**
 * Shopify's `SessionStorage` on the app's own `shopify_sessions` table. Shopify's PostgreSQL and Drizzle storages
 * need `@shopify/shopify-api` 15, and this app is on the 13 line; the interface is small, so it is implemented here on
 * the same database handle (PostgreSQL or PGlite) and migrations as everything else. The session is kept as
 * Shopify's own property array, so a later move to the official storage reads the same fields.
 */
export class SessionTable implements SessionStorage {
  /**
   * Sessions read in the last `cacheMs`, by id: every Admin API call and every "is the store connected" check reads the
   * store's session, three times per order in a flash sale (issue 17). Only sessions that exist are kept (a store
   * connected by another process is seen at once), and a write or delete here forgets the entry; a token another
   * process replaced is picked up within `cacheMs` (the old one stays valid far longer: it is refreshed 5 minutes
   * before it expires, and an uninstalled store's calls fail and are retried).
   */
  private readonly cache = new Map<string, { properties: [string, string | number | boolean][]; until: number }>();

  constructor(
    private readonly database: Database,
    private readonly cacheMs = 2_000,
  ) {}

  async storeSession(session: Session): Promise<boolean> {
    this.cache.delete(session.id);
    const properties = Object.fromEntries(session.toPropertyArray(true));
    await this.database.rows(sql`
      INSERT INTO shopify_sessions (id, shop, is_online, session, updated_at)
      VALUES (${session.id}, ${session.shop}, ${session.isOnline ? 1 : 0}, ${JSON.stringify(properties)}::jsonb, now())
      ON CONFLICT (id) DO UPDATE SET shop = EXCLUDED.shop, is_online = EXCLUDED.is_online, session = EXCLUDED.session, updated_at = now()`);
    return true;
  }

  /** Forgets the cached copy of a session: the next load reads the database. */
  forget(id: string): void {
    this.cache.delete(id);
  }

  async loadSession(id: string): Promise<Session | undefined> {
    const now = Date.now();
    const cached = this.cache.get(id);
    // A new Session each time: callers may change the one they get.
    if (cached && cached.until > now) return Session.fromPropertyArray(cached.properties, true);
    const [row] = await this.database.rows<{ session: Record<string, string | number | boolean> }>(sql`SELECT session FROM shopify_sessions WHERE id = ${id}`);
    if (!row) {
      this.cache.delete(id);
      return undefined;
    }
    const properties = Object.entries(row.session);
    if (this.cacheMs > 0) this.cache.set(id, { properties, until: now + this.cacheMs });
    return Session.fromPropertyArray(properties, true);
  }

  async deleteSession(id: string): Promise<boolean> {
    this.cache.delete(id);
    await this.database.rows(sql`DELETE FROM shopify_sessions WHERE id = ${id}`);
    return true;
  }

  async deleteSessions(ids: string[]): Promise<boolean> {
    for (const id of ids) this.cache.delete(id);
    await this.database.rows(sql`DELETE FROM shopify_sessions WHERE id IN (SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`);
    return true;
  }

  async findSessionsByShop(shop: string): Promise<Session[]> {
    const rows = await this.database.rows<{ session: Record<string, string | number | boolean> }>(sql`SELECT session FROM shopify_sessions WHERE shop = ${shop}`);
    return rows.map((row) => Session.fromPropertyArray(Object.entries(row.session), true));
  }

  /** Stores with an offline session (the app is installed or a custom app's token registered). */
  async offlineShops(): Promise<string[]> {
    const rows = await this.database.rows<{ shop: string }>(sql`SELECT DISTINCT shop FROM shopify_sessions WHERE is_online = 0 ORDER BY shop`);
    return rows.map((r) => r.shop);
  }
}
