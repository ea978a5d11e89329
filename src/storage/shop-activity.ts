import { sql } from 'drizzle-orm';
import type { Database } from '../db/database.js';

/**
 * When the app first handled an order of each shop (shops.active_since), the limit the lost-order recovery never
 * reaches back before. Kept apart from the order store with the one piece of state it has: which stores this process
 * marked recently. PostgresOrderStore (order-store.ts) passes its calls here; what each promises is said there.
 */
export class ShopActivity {
  /** Stores this process marked active recently (markShopActive), until when the mark is not sent again. */
  private readonly markedActive = new Map<string, number>();

  constructor(
    private readonly database: Database,
    private readonly clock: () => Date,
  ) {}

  async mark(shop: string): Promise<void> {
    // Every order webhook marks its store; once marked, the mark only changes when the store is forgotten. This process
    // skips the statement for a minute after it last made it (issue 17: one statement per order less in a burst); a
    // store forgotten by another process is marked again within that minute.
    const now = Date.now();
    if ((this.markedActive.get(shop) ?? 0) > now) return;
    await this.database.rows(sql`
      INSERT INTO shops (shop, active_since) VALUES (${shop}, ${this.clock().toISOString()}::timestamptz)
      ON CONFLICT (shop) DO UPDATE SET active_since = EXCLUDED.active_since WHERE shops.active_since IS NULL`);
    this.markedActive.set(shop, now + 60_000);
  }

  async since(shop: string): Promise<string | undefined> {
    const [row] = await this.database.rows<{ since: string | null }>(
      sql`SELECT to_char(active_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS since FROM shops WHERE shop = ${shop}`,
    );
    return row?.since ?? undefined;
  }

  async forget(shop: string): Promise<void> {
    this.markedActive.delete(shop);
    await this.database.rows(sql`UPDATE shops SET active_since = NULL WHERE shop = ${shop}`);
  }

  /** The store's row itself (shop/redact): its domain is kept nowhere after. */
  async remove(shop: string): Promise<void> {
    this.markedActive.delete(shop);
    await this.database.rows(sql`DELETE FROM shops WHERE shop = ${shop}`);
  }
}
