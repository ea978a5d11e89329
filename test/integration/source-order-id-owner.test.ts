import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorOrders, orderBody, SHOP, SHOPIFY_SECRET, startHarness, testMapping, waitFor, type Harness } from '../helpers/harness.js';
import { signedWebhookHeaders } from '../helpers/shopify-webhooks.js';

/**
 * Issue 12 item 6 against the running app: a mapping whose sourceOrderId leaves out the store (here the order number
 * alone) renders the same id for two stores. The second store's order is held with the reason, never merged, and
 * the first store's postbacks never reach it.
 */

const OTHER = 'second-store.myshopify.com';
const OTHER_TOKEN = 'shpat_second_store';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ mapping: testMapping().replace('destination: demo-printer', 'destination: demo-printer\norder:\n  sourceOrderId: "PB-{{ order.order_number }}"') });
  h.standIn.registerShop(OTHER, OTHER_TOKEN);
  await h.runtime.sessions.addCustomAppToken(OTHER, OTHER_TOKEN, h.config.SHOPIFY_SCOPES);
});
afterAll(async () => {
  await h?.close();
});

describe('a sourceOrderId belongs to one store', () => {
  it('holds the second store’s order with the reason; the printer has one order; postbacks act on the owner only', async () => {
    const first = orderBody([{ sku: 'PRINT-A5' }]);
    h.standIn.seedOrder(SHOP, first);
    await h.sendWebhook('orders/paid', first);
    const owner = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, first.admin_graphql_api_id);
      return l?.status === 'submitted' && l;
    }, { what: 'the first store’s order submitted' });
    expect(owner.sourceOrderId).toBe(`PB-${first.order_number}`);

    // The second store has an order with the same number (and another Shopify id).
    const second = { ...orderBody([{ sku: 'PRINT-A4' }]), order_number: first.order_number, name: first.name };
    h.standIn.seedOrder(OTHER, second);
    const raw = JSON.stringify(second);
    const sent = await fetch(`${h.runtime.url}/webhooks`, { method: 'POST', body: raw, headers: signedWebhookHeaders(SHOPIFY_SECRET, raw, { topic: 'orders/paid', shop: OTHER }) });
    expect(sent.status).toBe(200);
    const held = await waitFor(async () => {
      const l = await h.runtime.store.get(OTHER, second.admin_graphql_api_id);
      return l?.status === 'held' && l;
    }, { what: 'the second store’s order held' });
    expect(held.problems).toEqual([expect.objectContaining({ kind: 'source-order-id', subject: 'order.sourceOrderId' })]);
    // Issue 22: the reason never names the other store (it is not this merchant's to see).
    expect(held.problems[0]!.message).toContain(`PB-${first.order_number} already belongs to another order on the same print account`);
    expect(JSON.stringify(held)).not.toContain(SHOP);
    expect(held.sourceOrderId).toBeUndefined();
    expect(emulatorOrders(h.emulator, `PB-${first.order_number}`)).toHaveLength(1);
    expect((await h.runtime.store.findBySourceOrderId(`PB-${first.order_number}`))?.shop).toBe(SHOP);
  });
});
