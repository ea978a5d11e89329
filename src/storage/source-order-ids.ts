import { sql } from 'drizzle-orm';
import { PREPARED, type Database } from '../db/database.js';
import { claimNamespace, ENV_NAMESPACE, type OrderLink } from '../orders/model.js';

/**
 * The sourceOrderId claims (source_order_ids): which order owns each id on each print account, so two orders never
 * share one print order, nor each other's postbacks. PostgresOrderStore (order-store.ts) passes its claim and look-up
 * here; what each promises is said there. An order's write claims its id in the same statement (order-store.ts).
 */
export class SourceOrderIds {
  constructor(private readonly database: Database) {}

  /** Undefined when the claims kept changing under it (three tries): the store throws its conflict error. */
  async claim(
    shop: string,
    orderId: string,
    sourceOrderId: string,
    namespace: string,
  ): Promise<{ ok: true } | { ok: false; owner: { shop: string; orderId: string } } | undefined> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const [row] = await this.database.rows<{ shop: string; order_id: string; alive: boolean }>(sql`
        WITH claimed AS (
          INSERT INTO source_order_ids (namespace, source_order_id, shop, order_id) VALUES (${namespace}, ${sourceOrderId}, ${shop}, ${orderId})
          ON CONFLICT DO NOTHING RETURNING shop, order_id
        )
        SELECT shop, order_id, true AS alive FROM claimed
        UNION ALL
        SELECT s.shop, s.order_id, EXISTS (SELECT 1 FROM orders o WHERE o.shop = s.shop AND o.order_id = s.order_id) AS alive
        FROM source_order_ids s WHERE s.namespace = ${namespace} AND s.source_order_id = ${sourceOrderId} AND NOT EXISTS (SELECT 1 FROM claimed)`,
        PREPARED,
      );
      if (!row) continue;
      if (row.shop === shop && row.order_id === orderId) return { ok: true };
      if (row.alive) return { ok: false, owner: { shop: row.shop, orderId: row.order_id } };
      // The owner's record is gone: the id is free again (compare-and-delete, so a new owner is never removed).
      await this.database.rows(
        sql`DELETE FROM source_order_ids WHERE namespace = ${namespace} AND source_order_id = ${sourceOrderId} AND shop = ${row.shop} AND order_id = ${row.order_id}`,
      );
    }
    return undefined;
  }

  async find(sourceOrderId: string, scope?: string): Promise<OrderLink | undefined> {
    const where = scope
      ? sql`s.source_order_id = ${sourceOrderId} AND (s.namespace = ${claimNamespace(scope, 'own')} OR (s.namespace = ${ENV_NAMESPACE} AND s.shop = ${scope}))`
      : sql`s.source_order_id = ${sourceOrderId} AND s.namespace = ${ENV_NAMESPACE}`;
    const [row] = await this.database.rows<{ data: OrderLink }>(sql`
      SELECT o.data FROM source_order_ids s JOIN orders o ON o.shop = s.shop AND o.order_id = s.order_id
      WHERE ${where} ORDER BY s.namespace = ${ENV_NAMESPACE} LIMIT 1`);
    return row?.data;
  }
}
