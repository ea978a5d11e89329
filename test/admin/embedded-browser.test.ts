import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSessionToken } from '../../src/dev/admin-stand-in/index.js';
import { type Harness, orderBody, SHOP, SHOPIFY_SECRET, startHarness, waitFor } from '../helpers/harness.js';
import { CHROMIUM, embeddedPage } from '../helpers/embedded-page.js';

/**
 * The embedded app in a real browser, as the Shopify admin opens it (issue 15): application_url with a session token,
 * App Bridge and Polaris from Shopify's CDN (served here by the test: nothing outside loads), the app's navigation in
 * `<s-app-nav>`, a Polaris page, and no header of our own. The stubs implement just enough of App Bridge (the
 * `shopify` global, `idToken()`) and of the Polaris elements to render and navigate, and count what was loaded.
 */
const hasChromium = existsSync(CHROMIUM);
const SHOTS = join(process.cwd(), 'test-results');

describe.skipIf(!hasChromium)('the embedded app in a browser', () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  const order = orderBody([{ sku: 'PRINT-EMBED' }]);
  const requests: { method: string; url: string; authorization?: string }[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness();
    h.standIn.seedOrder(SHOP, order);
    await h.sendWebhook('orders/paid', order);
    await waitFor(async () => (await h.runtime.store.get(SHOP, order.admin_graphql_api_id))?.status === 'submitted', { what: 'the submitted order' });
    // Shopify's CDN, served by the test; any other outside request fails the test.
    ({ browser, page } = await embeddedPage({ appUrl: h.runtime.url!, shop: SHOP, apiSecret: SHOPIFY_SECRET, timeoutMs: 8_000 }));
    page.on('request', (request) => {
      if (request.url().startsWith(h.runtime.url!)) requests.push({ method: request.method(), url: request.url(), authorization: request.headers().authorization });
    });
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('opens at the site root with a session token, with App Bridge navigation and a Polaris page', async () => {
    const token = signSessionToken({ apiKey: 'test-key', apiSecret: SHOPIFY_SECRET }, SHOP);
    const host = Buffer.from(`admin.shopify.com/store/${SHOP.split('.')[0]}`).toString('base64url');
    await page.goto(`${h.runtime.url}/?embedded=1&shop=${SHOP}&host=${host}&id_token=${token}`);
    await page.getByRole('heading', { name: 'Orders', exact: true }).waitFor();
    expect(await page.evaluate('window.__cdn')).toEqual(['app-bridge', 'polaris']);
    expect(await page.locator('header.top').count()).toBe(0);
    const nav = page.getByRole('navigation', { name: 'App navigation' });
    expect(await nav.getByRole('link').allInnerTexts()).toEqual(['Orders', 'Problems', 'Mappings', 'Edit mapping', 'Settings', 'Customer data']);
    await page.getByRole('link', { name: order.name, exact: true }).waitFor();
    // The orders in a Polaris table, the status in a Polaris badge.
    expect(await page.locator('s-table s-table-row').count()).toBe(1);
    expect(await page.locator('s-table-row s-badge').first().getAttribute('tone')).toBe('info');
    expect(await page.locator('s-badge').first().innerText()).toBe('submitted');
    await page.screenshot({ path: join(SHOTS, 'embedded-orders.png'), fullPage: true });

    // The admin's navigation loads the address without a token: the bounce page gets a fresh one and reloads.
    await nav.getByRole('link', { name: 'Problems' }).click();
    await page.getByRole('heading', { name: 'Problems', exact: true }).waitFor();
    expect(requests.some((r) => new URL(r.url).pathname === '/auth/session-token')).toBe(true);
    expect(new URL(page.url()).searchParams.get('id_token')).toBeTruthy();
    await nav.getByRole('link', { name: 'Customer data' }).click();
    await page.getByRole('heading', { name: 'Customer data', exact: true }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'embedded-privacy.png'), fullPage: true });

    // The search is a Polaris search field in a GET form; the script sends it with a fresh token.
    await nav.getByRole('link', { name: 'Orders' }).click();
    await page.getByRole('heading', { name: 'Orders', exact: true }).waitFor();
    // The heading is drawn while the page is parsed, the embedded script (deferred) runs after: the page's load says
    // it has, or the form would be sent by the browser itself (and bounce for a token).
    await page.waitForLoadState('load');
    await page.getByLabel('Order, sourceOrderId or print _id').fill('no-such-order');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.searchParams.get('q') === 'no-such-order');
    expect(await page.locator('s-table s-table-row').count()).toBe(0);
    await page.getByLabel('Order, sourceOrderId or print _id').fill(order.name);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.searchParams.get('q') === order.name);

    // A link of the page: the script adds a fresh token (no bounce).
    const bounces = requests.filter((r) => new URL(r.url).pathname === '/auth/session-token').length;
    await page.getByRole('link', { name: order.name, exact: true }).click();
    await page.getByRole('heading', { name: `Order ${order.name}` }).waitFor();
    // The embedded script must be running before its Cancel order is pressed (a native POST has no bearer token).
    await page.waitForLoadState('load');
    expect(requests.filter((r) => new URL(r.url).pathname === '/auth/session-token').length).toBe(bounces);
    expect(await page.locator('main').innerText()).toMatch(/submitted/);
    await page.screenshot({ path: join(SHOTS, 'embedded-order.png'), fullPage: true });

    // An action: a Polaris button in a POST form, sent with App Bridge's bearer token; the answer says where to go.
    // Cancelling asks first in App Bridge's modal (test/admin/app-bridge-browser.test.ts has the rest).
    await page.getByRole('button', { name: 'Cancel order' }).click();
    await page.locator('[data-admin="modal"]').getByRole('button', { name: 'Cancel order' }).click();
    await page.waitForURL((url) => url.searchParams.has('flash'));
    const post = requests.find((r) => r.method === 'POST' && r.url.includes('/cancel'))!;
    expect(post.authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(new URL(post.url).searchParams.has('id_token')).toBe(false);
    await waitFor(async () => Boolean((await h.runtime.store.get(SHOP, order.admin_graphql_api_id))?.cancelRequested), { what: 'the cancellation requested from the page' });
    expect((await h.runtime.store.history(SHOP, order.admin_graphql_api_id)).some((e) => e.source === 'operator' && (e.detail ?? '').startsWith(`${SHOP} user`))).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'embedded-order-cancelled.png'), fullPage: true });

    // A form whose answer is a page: the mapping preview replaces the page's content.
    await nav.getByRole('link', { name: 'Mappings' }).click();
    await page.getByRole('heading', { name: 'Mappings', exact: true }).waitFor();
    // As above: the preview is sent by the embedded script, which runs once the page is parsed.
    await page.waitForLoadState('load');
    await page.getByLabel('Shopify order id').fill(order.admin_graphql_api_id);
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.locator('#preview-result').waitFor();
    expect(await page.locator('#preview-result').innerText()).toContain('PRINT-EMBED');
    await page.screenshot({ path: join(SHOTS, 'embedded-preview.png'), fullPage: true });

    // Nothing of the app's own travelled in a URL: no signed session parameter anywhere.
    expect(requests.filter((r) => /[?&](s|_s)=/.test(r.url))).toEqual([]);
  });
});
