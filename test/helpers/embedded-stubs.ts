import { type Browser, chromium, type Page } from 'playwright-core';
import { signSessionToken } from '../../src/dev/admin-stand-in/index.js';

/**
 * Just enough of Shopify's CDN scripts for browser tests (nothing outside loads here): App Bridge (the `shopify`
 * global with `idToken()` fetching a fresh session token from the test, the bounce page's reload, `<s-app-nav>` drawn
 * as links) and the Polaris elements the pages use (form fields are form-associated, as Polaris's are).
 */
export const APP_BRIDGE_STUB = `
window.__cdn = (window.__cdn || []).concat('app-bridge');
const apiKey = document.querySelector('meta[name="shopify-api-key"]')?.content;
// A fresh session token each time, as App Bridge gets one from the admin (here from the test).
window.shopify = { config: { apiKey }, idToken: async () => (await fetch('https://cdn.shopify.com/shopifycloud/test-token')).text() };
// The bounce page: App Bridge reloads the shopify-reload address with a fresh id_token.
const reload = new URLSearchParams(location.search).get('shopify-reload');
if (reload) shopify.idToken().then((token) => { const url = new URL(reload, location.href); url.searchParams.set('id_token', token); location.replace(url.href); });
customElements.define('s-app-nav', class extends HTMLElement {
  connectedCallback() {
    // The children are parsed after the element connects: build once the document is read.
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => this.build());
    else this.build();
  }
  build() {
    // The admin draws the app's navigation in its own sidebar and loads the link's address in the frame (no token).
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

export const POLARIS_STUB = `
window.__cdn = (window.__cdn || []).concat('polaris');
// Tables laid out as tables (Polaris draws its own; the stub only needs them readable in screenshots).
const style = document.createElement('style');
style.textContent = 's-table{display:table;width:100%;border-collapse:collapse}s-table-header-row,s-table-row{display:table-row}s-table-body{display:table-row-group}s-table-header,s-table-cell{display:table-cell;padding:6px 10px;border-bottom:1px solid #e3e3e3;vertical-align:top}s-table-header{font-weight:600}s-badge{display:inline-block;padding:0 6px;border-radius:6px;background:#e3e3e3}s-banner{display:block;padding:8px 12px;margin:8px 0;border-radius:8px;background:#eaf4ff}s-banner[tone=critical]{background:#fed1d7}s-banner[tone=success]{background:#cdfee1}';
document.head.append(style);
customElements.define('s-page', class extends HTMLElement {
  connectedCallback() {
    if (this.querySelector(':scope > h1')) return;
    const h = document.createElement('h1');
    h.textContent = this.getAttribute('heading');
    this.prepend(h);
  }
});
// Form fields are form-associated, as Polaris's are: their value goes with the form.
const field = (multiline, type) => class extends HTMLElement {
  static formAssociated = true;
  constructor() { super(); this.internals = this.attachInternals(); }
  connectedCallback() {
    if (this.input) return;
    const label = document.createElement('label');
    label.textContent = this.getAttribute('label');
    this.input = document.createElement(multiline ? 'textarea' : 'input');
    if (!multiline) this.input.type = type;
    this.input.value = this.getAttribute('value') || '';
    this.input.setAttribute('aria-label', this.getAttribute('label'));
    this.input.addEventListener('input', () => this.internals.setFormValue(this.input.value));
    this.internals.setFormValue(this.input.value);
    this.append(label, this.input);
  }
};
customElements.define('s-text-field', field(false, 'text'));
customElements.define('s-search-field', field(false, 'search'));
customElements.define('s-date-field', field(false, 'date'));\ncustomElements.define('s-url-field', field(false, 'url'));\ncustomElements.define('s-password-field', field(false, 'password'));
customElements.define('s-text-area', field(true));
customElements.define('s-button', class extends HTMLElement {
  connectedCallback() {
    this.setAttribute('role', this.hasAttribute('href') ? 'link' : 'button');
    this.addEventListener('click', () => { if (this.getAttribute('type') === 'submit') this.closest('form')?.requestSubmit(); });
  }
});
for (const name of ['s-link', 's-banner', 's-badge', 's-section', 's-table', 's-table-header-row', 's-table-header', 's-table-body', 's-table-row', 's-table-cell']) customElements.define(name, class extends HTMLElement {});`;



export const CHROMIUM = '/usr/bin/chromium';

/**
 * A page in headless Chromium as the Shopify admin's iframe: Shopify's CDN scripts served by the test, a fresh session
 * token for `shop` signed with `apiSecret` on each `shopify.idToken()`, and every other outside request refused.
 */
export async function embeddedPage(options: { appUrl: string; shop: string; apiSecret: string; apiKey?: string; timeoutMs?: number }): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(options.timeoutMs ?? 10_000);
  await page.route('https://cdn.shopify.com/shopifycloud/app-bridge.js', (route) => route.fulfill({ contentType: 'text/javascript', body: APP_BRIDGE_STUB }));
  await page.route('https://cdn.shopify.com/shopifycloud/polaris.js', (route) => route.fulfill({ contentType: 'text/javascript', body: POLARIS_STUB }));
  await page.route('https://cdn.shopify.com/shopifycloud/test-token', (route) =>
    route.fulfill({ contentType: 'text/plain', headers: { 'access-control-allow-origin': '*' }, body: signSessionToken({ apiKey: options.apiKey ?? 'test-key', apiSecret: options.apiSecret }, options.shop) }),
  );
  await page.route((url) => !url.href.startsWith(options.appUrl) && !url.href.startsWith('https://cdn.shopify.com/shopifycloud/'), (route) => route.abort());
  return { browser, page };
}
