import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresOrderStore } from '../../src/storage/order-store.js';
import { testDatabase } from '../helpers/database.js';
import { testRedis } from '../helpers/redis.js';
import { startAdminApp } from './admin-app.js';

/**
 * Order-list filters: a cursor of "1" or of the year 275760, and the dates 0000-01-01 or 2026-02-30, answered 500
 * (PostgreSQL refused what Date.parse had accepted). Each is refused at the route with 400 and a reason naming the
 * parameter; what the list's own form and links send keeps working.
 */
const SHOP = 'filters.myshopify.com';
const cursorOf = (time: string) => Buffer.from(JSON.stringify([time, SHOP, 'gid://shopify/Order/1'])).toString('base64url');

describe('order-list filters are read at the route', () => {
  const { redis, prefix, cleanup: cleanupRedis } = testRedis('order-filters');
  let cleanupDb: () => Promise<void>;
  let app: Awaited<ReturnType<typeof startAdminApp>>;
  beforeAll(async () => {
    const { database, cleanup } = await testDatabase('order_filters');
    cleanupDb = cleanup;
    const store = new PostgresOrderStore({ database, redis, prefix });
    for (let i = 0; i < 30; i++) {
      const orderId = `gid://shopify/Order/${100 + i}`;
      await store.update(SHOP, orderId, () => ({ link: { ...store.blank(SHOP, orderId), orderName: `#F${100 + i}` } }));
    }
    app = await startAdminApp(store);
  });
  afterAll(async () => {
    await app?.close();
    await cleanupDb?.();
    await cleanupRedis();
  });

  const refused = async (query: string, parameter: string) => {
    const response = await app.operator.get(`/admin?${query}`);
    const body = await response.text();
    expect(response.status, query).toBe(400);
    expect(body, query).toContain(`${parameter}: `);
    return body;
  };

  it('answers 400 naming the cursor for a cursor of "1", and of the time "1" or the year 275760', async () => {
    expect(await refused('cursor=1', 'cursor')).toContain('open the list again from its first page');
    await refused(`cursor=${cursorOf('1')}`, 'cursor');
    await refused(`cursor=${cursorOf('+275760-09-13T00:00:00.000Z')}`, 'cursor');
    await refused(`cursor=${cursorOf('2026-02-30T00:00:00.000000Z')}`, 'cursor');
  });

  it('answers 400 naming the date for 0000-01-01 and 2026-02-30', async () => {
    expect(await refused('from=0000-01-01', 'from')).toContain('must be a real date written YYYY-MM-DD');
    await refused('to=2026-02-30', 'to');
    await refused('from=2026-02-30&to=0000-01-01', 'to');
    await refused('from=yesterday', 'from');
  });

  it('keeps what the list itself sends working: empty fields, its own next-page link, the last and first days there are', async () => {
    const names = (page: string) => [...page.matchAll(/>(#F\d{3})</g)].map((m) => m[1]);
    const first = await app.operator.page('/admin?q=&from=&to=&cursor=');
    expect(names(first)).toHaveLength(25);
    const next = /href="([^"]*cursor=[^"]+)"/.exec(first)![1]!.replaceAll('&#38;', '&');
    expect(names(await app.operator.page(next))).toHaveLength(5);
    expect(names(await app.operator.page('/admin?from=0001-01-01&to=9999-12-31'))).toHaveLength(25);
    expect(names(await app.operator.page('/admin?to=2024-02-29'))).toEqual([]);
  });
});
