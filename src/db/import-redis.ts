import { sql } from 'drizzle-orm';
import type { Redis } from 'ioredis';
import type { HistoryEntry, OrderLink } from '../orders/model.js';
import { normaliseTime } from '../orders/model.js';
import type { Database } from './database.js';

/**
 * Moves an install from before the database (everything in Redis under REDIS_PREFIX) into the database: order links,
 * their history and Shopify bodies, sourceOrderId owners, when each store became active, data-request reports, kept
 * unreadable postbacks and Shopify sessions. Idempotent: a second run copies nothing again (an order already in the
 * database at the same or a newer version is left as it is), so it can be run again after an interruption. With
 * `deleteCopied`, each key is deleted from Redis once its rows are in; Redis then holds only what is short-lived.
 */
export interface ImportCounts {
  orders: number;
  ordersAlreadyThere: number;
  history: number;
  bodies: number;
  sourceOrderIds: number;
  shops: number;
  sessions: number;
  dataRequests: number;
  unreadablePostbacks: number;
  deletedKeys: number;
}

export async function importFromRedis(options: { redis: Redis; prefix: string; database: Database; deleteCopied?: boolean }): Promise<ImportCounts> {
  const { redis, prefix, database } = options;
  const counts: ImportCounts = { orders: 0, ordersAlreadyThere: 0, history: 0, bodies: 0, sourceOrderIds: 0, shops: 0, sessions: 0, dataRequests: 0, unreadablePostbacks: 0, deletedKeys: 0 };
  const done: string[] = [];
  const flush = async (force = false) => {
    if (!options.deleteCopied || (done.length < 500 && !force) || done.length === 0) return;
    counts.deletedKeys += await redis.del(...done.splice(0));
  };

  for await (const key of scan(redis, `${escapeGlob(prefix)}link:*`)) {
    const raw = await redis.get(key);
    if (!raw) continue;
    const link = JSON.parse(raw) as OrderLink;
    const rows = await database.rows<{ n: number }>(sql`
      INSERT INTO orders (shop, order_id, order_name, status, status_at, source_order_id, print_order_id, created_at, updated_at, version, data)
      VALUES (${link.shop}, ${link.orderId}, ${link.orderName ?? null}, ${link.status}, ${isoOr(link.statusAt, link.updatedAt)}::timestamptz,
        ${link.sourceOrderId ?? null}, ${link.printOrderId ?? null}, ${isoOr(link.createdAt, link.updatedAt)}::timestamptz,
        ${isoOr(link.updatedAt, new Date().toISOString())}::timestamptz, ${link.version}, ${raw}::jsonb)
      ON CONFLICT (shop, order_id) DO NOTHING RETURNING 1 AS n`);
    const historyKey = `${prefix}history:${link.shop}:${link.orderId}`;
    const bodyKey = `${prefix}body:${link.shop}:${link.orderId}`;
    if (rows.length === 1) {
      counts.orders++;
      // Redis kept the history newest first; rows go in oldest first so that ids run in time order.
      const entries = (await redis.lrange(historyKey, 0, -1)).reverse().map((r) => JSON.parse(r) as HistoryEntry);
      for (const entry of entries) {
        await database.rows(sql`INSERT INTO order_history (shop, order_id, at, entry) VALUES (${link.shop}, ${link.orderId}, ${isoOr(entry.at, link.updatedAt)}::timestamptz, ${JSON.stringify(entry)}::jsonb)`);
      }
      counts.history += entries.length;
    } else {
      counts.ordersAlreadyThere++;
    }
    const [updatedAt, body] = await redis.hmget(bodyKey, 'updatedAt', 'body');
    if (updatedAt && body) {
      const saved = await database.rows(sql`
        INSERT INTO order_bodies (shop, order_id, shopify_updated_at, body) VALUES (${link.shop}, ${link.orderId}, ${normaliseTime(updatedAt)}, ${body})
        ON CONFLICT (shop, order_id) DO UPDATE SET shopify_updated_at = EXCLUDED.shopify_updated_at, body = EXCLUDED.body
        WHERE order_bodies.shopify_updated_at < EXCLUDED.shopify_updated_at RETURNING 1 AS n`);
      counts.bodies += saved.length;
    }
    done.push(key, historyKey, bodyKey);
    await flush();
  }

  for await (const key of scan(redis, `${escapeGlob(prefix)}source:*`)) {
    const member = await redis.get(key);
    if (!member) continue;
    const at = member.indexOf('|');
    const saved = await database.rows(sql`
      INSERT INTO source_order_ids (source_order_id, shop, order_id) VALUES (${key.slice(`${prefix}source:`.length)}, ${member.slice(0, at)}, ${member.slice(at + 1)})
      ON CONFLICT DO NOTHING RETURNING 1 AS n`);
    counts.sourceOrderIds += saved.length;
    done.push(key);
    await flush();
  }

  for await (const key of scan(redis, `${escapeGlob(prefix)}shop-since:*`)) {
    const since = await redis.get(key);
    if (!since) continue;
    const saved = await database.rows(sql`
      INSERT INTO shops (shop, active_since) VALUES (${key.slice(`${prefix}shop-since:`.length)}, ${since}::timestamptz)
      ON CONFLICT (shop) DO UPDATE SET active_since = EXCLUDED.active_since WHERE shops.active_since IS NULL RETURNING 1 AS n`);
    counts.shops += saved.length;
    done.push(key);
    await flush();
  }

  for await (const key of scan(redis, `${escapeGlob(prefix)}data-request:*`)) {
    const [raw, ttl] = await Promise.all([redis.get(key), redis.ttl(key)]);
    if (!raw) continue;
    const rest = key.slice(`${prefix}data-request:`.length);
    const cut = rest.lastIndexOf(':');
    const expires = new Date(Date.now() + Math.max(ttl, 3600) * 1000).toISOString();
    const saved = await database.rows(sql`
      INSERT INTO data_requests (shop, request_id, report, expires_at) VALUES (${rest.slice(0, cut)}, ${rest.slice(cut + 1)}, ${raw}::jsonb, ${expires}::timestamptz)
      ON CONFLICT DO NOTHING RETURNING 1 AS n`);
    counts.dataRequests += saved.length;
    done.push(key);
    await flush();
  }

  const unreadableKey = `${prefix}postbacks:unreadable`;
  for (const raw of (await redis.lrange(unreadableKey, 0, -1)).reverse()) {
    const entry = JSON.parse(raw) as { id: string; receivedAt: string; headers: Record<string, string>; body: string; error: string };
    const saved = await database.rows(sql`
      INSERT INTO unreadable_postbacks (id, received_at, headers, body, error)
      VALUES (${entry.id}, ${isoOr(entry.receivedAt, new Date().toISOString())}::timestamptz, ${JSON.stringify(entry.headers ?? {})}::jsonb, ${entry.body}, ${entry.error})
      ON CONFLICT DO NOTHING RETURNING 1 AS n`);
    counts.unreadablePostbacks += saved.length;
  }
  done.push(unreadableKey);

  // Shopify's Redis session storage: `<prefix>shopify-session_<session id>` holds the property array.
  const sessionHead = `${prefix}shopify-session_`;
  for await (const key of scan(redis, `${escapeGlob(sessionHead)}offline_*`)) {
    const raw = await redis.get(key);
    if (!raw) continue;
    const properties = Object.fromEntries(JSON.parse(raw) as [string, unknown][]) as Record<string, unknown>;
    if (typeof properties.shop !== 'string' || typeof properties.id !== 'string') continue;
    const saved = await database.rows(sql`
      INSERT INTO shopify_sessions (id, shop, is_online, session) VALUES (${properties.id}, ${properties.shop}, 0, ${JSON.stringify(properties)}::jsonb)
      ON CONFLICT DO NOTHING RETURNING 1 AS n`);
    counts.sessions += saved.length;
    done.push(key, `${sessionHead}${properties.shop}`);
    await flush();
  }
  // The old sorted-set indexes only pointed at the links.
  if (options.deleteCopied) done.push(`${prefix}index:updated`, ...(await collect(scan(redis, `${escapeGlob(prefix)}index:status:*`))));
  await flush(true);
  return counts;
}

async function* scan(redis: Redis, pattern: string): AsyncGenerator<string> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    yield* new Set(keys);
  } while (cursor !== '0');
}

async function collect(keys: AsyncGenerator<string>): Promise<string[]> {
  const all: string[] = [];
  for await (const key of keys) all.push(key);
  return all;
}

function escapeGlob(value: string): string {
  return value.replace(/[*?[\]\\]/g, '\\$&');
}

function isoOr(value: string | undefined, fallback: string): string {
  return value && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : fallback;
}
