import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, AdminClient, sessionToken } from '../admin/helpers.js';
import { type Harness, orderBody, SHOP, SHOPIFY_SECRET, startHarness, waitFor } from '../helpers/harness.js';
import { runCliInProcess } from '../helpers/run-cli.js';

/**
 * Issue 15, compliance: a customers/data_request produces a report the merchant downloads from the app (their own
 * store's only) and the operator reads from the command line.
 */
describe('customer data requests', () => {
  let h: Harness;
  const body = orderBody([{ sku: 'PRINT-PRIVACY' }], { email: 'privacy-customer@example.com' });
  beforeAll(async () => {
    h = await startHarness({ env: { ADMIN_TOKEN } });
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);
    await waitFor(async () => (await h.runtime.store.getOrderBody(SHOP, body.admin_graphql_api_id)) !== undefined, { what: 'the stored order' });
    const request = { shop_id: 1, shop_domain: SHOP, orders_requested: [body.admin_graphql_api_id.split('/').pop()!], customer: { id: 9, email: 'privacy-customer@example.com' }, data_request: { id: 4242 } };
    expect((await h.sendWebhook('customers/data_request', request)).status).toBe(200);
    await waitFor(async () => Array.isArray(await h.runtime.store.getDataRequest(SHOP, '4242')), { what: 'the report' });
  });
  afterAll(() => h.close());

  it('lists the report for the merchant, who downloads it as JSON with what the app holds', async () => {
    const token = sessionToken(SHOPIFY_SECRET, { shop: SHOP, apiKey: 'test-key' });
    const page = await (await fetch(`${h.runtime.url}/admin/privacy`, { headers: { authorization: `Bearer ${token}` } })).text();
    expect(page).toContain('Customer data requests');
    expect(page).toContain('4242');
    const download = await fetch(`${h.runtime.url}/admin/privacy/${SHOP}/4242/report.json`, { headers: { authorization: `Bearer ${sessionToken(SHOPIFY_SECRET, { shop: SHOP, apiKey: 'test-key' })}` } });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="print-bridge-data-request-/);
    expect(download.headers.get('cache-control')).toBe('no-store');
    const report = (await download.json()) as { report: { orderId: string; orderBody: { email?: string } }[] };
    expect(report.report).toEqual([expect.objectContaining({ orderId: body.admin_graphql_api_id })]);
    expect(report.report[0]!.orderBody.email).toBe('privacy-customer@example.com');
  });

  it("never gives one store another store's report", async () => {
    const other = sessionToken(SHOPIFY_SECRET, { shop: 'other-store.myshopify.com', apiKey: 'test-key' });
    const refused = await fetch(`${h.runtime.url}/admin/privacy/${SHOP}/4242/report.json`, { headers: { authorization: `Bearer ${other}` } });
    expect(refused.status).toBe(404);
    const list = await (await fetch(`${h.runtime.url}/admin/privacy`, { headers: { authorization: `Bearer ${other}` } })).text();
    expect(list).not.toContain('4242');
    const anonymous = await fetch(`${h.runtime.url}/admin/privacy/${SHOP}/4242/report.json`, { redirect: 'manual' });
    expect([302, 303, 401]).toContain(anonymous.status);
  });

  it('shows every store to the operator, and prints the report from the command line', async () => {
    const admin = await AdminClient.login(h.runtime.url!);
    expect(await admin.page('/admin/privacy')).toContain(SHOP);
    const env = { DATABASE_URL: h.config.DATABASE_URL!, DATABASE_SCHEMA: h.schema };
    const listed = await runCliInProcess(['data-requests', 'list', '--shop', SHOP], env);
    expect(listed.stderr).toBe('');
    expect(listed.stdout).toMatch(new RegExp(`${SHOP}  4242  1 order\\(s\\)`));
    const shown = await runCliInProcess(['data-requests', 'show', SHOP, '4242'], env);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ shop: SHOP, requestId: '4242', report: [{ orderId: body.admin_graphql_api_id }] });
    const missing = await runCliInProcess(['data-requests', 'show', SHOP, 'nope'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No data request nope');
  });
});
