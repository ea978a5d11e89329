import type { HistoryEntry, OrderLink, Problem } from '../orders/model.js';
import type { UnreadablePostback } from '../storage/order-store.js';
import type { OrderStatus } from '../orders/status.js';
import { html, type Html, trusted } from './html.js';
import { dataTable, submitButton, textArea, textField } from './fields.js';
import { ADMIN_CSS } from './styles.js';

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

const STATUS_TONE: Record<OrderStatus, string> = {
  pending: 'new',
  waiting: 'warning',
  held: 'warning',
  submitting: 'info',
  submitted: 'info',
  received: 'info',
  'print-ready': 'attention',
  'partially-shipped': 'attention',
  shipped: 'success',
  error: 'critical',
  cancelled: 'new',
  'not-printed': 'new',
};

/** Problem kinds in plain words: what happened, so the reason below reads as the detail. */
export const PROBLEM_HEADLINE: Record<string, string> = {
  mapping: 'The mapping cannot turn this order into a print order',
  validation: 'The print service found the print order invalid',
  submission: 'The print service refused the order',
  'submission-error': 'The print service could not accept the order (submission error)',
  'print-error': 'The print service could not produce the order',
  'cancel-refused': 'The print service refused the cancellation',
  fulfillment: 'The shipment could not be fulfilled in Shopify',
  'store-not-connected': 'Store not connected: nothing is sent to the printer until it is',
  'no-mapping': 'No mapping serves this store yet',
  'no-print-account': 'No print account serves this store: nothing is sent until one does',
  'test-mode': 'Test mode: checked by the print service, not created',
  'unconfirmed-postback': 'A postback the print service did not confirm (nothing changed)',
};

/**
 * What ends an order's wait, as links: connecting the store (OAuth cannot run inside the Shopify admin iframe, so it
 * opens at the top level) or a mapping for it. Buttons for Retry and Resubmit come from actionButtons.
 */
export function waitLinks(ctx: PageContext, link: OrderLink): Html {
  const kinds = new Set(link.problems.map((p) => p.kind));
  const links = [
    kinds.has('store-not-connected')
      ? html`<a class="button primary" href="/auth?shop=${encodeURIComponent(link.shop)}" target="_top">Connect ${link.shop}</a>${
          ctx.viewer.kind === 'operator' ? html` <span class="muted small">or <code>print-bridge shops add ${link.shop} --token &lt;token&gt;</code></span>` : ''
        }`
      : '',
    kinds.has('no-mapping') || kinds.has('mapping') ? linkButton(ctx, ctx.link('/admin/mappings'), 'Mappings and preview') : '',
    (kinds.has('test-mode') || kinds.has('no-print-account')) && ctx.setup
      ? linkButton(ctx, ctx.link('/admin/settings', ctx.viewer.kind === 'operator' ? { shop: link.shop } : {}), kinds.has('test-mode') ? 'Settings: go live' : 'Settings: connect a print account')
      : '',
  ];
  return links.some(Boolean) ? html`<div class="actions" style="margin-top:8px">${links}</div>` : html``;
}

export function statusBadge(status: OrderStatus, polaris = false): Html {
  // Inside the Shopify admin, a Polaris badge (its tones: info, success, warning, critical, caution, neutral).
  if (polaris) return html`<s-badge tone="${POLARIS_TONE[STATUS_TONE[status]] ?? 'neutral'}">${status}</s-badge>`;
  return html`<span class="badge ${STATUS_TONE[status]}">${status}</span>`;
}

const POLARIS_TONE: Record<string, string> = { new: 'neutral', warning: 'warning', info: 'info', attention: 'caution', success: 'success', critical: 'critical' };

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

/** What a waiting order waits for, in a few words, beside its status. */
export function waitNote(link: Pick<OrderLink, 'status' | 'problems'>): Html {
  if (link.status !== 'waiting') return html``;
  const kinds = new Set(link.problems.map((p) => p.kind));
  const what = kinds.has('store-not-connected')
    ? 'store not connected'
    : kinds.has('no-mapping')
      ? 'no mapping'
      : kinds.has('test-mode')
        ? 'test mode'
        : kinds.has('no-print-account')
          ? 'no print account'
          : undefined;
  return what ? html` <span class="small muted">${what}</span>` : html``;
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
<style>${trusted(ADMIN_CSS)}</style></head>
<body class="embedded">
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

export function orderPath(link: Pick<OrderLink, 'shop' | 'orderId'>): string {
  const tail = link.orderId.startsWith('gid://shopify/Order/') ? link.orderId.slice('gid://shopify/Order/'.length) : link.orderId;
  return `/admin/orders/${encodeURIComponent(link.shop)}/${encodeURIComponent(tail)}`;
}

function shipmentsCell(link: OrderLink): Html {
  if (link.shipments.length === 0) return html`<span class="muted">—</span>`;
  // One wrapper: at phone width the cell is a two-column grid (label, content).
  return html`<div>${link.shipments.map(
    (s) =>
      html`<div>#${s.index} ${s.status === 'shipped' ? html`<span class="badge success">shipped</span>` : html`<span class="badge new">${s.status}</span>`}${
        s.trackingNumber ? html` <span class="mono nowrap">${s.carrier?.code ?? s.carrier?.alias ?? ''} ${s.trackingNumber}</span>` : ''
      }${!s.fulfillmentId && s.waitingForRelease ? html` <span class="badge attention">fulfillment on hold in Shopify</span>` : ''}</div>`,
  )}</div>`;
}

export interface OrderFilters {
  status?: OrderStatus;
  /** Operators only: one store's orders. */
  shop?: string;
  /** Last changed on or after / on or before these days (YYYY-MM-DD, UTC). */
  from?: string;
  to?: string;
  /** An order name, sourceOrderId or print _id. */
  q?: string;
}

export function ordersPage(
  ctx: PageContext,
  data: {
    links: OrderLink[];
    filters: OrderFilters;
    /** Cursor of the next page, when there is one. */
    next?: string;
    /** Whether this is a later page (a link back to the first is shown). */
    paged: boolean;
    counts: Record<string, number>;
    all: number;
    problems: number;
    /** Set when the app has no Admin API access to the viewer's shop yet: where to install it. */
    connectUrl?: string;
  },
): Html {
  const { filters } = data;
  const keep = { shop: filters.shop, from: filters.from, to: filters.to, q: filters.q };
  const tabs = html`<nav class="tabs" aria-label="Filter by status">
<a href="${ctx.link('/admin', keep)}"${!filters.status ? trusted(' aria-current="page"') : ''}>All<span class="count">${data.all}</span></a>
${Object.entries(data.counts)
  .filter(([, n]) => n > 0)
  .map(([status, n]) => html`<a href="${ctx.link('/admin', { ...keep, status })}"${status === filters.status ? trusted(' aria-current="page"') : ''}>${status}<span class="count">${n}</span></a>`)}
</nav>`;
  // A GET form: an embedded viewer's admin parameters travel as the links carry them (the script adds the token).
  const carried = [...new URL(ctx.link('/admin'), 'http://x').searchParams].map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  const search = html`<form class="card filters" method="get" action="/admin" role="search">
${carried}${filters.status ? html`<input type="hidden" name="status" value="${filters.status}">` : ''}
<div>${textField(ctx, { kind: 'search', name: 'q', label: 'Order, sourceOrderId or print _id', value: filters.q, maxlength: 200, placeholder: 'order name or id' })}</div>
${ctx.viewer.kind === 'operator' ? html`<div>${textField(ctx, { name: 'shop', label: 'Store', value: filters.shop, maxlength: 120, placeholder: 'acme.myshopify.com' })}</div>` : ''}
<div>${textField(ctx, { kind: 'date', name: 'from', label: 'Changed from', value: filters.from })}</div>
<div>${textField(ctx, { kind: 'date', name: 'to', label: 'to', value: filters.to })}</div>
${submitButton(ctx, 'Search')}
${filters.q || filters.shop || filters.from || filters.to ? linkButton(ctx, ctx.link('/admin', { status: filters.status }), 'Clear') : ''}
</form>`;
  const cells = (l: OrderLink): Html[] => [
    html`<a href="${ctx.link(orderPath(l))}">${l.orderName ?? l.orderId}</a>`,
    html`${l.shop}`,
    html`${statusBadge(l.status, Boolean(ctx.embedded))}${waitNote(l)}`,
    html`<span class="mono">${l.sourceOrderId ?? '—'}</span>`,
    html`<span class="mono">${l.printOrderId ?? '—'}</span>`,
    shipmentsCell(l),
    html`<span class="small muted">${formatTime(l.updatedAt)}</span>`,
  ];
  const headings = ['Order', 'Shop', 'Status', 'sourceOrderId', 'Print _id', 'Shipments and tracking', 'Updated'];
  // Inside the Shopify admin a Polaris table; elsewhere the app's own, which stacks into cards at phone width.
  const table = dataTable(ctx, headings, data.links.map((l) => ({ cells: cells(l) })));
  // OAuth cannot run inside the Shopify admin iframe: the link opens at the top level.
  const connect = data.connectUrl
    ? banner(ctx, 'warning', html`print-bridge cannot reach this store's orders in Shopify yet (no access token). <a href="${data.connectUrl}" target="_top">Connect the store</a> to let it fulfil orders and show their status.`)
    : '';
  const filtered = Boolean(filters.q || filters.shop || filters.from || filters.to);
  const body = html`${connect}${tabs}${search}
<div class="card flush">
${
  data.links.length === 0
    ? html`<p style="padding:16px" class="muted">No orders${filters.status ? html` in ${filters.status}` : ''}${filtered ? ' match the search' : ' yet'}.</p>`
    : table
}
<div class="pager"><span class="muted">${data.links.length} order(s) on this page, last changed first</span>
<span class="actions">${data.paged ? linkButton(ctx, ctx.link('/admin', { ...keep, status: filters.status }), 'Newest') : ''}${
    data.next ? linkButton(ctx, ctx.link('/admin', { ...keep, status: filters.status, cursor: data.next }), 'Next', ' rel="next"') : ''
  }</span></div>
</div>`;
  return layout(ctx, 'Orders', 'orders', body, { problems: data.problems });
}

export interface OrderActionsAllowed {
  resubmit: boolean;
  retry: boolean;
  cancel: boolean;
}

export function actionButtons(ctx: PageContext, link: OrderLink, allowed: OrderActionsAllowed, back?: string): Html {
  const base = orderPath(link);
  const form = (action: string, label: string, options: Parameters<typeof submitButton>[2]) =>
    html`<form method="post" action="${ctx.link(`${base}/${action}`)}">${ctx.formFields}<input type="hidden" name="version" value="${link.version}">${
      back ? html`<input type="hidden" name="back" value="${back}">` : ''
    }${submitButton(ctx, label, options)}</form>`;
  const buttons = [
    allowed.resubmit ? form('resubmit', 'Resubmit with current mapping', { primary: true }) : '',
    allowed.retry ? form('retry', 'Retry', {}) : '',
    allowed.cancel ? form('cancel', 'Cancel order', { tone: 'critical' }) : '',
  ];
  return buttons.some(Boolean) ? html`<div class="actions">${buttons}</div>` : html``;
}

export function problemList(problems: readonly Problem[]): Html {
  const byKind = new Map<string, Problem[]>();
  for (const p of problems) byKind.set(p.kind, [...(byKind.get(p.kind) ?? []), p]);
  return html`${[...byKind].map(
    ([kind, list]) => html`<h3>${PROBLEM_HEADLINE[kind] ?? kind}</h3><ul class="problems">${list.map(
      (p) => html`<li>${p.subject ? html`<strong>${p.subject}</strong>: ` : ''}${p.message} <span class="muted small">(${formatTime(p.at)})</span></li>`,
    )}</ul>`,
  )}`;
}

export function orderPage(
  ctx: PageContext,
  data: { link: OrderLink; history: HistoryEntry[]; allowed: OrderActionsAllowed; failedJobs: { queue: string; name: string; failedReason: string }[]; problems: number },
): Html {
  const l = data.link;
  const body = html`<div class="card">
<div class="actions" style="margin-bottom:12px">${statusBadge(l.status, Boolean(ctx.embedded))}${waitNote(l)} <span class="muted">since ${formatTime(l.statusAt)}</span></div>
<dl class="facts">
<dt>Shop</dt><dd>${l.shop}</dd>
<dt>Shopify order</dt><dd class="mono">${l.orderId}</dd>
<dt>sourceOrderId</dt><dd class="mono">${l.sourceOrderId ?? '—'}</dd>
<dt>Print _id</dt><dd class="mono">${l.printOrderId ?? '—'}</dd>
<dt>Submissions sent</dt><dd>${l.submitAttempts}</dd>
${l.submitAfter ? html`<dt>Hold window ends</dt><dd>${formatTime(l.submitAfter)}</dd>` : ''}
${l.cancelRequested ? html`<dt>Cancellation</dt><dd>requested by ${l.cancelRequested.by} at ${formatTime(l.cancelRequested.at)}</dd>` : ''}
${l.status === 'not-printed' && l.notPrintedReason ? html`<dt>Not printed</dt><dd id="not-printed-reason">${l.notPrintedReason}</dd>` : ''}
${l.topics && Object.keys(l.topics).length > 0 ? html`<dt>Webhooks received</dt><dd>${Object.entries(l.topics).map(([topic, at]) => html`<div>${topic} <span class="muted small">${formatTime(at)}</span></div>`)}</dd>` : ''}
<dt>Created / updated</dt><dd>${formatTime(l.createdAt)} / ${formatTime(l.updatedAt)}</dd>
</dl>
${data.allowed.resubmit || data.allowed.retry || data.allowed.cancel ? html`<h3>Actions</h3>${actionButtons(ctx, l, data.allowed)}` : ''}
${waitLinks(ctx, l)}
</div>
${l.problems.length > 0 ? html`<div class="card"><h2>Problems</h2>${problemList(l.problems)}</div>` : ''}
${l.testRun ? html`<div class="card" id="test-run"><h2>Test mode: what would have been sent</h2><p class="muted small">${formatTime(l.testRun.at)}: ${l.testRun.valid ? 'the print service found it valid; nothing was created.' : 'the print service refused it (below); nothing was created.'} It goes out, once, when the store goes live.</p>${l.testRun.problems.length ? html`<ul class="problems">${l.testRun.problems.map((p) => html`<li>${p}</li>`)}</ul>` : ''}${l.testRun.order === undefined ? html`<p class="muted">The print order is no longer kept (the customer's data was redacted).</p>` : html`<pre class="mono">${JSON.stringify(l.testRun.order, null, 2)}</pre>`}</div>` : ''}
${
  data.failedJobs.length > 0
    ? html`<div class="card"><h2>Failed jobs</h2><ul class="problems">${data.failedJobs.map((j) => html`<li><strong>${j.queue}/${j.name}</strong>: ${j.failedReason}</li>`)}</ul></div>`
    : ''
}
<div class="card flush"><h2>Shipments and fulfillments</h2>
${
  l.shipments.length === 0
    ? html`<p style="padding:0 16px 16px" class="muted">No shipments planned yet (they are planned when the order is mapped).</p>`
    : dataTable(
        ctx,
        ['#', 'Status', 'Line items', 'Carrier and tracking', 'Shopify fulfillment'],
        l.shipments.map((s) => ({
          cells: [
            s.index,
            html`<div>${statusOfShipment(ctx, s.status)}${s.shippedAt ? html`<div class="small muted">${formatTime(s.shippedAt)}</div>` : ''}</div>`,
            html`<div>${s.lineItems.map((li) => html`<div>${li.quantity} × ${li.title ?? li.sku ?? li.lineItemId}${li.sku ? html` <span class="muted mono">${li.sku}</span>` : ''}</div>`)}</div>`,
            html`<span class="mono">${s.trackingNumber ? `${s.carrier?.code ?? s.carrier?.alias ?? ''} ${s.trackingNumber}` : '—'}</span>`,
            html`<div class="mono">${
              !s.fulfillmentId && s.waitingForRelease
                ? html`${ctx.embedded ? html`<s-badge tone="caution">on hold in Shopify</s-badge>` : html`<span class="badge attention">on hold in Shopify</span>`}<div style="white-space:normal">${s.waitingForRelease.message}</div><div class="small muted">since ${formatTime(s.waitingForRelease.since)}${
                    s.waitingForRelease.nextCheckAt ? `, checked again by ${formatTime(s.waitingForRelease.nextCheckAt)}` : ''
                  }</div>`
                : (s.fulfillmentId ?? (s.appliedAt ? 'nothing left to fulfill' : '—'))
            }${s.fulfilledTrackingNumber ? html`<div>${s.fulfilledTrackingNumber}</div>` : ''}</div>`,
          ],
        })),
      )
}
</div>
<div class="card"><h2>History (newest first)</h2>
${
  data.history.length === 0
    ? html`<p class="muted">No events recorded.</p>`
    : html`<ol class="timeline">${data.history.map(
        (h) => html`<li><span class="small muted">${formatTime(h.at)}</span><span><strong>${h.event}</strong> <span class="badge new">${h.source}</span>${h.status ? html` → ${statusBadge(h.status, Boolean(ctx.embedded))}` : ''}${
          h.detail ? html`<div class="small">${h.detail}</div>` : ''
        }</span></li>`,
      )}</ol>`
}
</div>`;
  return layout(ctx, `Order ${l.orderName ?? l.orderId}`, 'orders', body, { problems: data.problems });
}

export function problemsPage(
  ctx: PageContext,
  data: {
    /** Orders kept back by something outside them (store not connected, no mapping). */
    waiting: OrderLink[];
    held: OrderLink[];
    errored: OrderLink[];
    /** Orders under way carrying a postback the print service did not confirm (nothing about them changed). */
    unconfirmed: OrderLink[];
    failedJobs: { link?: OrderLink; shop: string; orderId: string; queue: string; name: string; failedReason: string }[];
    postbacks?: { total: number; entries: UnreadablePostback[] };
    problems: number;
  },
): Html {
  const orderItem = (l: OrderLink, allowed: OrderActionsAllowed) => html`<div class="item">
<div class="head"><a href="${ctx.link(orderPath(l))}"><strong>${l.orderName ?? l.orderId}</strong></a> ${statusBadge(l.status, Boolean(ctx.embedded))} <span class="muted">${l.shop}</span>${
    l.sourceOrderId ? html` <span class="mono muted">${l.sourceOrderId}</span>` : ''
  }</div>
${l.problems.length > 0 ? problemList(l.problems) : html`<p class="muted">No reason was recorded; see the order's history.</p>`}
<div style="margin-top:8px">${actionButtons(ctx, l, allowed, 'problems')}${waitLinks(ctx, l)}</div>
</div>`;
  const storeWait = (l: OrderLink) => l.problems.some((p) => p.kind === 'store-not-connected');
  const section = (title: string, explain: string, items: Html[]) =>
    html`<div class="card"><h2>${title} (${items.length})</h2><p class="muted">${explain}</p>${items.length === 0 ? html`<p>None.</p>` : items}</div>`;
  const body = html`
${section(
  'Waiting',
  'Nothing of these orders has been sent: the store is not connected to print-bridge, or no mapping serves it. Each goes out by itself, once, as soon as that changes; Retry looks again now.',
  data.waiting.map((l) => orderItem(l, { resubmit: false, retry: true, cancel: true })),
)}
${section(
  'Held for mapping',
  'The mapping could not turn these orders into print orders. Fix the mapping file (see Mappings and its preview): held orders of the stores it serves are mapped again by themselves and go out if they now map. Resubmit does the same for one order now.',
  data.held.map((l) => orderItem(l, { resubmit: !storeWait(l), retry: storeWait(l), cancel: true })),
)}
${section(
  'Submission and print errors',
  'The print service refused or could not produce these orders. Resubmit asks the print service first and never creates a duplicate.',
  data.errored.map((l) => orderItem(l, { resubmit: true, retry: false, cancel: true })),
)}
${section(
  'Postbacks the print service did not confirm',
  'Someone holding a postback token claimed these orders shipped, cancelled or errored, and the print service says otherwise: nothing changed (no status, nothing in Shopify). Check the trigger at the print service, or who has the postback URL; each stays listed while its order is under way, and a confirmed event applies as usual.',
  data.unconfirmed.map((l) => orderItem(l, { resubmit: false, retry: false, cancel: false })),
)}
${section(
  'Failed jobs',
  'Work that ran out of attempts (for example while the print service or Shopify was unreachable). Retry runs it again.',
  data.failedJobs.map(
    (j) => html`<div class="item"><div class="head">${j.link ? html`<a href="${ctx.link(orderPath(j.link))}"><strong>${j.link.orderName ?? j.orderId}</strong></a> ${statusBadge(j.link.status, Boolean(ctx.embedded))}` : html`<strong>${j.orderId}</strong>`} <span class="muted">${j.shop}</span> <span class="badge new">${j.queue}/${j.name}</span></div>
<p>${j.failedReason}</p>${j.link ? actionButtons(ctx, j.link, { resubmit: false, retry: true, cancel: false }, 'problems') : ''}</div>`,
  ),
)}
${
  data.postbacks
    ? section(
        'Postbacks that could not be understood',
        'The print service sent these to the postback URL, but their body could not be read as an event (docs/triggers.md has the templates print-bridge expects). Fix the trigger template at the print service; dismiss an entry once dealt with.',
        data.postbacks.entries.map(
          (p) => html`<div class="item"><div class="head"><strong>${formatTime(p.receivedAt)}</strong> <span class="badge critical">unreadable</span></div>
<p><strong>Why:</strong> ${p.error}</p>
<pre>${p.body}</pre>
<form method="post" action="${ctx.link(`/admin/postbacks/${encodeURIComponent(p.id)}/dismiss`)}">${ctx.formFields}<button type="submit">Dismiss</button></form></div>`,
        ),
      )
    : ''
}`;
  return layout(ctx, 'Problems', 'problems', body, { problems: data.problems });
}

export interface MappingsView {
  files: { file: string; shops: readonly string[]; destination?: string }[];
  problems: string[];
  warnings: string[];
}

export type PreviewResult =
  | { ok: true; shop: string; file?: string; order: unknown; notes: string[] }
  | { ok: false; shop?: string; problems: string[] };

export function mappingsPage(
  ctx: PageContext,
  data: MappingsView & { preview?: PreviewResult; input?: { orderId?: string; body?: string; shop?: string }; problems_count: number },
): Html {
  const body = html`<div class="card"><h2>Mapping files in use</h2>
${
  data.files.length === 0
    ? banner(ctx, 'critical', html`No mapping file loads: every order is held until one does.`)
    : dataTable(ctx, ['File', 'Stores', 'Destination'], data.files.map((f) => ({ cells: [html`<span class="mono">${f.file}</span>`, f.shops.join(', '), f.destination ?? '—'] })))
}
</div>
<div class="card"><h2>Problems in the files (${data.problems.length})</h2>
${data.problems.length === 0 ? html`<p class="muted">None: every file loads.</p>` : html`<pre>${data.problems.join('\n')}</pre>`}
${data.warnings.length > 0 ? html`<h3>Warnings</h3><pre>${data.warnings.join('\n')}</pre>` : ''}
<p class="muted small">A file with problems keeps its last good version in use. Files are reloaded as soon as they change.</p>
</div>
<div class="card"><h2>Preview</h2>
<p class="muted">See the print order a Shopify order becomes with the mapping in force now: give the id of an order the app has received, or paste an order body (webhook JSON).</p>
<form method="post" action="${ctx.link('/admin/mappings/preview')}">${ctx.formFields}
${ctx.viewer.kind === 'operator' ? textField(ctx, { name: 'shop', label: 'Store domain', placeholder: 'acme.myshopify.com (default: the order\'s own, else the "*" file)', value: data.input?.shop }) : ''}
${textField(ctx, { name: 'orderId', label: 'Shopify order id', placeholder: 'gid://shopify/Order/123 or 123', value: data.input?.orderId })}
${textArea(ctx, { name: 'body', label: 'or an order body (JSON)', value: data.input?.body })}
<div style="margin-top:12px">${submitButton(ctx, 'Preview', { primary: true })}</div>
</form>
${
  data.preview
    ? data.preview.ok
      ? html`<h3>Print order${data.preview.file ? html` (from ${data.preview.file} for ${data.preview.shop})` : ''}</h3>${
          data.preview.notes.length ? html`<ul class="problems">${data.preview.notes.map((n) => html`<li>${n}</li>`)}</ul>` : ''
        }<pre id="preview-result">${JSON.stringify(data.preview.order, null, 2)}</pre>`
      : html`<h3>It cannot be mapped${data.preview.shop ? html` for ${data.preview.shop}` : ''}</h3><div class="banner critical" id="preview-result"><ul class="problems">${data.preview.problems.map((p) => html`<li>${p}</li>`)}</ul></div>`
    : ''
}
</div>`;
  return layout(ctx, 'Mappings', 'mappings', body, { problems: data.problems_count });
}

export function formatTime(iso: string | undefined): string {
  if (!iso) return '—';
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
}

function statusOfShipment(ctx: PageContext, status: string): Html {
  if (ctx.embedded) return html`<s-badge tone="${status === 'shipped' ? 'success' : 'neutral'}">${status}</s-badge>`;
  return status === 'shipped' ? html`<span class="badge success">shipped</span>` : html`<span class="badge new">${status}</span>`;
}
