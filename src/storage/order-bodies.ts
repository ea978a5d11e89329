import { sql } from 'drizzle-orm';
import { PREPARED, type Database } from '../db/database.js';
import { normaliseTime, type OrderLink } from '../orders/model.js';
import type { OrderStatus } from '../orders/status.js';

/**
 * The Shopify order bodies (order_bodies): the one table that holds a customer's personal data in full, so it is kept
 * apart from the links, with its own retention. PostgresOrderStore (order-store.ts) passes its body methods here; what
 * each promises is said there.
 */
export class OrderBodies {
  constructor(
    private readonly database: Database,
    private readonly clock: () => Date,
  ) {}

  async save(shop: string, orderId: string, updatedAt: string, rawBody: string): Promise<boolean> {
    const rows = await this.database.rows(upsertNewerBody(shop, orderId, updatedAt, rawBody), PREPARED);
    return rows.length === 1;
  }

  async saveAndRead(shop: string, orderId: string, updatedAt: string, rawBody: string): Promise<{ newest: boolean; link: OrderLink | null }> {
    // One statement: the body's upsert and the link's read see the same snapshot, so the link is as before this call.
    const [row] = await this.database.rows<{ newest: number; data: OrderLink | null }>(sql`
      WITH saved AS (${upsertNewerBody(shop, orderId, updatedAt, rawBody)})
      SELECT (SELECT count(*) FROM saved)::int AS newest, (SELECT data FROM orders WHERE shop = ${shop} AND order_id = ${orderId}) AS data`, PREPARED);
    return { newest: (row?.newest ?? 0) === 1, link: row?.data ?? null };
  }

  async get(shop: string, orderId: string): Promise<{ updatedAt: string; body: string } | undefined> {
    const [row] = await this.database.rows<{ shopify_updated_at: string; body: string | null }>(
      sql`SELECT shopify_updated_at, body FROM order_bodies WHERE shop = ${shop} AND order_id = ${orderId}`,
      PREPARED,
    );
    return row?.body ? { updatedAt: row.shopify_updated_at, body: row.body } : undefined;
  }

  async delete(shop: string, orderId: string): Promise<void> {
    await this.database.rows(sql`DELETE FROM order_bodies WHERE shop = ${shop} AND order_id = ${orderId}`, PREPARED);
  }

  async reduceFinished(days: number, finished: readonly OrderStatus[], batch = 1000): Promise<number> {
    const before = new Date(this.clock().getTime() - days * 24 * 3600 * 1000).toISOString();
    const now = this.clock().toISOString();
    let total = 0;
    for (;;) {
      const rows = await this.database.rows(sql`
        UPDATE order_bodies b SET body = NULL, reduced_at = ${now}::timestamptz
        WHERE (b.shop, b.order_id) IN (
          SELECT b2.shop, b2.order_id FROM order_bodies b2 JOIN orders o ON o.shop = b2.shop AND o.order_id = b2.order_id
          WHERE b2.body IS NOT NULL AND o.status IN (SELECT jsonb_array_elements_text(${JSON.stringify(finished)}::jsonb))
            AND o.status_at < ${before}::timestamptz
          LIMIT ${batch}
        ) RETURNING 1 AS n`);
      total += rows.length;
      if (rows.length < batch) return total;
    }
  }
}

/** The body kept unless a newer one is (by `updated_at`); a row comes back only when this one was kept. */
function upsertNewerBody(shop: string, orderId: string, updatedAt: string, rawBody: string) {
  return sql`
    INSERT INTO order_bodies (shop, order_id, shopify_updated_at, body) VALUES (${shop}, ${orderId}, ${normaliseTime(updatedAt)}, ${rawBody})
    ON CONFLICT (shop, order_id) DO UPDATE SET shopify_updated_at = EXCLUDED.shopify_updated_at, body = EXCLUDED.body, reduced_at = NULL
    WHERE order_bodies.shopify_updated_at < EXCLUDED.shopify_updated_at
    RETURNING 1 AS n`;
}
