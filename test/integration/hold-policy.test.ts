import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postbackTriggers } from '../../src/print-service/postback-triggers.js';
import { parseTriggers } from '../../src/dev/emulator/triggers.js';
import { embeddedMerchant } from '../admin/helpers.js';
import { emulatorOrders, type Harness, orderBody, SHOP, SHOPIFY_SECRET, startHarness, waitFor } from '../helpers/harness.js';

/**
 * The store's choice of Shopify's holds on the Settings page, against the running app, the Admin stand-in and the
 * print-service emulator: an order waiting for a payment hold goes to the printer once the store chooses to let that
 * hold through (no release, no scheduled re-read: the save asks for the look), and an order held for fraud still waits.
 */
const sourceOrderIdOf = (body: { order_number: number }) => `${SHOP.replace('.myshopify.com', '')}-${body.order_number}`;

describe("the store's choice of Shopify's holds", () => {
  let h: Harness;
  beforeAll(async () => {
    // The scheduled re-read of a held order is the default quarter of an hour: only the save can send it in time.
    h = await startHarness();
    h.emulator.deliveries.setTriggers(parseTriggers(postbackTriggers(`${h.runtime.url}/postbacks/postback-test-token-0123456789abcdef`)));
    h.standIn.configureWebhooks({ url: `${h.runtime.url}/webhooks`, secret: SHOPIFY_SECRET });
  }, 60_000);
  afterAll(() => h?.close());

  const waitingForHold = (orderId: string) =>
    waitFor(async () => {
      const link = await h.runtime.store.get(SHOP, orderId);
      return link?.status === 'waiting' && link.problems.some((p) => p.kind === 'shopify-hold') && link;
    }, { timeoutMs: 20_000, what: 'the order waiting for the hold' });

  it('sends the order waiting for payment once the store lets that hold through; the fraud hold still waits', async () => {
    const payment = orderBody([{ sku: 'PRINT-ON-ACCOUNT' }]);
    const fraud = orderBody([{ sku: 'PRINT-FLAGGED' }]);
    for (const [body, reason] of [[payment, 'AWAITING_PAYMENT'], [fraud, 'HIGH_RISK_OF_FRAUD']] as const) {
      h.standIn.seedOrder(SHOP, body);
      expect(h.standIn.placeHold(SHOP, body.admin_graphql_api_id, { reason }).ok).toBe(true);
      await h.sendWebhook('orders/paid', body);
      await waitingForHold(body.admin_graphql_api_id);
    }
    expect(emulatorOrders(h.emulator, sourceOrderIdOf(payment))).toHaveLength(0);

    // The merchant's Settings page: wait only for the reasons other than a payment to clear.
    const reasons = ['AWAITING_RETURN_ITEMS', 'HIGH_RISK_OF_FRAUD', 'INCORRECT_ADDRESS', 'INVENTORY_OUT_OF_STOCK', 'ONLINE_STORE_POST_PURCHASE_CROSS_SELL', 'OTHER', 'UNKNOWN_DELIVERY_DATE'];
    const response = await embeddedMerchant(() => h.runtime.url!, SHOP, SHOPIFY_SECRET).post('/admin/settings/hold-policy', [['holds', 'only'], ...reasons.map((r): [string, string] => ['reasons', r]), ['risk', 'cancel']]);
    expect(response.status).toBe(200);

    await waitFor(async () => (await h.runtime.store.get(SHOP, payment.admin_graphql_api_id))?.status === 'submitted', { timeoutMs: 20_000, what: 'the payment-held order at the printer' });
    expect(emulatorOrders(h.emulator, sourceOrderIdOf(payment))).toHaveLength(1);
    // The held order's scheduled re-read stays delayed: idle here is nothing waiting to run or running.
    await waitFor(async () => {
      for (const queue of [h.runtime.queues.orders, h.runtime.queues.shopify]) {
        const counts = await queue.getJobCounts('waiting', 'active', 'prioritized');
        if (Object.values(counts).some((n) => n > 0)) return false;
      }
      return true;
    }, { timeoutMs: 20_000, what: 'the look at the waiting orders done' });
    const held = (await h.runtime.store.get(SHOP, fraud.admin_graphql_api_id))!;
    expect(held.status).toBe('waiting');
    expect(held.problems.find((p) => p.kind === 'shopify-hold')!.message).toMatch(/^waiting for Shopify's hold: High risk of fraud/);
    expect(emulatorOrders(h.emulator, sourceOrderIdOf(fraud))).toHaveLength(0);
  }, 60_000);
});
