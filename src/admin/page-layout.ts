import { html, type Html, trusted } from './html.js';
import { ADMIN_CSS, EMBEDDED_CSS } from './styles.js';

/** What every page needs to build its links and forms for the viewer's session. */
export interface PageContext {
  /** "operator", or the shop an embedded viewer is scoped to. */
  viewer: { kind: 'operator' } | { kind: 'shop'; shop: string };
  /** A link inside /admin for the viewer (embedded viewers' links keep shop, host and embedded=1; no secret). */
  link(path: string, query?: Record<string, string | number | undefined>): string;
  /** Hidden inputs every form carries: the operator's CSRF token (embedded forms are sent with a bearer token). */
  formFields: Html;
  /** Embedded in Shopify admin: App Bridge may be loaded there. */
  embedded?: { apiKey: string };
  /** Stores' own set-up is on (Settings and the mapping editor). */
  setup?: boolean;
  flash?: { tone: 'success' | 'critical' | 'warning'; message: string };
}

/** A message box: a Polaris banner inside the Shopify admin, the app's own elsewhere. */
export function banner(ctx: PageContext, tone: 'success' | 'critical' | 'warning' | 'info', content: Html, extra = ''): Html {
  if (ctx.embedded) return html`<s-banner tone="${tone}"${trusted(extra)}>${content}</s-banner>`;
  return html`<div class="banner ${tone}"${trusted(extra)}>${content}</div>`;
}

/** A link that looks like a button: a Polaris button inside the Shopify admin. */
export function linkButton(ctx: PageContext, href: string, label: string, extra = ''): Html {
  if (ctx.embedded) return html`<s-button href="${href}"${trusted(extra)}>${label}</s-button>`;
  return html`<a class="button" href="${href}"${trusted(extra)}>${label}</a>`;
}

export function layout(ctx: PageContext, title: string, current: string, body: Html, counts?: { problems: number }): Html {
  const nav: [string, string, string][] = [
    ['orders', 'Orders', '/admin'],
    ['problems', counts && counts.problems > 0 ? `Problems (${counts.problems})` : 'Problems', '/admin/problems'],
    ['mappings', 'Mappings', '/admin/mappings'],
    ...(ctx.setup ? ([['editor', 'Edit mapping', '/admin/mappings/editor'], ['settings', 'Settings', '/admin/settings']] as [string, string, string][]) : []),
    ['privacy', 'Customer data', '/admin/privacy'],
  ];
  // An operator edits a store's mapping from that store's settings.
  if (ctx.viewer.kind === 'operator') nav.splice(nav.findIndex(([key]) => key === 'editor'), nav.some(([key]) => key === 'editor') ? 1 : 0);
  if (ctx.viewer.kind === 'operator') nav.push(['queues', 'Queues', '/admin/queues']);
  if (ctx.embedded) return embeddedLayout(ctx, ctx.embedded, title, nav, body);
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · print-bridge</title>
<style>${trusted(ADMIN_CSS)}</style></head>
<body>
<header class="top"><span class="brand">print-bridge</span>
<nav>${nav.map(([key, label, path]) => html`<a href="${ctx.link(path)}"${key === current ? trusted(' aria-current="page"') : ''}>${label}</a>`)}</nav>
<span class="who">${ctx.viewer.kind === 'operator' ? html`Operator <form method="post" action="/admin/logout">${ctx.formFields}<button type="submit">Log out</button></form>` : html`${ctx.viewer.shop}`}</span>
</header>
<main>
<h1>${title}</h1>
${ctx.flash ? html`<div class="banner ${ctx.flash.tone}" role="status" id="flash">${ctx.flash.message}</div>` : ''}
${body}
</main></body></html>`;
}

/**
 * Inside the Shopify admin the page is an embedded app as Shopify's template builds one: App Bridge and Polaris web
 * components from Shopify's CDN, the app's navigation in the admin's own sidebar (`<s-app-nav>`), the title and the
 * messages in a Polaris page and banner, and no header of our own inside the iframe.
 */
function embeddedLayout(ctx: PageContext, embedded: { apiKey: string }, title: string, nav: [string, string, string][], body: Html): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · print-bridge</title>
<meta name="shopify-api-key" content="${embedded.apiKey}">
<script src="https://cdn.shopify.com/shopifycloud/app-bridge.js"></script>
<script src="https://cdn.shopify.com/shopifycloud/polaris.js"></script>
<script src="/admin/assets/embedded.js" defer></script>
<style>${trusted(EMBEDDED_CSS)}</style></head>
<body>
<s-app-nav>
${nav.map(([key, label, path]) => html`<s-link href="${ctx.link(path)}"${key === 'orders' ? trusted(' rel="home"') : ''}>${label}</s-link>`)}
</s-app-nav>
<s-page heading="${title}">
${ctx.flash ? html`<s-banner tone="${ctx.flash.tone}" id="flash">${ctx.flash.message}</s-banner>` : ''}
<main>${body}</main>
</s-page>
</body></html>`;
}

export function loginPage(options: { error?: string; enabled: boolean }): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin"><title>Operator login · print-bridge</title><style>${trusted(ADMIN_CSS)}</style></head>
<body><main><div class="login card">
<h1>print-bridge operator login</h1>
${options.error ? html`<div class="banner critical" role="alert">${options.error}</div>` : ''}
${
  options.enabled
    ? html`<form method="post" action="/admin/login">
<label for="token">Admin token</label>
<input type="password" id="token" name="token" autocomplete="current-password" required>
<p class="muted small">The ADMIN_TOKEN of this installation. Merchants open the app from their Shopify admin instead.</p>
<button class="primary" type="submit">Log in</button>
</form>`
    : html`<p>Operator login is off: no ADMIN_TOKEN is configured. Open the app from the Shopify admin of your store.</p>`
}
</div></main></body></html>`;
}

export function messagePage(title: string, message: string): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} · print-bridge</title><style>${trusted(ADMIN_CSS)}</style></head>
<body><main><div class="login card"><h1>${title}</h1><p>${message}</p></div></main></body></html>`;
}

export function formatTime(iso: string | undefined): string {
  if (!iso) return '—';
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
}
