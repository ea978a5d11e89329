import { createHash } from 'node:crypto';

/**
 * The one script of our own on the embedded pages (served from this origin, so the page's CSP needs no inline
 * script). Inside the Shopify admin every request must prove itself with a fresh session token from App Bridge
 * (`shopify.idToken()`), never with anything stored in the page:
 * - a followed link of the app gets `id_token` added just before the page loads;
 * - a form is sent by `fetch` with `Authorization: Bearer <token>`; the app answers `{location}` (or `{error}`), and the
 *   page then loads that location the same way, or a page whose `<main>` replaces this one's (the mapping preview, a
 *   refused save shown again with what was typed). A GET form (the order search) becomes a link.
 * Links that open elsewhere (`target`, another origin, downloads of another site) are left alone.
 *
 * And the App Bridge idioms a merchant expects (issue 26; the markup comes from confirm.ts):
 * - a form with `data-confirm="ID"` (a destructive or irreversible action) first shows the `<ui-modal id="ID">` that
 *   says what will happen; its `data-confirm-yes` button sends the form (with the confirm box's value the server
 *   checks, `data-confirm-field`/`data-confirm-value`; the box itself, a checkbox or `<s-checkbox>` of that name, hidden), `data-confirm-keep` does nothing;
 * - a form with `data-save-bar="ID"` shows the `<ui-save-bar id="ID">` once a field is edited (Save sends the form,
 *   Discard resets it, or loads `data-discard` when the page shows a refused save), and while a save bar shows, leaving
 *   by a link or another form asks first (`shopify.saveBar.leaveConfirmation()`);
 * - a success message (the page's `#flash` banner with tone success) is shown as `shopify.toast` instead of the
 *   banner; warnings and errors stay banners. Without the script the banner is the message.
 */
export const EMBEDDED_SCRIPT = `(() => {
  'use strict';
  const sameOrigin = (url) => url.origin === location.origin;
  const shown = new Set();
  const confirmed = new WeakSet();
  async function withToken(href) {
    const url = new URL(href, location.href);
    url.searchParams.set('id_token', await shopify.idToken());
    return url.href;
  }
  async function hideSaveBars() {
    for (const id of shown) await shopify.saveBar.hide(id);
    shown.clear();
  }
  async function go(href) {
    const target = await withToken(href);
    await hideSaveBars();
    location.assign(target);
  }
  // Resolves once nothing unsaved would be lost: at once without a save bar, else when the merchant chooses to leave.
  async function mayLeave(form) {
    const others = [...shown].filter((id) => !form || form.getAttribute('data-save-bar') !== id);
    if (others.length) await shopify.saveBar.leaveConfirmation();
  }
  function showSaveBar(form) {
    const id = form.getAttribute('data-save-bar');
    if (shown.has(id)) return;
    shown.add(id);
    shopify.saveBar.show(id);
  }
  function prepare() {
    // The modal asks instead of the confirm box the page has for browsers without this script.
    for (const form of document.querySelectorAll('form[data-confirm][data-confirm-field]')) {
      // A native checkbox in its label (no Polaris), or a Polaris <s-checkbox> (embedded pages).
      for (const input of form.querySelectorAll('input[type="checkbox"], s-checkbox')) {
        if (input.getAttribute('name') !== form.getAttribute('data-confirm-field')) continue;
        input.required = false;
        input.removeAttribute('required');
        (input.localName === 's-checkbox' ? input : input.closest('label') || input).style.display = 'none';
      }
    }
    // A refused save shown again: what is in the form is not stored.
    for (const form of document.querySelectorAll('form[data-save-bar][data-unsaved="true"]')) showSaveBar(form);
  }
  function toastSuccess() {
    const flash = document.getElementById('flash');
    if (!flash || flash.getAttribute('tone') !== 'success' || !shopify.toast) return;
    shopify.toast.show(flash.textContent.trim(), { duration: 5000 });
    flash.remove();
  }
  function showError(form, message) {
    let box = document.getElementById('pb-form-error');
    if (!box) {
      box = document.createElement('s-banner');
      box.id = 'pb-form-error';
      box.setAttribute('tone', 'critical');
      box.setAttribute('role', 'alert');
      (document.querySelector('main') || document.body).prepend(box);
    }
    box.textContent = message;
    form.removeAttribute('aria-busy');
  }
  function edited(event) {
    const form = event.target && event.target.closest && event.target.closest('form[data-save-bar]');
    if (form) showSaveBar(form);
  }
  document.addEventListener('input', edited);
  document.addEventListener('change', edited);
  function modalButton(button) {
    const modal = button.closest('ui-modal');
    const form = document.querySelector('form[data-confirm="' + CSS.escape(modal.id) + '"]');
    shopify.modal.hide(modal.id);
    if (!form || !button.hasAttribute('data-confirm-yes')) return;
    confirmed.add(form);
    form.requestSubmit();
  }
  async function saveBarButton(button) {
    const id = button.closest('ui-save-bar').id;
    const form = document.querySelector('form[data-save-bar="' + CSS.escape(id) + '"]');
    if (!form) return;
    if (button.hasAttribute('data-save-bar-save')) return form.requestSubmit();
    if (form.getAttribute('data-discard')) return go(form.getAttribute('data-discard'));
    form.reset();
    shown.delete(id);
    await shopify.saveBar.hide(id);
  }
  document.addEventListener('click', (event) => {
    const own = event.target.closest && event.target.closest('ui-modal button, ui-save-bar button');
    if (own) {
      event.preventDefault();
      return own.closest('ui-modal') ? modalButton(own) : saveBarButton(own);
    }
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = event.target.closest && event.target.closest('a[href], s-button[href], s-link[href]');
    if (!anchor || anchor.closest('s-app-nav') || (anchor.getAttribute('target') && anchor.getAttribute('target') !== '_self')) return;
    const url = new URL(anchor.getAttribute('href'), location.href);
    if (!sameOrigin(url) || url.pathname.startsWith('/auth')) return;
    event.preventDefault();
    mayLeave().then(() => go(url.href));
  });
  document.addEventListener('submit', async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    const action = new URL(form.getAttribute('action') || location.href, location.href);
    if (!sameOrigin(action)) return;
    event.preventDefault();
    if (form.getAttribute('aria-busy') === 'true') return;
    const modal = form.getAttribute('data-confirm');
    if (modal && !confirmed.has(form)) return shopify.modal.show(modal);
    confirmed.delete(form);
    const data = new URLSearchParams(new FormData(form, event.submitter || undefined));
    if (modal && form.getAttribute('data-confirm-field')) data.set(form.getAttribute('data-confirm-field'), form.getAttribute('data-confirm-value') || 'yes');
    await mayLeave(form);
    form.setAttribute('aria-busy', 'true');
    if ((form.getAttribute('method') || 'get').toLowerCase() === 'get') {
      for (const [name, value] of data) if (value !== '') action.searchParams.set(name, value);
      return go(action.href);
    }
    try {
      const answer = await fetch(action.href, {
        method: 'POST',
        headers: { Authorization: 'Bearer ' + (await shopify.idToken()), Accept: 'application/json' },
        body: data,
      });
      if (answer.ok && (answer.headers.get('content-type') || '').startsWith('text/html')) {
        // A form whose answer is a page of its own (the mapping preview, a refused save): its content replaces this page's.
        const page = new DOMParser().parseFromString(await answer.text(), 'text/html');
        const main = page.querySelector('main');
        if (main) {
          await hideSaveBars();
          document.querySelector('main').replaceWith(document.adoptNode(main));
          prepare();
        }
        return form.removeAttribute('aria-busy');
      }
      const result = await answer.json().catch(() => ({}));
      if (result.location) return go(result.location);
      showError(form, result.error || 'The app did not answer (' + answer.status + '). Try again.');
    } catch (error) {
      showError(form, 'The app could not be reached. Check the connection and try again.');
    }
  });
  prepare();
  toastSuccess();
})();
`;

/** For the page's Cache-Control validation and for tests. */
export const EMBEDDED_SCRIPT_ETAG = `"${createHash('sha256').update(EMBEDDED_SCRIPT).digest('base64url').slice(0, 20)}"`;

/**
 * The bounce page: App Bridge, loaded with the app's key on a page whose URL has `shopify-reload`, fetches a fresh
 * session token and loads that URL with `id_token` added. Nothing else is on it.
 */
export function bouncePage(apiKey: string): string {
  const key = apiKey.replace(/[^A-Za-z0-9_-]/g, '');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="same-origin">
<meta name="shopify-api-key" content="${key}"><title>Loading · print-bridge</title>
<script src="https://cdn.shopify.com/shopifycloud/app-bridge.js"></script></head><body></body></html>`;
}
