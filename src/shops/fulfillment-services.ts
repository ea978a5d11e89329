import { sql } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import type { FulfillmentMode, FulfillmentServiceRecord } from './model.js';

/**
 * Each store's fulfillment mode and, in service mode, the fulfillment service the app registered there (columns of
 * shop_settings). Every write bumps the row's revision, as the other set-up writes do.
 */
export class FulfillmentServiceStore {
  constructor(private readonly database: Database) {}

  async get(shop: string): Promise<{ mode: FulfillmentMode; service?: FulfillmentServiceRecord }> {
    const [row] = await this.database.rows<{ fulfillment_mode: string; fulfillment_service: FulfillmentServiceRecord | null }>(
      sql`SELECT fulfillment_mode, fulfillment_service FROM shop_settings WHERE shop = ${shop}`,
    );
    if (!row) return { mode: 'merchant' };
    return { mode: row.fulfillment_mode === 'service' ? 'service' : 'merchant', service: row.fulfillment_service ?? undefined };
  }

  async setService(shop: string, service: FulfillmentServiceRecord): Promise<void> {
    await this.database.rows(sql`
      INSERT INTO shop_settings (shop, fulfillment_mode, fulfillment_service) VALUES (${shop}, 'service', ${JSON.stringify(service)}::jsonb)
      ON CONFLICT (shop) DO UPDATE SET fulfillment_mode = 'service', fulfillment_service = EXCLUDED.fulfillment_service,
        revision = shop_settings.revision + 1, updated_at = now()`);
  }

  /** Back to merchant-managed fulfillment: the service is forgotten (removed in Shopify first, or gone with an uninstall). */
  async setMerchant(shop: string): Promise<void> {
    await this.database.rows(sql`
      UPDATE shop_settings SET fulfillment_mode = 'merchant', fulfillment_service = NULL, revision = revision + 1, updated_at = now()
      WHERE shop = ${shop} AND (fulfillment_mode <> 'merchant' OR fulfillment_service IS NOT NULL)`);
  }

  /** The stores in service mode with their service: the scheduled read of pending requests goes through them. */
  async serviceShops(): Promise<{ shop: string; service: FulfillmentServiceRecord }[]> {
    const rows = await this.database.rows<{ shop: string; fulfillment_service: FulfillmentServiceRecord }>(
      sql`SELECT shop, fulfillment_service FROM shop_settings WHERE fulfillment_mode = 'service' AND fulfillment_service IS NOT NULL ORDER BY shop`,
    );
    return rows.map((r) => ({ shop: r.shop, service: r.fulfillment_service }));
  }
}
