import { afterAll, describe, expect, it } from 'vitest';
import type { OrderStore } from '../../src/bridge/ports.js';
import { PostgresOrderStore } from '../../src/storage/order-store.js';
import { claimNamespace } from '../../src/orders/model.js';
import { lazyTestDatabase } from '../helpers/database.js';
import { MemoryOrderStore } from '../helpers/memory-order-store.js';
import { testRedis } from '../helpers/redis.js';

/**
 * The use cases' OrderStore port (src/bridge/ports.ts), held to one contract on both implementations: the PostgreSQL
 * store the app runs on and the in-memory one use-case tests run on (test/bridge/pipeline-use-cases.test.ts). A use
 * case that passes on the memory store relies on nothing the real one does not do.
 */
const { redis, prefix, cleanup: cleanupRedis } = testRedis('order-store-contract');
const pg = lazyTestDatabase('order_store_contract');
afterAll(async () => {
  await pg.cleanup();
  await cleanupRedis();
});

let n = 0;
const ids = () => {
  n += 1;
  return { shop: `contract-${n}.myshopify.com`, orderId: `gid://shopify/Order/${9_007_199_254_740_000 + n}` };
};

describe.each([
  ['PostgresOrderStore', (): OrderStore => new PostgresOrderStore({ database: pg.database, redis, prefix: `${prefix}${n}:` })],
  ['MemoryOrderStore', (): OrderStore => new MemoryOrderStore()],
] as const)('%s', (_name, make) => {
  const store = make();

  it('writes a new order once, then only over the version it read (compare-and-set)', async () => {
    const { shop, orderId } = ids();
    const created = await store.update(shop, orderId, (current) => (current ? undefined : { link: { ...store.blank(shop, orderId), orderName: '#1' }, history: [{ event: 'seen', source: 'shopify' }] }));
    expect(created).toMatchObject({ changed: true, link: { version: 1, orderName: '#1', status: 'pending' } });
    // A stale `known` is tried first and loses; the mutation runs again on what is stored.
    const stale = created.link!;
    await store.update(shop, orderId, (current) => ({ link: { ...current!, status: 'submitting' }, history: [{ event: 'submitting', source: 'worker' }] }));
    const seen: number[] = [];
    const second = await store.update(
      shop,
      orderId,
      (current) => {
        seen.push(current!.version);
        return { link: { ...current!, status: 'submitted' }, history: [{ event: 'submitted', source: 'worker' }] };
      },
      stale,
    );
    expect(seen).toEqual([1, 2]);
    expect(second.link).toMatchObject({ version: 3, status: 'submitted' });
    // Nothing to do: nothing written.
    expect(await store.update(shop, orderId, () => undefined)).toMatchObject({ changed: false, link: { version: 3 } });
    expect((await store.history(shop, orderId)).map((h) => h.event)).toEqual(['submitted', 'submitting', 'seen']);
    await store.note(shop, orderId, { event: 'noted', source: 'operator' });
    expect((await store.history(shop, orderId, 2)).map((h) => h.event)).toEqual(['noted', 'submitted']);
  });

  it('gives a sourceOrderId to the first order that claims it on an account, and frees it when that order is gone', async () => {
    const a = ids();
    const b = { shop: a.shop, orderId: `${a.orderId}1` };
    const sid = `src-${a.orderId.slice(-6)}`;
    await store.update(a.shop, a.orderId, () => ({ link: store.blank(a.shop, a.orderId) }));
    await store.update(b.shop, b.orderId, () => ({ link: store.blank(b.shop, b.orderId) }));
    expect(await store.claimSourceOrderId(a.shop, a.orderId, sid)).toEqual({ ok: true });
    expect(await store.claimSourceOrderId(a.shop, a.orderId, sid)).toEqual({ ok: true });
    expect(await store.claimSourceOrderId(b.shop, b.orderId, sid)).toEqual({ ok: false, owner: a });
    // Another print account keeps its own ids.
    expect(await store.claimSourceOrderId(b.shop, b.orderId, sid, claimNamespace(b.shop, 'own'))).toEqual({ ok: true });
    await store.deleteOrder(a.shop, a.orderId);
    expect(await store.claimSourceOrderId(b.shop, b.orderId, sid)).toEqual({ ok: true });
  });

  it('finds an order by sourceOrderId only among the claims the asking scope may reach', async () => {
    const own = ids();
    const other = ids();
    const sid = `scoped-${own.orderId.slice(-6)}`;
    await store.update(own.shop, own.orderId, () => ({ link: { ...store.blank(own.shop, own.orderId), sourceOrderId: sid, printAccount: 'own' } }));
    await store.update(other.shop, other.orderId, () => ({ link: { ...store.blank(other.shop, other.orderId), sourceOrderId: sid } }));
    expect((await store.findBySourceOrderId(sid, own.shop))?.orderId).toBe(own.orderId);
    expect((await store.findBySourceOrderId(sid, other.shop))?.orderId).toBe(other.orderId);
    // The operator-wide scope reaches the operator's account only.
    expect((await store.findBySourceOrderId(sid))?.orderId).toBe(other.orderId);
    expect(await store.findBySourceOrderId(sid, 'third.myshopify.com')).toBeUndefined();
  });

  it('keeps an order body only when it is newer than the one kept', async () => {
    const { shop, orderId } = ids();
    expect(await store.saveOrderBody(shop, orderId, '2026-11-21T10:00:00-05:00', '{"v":1}')).toBe(true);
    expect(await store.saveOrderBody(shop, orderId, '2026-11-21T14:00:00Z', '{"v":0}')).toBe(false);
    expect(await store.saveOrderBody(shop, orderId, '2026-11-21T15:00:01Z', '{"v":2}')).toBe(true);
    expect((await store.getOrderBody(shop, orderId))?.body).toBe('{"v":2}');
    await store.deleteOrderBody(shop, orderId);
    expect(await store.getOrderBody(shop, orderId)).toBeUndefined();
  });

  it('keeps a body and reads the link in one step, the link as it was before', async () => {
    const { shop, orderId } = ids();
    expect(await store.saveOrderBodyAndRead(shop, orderId, '2026-11-21T10:00:00Z', '{"v":1}')).toEqual({ newest: true, link: null });
    await store.update(shop, orderId, () => ({ link: { ...store.blank(shop, orderId), orderName: '#7' } }), null);
    const again = await store.saveOrderBodyAndRead(shop, orderId, '2026-11-21T09:00:00Z', '{"v":0}');
    expect(again).toMatchObject({ newest: false, link: { version: 1, orderName: '#7' } });
    expect((await store.getOrderBody(shop, orderId))?.body).toBe('{"v":1}');
    expect(await store.saveOrderBodyAndRead(shop, orderId, '2026-11-21T11:00:00Z', '{"v":2}')).toMatchObject({ newest: true, link: { version: 1 } });
    expect((await store.getOrderBody(shop, orderId))?.body).toBe('{"v":2}');
  });

  it('takes `null` as "no such order" and still never writes over an order created meanwhile', async () => {
    const { shop, orderId } = ids();
    const first = await store.update(shop, orderId, (current) => ({ link: { ...(current ?? store.blank(shop, orderId)), orderName: '#1' } }), null);
    expect(first).toMatchObject({ changed: true, link: { version: 1, orderName: '#1' } });
    // A caller whose read (now stale) found nothing: its insert loses, and its mutation runs again on the stored order.
    const seen: (number | undefined)[] = [];
    const second = await store.update(
      shop,
      orderId,
      (current) => {
        seen.push(current?.version);
        return { link: { ...(current ?? store.blank(shop, orderId)), orderName: current ? `${current.orderName}+` : '#lost' } };
      },
      null,
    );
    expect(seen).toEqual([undefined, 1]);
    expect(second).toMatchObject({ changed: true, link: { version: 2, orderName: '#1+' } });
  });

  it('lets one holder at a time lease an order, renewed and released only with its token', async () => {
    const { shop, orderId } = ids();
    const token = await store.tryLease(shop, orderId, 60_000);
    expect(token).toBeTypeOf('string');
    expect(await store.tryLease(shop, orderId, 60_000)).toBeUndefined();
    expect(await store.renewLease(shop, orderId, 'not-the-token', 60_000)).toBe(false);
    expect(await store.renewLease(shop, orderId, token!, 60_000)).toBe(true);
    await store.releaseLease(shop, orderId, 'not-the-token');
    expect(await store.tryLease(shop, orderId, 60_000)).toBeUndefined();
    await store.releaseLease(shop, orderId, token!);
    expect(await store.tryLease(shop, orderId, 60_000)).toBeTypeOf('string');
  });

  it('lists a status oldest first, and a shop newest first', async () => {
    const { shop } = ids();
    const made: string[] = [];
    for (const minutes of [30, 10, 20]) {
      const orderId = `gid://shopify/Order/77${minutes}${n}`;
      made.push(orderId);
      await store.update(shop, orderId, () => ({ link: { ...store.blank(shop, orderId), status: 'held', statusAt: new Date(Date.now() - minutes * 60_000).toISOString() } }));
    }
    const quiet = (await store.listQuietSince('held', Date.now() - 5 * 60_000, 100)).filter((l) => l.shop === shop).map((l) => l.orderId);
    expect(quiet).toEqual([made[0], made[2], made[1]]);
    const listed = await store.listOfShop(shop, { status: 'held' });
    expect(listed.total).toBe(3);
    expect(listed.links.map((l) => l.orderId)).toEqual([made[1], made[2], made[0]]);
    expect((await store.orderIdsOfShop(shop)).sort()).toEqual([...made].sort());
  });

  it('keeps webhook bodies until dropped, by webhook, by order id or by shop', async () => {
    const { shop } = ids();
    const bodies = store.webhookBodies();
    await bodies.keep(shop, 'w1', '{"id":9007199254740993,"name":"#1"}');
    await bodies.keep(shop, 'w2', '{"id":9007199254740994,"name":"#2"}');
    await bodies.keep(shop, 'w3', '{"id":1}');
    expect(await bodies.get(shop, 'w1')).toContain('#1');
    expect(await bodies.dropOrders(shop, ['9007199254740993'])).toBe(1);
    expect(await bodies.get(shop, 'w1')).toBeUndefined();
    await bodies.drop(shop, 'w3');
    expect(await bodies.dropShop(shop)).toBeGreaterThanOrEqual(1);
    expect(await bodies.get(shop, 'w2')).toBeUndefined();
  });

  it('marks a shop active once, until it is forgotten', async () => {
    const { shop } = ids();
    expect(await store.shopActiveSince(shop)).toBeUndefined();
    await store.markShopActive(shop);
    const since = await store.shopActiveSince(shop);
    expect(Date.parse(since!)).not.toBeNaN();
    await store.markShopActive(shop);
    expect(await store.shopActiveSince(shop)).toBe(since);
    await store.forgetShopActive(shop);
    expect(await store.shopActiveSince(shop)).toBeUndefined();
  });

  it('takes redacted orders out of data-request reports', async () => {
    const { shop, orderId } = ids();
    await store.saveDataRequest(shop, 'r1', [{ orderId }, { orderId: 'gid://shopify/Order/2' }]);
    expect(await store.redactDataRequests(shop, [orderId])).toBe(1);
    expect(await store.redactDataRequests(shop, [orderId])).toBe(0);
    expect(await store.redactDataRequests(shop)).toBe(1);
  });

  it("replaces every history detail of a redacted customer's order, and no other order's", async () => {
    const { shop, orderId } = ids();
    const other = ids();
    await store.update(shop, orderId, () => ({ link: store.blank(shop, orderId), history: [{ event: 'held', source: 'worker', detail: '"http://x.example/Pia/cover.pdf" uses http' }, { event: 'seen', source: 'shopify' }] }));
    await store.note(other.shop, other.orderId, { event: 'held', source: 'worker', detail: 'kept' });
    expect(await store.redactHistory(shop, orderId, '[removed]')).toBe(1);
    expect(await store.redactHistory(shop, orderId, '[removed]')).toBe(0);
    expect((await store.history(shop, orderId)).map((e) => [e.event, e.detail])).toEqual([['seen', undefined], ['held', '[removed]']]);
    expect((await store.history(other.shop, other.orderId))[0]!.detail).toBe('kept');
  });

  it('forgets a redacted shop altogether', async () => {
    const { shop } = ids();
    await store.markShopActive(shop);
    await store.removeShop(shop);
    expect(await store.shopActiveSince(shop)).toBeUndefined();
  });
});
