import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, AdminClient } from '../admin/helpers.js';
import { emulatorOrders, orderBody, SHOP, startHarness, waitFor, type Harness } from '../helpers/harness.js';

/** Issue 13 item 3 against the running app: accepted webhooks never vanish. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { ADMIN_TOKEN } });
});
afterAll(async () => {
  await h?.close();
});

describe('order webhooks the worker reads', () => {
  it('takes an older order body without admin_graphql_api_id, deriving the gid from the exact id', async () => {
    // An id below 2^53: this test writes the body with JSON.stringify, which would round a bigger one.
    const body: Record<string, unknown> = orderBody([{ sku: 'PRINT-A5' }], { id: 450789469, admin_graphql_api_id: 'gid://shopify/Order/450789469' });
    const gid = body.admin_graphql_api_id as string;
    delete body.admin_graphql_api_id;
    h.standIn.seedOrder(SHOP, { ...body, admin_graphql_api_id: gid });
    expect((await h.sendWebhook('orders/paid', body)).status).toBe(200);
    const link = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, gid);
      return l?.status === 'submitted' && l;
    }, { what: 'the order submitted' });
    expect(link.orderId).toBe(gid);
    expect(emulatorOrders(h.emulator, link.sourceOrderId!)).toHaveLength(1);
  });

  it('shows a webhook the worker cannot read on the problems page, with its reason, instead of only in the logs', async () => {
    const body: Record<string, unknown> = orderBody([{ sku: 'PRINT-A5' }], { id: 450789470, admin_graphql_api_id: 'gid://shopify/Order/450789470' });
    // Accepted at the door (an id and line items), refused by the order check: a line item without a quantity.
    body.line_items = [{ id: 7, sku: 'PRINT-A5' }];
    expect((await h.sendWebhook('orders/paid', body)).status).toBe(200);
    const admin = await AdminClient.login(h.runtime.url!);
    const page = await waitFor(async () => {
      const html = await admin.page('/admin/problems');
      return html.includes('not an order body') && html;
    }, { what: 'the refused webhook on the problems page' });
    expect(page).toContain('line_items.0.quantity');
    expect(page).toContain('gid://shopify/Order/450789470');
    expect(page).toContain('webhooks/orders/paid');
  });
});
