import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresOrderStore } from '../../src/storage/order-store.js';
import { WEBHOOK_CLAIM_PENDING_MS } from '../../src/storage/order-leases.js';
import type { Database } from '../../src/db/database.js';
import { testDatabase } from '../helpers/database.js';
import { testRedis } from '../helpers/redis.js';

const SHOP = 'acme.myshopify.com';

/** The store's contract, on both engines the app runs on: PostgreSQL (DATABASE_URL) and the embedded PGlite. */
describe.each(['postgres', 'pglite'] as const)('PostgresOrderStore on %s', (engine) => {
  const { redis, prefix, cleanup: cleanupRedis } = testRedis(`order-store-${engine}`);
  let database: Database;
  let cleanupDb: () => Promise<void>;
  let store: PostgresOrderStore;
  beforeAll(async () => {
    ({ database, cleanup: cleanupDb } = await testDatabase(`order_store_${engine}`, { engine }));
    store = new PostgresOrderStore({ database, redis, prefix });
  });
  afterAll(async () => {
    await cleanupDb?.();
    await cleanupRedis();
  });

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

  it('tries the link the caller knows first, and falls back to a fresh read when it is stale or would change nothing', async () => {
    const orderId = 'gid://shopify/Order/31';
    const { link: v1 } = await store.update(SHOP, orderId, () => ({ link: store.blank(SHOP, orderId) }));
    // Someone else writes in between: the known link (version 1) is stale, the write on it loses, the fresh one wins.
    await store.update(SHOP, orderId, (c) => ({ link: { ...c!, orderName: '#other' } }));
    const seen: number[] = [];
    const result = await store.update(SHOP, orderId, (c) => {
      seen.push(c!.version);
      return { link: { ...c!, problems: [...c!.problems, { kind: 'test', message: 'mine', at: '' }] } };
    }, v1);
    expect(seen).toEqual([1, 2]);
    expect(result.link).toMatchObject({ version: 3, orderName: '#other', problems: [{ message: 'mine' }] });
    // "Nothing to do" on a stale known link is not believed: the fresh link decides.
    const decisions: string[] = [];
    const noop = await store.update(SHOP, orderId, (c) => {
      decisions.push(c!.orderName ?? '');
      return c!.orderName === '#other' ? { link: { ...c!, orderName: '#renamed' } } : undefined;
    }, v1);
    expect(decisions).toEqual(['', '#other']);
    expect(noop).toMatchObject({ changed: true, link: { version: 4, orderName: '#renamed' } });
    // A current known link is written without a read.
    const current = (await store.get(SHOP, orderId))!;
    expect((await store.update(SHOP, orderId, (c) => ({ link: { ...c!, orderName: '#direct' } }), current)).link).toMatchObject({ version: 5 });
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

  it('keeps a webhook body with the claim that wins, in the same step, and never with one that loses', async () => {
    const body = { shop: SHOP, webhookId: 'wh-body-1', body: '{"id":1,"line_items":[]}' };
    const claimed = await store.claimWebhook(['wh-body-1', 'event:orders/paid:eb-1'], body);
    if (!claimed || claimed === 'pending') throw new Error('the first delivery must get the claim');
    const bodies = store.webhookBodies();
    expect(await bodies.get(SHOP, 'wh-body-1')).toBe(body.body);
    expect(await redis.ttl(bodies.key(SHOP, 'wh-body-1'))).toBeGreaterThan(7 * 24 * 3600);
    expect(await redis.sismember(bodies.index(SHOP), 'wh-body-1')).toBe(1);
    // Another delivery of the same event (a new webhook id) loses: its body is not kept.
    expect(await store.claimWebhook(['wh-body-2', 'event:orders/paid:eb-1'], { ...body, webhookId: 'wh-body-2', body: '{"other":true}' })).toBe('pending');
    expect(await bodies.get(SHOP, 'wh-body-2')).toBeUndefined();
    await claimed.confirm();
    expect(await store.claimWebhook(['wh-body-1'], body)).toBeUndefined();
    expect(await bodies.dropShop(SHOP)).toBe(1);
  });

  it('claims webhook ids atomically, keeps a confirmed one 8 days and frees a released one', async () => {
    const claimed = await store.claimWebhook(['wh-1', 'event:orders/paid:e-1']);
    if (!claimed || claimed === 'pending') throw new Error('the first delivery must get the claim');
    const claim = claimed;
    // Taken while it is being queued, by its id or by its event id alone: pending, not seen (it may still fail).
    expect(await store.claimWebhook(['wh-1'])).toBe('pending');
    expect(await store.claimWebhook(['wh-other', 'event:orders/paid:e-1'])).toBe('pending');
    // A refused claim takes nothing: wh-other stays free.
    expect(await store.isWebhookSeen('wh-other')).toBe(false);
    expect(await redis.pttl(`${prefix}webhook:wh-1`)).toBeLessThanOrEqual(WEBHOOK_CLAIM_PENDING_MS);
    await claim.confirm();
    expect(await redis.ttl(`${prefix}webhook:wh-1`)).toBeGreaterThan(7 * 24 * 3600);
    expect(await redis.ttl(`${prefix}webhook:event:orders/paid:e-1`)).toBeGreaterThan(7 * 24 * 3600);
    expect(await store.claimWebhook(['wh-1'])).toBeUndefined();

    const failed = await store.claimWebhook(['wh-2']);
    if (!failed || failed === 'pending') throw new Error('the first delivery must get the claim');
    await failed.release();
    expect(await store.isWebhookSeen('wh-2')).toBe(false);
    const again = await store.claimWebhook(['wh-2']);
    expect(again).toBeDefined();
    // A stale release (the first claimant's, after its claim ran out and another delivery claimed) frees nothing.
    await failed.release();
    expect(await store.isWebhookSeen('wh-2')).toBe(true);
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
    const token = (await store.tryLease('lease.myshopify.com', order, 5_000))!;
    expect(token).toBeDefined();
    expect(await store.tryLease('lease.myshopify.com', order, 5_000)).toBeUndefined();
    // Renewed for a moment only; then another job tries until it gets the lease (it ran out), not after a set time.
    expect(await store.renewLease('lease.myshopify.com', order, token, 50)).toBe(true);
    const deadline = Date.now() + 5_000;
    let other = await store.tryLease('lease.myshopify.com', order, 5_000);
    while (!other && Date.now() < deadline) {
      await sleep(10);
      other = await store.tryLease('lease.myshopify.com', order, 5_000);
    }
    expect(other).toBeDefined();
    expect(await store.renewLease('lease.myshopify.com', order, token, 5_000)).toBe(false);
    await store.releaseLease('lease.myshopify.com', order, token);
    expect(await store.tryLease('lease.myshopify.com', order, 5_000)).toBeUndefined();
    await store.releaseLease('lease.myshopify.com', order, other!);
  });

  it('claims a sourceOrderId for the first order only, and frees it once that order is gone', async () => {
    expect(await store.claimSourceOrderId(SHOP, 'gid://shopify/Order/20', 'shared-1')).toEqual({ ok: true });
    expect(await store.claimSourceOrderId(SHOP, 'gid://shopify/Order/20', 'shared-1')).toEqual({ ok: true });
    await store.update(SHOP, 'gid://shopify/Order/20', () => ({ link: { ...store.blank(SHOP, 'gid://shopify/Order/20'), sourceOrderId: 'shared-1' } }));
    expect(await store.claimSourceOrderId('b.myshopify.com', 'gid://shopify/Order/20', 'shared-1')).toEqual({ ok: false, owner: { shop: SHOP, orderId: 'gid://shopify/Order/20' } });
    // A write of another order naming the same id never takes it over.
    await store.update('b.myshopify.com', 'gid://shopify/Order/21', () => ({ link: { ...store.blank('b.myshopify.com', 'gid://shopify/Order/21'), sourceOrderId: 'shared-1' } }));
    expect((await store.findBySourceOrderId('shared-1'))?.shop).toBe(SHOP);
    await store.deleteOrder(SHOP, 'gid://shopify/Order/20');
    expect(await store.claimSourceOrderId('b.myshopify.com', 'gid://shopify/Order/21', 'shared-1')).toEqual({ ok: true });
  });

  it('finds an order by its print _id once a write has recorded it', async () => {
    const orderId = 'gid://shopify/Order/30';
    await store.update(SHOP, orderId, () => ({ link: { ...store.blank(SHOP, orderId), printOrderId: 'f'.repeat(24) } }));
    expect((await store.findByPrintOrderId('f'.repeat(24)))?.orderId).toBe(orderId);
    expect(await store.findByPrintOrderId('0'.repeat(24))).toBeUndefined();
  });

  it("finds a print _id within a scope however many other stores' orders carry it first (review)", async () => {
    const shared = 'c'.repeat(24);
    let clock = new Date('2026-02-01T00:00:00Z');
    const timed = new PostgresOrderStore({ database, redis, prefix, clock: () => clock });
    for (let i = 0; i < 25; i++) {
      clock = new Date(clock.getTime() + 1_000);
      const other = `other-${i}.myshopify.com`;
      await timed.update(other, 'gid://shopify/Order/40', () => ({ link: { ...timed.blank(other, 'gid://shopify/Order/40'), printOrderId: shared, printAccount: 'own' } }));
    }
    clock = new Date(clock.getTime() + 1_000);
    await timed.update(SHOP, 'gid://shopify/Order/41', () => ({ link: { ...timed.blank(SHOP, 'gid://shopify/Order/41'), printOrderId: shared } }));
    expect((await timed.findByPrintOrderId(shared, { shop: SHOP }))?.shop).toBe(SHOP);
    expect((await timed.findByPrintOrderId(shared, 'env-account'))?.shop).toBe(SHOP);
    // Without a scope, or when the scope has none: the oldest.
    expect((await timed.findByPrintOrderId(shared))?.shop).toBe('other-0.myshopify.com');
    expect((await timed.findByPrintOrderId(shared, { shop: 'nobody.myshopify.com' }))?.shop).toBe('other-0.myshopify.com');
  });

  it('searches by store, status, time and name, sourceOrderId or print _id, a page at a time with a cursor', async () => {
    const shop = 'search.myshopify.com';
    let clock = new Date('2026-01-01T00:00:00Z');
    const timed = new PostgresOrderStore({ database, redis, prefix, clock: () => clock });
    for (let i = 1; i <= 7; i++) {
      clock = new Date(Date.UTC(2026, 0, 1, 0, i));
      const id = `gid://shopify/Order/40${i}`;
      await timed.update(shop, id, () => ({
        link: { ...timed.blank(shop, id), orderName: `#S${i}`, status: i % 2 ? 'submitted' : 'held', sourceOrderId: `search-${i}`, printOrderId: `p${i}`.padEnd(24, '0') },
      }));
    }
    const names = (links: { orderName?: string }[]) => links.map((l) => l.orderName);
    const first = await store.search({ shop, limit: 3 });
    expect(names(first.links)).toEqual(['#S7', '#S6', '#S5']);
    const second = await store.search({ shop, limit: 3, cursor: first.next });
    expect(names(second.links)).toEqual(['#S4', '#S3', '#S2']);
    const third = await store.search({ shop, limit: 3, cursor: second.next });
    expect(names(third.links)).toEqual(['#S1']);
    expect(third.next).toBeUndefined();
    expect(names((await store.search({ shop, status: 'held' })).links)).toEqual(['#S6', '#S4', '#S2']);
    expect(names((await store.search({ shop, from: '2026-01-01T00:03:00Z', to: '2026-01-01T00:05:00Z' })).links)).toEqual(['#S4', '#S3']);
    expect(names((await store.search({ q: 'S3' })).links)).toEqual(['#S3']);
    expect(names((await store.search({ q: '#S3' })).links)).toEqual(['#S3']);
    expect(names((await store.search({ q: 'search-5' })).links)).toEqual(['#S5']);
    expect(names((await store.search({ q: 'p6'.padEnd(24, '0') })).links)).toEqual(['#S6']);
    expect((await store.search({ shop: 'other.myshopify.com', q: 'S3' })).links).toEqual([]);
    // A cursor that does not read back is the first page, never an error.
    expect(names((await store.search({ shop, limit: 1, cursor: 'not-a-cursor' })).links)).toEqual(['#S7']);
  });

  it('cuts the body of orders the printer finished with after the retention days, and never takes an older body after', async () => {
    let clock = new Date('2026-03-01T00:00:00Z');
    const timed = new PostgresOrderStore({ database, redis, prefix, clock: () => clock });
    const shop = 'retention.myshopify.com';
    const [done, busy] = ['gid://shopify/Order/501', 'gid://shopify/Order/502'];
    await timed.update(shop, done, () => ({ link: { ...timed.blank(shop, done), status: 'shipped', statusAt: clock.toISOString() }, history: [{ event: 'shipped', source: 'print-service' }] }));
    await timed.update(shop, busy, () => ({ link: { ...timed.blank(shop, busy), status: 'print-ready', statusAt: clock.toISOString() } }));
    await timed.saveOrderBody(shop, done, '2026-02-28T00:00:00Z', '{"email":"zoe@example.com"}');
    await timed.saveOrderBody(shop, busy, '2026-02-28T00:00:00Z', '{"email":"max@example.com"}');
    clock = new Date('2026-03-20T00:00:00Z');
    expect(await timed.reduceFinishedBodies(30, ['shipped', 'cancelled'])).toBe(0);
    clock = new Date('2026-04-02T00:00:00Z');
    expect(await timed.reduceFinishedBodies(30, ['shipped', 'cancelled'])).toBe(1);
    expect(await timed.getOrderBody(shop, done)).toBeUndefined();
    expect(await timed.getOrderBody(shop, busy)).toBeDefined();
    expect((await timed.get(shop, done))?.status).toBe('shipped');
    expect((await timed.history(shop, done)).map((h) => h.event)).toEqual(['shipped']);
    expect(await timed.saveOrderBody(shop, done, '2026-02-27T00:00:00Z', '{"old":true}')).toBe(false);
    expect(await timed.reduceFinishedBodies(30, ['shipped', 'cancelled'])).toBe(0);
  });

  it('keeps data-request reports until they expire, and redacts them', async () => {
    let clock = new Date('2026-05-01T00:00:00Z');
    const timed = new PostgresOrderStore({ database, redis, prefix, clock: () => clock });
    await timed.saveDataRequest('dr.myshopify.com', 'req-1', [{ orderId: 'gid://shopify/Order/1' }, { orderId: 'gid://shopify/Order/2' }]);
    expect(await timed.getDataRequest('dr.myshopify.com', 'req-1')).toHaveLength(2);
    expect(await timed.dataRequests().list('dr.myshopify.com')).toEqual([expect.objectContaining({ requestId: 'req-1' })]);
    expect(await timed.redactDataRequests('dr.myshopify.com', ['gid://shopify/Order/1'])).toBe(1);
    expect(await timed.getDataRequest('dr.myshopify.com', 'req-1')).toEqual([{ orderId: 'gid://shopify/Order/2' }]);
    clock = new Date('2026-06-15T00:00:00Z');
    expect(await timed.getDataRequest('dr.myshopify.com', 'req-1')).toBeUndefined();
    expect(await timed.dataRequests().deleteExpired()).toBe(1);
  });

  it('keeps unreadable postbacks newest first, and removes them by id or by what they mention', async () => {
    const a = await store.keepUnreadablePostback({ receivedAt: '2026-01-01T00:00:00.000Z', headers: { 'content-type': 'text/plain' }, body: 'order acme-77 garbled', error: 'not JSON' });
    const b = await store.keepUnreadablePostback({ receivedAt: '2026-01-01T00:01:00.000Z', headers: {}, body: 'x'.repeat(70_000), error: 'not JSON' });
    const listed = await store.listUnreadablePostbacks();
    expect(listed.entries.map((e) => e.id)).toEqual([b.id, a.id]);
    expect(listed.entries[0]!.body.length).toBe(64 * 1024);
    expect(listed.entries[1]).toEqual(a);
    expect(await store.unreadablePostbacks().removeMentioning(['acme-77'])).toBe(1);
    expect(await store.removeUnreadablePostback(b.id)).toBe(true);
    expect(await store.countUnreadablePostbacks()).toBe(0);
  });

  it('remembers from when a store was active until it is forgotten', async () => {
    const shop = 'since.myshopify.com';
    expect(await store.shopActiveSince(shop)).toBeUndefined();
    await store.markShopActive(shop);
    const since = await store.shopActiveSince(shop);
    expect(Date.parse(since!)).toBeGreaterThan(Date.now() - 60_000);
    await store.markShopActive(shop);
    expect(await store.shopActiveSince(shop)).toBe(since);
    await store.forgetShopActive(shop);
    expect(await store.shopActiveSince(shop)).toBeUndefined();
  });
});
