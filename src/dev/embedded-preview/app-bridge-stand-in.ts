/**
 * Just enough of Shopify's App Bridge (https://cdn.shopify.com/shopifycloud/app-bridge.js) to run the embedded pages
 * without the Shopify admin around them, for the browser tests and the demo's local preview (preview-server.ts): the
 * `shopify` global with `idToken()` fetching a fresh session token from `tokenUrl`, the bounce page's reload,
 * `<s-app-nav>` drawn as links, and the admin's own UI the app drives: `<ui-modal>`/`shopify.modal`,
 * `<ui-save-bar>`/`shopify.saveBar` with its leave confirmation, `shopify.toast`; a `shopify:admin/...` link says in a
 * toast where the admin would go.
 *
 * As in the admin, the modal, the save bar and the toasts are drawn outside the app's content (here: at the end of
 * the body, marked `data-admin`), and a click on one of their buttons clicks the app's own `<button>` in the
 * `<ui-modal>`/`<ui-save-bar>`. The `ui-*` elements themselves draw nothing. While a save bar shows, the admin's
 * navigation asks before it leaves ("Leave page with unsaved changes?": Stay / Leave page), and
 * `shopify.saveBar.leaveConfirmation()` resolves only once the merchant leaves (at once without a save bar).
 * `window.__cdn` lists the stand-ins a page loaded, for tests.
 */
export function appBridgeStandIn(options: { tokenUrl: string }): string {
  return `
window.__cdn = (window.__cdn || []).concat('app-bridge');
const apiKey = document.querySelector('meta[name="shopify-api-key"]')?.content;
// A fresh session token each time, as App Bridge gets one from the admin (here from tokenUrl).
window.shopify = { config: { apiKey }, idToken: async () => (await fetch(${JSON.stringify(options.tokenUrl)})).text() };
// The bounce page: App Bridge reloads the shopify-reload address with a fresh id_token.
const reload = new URLSearchParams(location.search).get('shopify-reload');
if (reload) shopify.idToken().then((token) => { const url = new URL(reload, location.href); url.searchParams.set('id_token', token); location.replace(url.href); });
const adminStyle = document.createElement('style');
adminStyle.textContent = 'ui-modal,ui-save-bar,ui-title-bar{display:none}[data-admin=modal],[data-admin=leave]{position:fixed;inset:20% 25% auto;background:#fff;border:1px solid #8a8a8a;border-radius:12px;padding:16px;box-shadow:0 8px 24px #0004;z-index:10}[data-admin=save-bar]{position:fixed;bottom:0;left:0;right:0;background:#303030;color:#fff;padding:8px 16px;display:flex;gap:8px;align-items:center;z-index:9}[data-admin=toast]{position:fixed;bottom:64px;left:50%;transform:translateX(-50%);background:#303030;color:#fff;padding:10px 16px;border-radius:10px;z-index:11}'
  // The admin's sidebar, drawn as a bar above the app (the page it shows in bold).
  + 's-app-nav nav{display:flex;flex-wrap:wrap;gap:4px 20px;padding:10px 16px;background:#1a1a1a}s-app-nav nav a{color:#e3e3e3;text-decoration:none}s-app-nav nav a[aria-current=page]{color:#fff;font-weight:650}';
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
// As App Bridge declares them (ModalApi), show and hide answer promises.
const modals = {
  async show(id) {
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
  async hide(id) {
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
// App Bridge opens a shopify:admin/... link in the admin around the app; there is none here, so it says where it would go.
window.addEventListener('click', (event) => {
  const link = event.composedPath().find((el) => el instanceof Element && /^shopify:/.test(el.getAttribute('href') || ''));
  if (!link || event.defaultPrevented) return;
  event.preventDefault();
  toast.show('In the Shopify admin this opens ' + link.getAttribute('href').replace(/^shopify:/, ''));
});
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
// The admin draws the app's navigation in its own sidebar and loads the link's address in the frame (no token). A
// function, not a method of the element: the real <s-app-nav> has none for a page to call.
const buildAppNav = (el) => {
  const nav = document.createElement('nav');
  nav.setAttribute('aria-label', 'App navigation');
  for (const link of el.querySelectorAll('s-link')) {
    const a = document.createElement('a');
    a.href = link.getAttribute('href');
    a.textContent = link.textContent;
    if (new URL(a.href).pathname === location.pathname) a.setAttribute('aria-current', 'page');
    // The admin's navigation asks before it leaves a page with a save bar showing.
    a.addEventListener('click', (event) => {
      if (!document.querySelector('[data-admin="save-bar"]')) return;
      event.preventDefault();
      saveBars.leaveConfirmation().then(() => location.assign(a.href));
    });
    nav.append(a);
  }
  el.replaceChildren(nav);
};
customElements.define('s-app-nav', class extends HTMLElement {
  connectedCallback() {
    // The children are parsed after the element connects: build once the document is read.
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => buildAppNav(this));
    else buildAppNav(this);
  }
});`;
}
