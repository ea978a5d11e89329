import { afterAll, describe, expect, it } from 'vitest';
import { OrderStore } from '../../src/bridge/order-store.js';
import { testRedis } from '../helpers/redis.js';

const { redis, prefix, cleanup } = testRedis('order-store');
afterAll(cleanup);
const store = new OrderStore(redis, prefix);
const SHOP = 'acme.myshopify.com';

describe('OrderStore', () => {
  it('creates, updates and indexes a link with its history', async () => {
    const orderId = 'gid://shopify/Order/9007199254740993';
    const first = await store.update(SHOP, orderId, (current) => {
      expect(current).toBeUndefined();
      return { link: { ...store.blank(SHOP, orderId), orderName: '#1001' }, history: [{ event: 'orders/paid received', source: 'shopify' }] };
    });
    expect(first.changed).toBe(true);
    expect(first.link).toMatchObject({ version: 1, status: 'pending', orderName: '#1001' });

    await store.update(SHOP, orderId, (current) => ({
      link: { ...current!, status: 'submitted', statusAt: new Date().toISOString(), sourceOrderId: 'acme-1001', printOrderId: 'ab'.repeat(12) },
      history: [{ event: 'submitted', source: 'worker', status: 'submitted' }],
    }));
    const stored = await store.get(SHOP, orderId);
    expect(stored).toMatchObject({ version: 2, status: 'submitted', sourceOrderId: 'acme-1001' });
    expect((await store.findBySourceOrderId('acme-1001'))?.orderId).toBe(orderId);
    expect((await store.history(SHOP, orderId)).map((h) => h.event)).toEqual(['submitted', 'orders/paid received']);

    const submitted = await store.list({ status: 'submitted' });
    expect(submitted.links.map((l) => l.orderId)).toEqual([orderId]);
    expect((await store.list({ status: 'pending' })).total).toBe(0);
    expect(await store.countByStatus(['pending', 'submitted'])).toEqual({ pending: 0, submitted: 1 });
  });

  it('changes nothing when the mutation says so', async () => {
    const orderId = 'gid://shopify/Order/2';
    await store.update(SHOP, orderId, () => ({ link: store.blank(SHOP, orderId) }));
    const result = await store.update(SHOP, orderId, () => undefined);
    expect(result).toMatchObject({ changed: false, link: { version: 1 } });
  });

  it('never loses an update under concurrency', async () => {
    const orderId = 'gid://shopify/Order/3';
    await store.update(SHOP, orderId, () => ({ link: store.blank(SHOP, orderId) }));
    await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        store.update(SHOP, orderId, (current) => ({
          link: { ...current!, problems: [...current!.problems, { kind: 'test', message: String(i), at: '' }] },
        })),
      ),
    );
    const link = await store.get(SHOP, orderId);
    expect(link?.problems).toHaveLength(25);
    expect(link?.version).toBe(26);
  });

  it('keeps only the newest order body by updated_at, across time zones', async () => {
    const orderId = 'gid://shopify/Order/4';
    expect(await store.saveOrderBody(SHOP, orderId, '2026-11-21T10:00:00-04:00', '{"v":2}')).toBe(true);
    // 13:00Z is earlier than 14:00Z even though "13" > "10" would sort the other way as text with offsets.
    expect(await store.saveOrderBody(SHOP, orderId, '2026-11-21T13:00:00Z', '{"v":1}')).toBe(false);
    expect(await store.saveOrderBody(SHOP, orderId, '2026-11-21T10:00:00-04:00', '{"v":2}')).toBe(false);
    expect(await store.saveOrderBody(SHOP, orderId, '2026-11-21T15:00:00+01:00', '{"v":0}')).toBe(false);
    expect(await store.saveOrderBody(SHOP, orderId, '2026-11-21T14:00:01Z', '{"v":3}')).toBe(true);
    expect(await store.getOrderBody(SHOP, orderId)).toEqual({ updatedAt: '2026-11-21T14:00:01.000Z', body: '{"v":3}' });
  });

  it('remembers webhook ids', async () => {
    expect(await store.markWebhookSeen('wh-1')).toBe(true);
    expect(await store.markWebhookSeen('wh-1')).toBe(false);
    expect(await store.isWebhookSeen('wh-1')).toBe(true);
    expect(await store.isWebhookSeen('wh-2')).toBe(false);
    expect(await redis.ttl(`${prefix}webhook:wh-1`)).toBeGreaterThan(7 * 24 * 3600);
  });

  it('finds the orders of a shop and deletes one completely', async () => {
    const other = 'other.myshopify.com';
    await store.update(other, 'gid://shopify/Order/10', () => ({
      link: { ...store.blank(other, 'gid://shopify/Order/10'), sourceOrderId: 'other-10' },
      history: [{ event: 'x', source: 'shopify' }],
    }));
    await store.saveOrderBody(other, 'gid://shopify/Order/10', '2026-11-21T00:00:00Z', '{}');
    expect(await store.orderIdsOfShop(other)).toEqual(['gid://shopify/Order/10']);
    await store.deleteOrder(other, 'gid://shopify/Order/10');
    expect(await store.get(other, 'gid://shopify/Order/10')).toBeUndefined();
    expect(await store.getOrderBody(other, 'gid://shopify/Order/10')).toBeUndefined();
    expect(await store.findBySourceOrderId('other-10')).toBeUndefined();
    expect(await store.history(other, 'gid://shopify/Order/10')).toEqual([]);
    expect(await store.orderIdsOfShop(other)).toEqual([]);
  });

  it('keeps a lease only for its holder: renewed while held, lost once it ran out and another job took it', async () => {
    const order = 'gid://shopify/Order/77';
    const token = (await store.tryLease('lease.myshopify.com', order, 150))!;
    expect(token).toBeDefined();
    expect(await store.tryLease('lease.myshopify.com', order, 150)).toBeUndefined();
    expect(await store.renewLease('lease.myshopify.com', order, token, 150)).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    const other = await store.tryLease('lease.myshopify.com', order, 5_000);
    expect(other).toBeDefined();
    expect(await store.renewLease('lease.myshopify.com', order, token, 5_000)).toBe(false);
    await store.releaseLease('lease.myshopify.com', order, token);
    expect(await store.tryLease('lease.myshopify.com', order, 5_000)).toBeUndefined();
    await store.releaseLease('lease.myshopify.com', order, other!);
  });
});
