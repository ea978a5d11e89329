import { type Browser, chromium, type Page } from 'playwright-core';
import { signSessionToken } from '../../src/dev/admin-stand-in/index.js';

/**
 * Just enough of Shopify's CDN scripts for browser tests (nothing outside loads here): App Bridge (the `shopify`
 * global with `idToken()` fetching a fresh session token from the test, the bounce page's reload, `<s-app-nav>` drawn
 * as links, and the admin's own UI the app drives: `<ui-modal>`/`shopify.modal`, `<ui-save-bar>`/`shopify.saveBar`
 * with its leave confirmation, `shopify.toast`) and the Polaris elements the pages use (form fields are
 * form-associated, as Polaris's are).
 *
 * As in the admin, the modal, the save bar and the toasts are drawn outside the app's content (here: at the end of
 * the body, marked `data-admin`), and a click on one of their buttons clicks the app's own `<button>` in the
 * `<ui-modal>`/`<ui-save-bar>`. The `ui-*` elements themselves draw nothing. While a save bar shows, the admin's
 * navigation asks before it leaves ("Leave page with unsaved changes?": Stay / Leave page), and
 * `shopify.saveBar.leaveConfirmation()` resolves only once the merchant leaves (at once without a save bar).
 */
export const APP_BRIDGE_STUB = `
window.__cdn = (window.__cdn || []).concat('app-bridge');
const apiKey = document.querySelector('meta[name="shopify-api-key"]')?.content;
// A fresh session token each time, as App Bridge gets one from the admin (here from the test).
window.shopify = { config: { apiKey }, idToken: async () => (await fetch('https://cdn.shopify.com/shopifycloud/test-token')).text() };
// The bounce page: App Bridge reloads the shopify-reload address with a fresh id_token.
const reload = new URLSearchParams(location.search).get('shopify-reload');
if (reload) shopify.idToken().then((token) => { const url = new URL(reload, location.href); url.searchParams.set('id_token', token); location.replace(url.href); });
const adminStyle = document.createElement('style');
adminStyle.textContent = 'ui-modal,ui-save-bar,ui-title-bar{display:none}[data-admin=modal],[data-admin=leave]{position:fixed;inset:20% 25% auto;background:#fff;border:1px solid #8a8a8a;border-radius:12px;padding:16px;box-shadow:0 8px 24px #0004;z-index:10}[data-admin=save-bar]{position:fixed;bottom:0;left:0;right:0;background:#303030;color:#fff;padding:8px 16px;display:flex;gap:8px;align-items:center;z-index:9}[data-admin=toast]{position:fixed;bottom:64px;left:50%;transform:translateX(-50%);background:#303030;color:#fff;padding:10px 16px;border-radius:10px;z-index:11}';
document.head.append(adminStyle);
// The admin draws a button of the app's: a click on it clicks the app's own button (App Bridge's proxy).
const mirror = (original) => {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = original.textContent;
  if (original.getAttribute('variant')) b.dataset.variant = original.getAttribute('variant');
  if (original.getAttribute('tone')) b.dataset.tone = original.getAttribute('tone');
  b.addEventListener('click', () => original.click());
  return b;
};
const drawn = (kind, id) => document.querySelector('[data-admin="' + kind + '"][data-for="' + id + '"]');
const modals = {
  show(id) {
    const el = document.getElementById(id);
    if (!el || drawn('modal', id)) return;
    const bar = el.querySelector('ui-title-bar');
    const box = document.createElement('div');
    box.dataset.admin = 'modal';
    box.dataset.for = id;
    box.setAttribute('role', 'dialog');
    box.setAttribute('aria-modal', 'true');
    box.setAttribute('aria-label', bar?.getAttribute('title') ?? '');
    const h = document.createElement('h2');
    h.textContent = bar?.getAttribute('title') ?? '';
    box.append(h);
    for (const child of el.children) if (child.localName !== 'ui-title-bar') box.append(child.cloneNode(true));
    const buttons = document.createElement('div');
    // The admin puts the primary action last.
    const own = [...(bar?.querySelectorAll('button') ?? [])];
    own.sort((a, b) => (a.getAttribute('variant') === 'primary') - (b.getAttribute('variant') === 'primary'));
    buttons.append(...own.map(mirror));
    box.append(buttons);
    document.body.append(box);
    el.dispatchEvent(new Event('show'));
  },
  hide(id) {
    const box = drawn('modal', id);
    if (!box) return;
    box.remove();
    document.getElementById(id)?.dispatchEvent(new Event('hide'));
  },
};
let leaving;
const saveBars = {
  async show(id) {
    const el = document.getElementById(id);
    if (!el || drawn('save-bar', id)) return;
    const bar = document.createElement('div');
    bar.dataset.admin = 'save-bar';
    bar.dataset.for = id;
    bar.setAttribute('role', 'region');
    bar.setAttribute('aria-label', 'Unsaved changes');
    const text = document.createElement('span');
    text.textContent = 'Unsaved changes';
    bar.append(text, ...[...el.querySelectorAll('button')].map(mirror));
    document.body.append(bar);
  },
  async hide(id) {
    drawn('save-bar', id)?.remove();
  },
  async toggle(id) {
    return drawn('save-bar', id) ? this.hide(id) : this.show(id);
  },
  // Resolves when no save bar shows, or once the merchant chooses to leave; "Stay" leaves it pending, as the admin does.
  leaveConfirmation() {
    if (!document.querySelector('[data-admin="save-bar"]')) return Promise.resolve();
    if (leaving) return leaving.promise;
    let resolve;
    const promise = new Promise((r) => (resolve = r));
    const box = document.createElement('div');
    box.dataset.admin = 'leave';
    box.setAttribute('role', 'dialog');
    box.setAttribute('aria-modal', 'true');
    box.setAttribute('aria-label', 'Leave page with unsaved changes?');
    const h = document.createElement('h2');
    h.textContent = 'Leave page with unsaved changes?';
    const p = document.createElement('p');
    p.textContent = 'Leaving this page will delete all unsaved changes.';
    const stay = document.createElement('button');
    stay.type = 'button';
    stay.textContent = 'Stay';
    stay.addEventListener('click', () => { box.remove(); leaving = undefined; });
    const leave = document.createElement('button');
    leave.type = 'button';
    leave.textContent = 'Leave page';
    leave.addEventListener('click', () => { box.remove(); leaving = undefined; document.querySelectorAll('[data-admin="save-bar"]').forEach((b) => b.remove()); resolve(); });
    box.append(h, p, stay, leave);
    document.body.append(box);
    window.__leaveAsked = (window.__leaveAsked || 0) + 1;
    leaving = { promise };
    return promise;
  },
};
const toast = {
  show(message, options = {}) {
    window.__toasts = (window.__toasts || []).concat({ message, isError: Boolean(options.isError) });
    const t = document.createElement('div');
    t.dataset.admin = 'toast';
    t.setAttribute('role', 'status');
    t.textContent = message;
    document.body.append(t);
    setTimeout(() => t.remove(), options.duration ?? 5000);
    return String(window.__toasts.length);
  },
  hide() {},
};
Object.assign(shopify, { modal: modals, saveBar: saveBars, toast });
customElements.define('ui-modal', class extends HTMLElement {
  show() { return modals.show(this.id); }
  hide() { return modals.hide(this.id); }
  disconnectedCallback() { drawn('modal', this.id)?.remove(); }
});
customElements.define('ui-save-bar', class extends HTMLElement {
  show() { return saveBars.show(this.id); }
  hide() { return saveBars.hide(this.id); }
  disconnectedCallback() { drawn('save-bar', this.id)?.remove(); }
});
customElements.define('ui-title-bar', class extends HTMLElement {});
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
      // The admin's navigation asks before it leaves a page with a save bar showing.
      a.addEventListener('click', (event) => {
        if (!document.querySelector('[data-admin="save-bar"]')) return;
        event.preventDefault();
        saveBars.leaveConfirmation().then(() => location.assign(a.href));
      });
      nav.append(a);
    }
    this.replaceChildren(nav);
  }
});`;

export const POLARIS_STUB = `
window.__cdn = (window.__cdn || []).concat('polaris');
// Tables laid out as tables (Polaris draws its own; the stub only needs them readable in screenshots).
const style = document.createElement('style');
style.textContent = 's-table{display:table;width:100%;border-collapse:collapse}s-table-header-row,s-table-row{display:table-row}s-table-body{display:table-row-group}s-table-header,s-table-cell{display:table-cell;padding:6px 10px;border-bottom:1px solid #e3e3e3;vertical-align:top}s-table-header{font-weight:600}s-badge{display:inline-block;padding:0 6px;border-radius:6px;background:#e3e3e3}s-banner{display:block;padding:8px 12px;margin:8px 0;border-radius:8px;background:#eaf4ff}s-banner[tone=critical]{background:#fed1d7}s-banner[tone=success]{background:#cdfee1}'
  // Layout pieces, drawn plainly: sections as white cards, stacks and grids as flex and grid boxes.
  + 'body{background:#f1f1f1;font:13px/20px system-ui,sans-serif;margin:0}main{padding:16px;max-width:1200px;margin:0 auto}'
  + 's-section{display:block;background:#fff;border-radius:12px;padding:16px;margin-bottom:16px;box-shadow:0 1px 3px #0002}s-section[padding=none]{padding:0;overflow:hidden}s-section[padding=none]>h2{padding:16px 16px 0}'
  + 's-stack{display:flex;flex-direction:column;gap:8px}s-stack[direction=inline]{flex-direction:row;flex-wrap:wrap;align-items:center}s-stack[justifyContent=space-between]{justify-content:space-between}s-stack[padding=base],s-box[padding=base]{padding:12px 16px}s-stack[paddingBlockStart]{padding-top:8px}'
  + 's-box{display:block}s-box[paddingBlock]{padding-block:8px}s-box[paddingBlockEnd]{padding-bottom:16px}s-grid{display:grid;gap:6px 16px}s-divider{display:block;border-top:1px solid #e3e3e3}'
  + 's-heading{display:block;font-weight:650;margin:12px 0 8px}s-paragraph{display:block;margin:8px 0}s-text[color=subdued],s-paragraph[color=subdued]{color:#616161}s-text[type=strong]{font-weight:650;display:block;margin-top:8px}'
  + 's-unordered-list,s-ordered-list{display:block;padding-left:20px;margin:8px 0}s-unordered-list>s-list-item{display:list-item;list-style:disc}s-ordered-list>s-list-item{display:list-item;list-style:decimal}'
  + 's-button-group{display:flex;flex-wrap:wrap;gap:4px}s-button{display:inline-block;padding:4px 10px;border-radius:8px;border:1px solid #d4d4d4;background:#fff;cursor:pointer}s-button[variant=primary]{background:#303030;color:#fff}s-checkbox{display:block;margin:8px 0}';
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
  formResetCallback() {
    if (!this.input) return;
    this.input.value = this.getAttribute('value') || '';
    this.internals.setFormValue(this.input.value);
  }
};
customElements.define('s-text-field', field(false, 'text'));
customElements.define('s-search-field', field(false, 'search'));
customElements.define('s-date-field', field(false, 'date'));\ncustomElements.define('s-url-field', field(false, 'url'));\ncustomElements.define('s-password-field', field(false, 'password'));
customElements.define('s-text-area', field(true));
// Headings as headings (the section's from its heading attribute), grids with their columns (the last, narrow layout
// of a container query when it has one: enough for a readable screenshot).
customElements.define('s-section', class extends HTMLElement {
  connectedCallback() {
    if (!this.getAttribute('heading') || this.querySelector(':scope > h2')) return;
    const h = document.createElement('h2');
    h.textContent = this.getAttribute('heading');
    this.prepend(h);
  }
});
customElements.define('s-heading', class extends HTMLElement {
  connectedCallback() { this.setAttribute('role', 'heading'); this.setAttribute('aria-level', '3'); }
});
customElements.define('s-grid', class extends HTMLElement {
  connectedCallback() {
    const columns = this.getAttribute('gridTemplateColumns') || '';
    const wide = /^@container \\([^)]*\\) ([^,]+),/.exec(columns);
    this.style.gridTemplateColumns = wide ? wide[1] : columns;
  }
});
// A checkbox is form-associated, as Polaris's is: its value goes with the form when checked.
customElements.define('s-checkbox', class extends HTMLElement {
  static formAssociated = true;
  constructor() { super(); this.internals = this.attachInternals(); }
  connectedCallback() {
    if (this.input) return;
    const label = document.createElement('label');
    this.input = document.createElement('input');
    this.input.type = 'checkbox';
    this.input.addEventListener('change', () => this.internals.setFormValue(this.input.checked ? this.getAttribute('value') || 'on' : null));
    label.append(this.input, ' ' + (this.getAttribute('label') || ''));
    this.append(label);
  }
});
customElements.define('s-button', class extends HTMLElement {
  connectedCallback() {
    this.setAttribute('role', this.hasAttribute('href') ? 'link' : 'button');
    this.addEventListener('click', () => { if (this.getAttribute('type') === 'submit') this.closest('form')?.requestSubmit(); });
  }
});
for (const name of ['s-link', 's-banner', 's-badge', 's-stack', 's-box', 's-paragraph', 's-text', 's-divider', 's-button-group', 's-query-container', 's-unordered-list', 's-ordered-list', 's-list-item', 's-table', 's-table-header-row', 's-table-header', 's-table-body', 's-table-row', 's-table-cell']) customElements.define(name, class extends HTMLElement {});`;



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
