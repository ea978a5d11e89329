import { sql } from 'drizzle-orm';
import type { Database, RowsOptions } from '../db/database.js';
import type { OrderLink } from '../orders/model.js';
import type { OrderStatus } from '../orders/status.js';

/**
 * The orders as lists: the admin pages' lists, search and counts, and the orders quiet in a status (reconciliation).
 * Reads only; PostgresOrderStore (order-store.ts) adds the writes.
 */

export interface OrderSearch {
  shop?: string;
  status?: OrderStatus;
  /** Orders last changed at or after / before these ISO times. */
  from?: string;
  to?: string;
  /** An order name (`#1001` or `1001`), a sourceOrderId or a print `_id`, exact. */
  q?: string;
  /** `next` of the page before. */
  cursor?: string;
  limit?: number;
}

export class OrderLists {
  constructor(protected readonly database: Database) {}

  protected rows<T extends Record<string, unknown>>(query: ReturnType<typeof sql>, options?: RowsOptions): Promise<T[]> {
    return this.database.rows<T>(query, options);
  }

  /** Newest first (by last change; in a status, by when the order entered it). */
  async list(options: { status?: OrderStatus; offset?: number; limit?: number } = {}): Promise<{ total: number; links: OrderLink[] }> {
    return this.listWhere(options.status ? sql`status = ${options.status}` : sql`true`, options);
  }

  /** One shop's orders, newest first (the embedded admin pages). */
  async listOfShop(shop: string, options: { status?: OrderStatus; offset?: number; limit?: number } = {}): Promise<{ total: number; links: OrderLink[] }> {
    return this.listWhere(options.status ? sql`shop = ${shop} AND status = ${options.status}` : sql`shop = ${shop}`, options);
  }

  /**
   * Orders still under way that carry a postback the print service did not confirm (`unconfirmed-postback`), newest
   * change first. Waiting, held and errored orders are listed by their status already, with all their problems; a
   * finished order (shipped, cancelled, not printed) is past anything the claim could have changed.
   */
  async listUnconfirmedPostbacks(options: { shop?: string; limit?: number } = {}): Promise<{ total: number; links: OrderLink[] }> {
    return this.listWhere(unconfirmedPostbacks(options.shop), { limit: options.limit });
  }

  async countUnconfirmedPostbacks(shop?: string): Promise<number> {
    const [row] = await this.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM orders WHERE ${unconfirmedPostbacks(shop)}`);
    return row?.n ?? 0;
  }

  private async listWhere(where: ReturnType<typeof sql>, options: { status?: OrderStatus; offset?: number; limit?: number }): Promise<{ total: number; links: OrderLink[] }> {
    const order = options.status ? sql`status_at DESC, shop DESC, order_id DESC` : sql`updated_at DESC, shop DESC, order_id DESC`;
    const [counted, rows] = await Promise.all([
      this.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM orders WHERE ${where}`),
      this.rows<{ data: OrderLink }>(sql`SELECT data FROM orders WHERE ${where} ORDER BY ${order} LIMIT ${options.limit ?? 50} OFFSET ${options.offset ?? 0}`),
    ]);
    return { total: counted[0]?.n ?? 0, links: rows.map((r) => r.data) };
  }

  /**
   * The admin order list: filters by store, status and time of last change, finds an order by name, sourceOrderId or
   * print `_id`, newest change first, a page at a time with a cursor (stable while orders change: keyset, no offset).
   */
  async search(options: OrderSearch = {}): Promise<{ links: OrderLink[]; next?: string }> {
    const limit = Math.min(Math.max(options.limit ?? 50, 1), 200);
    const where = [sql`true`];
    if (options.shop) where.push(sql`shop = ${options.shop}`);
    if (options.status) where.push(sql`status = ${options.status}`);
    if (options.from) where.push(sql`updated_at >= ${options.from}::timestamptz`);
    if (options.to) where.push(sql`updated_at < ${options.to}::timestamptz`);
    const q = options.q?.trim();
    if (q) {
      const name = q.startsWith('#') ? q : `#${q}`;
      // Each alternative has its own index (a bitmap OR); an order gid is found through its page, not here.
      where.push(sql`(order_name = ${q} OR order_name = ${name} OR source_order_id = ${q} OR print_order_id = ${q})`);
    }
    const after = decodeCursor(options.cursor);
    if (after) where.push(sql`(updated_at, shop, order_id) < (${after.updatedAt}::timestamptz, ${after.shop}, ${after.orderId})`);
    const rows = await this.rows<{ data: OrderLink; cursor_at: string }>(sql`
      SELECT data, to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at FROM orders
      WHERE ${sql.join(where, sql` AND `)}
      ORDER BY updated_at DESC, shop DESC, order_id DESC LIMIT ${limit + 1}`);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      links: page.map((r) => r.data),
      next: rows.length > limit && last ? encodeCursor({ updatedAt: last.cursor_at, shop: last.data.shop, orderId: last.data.orderId }) : undefined,
    };
  }

  async countByStatusOfShop(shop: string, statuses: readonly OrderStatus[]): Promise<Record<string, number>> {
    return this.countWhere(sql`shop = ${shop}`, statuses);
  }

  async countByStatus(statuses: readonly OrderStatus[]): Promise<Record<string, number>> {
    return this.countWhere(sql`true`, statuses);
  }

  private async countWhere(where: ReturnType<typeof sql>, statuses: readonly OrderStatus[]): Promise<Record<string, number>> {
    const rows = await this.rows<{ status: string; n: number }>(
      sql`SELECT status, count(*)::int AS n FROM orders WHERE ${where} AND status IN (SELECT jsonb_array_elements_text(${JSON.stringify(statuses)}::jsonb)) GROUP BY status`,
    );
    const counts = Object.fromEntries(statuses.map((s) => [s, 0])) as Record<string, number>;
    for (const row of rows) counts[row.status] = row.n;
    return counts;
  }

  /** Orders in a status since before `beforeMs` (oldest first): candidates for a check with the print service. */
  async listQuietSince(status: OrderStatus, beforeMs: number, limit: number, offset = 0): Promise<OrderLink[]> {
    const rows = await this.rows<{ data: OrderLink }>(sql`
      SELECT data FROM orders WHERE status = ${status} AND status_at <= ${new Date(beforeMs).toISOString()}::timestamptz
      ORDER BY status_at, shop, order_id LIMIT ${limit} OFFSET ${offset}`);
    return rows.map((r) => r.data);
  }
}

interface Cursor {
  updatedAt: string;
  shop: string;
  orderId: string;
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.updatedAt, cursor.shop, cursor.orderId])).toString('base64url');
}

/** The time in a cursor, exactly as `search` writes it (to_char … 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'). */
const CURSOR_TIME = /^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{6}Z$/;
const CURSOR_CHARS = 500;

/** A real calendar day written YYYY-MM-DD, years 0001–9999: one PostgreSQL takes (it has no year 0). */
export function isCalendarDay(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31);
}

/**
 * The cursor, when it is one `search` made: its time in that exact form and a real day PostgreSQL takes (what
 * `Date.parse` accepts is wider: `1`, `+275760-09-13T00:00:00.000Z` or 30 February reached the query and made it fail).
 */
function decodeCursor(value: string | undefined): Cursor | undefined {
  if (!value || value.length > CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(value)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3 || !parsed.every((p) => typeof p === 'string' && p.length > 0)) return undefined;
  const [updatedAt, shop, orderId] = parsed as [string, string, string];
  return CURSOR_TIME.test(updatedAt) && isCalendarDay(updatedAt.slice(0, 10)) ? { updatedAt, shop, orderId } : undefined;
}

/** Whether `value` is a cursor of the order list (the route refuses any other with 400). */
export function isOrderCursor(value: string): boolean {
  return decodeCursor(value) !== undefined;
}

/** The predicate of orders_unconfirmed_postback_idx (src/db/schema.ts), written the same so the planner uses it. */
function unconfirmedPostbacks(shop: string | undefined): ReturnType<typeof sql> {
  const live = sql`data -> 'problems' @> '[{"kind":"unconfirmed-postback"}]'::jsonb AND status NOT IN ('waiting', 'held', 'error', 'shipped', 'cancelled', 'not-printed')`;
  return shop ? sql`${live} AND shop = ${shop}` : live;
}
