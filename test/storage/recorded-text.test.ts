import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordHoldWait } from '../../src/bridge/fulfillment-holds.js';
import { PostgresOrderStore, RECORDED_TEXT_LIMIT } from '../../src/storage/order-store.js';
import { testDatabase } from '../helpers/database.js';
import { testRedis } from '../helpers/redis.js';

/**
 * A merchant can stall every store: 150,000 characters of hold notes in an order's own signed
 * fulfillment_orders/placed_on_hold were kept whole, in the shipment's wait and its history, and every view of the
 * order read them again. Text from outside is bounded where it is stored, with a visible ellipsis.
 */
const SHOP = 'holds.myshopify.com';
const NOTES = 'x['.repeat(75_000);

describe('recorded text is bounded where it is stored', () => {
  const { redis, prefix, cleanup: cleanupRedis } = testRedis('recorded-text');
  let store: PostgresOrderStore;
  let cleanupDb: () => Promise<void>;
  beforeAll(async () => {
    const { database, cleanup } = await testDatabase('recorded_text');
    cleanupDb = cleanup;
    store = new PostgresOrderStore({ database, redis, prefix });
  });
  afterAll(async () => {
    await cleanupDb?.();
    await cleanupRedis();
  });

  it('caps the 150,000 characters of a placed_on_hold’s hold notes in the shipment’s wait and its history line', async () => {
    const orderId = 'gid://shopify/Order/1';
    await store.update(SHOP, orderId, () => ({
      link: { ...store.blank(SHOP, orderId), status: 'partially-shipped', shipments: [{ index: 0, lineItems: [{ lineItemId: 'gid://shopify/LineItem/1', quantity: 1 }], status: 'shipped', trackingNumber: 'RM1' }] },
    }));
    const held = [{ fulfillmentOrderId: 'gid://shopify/FulfillmentOrder/1', status: 'ON_HOLD' as const, reasons: [`Awaiting payment (${NOTES})`], fulfillAt: null }];
    await recordHoldWait({ store, clock: () => new Date(), logger: pino({ level: 'silent' }) }, (await store.get(SHOP, orderId))!, 0, held);

    const wait = (await store.get(SHOP, orderId))!.shipments[0]!.waitingForRelease!;
    expect(wait.message).toHaveLength(RECORDED_TEXT_LIMIT);
    expect(wait.message).toMatch(/^waiting for the fulfillment hold to be released: Awaiting payment \(x\[x\[.*…$/);
    const [line] = await store.history(SHOP, orderId);
    expect(line!.detail).toHaveLength(RECORDED_TEXT_LIMIT);
    expect(line!.detail!.endsWith('…')).toBe(true);
    // A re-check finding the same hold is no new history line, though the note is longer than what was kept.
    await recordHoldWait({ store, clock: () => new Date(), logger: pino({ level: 'silent' }) }, (await store.get(SHOP, orderId))!, 0, held);
    expect(await store.history(SHOP, orderId)).toHaveLength(1);
    expect((await store.get(SHOP, orderId))!.shipments[0]!.waitingForRelease!.checks).toBe(2);
  });

  it('caps problems, reasons and noted history lines, and keeps text under the limit as it is', async () => {
    const orderId = 'gid://shopify/Order/2';
    const long = `the printer said: ${'e'.repeat(50_000)}`;
    const { link } = await store.update(SHOP, orderId, () => ({
      link: { ...store.blank(SHOP, orderId), status: 'not-printed', notPrintedReason: long, problems: [{ kind: 'print-error', message: long, at: new Date().toISOString() }, { kind: 'short', message: 'short', at: new Date().toISOString() }] },
      history: [{ event: long, source: 'print-service', detail: long }],
    }));
    await store.note(SHOP, orderId, { event: 'noted', source: 'print-service', detail: long });
    const stored = (await store.get(SHOP, orderId))!;
    for (const text of [stored.notPrintedReason!, stored.problems[0]!.message, link!.problems[0]!.message]) {
      expect(text).toHaveLength(RECORDED_TEXT_LIMIT);
      expect(text.endsWith('…')).toBe(true);
    }
    expect(stored.problems[1]!.message).toBe('short');
    const history = await store.history(SHOP, orderId);
    expect(history.map((h) => h.detail!.length)).toEqual([RECORDED_TEXT_LIMIT, RECORDED_TEXT_LIMIT]);
    expect(history[1]!.event).toHaveLength(RECORDED_TEXT_LIMIT);
  });
});
