import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSessionToken } from '../../src/shopify/admin-stand-in/index.js';
import { type Harness, orderBody, SHOP, SHOPIFY_SECRET, startHarness, waitFor } from '../helpers/harness.js';

/**
 * The embedded app in a real browser, as the Shopify admin opens it (issue 15): application_url with a session token,
 * App Bridge and Polaris from Shopify's CDN (served here by the test: nothing outside loads), the app's navigation in
 * `<s-app-nav>`, a Polaris page, and no header of our own. The stubs implement just enough of App Bridge (the
 * `shopify` global, `idToken()`) and of the Polaris elements to render and navigate, and count what was loaded.
 */
const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const SHOTS = join(process.cwd(), 'test-results');

const APP_BRIDGE_STUB = `
window.__cdn = (window.__cdn || []).concat('app-bridge');
const apiKey = document.querySelector('meta[name="shopify-api-key"]')?.content;
window.shopify = { config: { apiKey }, idToken: async () => window.__sessionToken };
customElements.define('s-app-nav', class extends HTMLElement {
  connectedCallback() {
    // The children are parsed after the element connects: build once the document is read.
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => this.build());
    else this.build();
  }
  build() {
    // The admin draws the app's navigation in its own sidebar; here it becomes a nav of links to click.
    const nav = document.createElement('nav');
    nav.setAttribute('aria-label', 'App navigation');
    for (const link of this.querySelectorAll('s-link')) {
      const a = document.createElement('a');
      a.href = link.getAttribute('href');
      a.textContent = link.textContent;
      nav.append(a);
    }
    this.replaceChildren(nav);
  }
});`;

const POLARIS_STUB = `
window.__cdn = (window.__cdn || []).concat('polaris');
customElements.define('s-page', class extends HTMLElement {
  connectedCallback() {
    if (this.querySelector(':scope > h1')) return;
    const h = document.createElement('h1');
    h.textContent = this.getAttribute('heading');
    this.prepend(h);
  }
});
for (const name of ['s-link', 's-banner', 's-badge', 's-section', 's-button', 's-table', 's-table-header-row', 's-table-header', 's-table-body', 's-table-row', 's-table-cell']) customElements.define(name, class extends HTMLElement {});`;

describe.skipIf(!hasChromium)('the embedded app in a browser', () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  const order = orderBody([{ sku: 'PRINT-EMBED' }]);

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness();
    h.standIn.seedOrder(SHOP, order);
    await h.sendWebhook('orders/paid', order);
    await waitFor(async () => (await h.runtime.store.get(SHOP, order.admin_graphql_api_id))?.status === 'submitted', { what: 'the submitted order' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(8_000);
    // Shopify's CDN, served by the test; any other outside request fails the test.
    await page.route('https://cdn.shopify.com/shopifycloud/app-bridge.js', (route) => route.fulfill({ contentType: 'text/javascript', body: APP_BRIDGE_STUB }));
    await page.route('https://cdn.shopify.com/shopifycloud/polaris.js', (route) => route.fulfill({ contentType: 'text/javascript', body: POLARIS_STUB }));
    await page.route((url) => !url.href.startsWith(h.runtime.url!) && !url.href.startsWith('https://cdn.shopify.com/shopifycloud/'), (route) => route.abort());
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
    expect(await nav.getByRole('link').allInnerTexts()).toEqual(['Orders', 'Problems', 'Mappings', 'Customer data']);
    await page.getByRole('link', { name: order.name, exact: true }).waitFor();
    // The orders in a Polaris table, the status in a Polaris badge.
    expect(await page.locator('s-table s-table-row').count()).toBe(1);
    expect(await page.locator('s-table-row s-badge').first().getAttribute('tone')).toBe('info');
    expect(await page.locator('s-badge').first().innerText()).toBe('submitted');
    await page.screenshot({ path: join(SHOTS, 'embedded-orders.png'), fullPage: true });

    await nav.getByRole('link', { name: 'Problems' }).click();
    await page.getByRole('heading', { name: 'Problems', exact: true }).waitFor();
    await nav.getByRole('link', { name: 'Customer data' }).click();
    await page.getByRole('heading', { name: 'Customer data', exact: true }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'embedded-privacy.png'), fullPage: true });
    await nav.getByRole('link', { name: 'Orders' }).click();
    await page.getByRole('link', { name: order.name, exact: true }).click();
    await page.getByRole('heading', { name: `Order ${order.name}` }).waitFor();
    expect(await page.locator('main').innerText()).toMatch(/submitted/);
    await page.screenshot({ path: join(SHOTS, 'embedded-order.png'), fullPage: true });
  });
});
