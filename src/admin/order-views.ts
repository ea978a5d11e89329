import type { HistoryEntry, OrderLink } from '../orders/model.js';
import type { UnreadablePostback } from '../storage/order-store.js';
import type { OrderStatus } from '../orders/status.js';
import { html, type Html, trusted } from './html.js';
import { dataTable, submitButton, textField } from './fields.js';
import { banner, formatTime, layout, linkButton, type PageContext } from './page-layout.js';
import { actionButtons, orderPath, problemList, statusBadge, waitLinks, waitNote, type OrderActionsAllowed } from './order-fragments.js';

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

function statusOfShipment(ctx: PageContext, status: string): Html {
  if (ctx.embedded) return html`<s-badge tone="${status === 'shipped' ? 'success' : 'neutral'}">${status}</s-badge>`;
  return status === 'shipped' ? html`<span class="badge success">shipped</span>` : html`<span class="badge new">${status}</span>`;
}
