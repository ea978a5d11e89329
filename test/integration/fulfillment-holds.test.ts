import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postbackTriggers } from '../../src/print-service/postback-triggers.js';
import { parseTriggers } from '../../src/dev/emulator/triggers.js';
import { orderPath } from '../../src/admin/order-fragments.js';
import { ADMIN_TOKEN, AdminClient } from '../admin/helpers.js';
import { advanceAtEmulator, type Harness, orderBody, SHOP, SHOPIFY_SECRET, startHarness, waitFor } from '../helpers/harness.js';

/**
 * Issue 13 item 4, against the running app: a shipment whose fulfillment order Shopify holds (ON_HOLD) or has
 * scheduled for later (SCHEDULED) is not marked done without a fulfillment. It waits, visibly on the order page, and
 * is fulfilled with its tracking once released: by the fulfillment-order webhook, or by the re-check when that webhook
 * never arrives.
 */
describe('fulfillment orders Shopify holds', () => {
  let h: Harness;
  let admin: AdminClient;
  beforeAll(async () => {
    h = await startHarness({
      // Re-checks after 1 s (doubling): the missed-webhook case needs no Shopify webhook at all.
      env: { ADMIN_TOKEN, SHOPIFY_HOLD_RECHECK_SECONDS: '1' },
    });
    h.emulator.deliveries.setTriggers(parseTriggers(postbackTriggers(`${h.runtime.url}/postbacks/postback-test-token-0123456789abcdef`)));
    h.standIn.configureWebhooks({ url: `${h.runtime.url}/webhooks`, secret: SHOPIFY_SECRET });
    admin = await AdminClient.login(h.runtime.url!);
  });
  afterAll(() => h.close());

  /** Sent to the printer, then (Shopify holding it meanwhile, where the test placed a hold) shipped there. */
  async function shipAtPrinter(body: { admin_graphql_api_id: string; order_number: number }) {
    await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status === 'submitted', { what: 'the order at the printer' });
    await advanceAtEmulator(h.emulator, `${SHOP.replace('.myshopify.com', '')}-${body.order_number}`, 'shipped');
  }

  async function shippedAndWaiting(orderId: string) {
    return waitFor(
      async () => {
        const link = await h.runtime.store.get(SHOP, orderId);
        return link && link.shipments.length > 0 && link.shipments.every((s) => s.status === 'shipped' && s.waitingForRelease) && link;
      },
      { timeoutMs: 30_000, what: 'the shipment shipped and waiting for the release' },
    );
  }

  it('waits for a hold to be released, shows why, then fulfils with the tracking when hold_released arrives', async () => {
    const body = orderBody([{ sku: 'PRINT-HOLD', quantity: 2 }]);
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);
    // Placed once the printer has the order (a hold placed before keeps it from the printer: shopify-holds.test.ts).
    await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status === 'submitted', { what: 'the order at the printer' });
    expect(h.standIn.placeHold(SHOP, body.admin_graphql_api_id, { reason: 'AWAITING_PAYMENT', reasonNotes: 'bank transfer' }).ok).toBe(true);
    await shipAtPrinter(body);

    const link = await shippedAndWaiting(body.admin_graphql_api_id);
    const shipment = link.shipments[0]!;
    expect(shipment.trackingNumber).toMatch(/^EM\d{9}GB$/);
    expect(shipment.appliedAt).toBeUndefined();
    expect(shipment.waitingForRelease!.message).toBe('waiting for the fulfillment hold to be released: Awaiting payment (bank transfer)');
    // Not "already fulfilled": no fulfillment and no shortfall note, but a note that says it will come.
    const held = await waitFor(() => {
      const o = h.standIn.getOrder(SHOP, body.admin_graphql_api_id)!;
      return (o.note ?? '').includes(`with tracking ${shipment.trackingNumber}`) && o;
    }, { what: 'the order note about the wait' });
    expect(held.fulfillments).toHaveLength(0);
    expect(held.note ?? '').not.toMatch(/not fulfilled again/);

    const page = await admin.page(orderPath(link));
    expect(page).toContain('waiting for the fulfillment hold to be released: Awaiting payment (bank transfer)');

    expect(h.standIn.releaseHold(SHOP, body.admin_graphql_api_id).ok).toBe(true);
    const order = await waitFor(() => {
      const o = h.standIn.getOrder(SHOP, body.admin_graphql_api_id);
      return o && o.fulfillments.length === 1 && o;
    }, { timeoutMs: 20_000, what: 'the fulfillment after the release' });
    const fulfillment = order.fulfillments[0]!;
    expect(fulfillment.trackingInfo.map((t) => t.number)).toEqual([shipment.trackingNumber]);
    expect(fulfillment.lineItems.map((l) => l.quantity)).toEqual([2]);
    expect(fulfillment.notifyCustomer).toBe(true);
    expect(order.displayFulfillmentStatus).toBe('FULFILLED');
    // The stand-in records the app's answer to the release webhook when it reads it, which may come after the worker
    // (or a re-check) made the fulfillment: the delivery's answer is waited for.
    await h.standIn.webhooksSettled();
    expect(h.standIn.sentWebhooks().filter((w) => w.topic === 'fulfillment_orders/hold_released').at(-1)?.status).toBe(200);

    const done = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return l?.shipments[0]!.fulfillmentId && l;
    });
    expect(done.shipments[0]!.waitingForRelease).toBeUndefined();
    expect(done.shipments[0]!.fulfilledTrackingNumber).toBe(shipment.trackingNumber);
    const history = (await h.runtime.store.history(SHOP, body.admin_graphql_api_id)).map((e) => e.event);
    expect(history).toEqual(expect.arrayContaining(['shipment 0: not fulfilled yet, Shopify holds its fulfillment order', 'Shopify released a fulfillment hold', 'shipment 0 fulfilled in Shopify']));
    const after = await admin.page(orderPath(done));
    expect(after).not.toContain('on hold in Shopify');
    expect(after).toContain(done.shipments[0]!.fulfillmentId!);
  });

  it('fulfils a held shipment by the re-check when the release webhook never arrives', async () => {
    const body = orderBody([{ sku: 'PRINT-LOST-WEBHOOK' }]);
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);
    await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status === 'submitted', { what: 'the order at the printer' });
    h.standIn.pauseWebhooks(true);
    try {
      h.standIn.placeHold(SHOP, body.admin_graphql_api_id, { reason: 'HIGH_RISK_OF_FRAUD' });
      await shipAtPrinter(body);
      const link = await shippedAndWaiting(body.admin_graphql_api_id);
      expect(h.standIn.getOrder(SHOP, body.admin_graphql_api_id)!.fulfillments).toHaveLength(0);
      h.standIn.releaseHold(SHOP, body.admin_graphql_api_id);
      const order = await waitFor(() => {
        const o = h.standIn.getOrder(SHOP, body.admin_graphql_api_id);
        return o && o.fulfillments.length === 1 && o;
      }, { timeoutMs: 30_000, what: 'the fulfillment made by the re-check' });
      expect(order.fulfillments[0]!.trackingInfo[0]!.number).toBe(link.shipments[0]!.trackingNumber);
      expect(h.standIn.sentWebhooks().filter((w) => w.topic === 'fulfillment_orders/hold_released').at(-1)?.status).toBeNull();
    } finally {
      h.standIn.pauseWebhooks(false);
    }
  });

  it('waits for a scheduled fulfillment order to become ready, then fulfils it', async () => {
    const body = orderBody([{ sku: 'PRINT-PREORDER' }]);
    h.standIn.seedOrder(SHOP, body);
    const fulfillAt = new Date(Date.now() + 4_000).toISOString();
    expect(h.standIn.scheduleFulfillmentOrder(SHOP, body.admin_graphql_api_id, { fulfillAt }).ok).toBe(true);
    await h.sendWebhook('orders/paid', body);
    await shipAtPrinter(body);
    const link = await shippedAndWaiting(body.admin_graphql_api_id);
    expect(link.shipments[0]!.waitingForRelease!.message).toMatch(/^waiting for the scheduled fulfillment order to become ready at /);
    const order = await waitFor(() => {
      const o = h.standIn.getOrder(SHOP, body.admin_graphql_api_id);
      return o && o.fulfillments.length === 1 && o;
    }, { timeoutMs: 30_000, what: 'the fulfillment once the scheduled fulfillment order is ready' });
    expect(order.fulfillments[0]!.trackingInfo[0]!.number).toBe(link.shipments[0]!.trackingNumber);
    expect(h.standIn.sentWebhooks().map((w) => w.topic)).toContain('fulfillment_orders/scheduled_fulfillment_order_ready');
  });
});
