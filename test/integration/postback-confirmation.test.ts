import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderBody, SHOP, startHarness, waitFor, type Harness } from '../helpers/harness.js';

/**
 * Issue 12 item 3 against the running app: whoever holds a postback token could rewrite any order's tracking (Shopify
 * e-mails the customer) or cancel it. Shipped and cancelled postbacks are confirmed with the print service first; a
 * claim it contradicts changes nothing in Shopify and is recorded as a problem.
 */

const TOKEN = 'postback-test-token-0123456789abcdef';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function submitted() {
  const body = orderBody([{ sku: 'PRINT-A5' }]);
  h.standIn.seedOrder(SHOP, body);
  await h.sendWebhook('orders/paid', body);
  return waitFor(async () => {
    const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
    return l?.status === 'submitted' && l;
  }, { what: 'the order submitted' });
}

function post(body: unknown) {
  return fetch(`${h.runtime.url}/postbacks/${TOKEN}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
}

describe('shipped and cancelled postbacks are confirmed with the print service', () => {
  it('a forged "shipped" with made-up tracking fulfils nothing and is recorded as a problem', async () => {
    const link = await submitted();
    expect((await post({ event: 'Shipment Shipped', sourceOrderId: link.sourceOrderId, shipmentIndex: 0, trackingNumber: 'FAKE123456GB', carrier: 'royalmail' })).status).toBe(202);
    const after = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, link.orderId);
      return l?.problems.some((p) => p.kind === 'unconfirmed-postback') && l;
    }, { what: 'the unconfirmed postback recorded' });
    expect(after.status).toBe('submitted');
    expect(after.problems.find((p) => p.kind === 'unconfirmed-postback')!.message).toMatch(/not confirmed by the print service.*does not report shipment 0/);
    expect(h.standIn.getOrder(SHOP, link.orderId)!.fulfillments).toEqual([]);
    expect(after.shipments.every((s) => s.status === 'pending')).toBe(true);
  });

  it('a forged "cancelled" cancels nothing in Shopify', async () => {
    const link = await submitted();
    expect((await post({ event: 'Order Cancelled', sourceOrderId: link.sourceOrderId })).status).toBe(202);
    const after = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, link.orderId);
      return l?.problems.some((p) => p.kind === 'unconfirmed-postback') && l;
    }, { what: 'the unconfirmed cancellation recorded' });
    expect(after.status).toBe('submitted');
    expect(after.cancelRequested).toBeUndefined();
    expect(h.standIn.getOrder(SHOP, link.orderId)!.tags).not.toContain('print-bridge:cancelled');
  });

  it('a shipped postback the print service confirms is carried out', async () => {
    const link = await submitted();
    // The printer really ships it (the emulator's hooks), then the postback says so.
    const record = h.emulator.store.all().find((o) => o.sourceOrderId === link.sourceOrderId)!;
    await fetch(`${h.emulator.baseUrl}/_emulator/orders/${record.record._id}/advance`, { method: 'POST', body: JSON.stringify({ to: 'shipped' }), headers: { 'content-type': 'application/json' } });
    const shipped = h.emulator.store.all().find((o) => o.sourceOrderId === link.sourceOrderId)!;
    const tracking = (shipped.record.orderData.shipments as { trackingNumber?: string }[])[0]?.trackingNumber;
    expect(tracking).toBeTruthy();
    expect((await post({ event: 'Shipment Shipped', sourceOrderId: link.sourceOrderId, shipmentIndex: 0, trackingNumber: tracking, carrier: 'royalmail' })).status).toBe(202);
    await waitFor(() => (h.standIn.getOrder(SHOP, link.orderId)?.fulfillments.length ?? 0) === 1, { what: 'the fulfillment' });
  });
});
