import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderPath } from '../../src/admin/order-fragments.js';
import { mappingsPage } from '../../src/admin/mapping-views.js';
import { orderPage } from '../../src/admin/order-views.js';
import type { PageContext } from '../../src/admin/page-layout.js';
import { html } from '../../src/admin/html.js';
import type { OrderLink } from '../../src/orders/model.js';
import { CHROMIUM, embeddedPage } from '../helpers/embedded-page.js';
import { type Harness, orderBody, SHOP, SHOPIFY_SECRET, startHarness, waitFor } from '../helpers/harness.js';
import { ADMIN_TOKEN, AdminClient, sessionToken } from './helpers.js';

/**
 * Issue 26: a merchant's pages speak the merchant's words. An order with problems, history, a test run, shipments and
 * fulfillment requests reads without gids, job or queue names and JSON paths on the merchant's order page and list;
 * shipments count from 1 and name the carrier company; a cancelled order's shipments are cancelled; the order links to
 * the Shopify admin; the test run is a summary with its JSON behind a disclosure. Operators still see it as recorded.
 */
const JSON_PATH = /\w+(\.\w+)*\[\d+\]/;
const SHOTS = join(process.cwd(), 'test-results');

/** The text a reader sees: no markup, no script or style, and nothing of a closed `<details>` but its summary. */
function visibleText(page: string): string {
  return page
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/(<\/summary>)[\s\S]*?(<\/details>)/gi, '$1$2')
    .replace(/<br>|<\/?(div|p|li|ul|ol|dl|dd|dt|h\d|td|th|tr|table|summary|details|address|nav|main|s-table-cell|s-table-row)\b[^>]*>/g, ' ')
    .replace(/<[^>]+>/g, '')
    .replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

function expectMerchantWords(text: string): void {
  expect(text).not.toContain('gid://');
  expect(text).not.toMatch(/orders\/submit|orders\/paid|\bwebhooks\b|\bshopify\b|shopify\/sync/);
  expect(text).not.toMatch(JSON_PATH);
}

describe('merchant words on merchant pages', () => {
  let h: Harness;
  let admin: AdminClient;
  const body = orderBody([{ sku: 'PRINT-A5', title: 'Poster A5' }, { sku: 'MUG-1', title: 'Mug' }]);
  const gid = body.admin_graphql_api_id;
  const [posterLine, mugLine] = body.line_items.map((l) => l.admin_graphql_api_id);
  const numeric = gid.split('/').pop()!;
  const merchant = (path: string, shop = SHOP) =>
    fetch(`${h.runtime.url}${path}${path.includes('?') ? '&' : '?'}embedded=1&shop=${shop}&host=abc&id_token=${sessionToken(SHOPIFY_SECRET, { shop, apiKey: 'test-key' })}`, { headers: { accept: 'text/html' } });

  beforeAll(async () => {
    h = await startHarness({ env: { ADMIN_TOKEN } });
    admin = await AdminClient.login(h.runtime.url!);
    // MUG-1 has no rule: the order is held with the mapping's problem naming its line item.
    await h.sendWebhook('orders/paid', body);
    await waitFor(async () => (await h.runtime.store.get(SHOP, gid))?.status === 'held', { what: 'the held order' });
    const at = new Date().toISOString();
    await h.runtime.store.update(SHOP, gid, (current) => ({
      link: {
        ...current!,
        status: 'cancelled',
        cancelRequested: { at, by: 'shopify' },
        problems: [
          ...current!.problems,
          { kind: 'validation', subject: 'orderData.items[0].sku', message: 'unknown SKU; "x" is also items[1].sourceItemId', at },
          { kind: 'fulfillment', subject: 'shipment 0', message: `${gid}: order.line_items[1] has no fulfillable quantity`, at },
          { kind: 'changed-after-submission', subject: 'line items', message: `${mugLine} quantity 1 → 2`, at },
        ],
        shipments: [
          { index: 0, status: 'shipped', lineItems: [{ lineItemId: posterLine!, quantity: 1, sku: 'PRINT-A5', title: 'Poster A5' }], trackingNumber: 'RM123456785GB', carrier: { code: 'royalmail' }, trackingUrl: 'https://track.example.com/RM123456785GB', shippedAt: at, fulfillmentId: 'gid://shopify/Fulfillment/4242' },
          { index: 1, status: 'pending', lineItems: [{ lineItemId: mugLine!, quantity: 1, sku: 'MUG-1', title: 'Mug' }] },
        ],
        testRun: {
          at,
          valid: false,
          problems: ['orderData.shipments[0].shipTo.postcode: required'],
          order: {
            destination: { name: 'demo-printer' },
            orderData: {
              sourceOrderId: 'acme-1001',
              items: [{ sku: 'PRINT-A5', quantity: 2, sourceItemId: 'li-1', components: [{ code: 'cover', path: 'https://files.example.com/art/poster-a5.pdf', fetch: true }] }],
              shipments: [{ shipTo: { name: 'Zoë Ünal', address1: 'ul. Piotrkowska 1', town: 'Łódź', postcode: '90-001', isoCountry: 'PL' }, carrier: { alias: 'standard' } }],
            },
          },
        },
        fulfillmentRequest: {
          fulfillmentOrders: [
            { id: 'gid://shopify/FulfillmentOrder/501', requestedAt: at, answer: 'accepted', answeredAt: at, cancellation: 'requested', lineItems: [{ id: 'gid://shopify/FulfillmentOrderLineItem/601', lineItemId: posterLine!, sku: 'PRINT-A5', quantity: 1 }] },
            { id: 'gid://shopify/FulfillmentOrder/502', requestedAt: at, lineItems: [{ id: 'gid://shopify/FulfillmentOrderLineItem/602', lineItemId: mugLine!, sku: 'MUG-1', quantity: 1 }] },
          ],
          rejection: { reason: 'INVALID_SKU', message: 'The mapping cannot print gid://shopify/LineItem/1 here', lineItems: [{ fulfillmentOrderLineItemId: 'gid://shopify/FulfillmentOrderLineItem/602', message: 'no rule for SKU MUG-1' }] },
        },
      },
      history: [
        { event: 'fulfillment requested by Shopify', source: 'shopify', detail: "gid://shopify/FulfillmentOrder/501 (1 line(s)) at print-bridge's location" },
        { event: 'shipment 0 fulfilled in Shopify', source: 'worker', detail: 'gid://shopify/Fulfillment/4242: royalmail RM123456785GB' },
        { event: 'failed jobs retried by operator', source: 'operator', detail: `${SHOP} user 42: orders/submit (timeout); shopify/sync (429)` },
      ],
    }));
  }, 60_000);
  afterAll(() => h?.close());

  it("reads the order page in the merchant's words", async () => {
    const response = await merchant(orderPath({ shop: SHOP, orderId: gid }));
    expect(response.status).toBe(200);
    const page = await response.text();
    const text = visibleText(page);
    expectMerchantWords(text);
    // Lines named by their place in the order and SKU; shipments from 1; the carrier's company; cancelled, not pending.
    expect(text).toContain('line item 2 (SKU MUG-1)');
    expect(text).toContain('print item 1 (SKU PRINT-A5)');
    expect(text).toMatch(/Shipment 1 shipped/);
    expect(text).toMatch(/Shipment 2 cancelled/);
    expect(text).not.toMatch(/Shipment 0|#0\b/);
    expect(text).toContain('Royal Mail RM123456785GB');
    expect(text).not.toContain('royalmail');
    expect(page).toContain('href="https://track.example.com/RM123456785GB"');
    expect(text).toContain(body.name);
    expect(page).toContain(`href="shopify:admin/orders/${numeric}"`);
    // The problems keep their headlines; the history speaks of Shopify, the printer, the work done.
    expect(text).toContain('Changed in Shopify after it went to the printer');
    expect(text).toContain('sending the order to the printer (timeout)');
    expect(text).toContain('a staff member of your store');
    // The test run: a summary, the JSON behind a disclosure.
    expect(text).toMatch(/2 × SKU PRINT-A5/);
    expect(text).toContain('poster-a5.pdf');
    expect(text).toMatch(/Ship to.*Zoë Ünal.*ul\. Piotrkowska 1.*Łódź 90-001/);
    expect(page).toMatch(/<details id="test-run-json"><summary>[^<]+<\/summary><pre class="mono">[^<]*&#34;sku&#34;: &#34;PRINT-A5&#34;/);
    // Shopify's fulfillment requests.
    expect(text).toContain('Fulfillment requests from Shopify');
    expect(text).toMatch(/Request 1.*1 × line item 1 \(SKU PRINT-A5\).*Accepted.*Cancellation asked in Shopify/);
    expect(text).toMatch(/Request 2.*To be rejected/);
    expect(text).toContain('line item 2 (SKU MUG-1): no rule for SKU MUG-1');
  });

  it('lists orders without a Shop column, with shipments from 1 and the carrier company', async () => {
    const page = await (await merchant('/admin')).text();
    const text = visibleText(page);
    expectMerchantWords(text);
    expect(text).toContain(body.name);
    expect(text).not.toMatch(/\bShop\b/);
    expect(text).toMatch(/Shipment 1 shipped Royal Mail RM123456785GB/);
    expect(text).toMatch(/Shipment 2 cancelled/);
    expectMerchantWords(visibleText(await (await merchant('/admin/problems')).text()));
  });

  it('tells a merchant with no orders how to send a test order', async () => {
    const text = visibleText(await (await merchant('/admin', 'empty-store.myshopify.com')).text());
    expect(text).toContain('No orders yet.');
    expect(text).toMatch(/To send a test order, place an order in your store/);
    expect(text).toMatch(/Settings checklist/);
  });

  it('keeps the technical detail on the operator pages', async () => {
    const text = visibleText(await admin.page(orderPath({ shop: SHOP, orderId: gid })));
    expect(text).toContain(gid);
    expect(text).toContain('orderData.items[0].sku');
    expect(text).toContain('royalmail RM123456785GB');
    expect(text).toContain('gid://shopify/Fulfillment/4242');
    expect(text).toContain('"sku": "PRINT-A5"');
    expect(text).toMatch(/shipment 0 fulfilled in Shopify/);
    const list = visibleText(await admin.page('/admin'));
    expect(list).toMatch(/\bShop\b/);
    expect(list).toContain(SHOP);
  });

  describe.skipIf(!existsSync(CHROMIUM))('in a browser', () => {
    let browser: Browser;
    let page: Page;
    const host = Buffer.from(`admin.shopify.com/store/${SHOP.split('.')[0]}`).toString('base64url');
    beforeAll(async () => {
      mkdirSync(SHOTS, { recursive: true });
      ({ browser, page } = await embeddedPage({ appUrl: h.runtime.url!, shop: SHOP, apiSecret: SHOPIFY_SECRET }));
    }, 30_000);
    afterAll(() => browser?.close());
    const open = async (path: string) => {
      await page.goto(`${h.runtime.url}${path}?embedded=1&shop=${SHOP}&host=${host}&id_token=${sessionToken(SHOPIFY_SECRET, { shop: SHOP, apiKey: 'test-key' })}`);
    };

    it('shows the order page and the list in merchant words, at desktop and phone width', async () => {
      await open(orderPath({ shop: SHOP, orderId: gid }));
      await page.getByRole('heading', { name: `Order ${body.name}` }).waitFor();
      const text = await page.locator('main').innerText();
      expectMerchantWords(text);
      expect(text).toContain('Royal Mail');
      expect(text).toMatch(/Shipment 2\s+cancelled/);
      expect(await page.locator('#shopify-order').getAttribute('href')).toBe(`shopify:admin/orders/${numeric}`);
      // The JSON is behind the disclosure until it is opened.
      expect(await page.locator('#test-run').innerText()).not.toContain('"sku"');
      await page.screenshot({ path: join(SHOTS, 'merchant-order.png'), fullPage: true });
      await page.locator('#test-run-json summary').click();
      expect(await page.locator('#test-run').innerText()).toContain('"sku": "PRINT-A5"');
      await page.setViewportSize({ width: 390, height: 844 });
      await page.reload();
      await page.getByRole('heading', { name: `Order ${body.name}` }).waitFor();
      await page.screenshot({ path: join(SHOTS, 'merchant-order-phone.png'), fullPage: true });

      await page.setViewportSize({ width: 1280, height: 900 });
      await open('/admin');
      await page.getByRole('link', { name: body.name, exact: true }).waitFor();
      const list = await page.locator('main').innerText();
      expectMerchantWords(list);
      expect(list).toMatch(/Shipment 1\s+shipped\s+Royal Mail/);
      await page.screenshot({ path: join(SHOTS, 'merchant-orders.png'), fullPage: true });
    });
  });
});

const ctx = (kind: 'shop' | 'operator'): PageContext => ({
  viewer: kind === 'shop' ? { kind: 'shop', shop: SHOP } : { kind: 'operator' },
  link: (path) => path,
  formFields: html``,
});

describe('the mapping preview for a merchant', () => {
  const problem = 'line item 7700000000010011 (SKU "MUG-1", "Mug") items[0].components[cover].path: rendered empty [products[2]]';
  const render = (kind: 'shop' | 'operator') =>
    visibleText(mappingsPage(ctx(kind), { files: [], problems: [], warnings: [], problems_count: 0, preview: { ok: false, shop: SHOP, problems: [problem] } }).value);

  it('names the line and the field in words, not ids and paths', () => {
    const text = render('shop');
    expectMerchantWords(text);
    expect(text).toContain('the line item with SKU MUG-1 print item 1, “cover” artwork, file URL: rendered empty [mapping rule 3]');
    expect(render('operator')).toContain(problem);
  });
});

describe('failed work on a merchant order page', () => {
  const link: OrderLink = {
    shop: SHOP, orderId: 'gid://shopify/Order/7', orderName: '#1007', status: 'error', statusAt: '2026-11-25T00:00:00Z', submitAttempts: 1,
    problems: [], shipments: [], createdAt: '2026-11-25T00:00:00Z', updatedAt: '2026-11-25T00:00:00Z', version: 3,
  };
  const failedJobs = [
    { queue: 'orders', name: 'submit', failedReason: 'print service timeout for gid://shopify/Order/7' },
    { queue: 'webhooks', name: 'orders/paid', failedReason: 'order.line_items[0] unreadable' },
    { queue: 'shopify', name: 'sync', failedReason: 'throttled' },
  ];
  const render = (kind: 'shop' | 'operator') =>
    visibleText(orderPage(ctx(kind), { link, history: [], allowed: { resubmit: false, retry: true, cancel: false }, failedJobs, problems: 0 }).value);

  it('says what the work was, never the queue and job names', () => {
    const text = render('shop');
    expectMerchantWords(text);
    expect(text).toContain('Sending the order to the printer: print service timeout for #1007');
    expect(text).toContain("Reading Shopify's notification: order paid (Shopify): line item 1 unreadable");
    expect(text).toContain('Updating the order in Shopify (tags, status): throttled');
  });

  it('keeps them for operators', () => {
    const text = render('operator');
    expect(text).toContain('orders/submit: print service timeout for gid://shopify/Order/7');
    expect(text).toContain('webhooks/orders/paid');
  });
});
