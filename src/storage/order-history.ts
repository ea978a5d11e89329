import { sql } from 'drizzle-orm';
import type { Database } from '../db/database.js';
import type { HistoryEntry } from '../orders/model.js';

/**
 * An order's history (order_history): read newest first, noted without a change to the link, and cut back now and
 * then. The entries of a change are written by the order's own write statement (order-store.ts), with the link.
 */

export const HISTORY_LIMIT = 200;

/** A history is cut back to HISTORY_LIMIT entries once it passes this many (keeps writes cheap). */
const HISTORY_TRIM_AT = HISTORY_LIMIT + 50;

export class OrderHistory {
  constructor(
    private readonly database: Database,
    private readonly clock: () => Date,
  ) {}

  async trim(shop: string, orderId: string): Promise<void> {
    await this.database.rows(sql`
      DELETE FROM order_history WHERE shop = ${shop} AND order_id = ${orderId} AND id < (
        SELECT id FROM order_history WHERE shop = ${shop} AND order_id = ${orderId} ORDER BY id DESC OFFSET ${HISTORY_LIMIT - 1} LIMIT 1
      ) AND (SELECT count(*) FROM order_history WHERE shop = ${shop} AND order_id = ${orderId}) > ${HISTORY_TRIM_AT}`);
  }

  async list(shop: string, orderId: string, limit: number): Promise<HistoryEntry[]> {
    const rows = await this.database.rows<{ entry: HistoryEntry }>(
      sql`SELECT entry FROM order_history WHERE shop = ${shop} AND order_id = ${orderId} ORDER BY id DESC LIMIT ${limit}`,
    );
    return rows.map((r) => r.entry);
  }

  /**
   * Replaces the `detail` of every entry of the order with `marker` (customers/redact): a detail may quote what the
   * customer typed. What happened, when, by whom and the status stay. Returns how many entries changed.
   */
  async redactDetails(shop: string, orderId: string, marker: string): Promise<number> {
    const rows = await this.database.rows(sql`
      UPDATE order_history SET entry = jsonb_set(entry, '{detail}', to_jsonb(${marker}::text))
      WHERE shop = ${shop} AND order_id = ${orderId} AND entry ? 'detail' AND entry->>'detail' <> ${marker}
      RETURNING 1 AS n`);
    return rows.length;
  }

  async note(shop: string, orderId: string, entry: Omit<HistoryEntry, 'at'>): Promise<void> {
    const at = this.clock().toISOString();
    await this.database.rows(sql`INSERT INTO order_history (shop, order_id, at, entry) VALUES (${shop}, ${orderId}, ${at}::timestamptz, ${JSON.stringify({ at, ...entry })}::jsonb)`);
  }
}
