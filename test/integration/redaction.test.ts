import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderBody, SHOP, SHOPIFY_SECRET, startHarness, waitFor, type Harness } from '../helpers/harness.js';
import { signedWebhookHeaders } from '../helpers/shopify-webhooks.js';

/**
 * Issue 12 item 9 against the running app: queue jobs carry references, not bodies or addresses, and redaction
 * reaches every copy the app keeps (store, webhook bodies not handled yet, reports, unreadable postbacks).
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

function send(topic: string, raw: string) {
  return fetch(`${h.runtime.url}/webhooks`, { method: 'POST', body: raw, headers: signedWebhookHeaders(SHOPIFY_SECRET, raw, { topic, shop: SHOP }) });
}

describe('personal data in queues and after redaction', () => {
  it('queues webhook jobs with ids only, and deletes the kept body once the webhook is handled', async () => {
    const body = orderBody([{ sku: 'PRINT-A5' }]);
    h.standIn.seedOrder(SHOP, body);
    expect((await h.sendWebhook('orders/paid', body, 'privacy-1')).status).toBe(200);
    await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status === 'submitted', { what: 'the order submitted' });
    const jobs = await h.runtime.queues.webhooks.getJobs(['completed', 'waiting', 'active', 'delayed', 'failed']);
    const mine = jobs.find((j) => j.data.webhookId === 'privacy-1');
    expect(mine).toBeDefined();
    expect(mine!.data.body).toBeUndefined();
    const text = JSON.stringify(jobs.map((j) => j.data));
    expect(text).not.toContain('Piotrkowska');
    expect(text).not.toContain('zoe@example.com');
    await waitFor(async () => (await h.runtime.store.webhookBodies().get(SHOP, 'privacy-1')) === undefined, { what: 'the handled body deleted' });
  });

  it('customers/redact reaches stored bodies, bodies not handled yet, reports and unreadable postbacks', async () => {
    const body = orderBody([{ sku: 'PRINT-A4' }]);
    const numericId = body.admin_graphql_api_id.split('/').pop()!;
    const raw = JSON.stringify(body).replace(`"id":${body.id}`, `"id":${numericId}`);
    h.standIn.seedOrder(SHOP, body);
    expect((await send('orders/paid', raw)).status).toBe(200);
    const link = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return l?.status === 'submitted' && l;
    }, { what: 'the order submitted' });

    // Copies: a later webhook of the order not handled yet, a data-request report, an unreadable postback naming it.
    await h.runtime.store.webhookBodies().keep(SHOP, 'pending-update', raw);
    const request = JSON.stringify({ shop_id: 1, shop_domain: SHOP, orders_requested: [numericId], customer: { id: 9 }, data_request: { id: 77 } });
    expect((await send('customers/data_request', request)).status).toBe(200);
    await waitFor(async () => Array.isArray(await h.runtime.store.getDataRequest(SHOP, '77')), { what: 'the data-request report' });
    expect(JSON.stringify(await h.runtime.store.getDataRequest(SHOP, '77'))).toContain('Piotrkowska');
    await h.runtime.store.keepUnreadablePostback({ receivedAt: new Date().toISOString(), headers: {}, body: `{"sourceOrderId": "${link.sourceOrderId}", "shipTo": "ul. Piotrkowska 1"`, error: 'not JSON' });

    const redact = JSON.stringify({ shop_id: 1, shop_domain: SHOP, customer: { id: 9 }, orders_to_redact: [numericId] });
    expect((await send('customers/redact', redact)).status).toBe(200);
    await waitFor(async () => (await h.runtime.store.getOrderBody(SHOP, body.admin_graphql_api_id)) === undefined, { what: 'the order body redacted' });
    await waitFor(async () => (await h.runtime.store.webhookBodies().get(SHOP, 'pending-update')) === undefined, { what: 'the pending body redacted' });
    // The kept bodies, the reports and the unreadable postbacks are redacted at once (in no set order): each is
    // waited for, not read right after another.
    await waitFor(async () => !JSON.stringify(await h.runtime.store.getDataRequest(SHOP, '77')).includes('Piotrkowska'), { what: 'the data-request report redacted' });
    await waitFor(async () => {
      const { entries } = await h.runtime.store.listUnreadablePostbacks({ limit: 1000 });
      return entries.every((e) => !e.body.includes(link.sourceOrderId!));
    }, { what: 'the unreadable postback naming the order removed' });
    const jobs = await h.runtime.queues.webhooks.getJobs(['completed', 'waiting', 'active', 'delayed', 'failed']);
    expect(JSON.stringify(jobs.map((j) => j.data))).not.toContain('Piotrkowska');
  });

  it('shop/redact removes every order, body, report and kept body of the store', async () => {
    const body = orderBody([{ sku: 'PRINT-A6' }]);
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);
    await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status === 'submitted', { what: 'the order submitted' });
    await h.runtime.store.webhookBodies().keep(SHOP, 'pending-2', JSON.stringify(body));
    // Shopify sends it 48 hours after the uninstall, which revoked the app's token.
    h.standIn.uninstallApp(SHOP);
    expect((await send('shop/redact', JSON.stringify({ shop_id: 1, shop_domain: SHOP }))).status).toBe(200);
    await waitFor(async () => (await h.runtime.store.orderIdsOfShop(SHOP)).length === 0, { what: 'every order of the store deleted' });
    await waitFor(async () => (await h.runtime.store.webhookBodies().get(SHOP, 'pending-2')) === undefined, { what: 'kept bodies deleted' });
    // Deleted with the kept bodies, at once and in no set order: waited for too.
    await waitFor(async () => (await h.runtime.store.getDataRequest(SHOP, '77')) === undefined, { what: "the store's data-request reports deleted" });
  });
});
