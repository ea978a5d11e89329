import { sql } from 'drizzle-orm';
import type { Database } from '../db/database.js';

/** How long the answer to a customer's data request is kept for the merchant to pass on. */
export const DATA_REQUEST_DAYS = 30;

/**
 * Answers to `customers/data_request`: what the app holds about the customer's orders, kept for the merchant (the
 * app's page) and the operator (`print-bridge`), then deleted. Redaction reaches them too.
 */
export interface DataRequestSummary {
  shop: string;
  requestId: string;
  createdAt: string;
  expiresAt: string;
  /** Orders of the customer the report covers. */
  orders: number;
}

export class DataRequests {
  constructor(
    private readonly database: Database,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async save(shop: string, requestId: string, report: unknown): Promise<void> {
    const expires = new Date(this.clock().getTime() + DATA_REQUEST_DAYS * 24 * 3600 * 1000).toISOString();
    await this.database.rows(sql`
      INSERT INTO data_requests (shop, request_id, report, expires_at) VALUES (${shop}, ${requestId}, ${JSON.stringify(report)}::jsonb, ${expires}::timestamptz)
      ON CONFLICT (shop, request_id) DO UPDATE SET report = EXCLUDED.report, expires_at = EXCLUDED.expires_at`);
  }

  async get(shop: string, requestId: string): Promise<unknown> {
    const [row] = await this.database.rows<{ report: unknown }>(
      sql`SELECT report FROM data_requests WHERE shop = ${shop} AND request_id = ${requestId} AND expires_at > ${this.clock().toISOString()}::timestamptz`,
    );
    return row?.report;
  }

  /** A store's reports (every store's without `shop`), newest first: ids, dates and how many orders each covers. */
  async list(shop?: string, limit = 200): Promise<DataRequestSummary[]> {
    const rows = await this.database.rows<{ shop: string; request_id: string; created_at: string; expires_at: string; orders: number }>(sql`
      SELECT shop, request_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS created_at,
        to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS expires_at,
        CASE WHEN jsonb_typeof(report) = 'array' THEN jsonb_array_length(report) ELSE 0 END AS orders
      FROM data_requests WHERE ${shop === undefined ? sql`true` : sql`shop = ${shop}`} AND expires_at > ${this.clock().toISOString()}::timestamptz
      ORDER BY created_at DESC, request_id LIMIT ${limit}`);
    return rows.map((r) => ({ shop: r.shop, requestId: r.request_id, createdAt: r.created_at, expiresAt: r.expires_at, orders: Number(r.orders) }));
  }

  /** Reports of the shop (shop/redact), or the entries of these orders in them (customers/redact). Returns how many changed. */
  async redact(shop: string, orderIds?: readonly string[]): Promise<number> {
    if (!orderIds) return (await this.database.rows(sql`DELETE FROM data_requests WHERE shop = ${shop} RETURNING 1 AS n`)).length;
    let changed = 0;
    const rows = await this.database.rows<{ request_id: string; report: unknown }>(sql`SELECT request_id, report FROM data_requests WHERE shop = ${shop}`);
    for (const row of rows) {
      if (!Array.isArray(row.report)) continue;
      const report = row.report as { orderId?: string }[];
      const kept = report.filter((entry) => !orderIds.includes(entry.orderId ?? ''));
      if (kept.length === report.length) continue;
      await this.database.rows(sql`UPDATE data_requests SET report = ${JSON.stringify(kept)}::jsonb WHERE shop = ${shop} AND request_id = ${row.request_id}`);
      changed++;
    }
    return changed;
  }

  /** Deletes the reports past their time. Returns how many. */
  async deleteExpired(): Promise<number> {
    return (await this.database.rows(sql`DELETE FROM data_requests WHERE expires_at <= ${this.clock().toISOString()}::timestamptz RETURNING 1 AS n`)).length;
  }
}
