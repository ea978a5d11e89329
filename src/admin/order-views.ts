import type { HistoryEntry, OrderLink } from '../orders/model.js';
import type { UnreadablePostback } from '../storage/order-store.js';
import type { OrderStatus } from '../orders/status.js';
import { html, type Html, trusted } from './html.js';
import { dataTable, submitButton, textField } from './fields.js';
import { banner, formatTime, layout, linkButton, type PageContext } from './page-layout.js';
import { actionButtons, orderPath, problemList, statusBadge, waitLinks, waitNote, type OrderActionsAllowed } from './order-fragments.js';
import type { TrackingLookup } from '../bridge/ports.js';
import { actorWords, asRecorded, jobWords, type OrderLine, orderWords, SOURCE_WORDS, topicWords, type Words } from './merchant-words.js';
import { fulfillmentRequestCard, isMerchant, shipmentBadge, shipmentLabel, shipmentState, shopifyOrderLink, testRunCard, trackingText } from './order-sections.js';

function shipmentsCell(ctx: PageContext, link: OrderLink, tracking?: TrackingLookup): Html {
  if (link.shipments.length === 0) return html`<span class="muted">—</span>`;
  // One wrapper: at phone width the cell is a two-column grid (label, content).
  return html`<div>${link.shipments.map((s) => {
    const number = trackingText(ctx, link.shop, s, tracking);
    return html`<div>${shipmentLabel(ctx, s)} ${shipmentBadge(ctx, shipmentState(link, s))}${number ? html` ${number}` : ''}${
      !s.fulfillmentId && s.waitingForRelease ? html` <span class="badge attention">fulfillment on hold in Shopify</span>` : ''
    }</div>`;
  })}</div>`;
}

/** An order as a merchant names it: its name, else its number in Shopify (never the gid). */
function orderLabel(ctx: PageContext, l: OrderLink): string {
  return l.orderName ?? (isMerchant(ctx) ? `Order ${l.orderId.slice(l.orderId.lastIndexOf('/') + 1)}` : l.orderId);
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
    /** The mapping's carrier names (merchant pages show the company, not the printer's code). */
    tracking?: TrackingLookup;
  },
): Html {
  const merchant = isMerchant(ctx);
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
  // One store's page (a merchant's) has no Shop column.
  const cells = (l: OrderLink): Html[] => [
    html`<a href="${ctx.link(orderPath(l))}">${orderLabel(ctx, l)}</a>`,
    ...(merchant ? [] : [html`${l.shop}`]),
    html`${statusBadge(l.status, Boolean(ctx.embedded))}${waitNote(l)}`,
    html`<span class="mono">${l.sourceOrderId ?? '—'}</span>`,
    html`<span class="mono">${l.printOrderId ?? '—'}</span>`,
    shipmentsCell(ctx, l, data.tracking),
    html`<span class="small muted">${formatTime(l.updatedAt)}</span>`,
  ];
  const headings = merchant
    ? ['Order', 'Status', 'Print reference', "Printer's order id", 'Shipments and tracking', 'Updated']
    : ['Order', 'Shop', 'Status', 'sourceOrderId', 'Print _id', 'Shipments and tracking', 'Updated'];
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
    ? emptyOrders(ctx, filters, filtered)
    : table
}
<div class="pager"><span class="muted">${data.links.length} order(s) on this page, last changed first</span>
<span class="actions">${data.paged ? linkButton(ctx, ctx.link('/admin', { ...keep, status: filters.status }), 'Newest') : ''}${
    data.next ? linkButton(ctx, ctx.link('/admin', { ...keep, status: filters.status, cursor: data.next }), 'Next', ' rel="next"') : ''
  }</span></div>
</div>`;
  return layout(ctx, 'Orders', 'orders', body, { problems: data.problems });
}

/** No orders: what to do next. A merchant with no order at all is told how the first one arrives. */
function emptyOrders(ctx: PageContext, filters: OrderFilters, filtered: boolean): Html {
  const none = html`No orders${filters.status ? html` in ${filters.status}` : ''}${filtered ? ' match the search' : ' yet'}.`;
  if (filtered || filters.status) return html`<p style="padding:16px" class="muted" id="no-orders">${none} ${linkButton(ctx, ctx.link('/admin'), 'Show all orders')}</p>`;
  if (!isMerchant(ctx)) return html`<p style="padding:16px" class="muted" id="no-orders">${none}</p>`;
  return html`<div style="padding:16px" id="no-orders"><p><strong>${none}</strong></p>
<p>An order shows here as soon as it is placed in your store. To send a test order, place an order in your store for a product your mapping prints (a draft order marked as paid will do) and watch it appear here with its status.${
    ctx.setup ? html` The <a href="${ctx.link('/admin/settings')}">Settings</a> checklist shows what is still needed before orders go to the printer.` : ''
  }</p></div>`;
}

export function orderPage(
  ctx: PageContext,
  data: {
    link: OrderLink;
    history: HistoryEntry[];
    allowed: OrderActionsAllowed;
    failedJobs: { queue: string; name: string; failedReason: string }[];
    problems: number;
    /** The Shopify order's line items in order (from its stored body), to name lines as the merchant counts them. */
    lines?: OrderLine[];
    tracking?: TrackingLookup;
  },
): Html {
  const l = data.link;
  const merchant = isMerchant(ctx);
  const tracking = data.tracking;
  const company = tracking ? (code: string) => tracking(l.shop, code, '').company : undefined;
  const words = merchant ? orderWords(l, data.lines, company) : Object.assign(asRecorded, { line: (gid: string) => gid, request: (gid: string) => gid });
  const detailOf = (h: HistoryEntry) => (merchant ? words(actorWords(h.detail ?? '', l.shop)).trim() : h.detail);
  const body = html`<div class="card">
<div class="actions" style="margin-bottom:12px">${statusBadge(l.status, Boolean(ctx.embedded))}${waitNote(l)} <span class="muted">since ${formatTime(l.statusAt)}</span></div>
<dl class="facts">
${merchant ? '' : html`<dt>Shop</dt><dd>${l.shop}</dd>`}
<dt>Shopify order</dt><dd>${merchant ? orderLabel(ctx, l) : html`<span class="mono">${l.orderId}</span>`} ${shopifyOrderLink(ctx, l)}</dd>
<dt>${merchant ? 'Print reference' : 'sourceOrderId'}</dt><dd class="mono">${l.sourceOrderId ?? '—'}</dd>
<dt>${merchant ? "Printer's order id" : 'Print _id'}</dt><dd class="mono">${l.printOrderId ?? '—'}</dd>
<dt>${merchant ? 'Times sent to the printer' : 'Submissions sent'}</dt><dd>${l.submitAttempts}</dd>
${l.submitAfter ? html`<dt>Hold window ends</dt><dd>${formatTime(l.submitAfter)}</dd>` : ''}
${l.cancelRequested ? html`<dt>Cancellation</dt><dd>requested ${merchant ? CANCELLED_BY[l.cancelRequested.by] : `by ${l.cancelRequested.by}`} at ${formatTime(l.cancelRequested.at)}</dd>` : ''}
${l.status === 'not-printed' && l.notPrintedReason ? html`<dt>Not printed</dt><dd id="not-printed-reason">${words(l.notPrintedReason)}</dd>` : ''}
${
  l.topics && Object.keys(l.topics).length > 0
    ? html`<dt>${merchant ? 'Heard from Shopify' : 'Webhooks received'}</dt><dd>${Object.entries(l.topics).map(([topic, at]) => html`<div>${merchant ? topicWords(topic) : topic} <span class="muted small">${formatTime(at)}</span></div>`)}</dd>`
    : ''
}
<dt>Created / updated</dt><dd>${formatTime(l.createdAt)} / ${formatTime(l.updatedAt)}</dd>
</dl>
${data.allowed.resubmit || data.allowed.retry || data.allowed.cancel ? html`<h3>Actions</h3>${actionButtons(ctx, l, data.allowed)}` : ''}
${waitLinks(ctx, l)}
</div>
${l.problems.length > 0 ? html`<div class="card" id="problems"><h2>Problems</h2>${problemList(l.problems, words)}</div>` : ''}
${l.testRun ? testRunCard(ctx, l.testRun, words) : ''}
${l.fulfillmentRequest && l.fulfillmentRequest.fulfillmentOrders.length > 0 ? fulfillmentRequestCard(ctx, l.fulfillmentRequest, words) : ''}
${data.failedJobs.length > 0 ? failedJobsCard(ctx, data.failedJobs, words) : ''}
<div class="card flush"><h2>Shipments and fulfillments</h2>
${
  l.shipments.length === 0
    ? html`<p style="padding:0 16px 16px" class="muted">No shipments planned yet (they are planned when the order is mapped).</p>`
    : dataTable(
        ctx,
        [merchant ? 'Shipment' : '#', 'Status', 'Line items', 'Carrier and tracking', 'Shopify fulfillment'],
        l.shipments.map((s) => ({
          cells: [
            merchant ? shipmentLabel(ctx, s) : s.index,
            html`<div>${shipmentBadge(ctx, shipmentState(l, s))}${s.shippedAt ? html`<div class="small muted">${formatTime(s.shippedAt)}</div>` : ''}</div>`,
            html`<div>${s.lineItems.map((li) => html`<div>${li.quantity} × ${li.title ?? li.sku ?? (merchant ? words.line(li.lineItemId) : li.lineItemId)}${li.sku ? html` <span class="muted mono">${li.sku}</span>` : ''}</div>`)}</div>`,
            trackingText(ctx, l.shop, s, data.tracking) ?? '—',
            html`<div class="${merchant ? '' : 'mono'}">${
              !s.fulfillmentId && s.waitingForRelease
                ? html`${ctx.embedded ? html`<s-badge tone="caution">on hold in Shopify</s-badge>` : html`<span class="badge attention">on hold in Shopify</span>`}<div style="white-space:normal">${s.waitingForRelease.message}</div><div class="small muted">since ${formatTime(s.waitingForRelease.since)}${
                    s.waitingForRelease.nextCheckAt ? `, checked again by ${formatTime(s.waitingForRelease.nextCheckAt)}` : ''
                  }</div>`
                : s.fulfillmentId
                  ? merchant
                    ? 'fulfilled'
                    : s.fulfillmentId
                  : s.appliedAt
                    ? 'nothing left to fulfill'
                    : '—'
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
        (h) => html`<li><span class="small muted">${formatTime(h.at)}</span><span><strong>${words(h.event)}</strong> <span class="badge new">${merchant ? (SOURCE_WORDS[h.source] ?? h.source) : h.source}</span>${
          h.status ? html` → ${statusBadge(h.status, Boolean(ctx.embedded))}` : ''
        }${detailOf(h) ? html`<div class="small">${detailOf(h)}</div>` : ''}</span></li>`,
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
  const merchant = isMerchant(ctx);
  const orderItem = (l: OrderLink, allowed: OrderActionsAllowed) => html`<div class="item">
<div class="head"><a href="${ctx.link(orderPath(l))}"><strong>${orderLabel(ctx, l)}</strong></a> ${statusBadge(l.status, Boolean(ctx.embedded))}${merchant ? '' : html` <span class="muted">${l.shop}</span>`}${
    l.sourceOrderId ? html` <span class="mono muted">${l.sourceOrderId}</span>` : ''
  }</div>
${l.problems.length > 0 ? problemList(l.problems, merchant ? orderWords(l) : asRecorded) : html`<p class="muted">No reason was recorded; see the order's history.</p>`}
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
    (j) => html`<div class="item"><div class="head">${
      j.link ? html`<a href="${ctx.link(orderPath(j.link))}"><strong>${orderLabel(ctx, j.link)}</strong></a> ${statusBadge(j.link.status, Boolean(ctx.embedded))}` : html`<strong>${merchant ? `Order ${j.orderId.slice(j.orderId.lastIndexOf('/') + 1)}` : j.orderId}</strong>`
    }${merchant ? '' : html` <span class="muted">${j.shop}</span>`} <span class="badge new">${merchant ? jobWords(j.queue, j.name) : `${j.queue}/${j.name}`}</span></div>
<p>${merchant && j.link ? orderWords(j.link)(j.failedReason) : j.failedReason}</p>${j.link ? actionButtons(ctx, j.link, { resubmit: false, retry: true, cancel: false }, 'problems') : ''}</div>`,
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

const CANCELLED_BY: Record<string, string> = { shopify: 'in Shopify', 'print-service': 'by the printer', operator: 'from print-bridge' };

/** Work that ran out of attempts: for a merchant, what it was doing, never the queue and job names. */
function failedJobsCard(ctx: PageContext, jobs: { queue: string; name: string; failedReason: string }[], words: Words): Html {
  if (!isMerchant(ctx)) return html`<div class="card"><h2>Failed jobs</h2><ul class="problems">${jobs.map((j) => html`<li><strong>${j.queue}/${j.name}</strong>: ${j.failedReason}</li>`)}</ul></div>`;
  return html`<div class="card" id="failed-work"><h2>Work that failed</h2><p class="muted small">print-bridge tried these several times and gave up (the printer or Shopify may have been unreachable). Retry runs them again.</p><ul class="problems">${jobs.map(
    (j) => html`<li><strong>${capitalised(jobWords(j.queue, j.name))}</strong>: ${words(j.failedReason)}</li>`,
  )}</ul></div>`;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
