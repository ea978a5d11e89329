import { createHash } from 'node:crypto';

/**
 * The one script of our own on the embedded pages (served from this origin, so the page's CSP needs no inline
 * script). Inside the Shopify admin every request must prove itself with a fresh session token from App Bridge
 * (`shopify.idToken()`), never with anything stored in the page:
 * - a followed link of the app gets `id_token` added just before the page loads;
 * - a form is sent by `fetch` with `Authorization: Bearer <token>`; the app answers `{location}` (or `{error}`), and the
 *   page then loads that location the same way, or a page whose `<main>` replaces this one's (the mapping preview).
 *   A GET form (the order search) becomes a link.
 * Links that open elsewhere (`target`, another origin, downloads of another site) are left alone.
 */
export const EMBEDDED_SCRIPT = `(() => {
  'use strict';
  const sameOrigin = (url) => url.origin === location.origin;
  async function withToken(href) {
    const url = new URL(href, location.href);
    url.searchParams.set('id_token', await shopify.idToken());
    return url.href;
  }
  async function go(href) {
    location.assign(await withToken(href));
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
  document.addEventListener('click', (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = event.target.closest && event.target.closest('a[href], s-button[href], s-link[href]');
    if (!anchor || anchor.closest('s-app-nav') || (anchor.getAttribute('target') && anchor.getAttribute('target') !== '_self')) return;
    const url = new URL(anchor.getAttribute('href'), location.href);
    if (!sameOrigin(url) || url.pathname.startsWith('/auth')) return;
    event.preventDefault();
    go(url.href);
  });
  document.addEventListener('submit', async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    const action = new URL(form.getAttribute('action') || location.href, location.href);
    if (!sameOrigin(action)) return;
    event.preventDefault();
    if (form.getAttribute('aria-busy') === 'true') return;
    form.setAttribute('aria-busy', 'true');
    const data = new URLSearchParams(new FormData(form, event.submitter || undefined));
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
        // A form whose answer is a page of its own (the mapping preview): its content replaces this page's.
        const page = new DOMParser().parseFromString(await answer.text(), 'text/html');
        const main = page.querySelector('main');
        if (main) document.querySelector('main').replaceWith(document.adoptNode(main));
        return form.removeAttribute('aria-busy');
      }
      const result = await answer.json().catch(() => ({}));
      if (result.location) return go(result.location);
      showError(form, result.error || 'The app did not answer (' + answer.status + '). Try again.');
    } catch (error) {
      showError(form, 'The app could not be reached. Check the connection and try again.');
    }
  });
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
