import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import type { Redis } from 'ioredis';
import { PREPARED, type Database } from '../db/database.js';
import { blankOrder, claimNamespace, ENV_NAMESPACE, type HistoryEntry, type Mutation, type OrderLink } from '../orders/model.js';
import { DataRequests } from './data-requests.js';
import type { OrderStore, PrintIdScope } from '../bridge/ports.js';
import type { OrderStatus } from '../orders/status.js';
import { UnreadablePostbacks, type UnreadablePostback } from './unreadable-postbacks.js';
import { ShortLivedRecords } from './short-lived-records.js';
import { HISTORY_LIMIT, OrderHistory } from './order-history.js';
import { OrderBodies } from './order-bodies.js';
import { SourceOrderIds } from './source-order-ids.js';
import { ShopActivity } from './shop-activity.js';
import { boundedHistoryEntry, boundedLink } from './recorded-text.js';

export type { UnreadablePostback } from './unreadable-postbacks.js';
export { UNREADABLE_BODY_LIMIT, UNREADABLE_POSTBACKS_LIMIT, UnreadablePostbacks } from './unreadable-postbacks.js';
export { HISTORY_LIMIT } from './order-history.js';
export { RECORDED_TEXT_LIMIT, recordedText } from '../orders/recorded-text.js';

/**
 * The order link store: for every Shopify order the app has seen, the link to its print order (sourceOrderId,
 * print `_id`), its shipments with the Shopify line items in each and their fulfillments, its status, the reasons
 * shown to the merchant, and its history. PostgreSQL (or the embedded PGlite) is the system of record; Redis holds only
 * what is short-lived (leases, webhook ids, bodies between intake and worker), so web and worker stay stateless.
 *
 * Writes are compare-and-set on the order's version inside one statement: the row is written only if its version is
 * still the one read, with its history and its sourceOrderId claim, so two workers never both apply one transition.
 *
 * What else the store keeps has a module of its own, which this class passes the calls to: the history
 * (order-history.ts), the Shopify bodies (order-bodies.ts), the sourceOrderId claims (source-order-ids.ts) and when each
 * store became active (shop-activity.ts). What lives in Redis comes from its base class (short-lived-records.ts).
 */

export class OrderStoreConflictError extends Error {
  readonly retryable = true;
  constructor(shop: string, orderId: string) {
    super(`Order ${orderId} of ${shop} kept changing under concurrent updates; the job will retry.`);
    this.name = 'OrderStoreConflictError';
  }
}

export interface OrderStoreOptions {
  database: Database;
  redis: Redis;
  prefix: string;
  clock?: () => Date;
}

export class PostgresOrderStore extends ShortLivedRecords implements OrderStore {
  private readonly clock: () => Date;
  private readonly historyLog: OrderHistory;
  private readonly bodies: OrderBodies;
  private readonly claims: SourceOrderIds;
  private readonly activity: ShopActivity;

  constructor(options: OrderStoreOptions) {
    super(options);
    this.clock = options.clock ?? (() => new Date());
    this.historyLog = new OrderHistory(options.database, this.clock);
    this.bodies = new OrderBodies(options.database, this.clock);
    this.claims = new SourceOrderIds(options.database);
    this.activity = new ShopActivity(options.database, this.clock);
  }

  async get(shop: string, orderId: string): Promise<OrderLink | undefined> {
    const [row] = await this.rows<{ data: OrderLink }>(sql`SELECT data FROM orders WHERE shop = ${shop} AND order_id = ${orderId}`, PREPARED);
    return row?.data;
  }

  /** A new record for an order seen for the first time. */
  blank(shop: string, orderId: string): OrderLink {
    return blankOrder(shop, orderId, this.clock());
  }

  /**
   * Reads, lets `mutate` decide, and writes only if nobody wrote in between; otherwise reads again. `mutate` returns
   * undefined to change nothing. Returns the stored link (new or unchanged).
   */
  async update(
    shop: string,
    orderId: string,
    mutate: (current: OrderLink | undefined) => Mutation | undefined,
    /**
     * The link as the caller last read or wrote it: tried first instead of a read (issue 17: one statement less per
     * step). Only a write can rely on it (the compare-and-set proves it current); a "nothing to do" on it is checked
     * again on a fresh read.
     */
    known?: OrderLink | null,
  ): Promise<{ link: OrderLink | undefined; changed: boolean }> {
    // null: the caller read no such order just now; the insert is tried on that (a lost race reads again).
    let guess: OrderLink | null | undefined = known === null ? null : known && known.shop === shop && known.orderId === orderId ? known : undefined;
    let lost = false;
    for (let attempt = 0; attempt < 50; attempt++) {
      // Contenders that lost spread out instead of colliding again on the next read.
      if (lost) await sleep(Math.random() * Math.min(50, 2 * attempt));
      const current = guess === null ? undefined : (guess ?? (await this.get(shop, orderId)));
      const guessed = guess !== undefined;
      guess = undefined;
      const mutation = mutate(current ? structuredClone(current) : undefined);
      if (!mutation) {
        if (guessed) continue;
        return { link: current, changed: false };
      }
      const now = this.clock();
      // Text from outside (hold notes, the printer's errors) is bounded here, whichever use case recorded it.
      const link: OrderLink = boundedLink({ ...mutation.link, shop, orderId, updatedAt: now.toISOString(), version: (current?.version ?? 0) + 1 });
      if (await this.write(current?.version ?? 0, link, (mutation.history ?? []).map(boundedHistoryEntry), now)) return { link, changed: true };
      lost = true;
    }
    throw new OrderStoreConflictError(shop, orderId);
  }

  private async write(expected: number, link: OrderLink, history: Omit<HistoryEntry, 'at'>[], now: Date): Promise<boolean> {
    const at = now.toISOString();
    const statusAt = Number.isNaN(Date.parse(link.statusAt)) ? at : new Date(link.statusAt).toISOString();
    const entries = JSON.stringify(history.map((h) => ({ at, ...h })));
    const data = JSON.stringify(link);
    const columns = sql`${link.orderName ?? null}, ${link.status}, ${statusAt}::timestamptz, ${link.sourceOrderId ?? null}, ${link.printOrderId ?? null}`;
    const written =
      expected === 0
        ? sql`INSERT INTO orders (shop, order_id, order_name, status, status_at, source_order_id, print_order_id, created_at, updated_at, version, data)
              VALUES (${link.shop}, ${link.orderId}, ${columns}, ${link.createdAt}::timestamptz, ${at}::timestamptz, ${link.version}, ${data}::jsonb)
              ON CONFLICT DO NOTHING RETURNING shop, order_id`
        : sql`UPDATE orders SET (order_name, status, status_at, source_order_id, print_order_id, updated_at, version, data)
              = (${columns}, ${at}::timestamptz, ${link.version}, ${data}::jsonb)
              WHERE shop = ${link.shop} AND order_id = ${link.orderId} AND version = ${expected} RETURNING shop, order_id`;
    // One statement: the row, its history and its sourceOrderId claim are written together or not at all. A
    // sourceOrderId belongs to the first order that claimed it (claimSourceOrderId): never taken over here.
    const [row] = await this.rows<{ n: number }>(sql`
      WITH written AS (${written}),
      history AS (
        INSERT INTO order_history (shop, order_id, at, entry)
        SELECT w.shop, w.order_id, ${at}::timestamptz, e.entry
        FROM written w, jsonb_array_elements(${entries}::jsonb) WITH ORDINALITY AS e(entry, n) ORDER BY e.n
      ),
      claim AS (
        INSERT INTO source_order_ids (namespace, source_order_id, shop, order_id)
        SELECT ${claimNamespace(link.shop, link.printAccount)}, ${link.sourceOrderId ?? null}::text, w.shop, w.order_id FROM written w WHERE ${link.sourceOrderId ?? null}::text IS NOT NULL
        ON CONFLICT DO NOTHING
      )
      SELECT count(*)::int AS n FROM written`, PREPARED);
    const ok = (row?.n ?? 0) === 1;
    // A long-lived order's history is cut back now and then, never on every write.
    if (ok && history.length > 0 && link.version % 25 === 0) await this.historyLog.trim(link.shop, link.orderId);
    return ok;
  }

  /** Newest first. */
  async history(shop: string, orderId: string, limit = HISTORY_LIMIT): Promise<HistoryEntry[]> {
    return this.historyLog.list(shop, orderId, limit);
  }

  /** Every history detail of the order replaced by `marker` (customers/redact). Returns how many. */
  async redactHistory(shop: string, orderId: string, marker: string): Promise<number> {
    return this.historyLog.redactDetails(shop, orderId, marker);
  }

  /** Adds a history entry without changing the link (e.g. an operator action that changed nothing). */
  async note(shop: string, orderId: string, entry: Omit<HistoryEntry, 'at'>): Promise<void> {
    await this.historyLog.note(shop, orderId, boundedHistoryEntry(entry));
  }

  /**
   * Claims a sourceOrderId for one order before it is sent, on the print account it goes out with (`namespace`, see
   * `claimNamespace`): the first order to claim it there owns it, and the same order claiming again is fine. Another
   * order's claim on the same account is refused with the owner, so two orders never share one print order, nor each
   * other's postbacks; a claim on another account is no obstacle (the printer keeps ids per account). An owner whose
   * link is gone (redacted) no longer holds it.
   */
  async claimSourceOrderId(
    shop: string,
    orderId: string,
    sourceOrderId: string,
    namespace: string = ENV_NAMESPACE,
  ): Promise<{ ok: true } | { ok: false; owner: { shop: string; orderId: string } }> {
    const claim = await this.claims.claim(shop, orderId, sourceOrderId, namespace);
    if (claim) return claim;
    throw new OrderStoreConflictError(shop, orderId);
  }

  /**
   * The order that owns a sourceOrderId. `scope` is the store a postback token speaks for: its own account's claims
   * first, then its orders on the operator's account. Without it (the operator-wide token) only the operator's
   * account is searched: a store's own-account ids are never found through it.
   */
  async findBySourceOrderId(sourceOrderId: string, scope?: string): Promise<OrderLink | undefined> {
    return this.claims.find(sourceOrderId, scope);
  }

  async findByPrintOrderId(printOrderId: string, scope?: PrintIdScope): Promise<OrderLink | undefined> {
    if (scope) {
      const within = scope === 'env-account' ? sql`coalesce(data->>'printAccount', 'env') = 'env'` : sql`shop = ${scope.shop}`;
      const [own] = await this.rows<{ data: OrderLink }>(sql`SELECT data FROM orders WHERE print_order_id = ${printOrderId} AND ${within} ORDER BY created_at LIMIT 1`);
      if (own) return own.data;
    }
    const [row] = await this.rows<{ data: OrderLink }>(sql`SELECT data FROM orders WHERE print_order_id = ${printOrderId} ORDER BY created_at LIMIT 1`);
    return row?.data;
  }

  /** Kept for callers of the Redis store: the print `_id` is a column of the order, indexed by every write. */
  async indexPrintOrderId(_link: OrderLink): Promise<void> {}

  /** Keeps the newest version of a Shopify order body by `updated_at`; returns whether this one was newer. */
  async saveOrderBody(shop: string, orderId: string, updatedAt: string, rawBody: string): Promise<boolean> {
    return this.bodies.save(shop, orderId, updatedAt, rawBody);
  }

  async saveOrderBodyAndRead(shop: string, orderId: string, updatedAt: string, rawBody: string): Promise<{ newest: boolean; link: OrderLink | null }> {
    return this.bodies.saveAndRead(shop, orderId, updatedAt, rawBody);
  }

  /** The newest body, unless retention has cut it. */
  async getOrderBody(shop: string, orderId: string): Promise<{ updatedAt: string; body: string } | undefined> {
    return this.bodies.get(shop, orderId);
  }

  /** Deletes the stored Shopify order body, which holds the customer's personal data. */
  async deleteOrderBody(shop: string, orderId: string): Promise<void> {
    await this.bodies.delete(shop, orderId);
  }

  /**
   * Retention: cuts the full Shopify body of orders the printer finished with (shipped, cancelled, not printed) more
   * than `days` ago. The link (what the pages and the reconciliation read) and the history stay. Returns how many.
   */
  async reduceFinishedBodies(days: number, finished: readonly OrderStatus[], batch = 1000): Promise<number> {
    return this.bodies.reduceFinished(days, finished, batch);
  }

  /**
   * Records when the app first handled an order of this shop (kept if already set): the lost-order recovery never
   * reaches back before it, so orders from before the install are never sent to the printer.
   */
  async markShopActive(shop: string): Promise<void> {
    await this.activity.mark(shop);
  }

  async shopActiveSince(shop: string): Promise<string | undefined> {
    return this.activity.since(shop);
  }

  /** Uninstalled: orders placed until a reinstall are not this app's to recover. */
  async forgetShopActive(shop: string): Promise<void> {
    await this.activity.forget(shop);
  }

  /** shop/redact: the store's `shops` row goes too. */
  async removeShop(shop: string): Promise<void> {
    await this.activity.remove(shop);
  }

  dataRequests(): DataRequests {
    return new DataRequests(this.database, this.clock);
  }

  /** Keeps the answer to a customer data request for the merchant and the operator (30 days). */
  async saveDataRequest(shop: string, requestId: string, report: unknown): Promise<void> {
    await this.dataRequests().save(shop, requestId, report);
  }

  async getDataRequest(shop: string, requestId: string): Promise<unknown> {
    return this.dataRequests().get(shop, requestId);
  }

  /** Data-request reports of the shop (shop/redact), or the entries of these orders in them (customers/redact). */
  async redactDataRequests(shop: string, orderIds?: readonly string[]): Promise<number> {
    return this.dataRequests().redact(shop, orderIds);
  }

  /** Every order of a shop (for redaction and uninstall). */
  async orderIdsOfShop(shop: string): Promise<string[]> {
    const rows = await this.rows<{ order_id: string }>(sql`SELECT order_id FROM orders WHERE shop = ${shop} ORDER BY order_id`);
    return rows.map((r) => r.order_id);
  }

  /** Postbacks that could not be understood, kept for an operator (admin pages). */
  unreadablePostbacks(): UnreadablePostbacks {
    return new UnreadablePostbacks(this.database, this.clock);
  }

  async keepUnreadablePostback(entry: Omit<UnreadablePostback, 'id'>): Promise<UnreadablePostback> {
    return this.unreadablePostbacks().keep(entry);
  }

  async listUnreadablePostbacks(options: { offset?: number; limit?: number } = {}): Promise<{ total: number; entries: UnreadablePostback[] }> {
    return this.unreadablePostbacks().list(options);
  }

  async countUnreadablePostbacks(): Promise<number> {
    return this.unreadablePostbacks().count();
  }

  async removeUnreadablePostback(id: string): Promise<boolean> {
    return this.unreadablePostbacks().remove(id);
  }

  /** Removes every trace of an order (shop redaction). */
  async deleteOrder(shop: string, orderId: string): Promise<void> {
    await this.rows(sql`
      WITH o AS (DELETE FROM orders WHERE shop = ${shop} AND order_id = ${orderId} RETURNING 1),
      b AS (DELETE FROM order_bodies WHERE shop = ${shop} AND order_id = ${orderId} RETURNING 1),
      h AS (DELETE FROM order_history WHERE shop = ${shop} AND order_id = ${orderId} RETURNING 1),
      s AS (DELETE FROM source_order_ids WHERE shop = ${shop} AND order_id = ${orderId} RETURNING 1)
      SELECT (SELECT count(*) FROM o)::int AS n`);
  }
}
