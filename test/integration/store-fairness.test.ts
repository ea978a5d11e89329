import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, SHOP, startHarness, waitFor } from '../helpers/harness.js';

/**
 * Issue 13 item 9, against the running app: one store's backlog of throttled Shopify writes must not starve another
 * store. Store A's bucket is empty (a burst of other apps' calls), so each of its shipments must wait for Shopify to
 * refill; store B's one shipment arrives after A's backlog. A waiting job gives its worker slot back instead of
 * sleeping in it, and no store holds more than its share of the slots, so B is fulfilled before A's bucket has
 * refilled enough for A's first fulfillment.
 */
const SHOP_B = 'second-store-test.myshopify.com';
const TOKEN_B = 'shpat_second_store';
const A_ORDERS = 10;

describe('fairness between stores', () => {
  let h: Harness;
  beforeAll(async () => {
    // Its orders are written straight into the store, not sent to the printer: postback confirmation (tested in
    // postback-confirmation.test.ts) would refuse their shipments, so it is off here.
    h = await startHarness({ env: { WORKER_CONCURRENCY: '4', PRINT_CONFIRM_EVENTS: 'false' } });
    h.standIn.registerShop(SHOP_B, TOKEN_B);
    await h.runtime.sessions.addCustomAppToken(SHOP_B, TOKEN_B, h.config.SHOPIFY_SCOPES);
  });
  afterAll(() => h.close());

  /** An order at the printer with one shipment, as the submit use case leaves it. */
  async function submittedOrder(shop: string, n: number): Promise<{ orderId: string; sourceOrderId: string }> {
    const orderId = `gid://shopify/Order/${9_007_199_254_900_000 + n}`;
    const lineItemId = `gid://shopify/LineItem/${9_007_199_254_950_000 + n}`;
    h.standIn.seedOrder(shop, {
      admin_graphql_api_id: orderId,
      name: `#${5000 + n}`,
      created_at: '2026-11-23T09:00:00Z',
      line_items: [{ admin_graphql_api_id: lineItemId, sku: 'PRINT-FAIR', title: 'Poster', quantity: 1 }],
    });
    const sourceOrderId = `fair-${h.prefix.split(':')[2]}-${n}`;
    await h.runtime.store.update(shop, orderId, () => ({
      link: {
        ...h.runtime.store.blank(shop, orderId),
        status: 'submitted',
        sourceOrderId,
        submitAttempts: 1,
        shipments: [{ index: 0, lineItems: [{ lineItemId, quantity: 1, sku: 'PRINT-FAIR' }], status: 'pending' }],
      },
    }));
    return { orderId, sourceOrderId };
  }

  const shipped = (sourceOrderId: string, n: number) =>
    fetch(`${h.runtime.url}/postbacks/postback-test-token-0123456789abcdef`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'Shipment Shipped', sourceOrderId, shipmentIndex: 0, trackingNumber: `FAIR${n}GB`, carrier: { code: 'royalmail' } }),
    });

  const fulfilled = (shop: string, orderId: string) => h.standIn.getOrder(shop, orderId)?.fulfillments.length ?? 0;

  it("fulfils store B's shipment while store A's throttled backlog waits, and loses none of A's", async () => {
    const a = await Promise.all(Array.from({ length: A_ORDERS }, (_, i) => submittedOrder(SHOP, i)));
    const b = await submittedOrder(SHOP_B, 100);
    // A's bucket is empty: each of its order reads (540 points requested) needs 5 s of refill at 100 points a second.
    h.standIn.drainBucket(SHOP, 0);
    for (const [i, order] of a.entries()) expect((await shipped(order.sourceOrderId, i)).status).toBe(202);
    expect((await shipped(b.sourceOrderId, 100)).status).toBe(202);

    await waitFor(() => fulfilled(SHOP_B, b.orderId) === 1, { timeoutMs: 60_000, what: "store B's fulfillment" });
    const aDoneWhenBWas = a.filter((o) => fulfilled(SHOP, o.orderId) > 0).length;
    expect(aDoneWhenBWas).toBe(0);

    // Nothing of A is lost: every shipment is fulfilled once, as the bucket refills.
    await waitFor(() => a.every((o) => fulfilled(SHOP, o.orderId) === 1), { timeoutMs: 120_000, what: "all of store A's fulfillments" });
    const failed = await h.runtime.queues.events.getFailed();
    expect(failed.map((j) => j.failedReason)).toEqual([]);
  }, 180_000);
});
