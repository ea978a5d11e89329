import type { HistoryEntry, OrderLink } from '../orders/model.js';
import type { UnreadablePostback } from '../storage/order-store.js';
import type { OrderStatus } from '../orders/status.js';
import { html, type Html, trusted } from './html.js';
import { dataTable, submitButton, textField } from './fields.js';
import { banner, formatTime, layout, linkButton, type PageContext } from './page-layout.js';
import { badge, card, entries, facts, list, paragraph, row, subdued, subheading, tabs as tabLinks, textLink, timeline } from './parts.js';
import { actionButtons, orderPath, problemList, statusBadge, waitLinks, waitNote, type OrderActionsAllowed } from './order-fragments.js';
import type { CarrierNames } from '../bridge/ports.js';
import { actorWords, asRecorded, jobWords, type OrderLine, orderWords, SOURCE_WORDS, topicWords, type Words } from './merchant-words.js';
import { fulfillmentRequestCard, isMerchant, shipmentBadge, shipmentLabel, shipmentState, shopifyOrderLink, testRunCard, trackingText } from './order-sections.js';

function shipmentsCell(ctx: PageContext, link: OrderLink, carriers?: CarrierNames): Html {
  if (link.shipments.length === 0) return subdued(ctx, '—', false);
  // One wrapper: at phone width the cell is a two-column grid (label, content).
  return html`<div>${link.shipments.map((s) => {
    const number = trackingText(ctx, link.shop, s, carriers);
    return html`<div>${shipmentLabel(ctx, s)} ${shipmentBadge(ctx, shipmentState(link, s))}${number ? html` ${number}` : ''}${
      !s.fulfillmentId && s.waitingForRelease ? html` ${badge(ctx, 'attention', 'fulfillment on hold in Shopify')}` : ''
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
    carriers?: CarrierNames;
  },
): Html {
  const merchant = isMerchant(ctx);
  const { filters } = data;
  const keep = { shop: filters.shop, from: filters.from, to: filters.to, q: filters.q };
  const tabs = tabLinks(ctx, 'Filter by status', [
    { href: ctx.link('/admin', keep), text: 'All', count: data.all, current: !filters.status },
    ...Object.entries(data.counts)
      .filter(([, n]) => n > 0)
      .map(([status, n]) => ({ href: ctx.link('/admin', { ...keep, status }), text: status, count: n, current: status === filters.status })),
  ]);
  // A GET form: an embedded viewer's admin parameters travel as the links carry them (the script adds the token).
  const carried = [...new URL(ctx.link('/admin'), 'http://x').searchParams].map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  const searchFields = html`${carried}${filters.status ? html`<input type="hidden" name="status" value="${filters.status}">` : ''}
<div>${textField(ctx, { kind: 'search', name: 'q', label: 'Order, sourceOrderId or print _id', value: filters.q, maxlength: 200, placeholder: 'order name or id' })}</div>
${ctx.viewer.kind === 'operator' ? html`<div>${textField(ctx, { name: 'shop', label: 'Store', value: filters.shop, maxlength: 120, placeholder: 'acme.myshopify.com' })}</div>` : ''}
<div>${textField(ctx, { kind: 'date', name: 'from', label: 'Changed from', value: filters.from })}</div>
<div>${textField(ctx, { kind: 'date', name: 'to', label: 'to', value: filters.to })}</div>
${submitButton(ctx, 'Search')}
${filters.q || filters.shop || filters.from || filters.to ? linkButton(ctx, ctx.link('/admin', { status: filters.status }), 'Clear') : ''}`;
  const search = ctx.embedded
    ? html`<s-section><form method="get" action="/admin" role="search"><s-stack direction="inline" gap="base" alignItems="end">${searchFields}</s-stack></form></s-section>`
    : html`<form class="card filters" method="get" action="/admin" role="search">${searchFields}</form>`;
  // One store's page (a merchant's) has no Shop column.
  const cells = (l: OrderLink): Html[] => [
    textLink(ctx, ctx.link(orderPath(l)), orderLabel(ctx, l)),
    ...(merchant ? [] : [html`${l.shop}`]),
    html`${statusBadge(l.status, Boolean(ctx.embedded))}${waitNote(ctx, l)}`,
    html`<span class="mono">${l.sourceOrderId ?? '—'}</span>`,
    html`<span class="mono">${l.printOrderId ?? '—'}</span>`,
    shipmentsCell(ctx, l, data.carriers),
    subdued(ctx, formatTime(l.updatedAt)),
  ];
  const headings = merchant
    ? ['Order', 'Status', 'Print reference', "Printer's order id", 'Shipments and tracking', 'Updated']
    : ['Order', 'Shop', 'Status', 'sourceOrderId', 'Print _id', 'Shipments and tracking', 'Updated'];
  // Inside the Shopify admin a Polaris table; elsewhere the app's own, which stacks into cards at phone width.
  const table = dataTable(ctx, headings, data.links.map((l) => ({ cells: cells(l) })));
  // OAuth cannot run inside the Shopify admin iframe: the link opens at the top level.
  const connect = data.connectUrl
    ? banner(ctx, 'warning', html`print-bridge cannot reach this store's orders in Shopify yet (no access token). ${textLink(ctx, data.connectUrl, 'Connect the store', { target: '_top' })} to let it fulfil orders and show their status.`)
    : '';
  const filtered = Boolean(filters.q || filters.shop || filters.from || filters.to);
  const pager = row(
    ctx,
    html`${subdued(ctx, `${data.links.length} order(s) on this page, last changed first`, false)}
${row(ctx, html`${data.paged ? linkButton(ctx, ctx.link('/admin', { ...keep, status: filters.status }), 'Newest') : ''}${
      data.next ? linkButton(ctx, ctx.link('/admin', { ...keep, status: filters.status, cursor: data.next }), 'Next', ctx.embedded ? '' : ' rel="next"') : ''
    }`)}`,
    { spread: true },
  );
  const body = html`${connect}${tabs}${search}
${card(ctx, { flush: true }, html`${data.links.length === 0 ? emptyOrders(ctx, filters, filtered) : table}
${pager}`)}`;
  return layout(ctx, 'Orders', 'orders', body, { problems: data.problems });
}

/** No orders: what to do next. A merchant with no order at all is told how the first one arrives. */
function emptyOrders(ctx: PageContext, filters: OrderFilters, filtered: boolean): Html {
  const none = html`No orders${filters.status ? html` in ${filters.status}` : ''}${filtered ? ' match the search' : ' yet'}.`;
  const padded = (inner: Html) => (ctx.embedded ? html`<s-box padding="base" id="no-orders">${inner}</s-box>` : html`<div style="padding:16px" id="no-orders">${inner}</div>`);
  if (filtered || filters.status) return padded(paragraph(ctx, html`${none} ${linkButton(ctx, ctx.link('/admin'), 'Show all orders')}`, { subdued: true }));
  if (!isMerchant(ctx)) return padded(paragraph(ctx, none, { subdued: true }));
  return padded(html`${paragraph(ctx, html`<strong>${none}</strong>`)}
${paragraph(
  ctx,
  html`An order shows here as soon as it is placed in your store. To send a test order, place an order in your store for a product your mapping prints (a draft order marked as paid will do) and watch it appear here with its status.${
    ctx.setup ? html` The ${textLink(ctx, ctx.link('/admin/settings'), 'Settings')} checklist shows what is still needed before orders go to the printer.` : ''
  }`,
)}`);
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
    carriers?: CarrierNames;
  },
): Html {
  const l = data.link;
  const merchant = isMerchant(ctx);
  const carriers = data.carriers;
  const company = carriers ? (code: string) => carriers(l.shop, code) : undefined;
  const words = merchant ? orderWords(l, data.lines, company) : Object.assign(asRecorded, { line: (gid: string) => gid, request: (gid: string) => gid });
  const detailOf = (h: HistoryEntry) => (merchant ? words(actorWords(h.detail ?? '', l.shop)).trim() : h.detail);
  const summary = html`${row(ctx, html`${statusBadge(l.status, Boolean(ctx.embedded))}${waitNote(ctx, l)} ${subdued(ctx, `since ${formatTime(l.statusAt)}`, false)}`)}
${facts(ctx, [
  !merchant && ['Shop', l.shop],
  ['Shopify order', html`${merchant ? orderLabel(ctx, l) : html`<span class="mono">${l.orderId}</span>`} ${shopifyOrderLink(ctx, l)}`],
  [merchant ? 'Print reference' : 'sourceOrderId', l.sourceOrderId ?? '—', { mono: true }],
  [merchant ? "Printer's order id" : 'Print _id', l.printOrderId ?? '—', { mono: true }],
  [merchant ? 'Times sent to the printer' : 'Submissions sent', l.submitAttempts],
  Boolean(l.submitAfter) && ['Hold window ends', formatTime(l.submitAfter)],
  Boolean(l.cancelRequested) && ['Cancellation', `requested ${merchant ? CANCELLED_BY[l.cancelRequested!.by] : `by ${l.cancelRequested!.by}`} at ${formatTime(l.cancelRequested!.at)}`],
  l.status === 'not-printed' && Boolean(l.notPrintedReason) && ['Not printed', words(l.notPrintedReason), { id: 'not-printed-reason' }],
  Boolean(l.topics && Object.keys(l.topics).length > 0) && [
    merchant ? 'Heard from Shopify' : 'Webhooks received',
    Object.entries(l.topics ?? {}).map(([topic, at]) => html`<div>${merchant ? topicWords(topic) : topic} ${subdued(ctx, formatTime(at))}</div>`),
  ],
  ['Created / updated', `${formatTime(l.createdAt)} / ${formatTime(l.updatedAt)}`],
])}
${data.allowed.resubmit || data.allowed.retry || data.allowed.cancel ? html`${subheading(ctx, 'Actions')}${actionButtons(ctx, l, data.allowed)}` : ''}
${waitLinks(ctx, l)}`;
  const body = html`${card(ctx, {}, summary)}
${l.problems.length > 0 ? card(ctx, { id: 'problems', heading: 'Problems' }, problemList(ctx, l.problems, words)) : ''}
${l.testRun ? testRunCard(ctx, l.testRun, words) : ''}
${l.fulfillmentRequest && l.fulfillmentRequest.fulfillmentOrders.length > 0 ? fulfillmentRequestCard(ctx, l.fulfillmentRequest, words) : ''}
${data.failedJobs.length > 0 ? failedJobsCard(ctx, data.failedJobs, words) : ''}
${card(
  ctx,
  { flush: true, heading: 'Shipments and fulfillments' },
  l.shipments.length === 0
    ? ctx.embedded
      ? html`<s-box padding="base">${paragraph(ctx, 'No shipments planned yet (they are planned when the order is mapped).', { subdued: true })}</s-box>`
      : html`<p style="padding:0 16px 16px" class="muted">No shipments planned yet (they are planned when the order is mapped).</p>`
    : dataTable(
        ctx,
        [merchant ? 'Shipment' : '#', 'Status', 'Line items', 'Carrier and tracking', 'Shopify fulfillment'],
        l.shipments.map((s) => ({
          cells: [
            merchant ? shipmentLabel(ctx, s) : s.index,
            html`<div>${shipmentBadge(ctx, shipmentState(l, s))}${s.shippedAt ? html`<div>${subdued(ctx, formatTime(s.shippedAt))}</div>` : ''}</div>`,
            html`<div>${s.lineItems.map((li) => html`<div>${li.quantity} × ${li.title ?? li.sku ?? (merchant ? words.line(li.lineItemId) : li.lineItemId)}${li.sku ? html` ${subdued(ctx, html`<span class="mono">${li.sku}</span>`, false)}` : ''}</div>`)}</div>`,
            trackingText(ctx, l.shop, s, carriers) ?? '—',
            html`<div${merchant ? '' : trusted(' class="mono"')}>${
              !s.fulfillmentId && s.waitingForRelease
                ? html`${badge(ctx, 'attention', 'on hold in Shopify')}<div style="white-space:normal">${s.waitingForRelease.message}</div><div>${subdued(
                    ctx,
                    `since ${formatTime(s.waitingForRelease.since)}${s.waitingForRelease.nextCheckAt ? `, checked again by ${formatTime(s.waitingForRelease.nextCheckAt)}` : ''}`,
                  )}</div>`
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
      ),
)}
${card(
  ctx,
  { heading: 'History (newest first)' },
  data.history.length === 0
    ? paragraph(ctx, 'No events recorded.', { subdued: true })
    : timeline(
        ctx,
        data.history.map((h) => ({
          at: formatTime(h.at),
          content: html`<strong>${words(h.event)}</strong> ${badge(ctx, 'new', merchant ? (SOURCE_WORDS[h.source] ?? h.source) : h.source)}${
            h.status ? html` → ${statusBadge(h.status, Boolean(ctx.embedded))}` : ''
          }${detailOf(h) ? html`<div${ctx.embedded ? '' : trusted(' class="small"')}>${detailOf(h)}</div>` : ''}`,
        })),
      ),
)}`;
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
  const orderItem = (l: OrderLink, allowed: OrderActionsAllowed) => ({
    head: html`${textLink(ctx, ctx.link(orderPath(l)), html`<strong>${orderLabel(ctx, l)}</strong>`)} ${statusBadge(l.status, Boolean(ctx.embedded))}${merchant ? '' : html` ${subdued(ctx, l.shop, false)}`}${
      l.sourceOrderId ? html` ${subdued(ctx, html`<span class="mono">${l.sourceOrderId}</span>`, false)}` : ''
    }`,
    body: html`${l.problems.length > 0 ? problemList(ctx, l.problems, merchant ? orderWords(l) : asRecorded) : paragraph(ctx, "No reason was recorded; see the order's history.", { subdued: true })}
${row(ctx, html`${actionButtons(ctx, l, allowed, 'problems')}${waitLinks(ctx, l)}`, { spaced: true })}`,
  });
  const storeWait = (l: OrderLink) => l.problems.some((p) => p.kind === 'store-not-connected');
  const section = (title: string, explain: string, items: { head: Html; body: Html }[]) =>
    card(ctx, { heading: `${title} (${items.length})` }, html`${paragraph(ctx, explain, { subdued: true })}${items.length === 0 ? paragraph(ctx, 'None.') : entries(ctx, items)}`);
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
    (j) => ({
      head: html`${
        j.link ? html`${textLink(ctx, ctx.link(orderPath(j.link)), html`<strong>${orderLabel(ctx, j.link)}</strong>`)} ${statusBadge(j.link.status, Boolean(ctx.embedded))}` : html`<strong>${merchant ? `Order ${j.orderId.slice(j.orderId.lastIndexOf('/') + 1)}` : j.orderId}</strong>`
      }${merchant ? '' : html` ${subdued(ctx, j.shop, false)}`} ${badge(ctx, 'new', merchant ? jobWords(j.queue, j.name) : `${j.queue}/${j.name}`)}`,
      body: html`${paragraph(ctx, merchant && j.link ? orderWords(j.link)(j.failedReason) : j.failedReason)}${j.link ? actionButtons(ctx, j.link, { resubmit: false, retry: true, cancel: false }, 'problems') : ''}`,
    }),
  ),
)}
${
  data.postbacks
    ? section(
        'Postbacks that could not be understood',
        'The print service sent these to the postback URL, but their body could not be read as an event (docs/triggers.md has the templates print-bridge expects). Fix the trigger template at the print service; dismiss an entry once dealt with.',
        data.postbacks.entries.map(
          (p) => ({
            head: html`<strong>${formatTime(p.receivedAt)}</strong> ${badge(ctx, 'critical', 'unreadable')}`,
            body: html`${paragraph(ctx, html`<strong>Why:</strong> ${p.error}`)}
<pre>${p.body}</pre>
<form method="post" action="${ctx.link(`/admin/postbacks/${encodeURIComponent(p.id)}/dismiss`)}">${ctx.formFields}${submitButton(ctx, 'Dismiss')}</form>`,
          }),
        ),
      )
    : ''
}`;
  return layout(ctx, 'Problems', 'problems', body, { problems: data.problems });
}

const CANCELLED_BY: Record<string, string> = { shopify: 'in Shopify', 'print-service': 'by the printer', operator: 'from print-bridge' };

/** Work that ran out of attempts: for a merchant, what it was doing, never the queue and job names. */
function failedJobsCard(ctx: PageContext, jobs: { queue: string; name: string; failedReason: string }[], words: Words): Html {
  if (!isMerchant(ctx)) return card(ctx, { heading: 'Failed jobs' }, list(ctx, jobs.map((j) => html`<strong>${j.queue}/${j.name}</strong>: ${j.failedReason}`)));
  return card(
    ctx,
    { id: 'failed-work', heading: 'Work that failed' },
    html`${paragraph(ctx, 'print-bridge tried these several times and gave up (the printer or Shopify may have been unreachable). Retry runs them again.', { subdued: true, small: true })}${list(
      ctx,
      jobs.map((j) => html`<strong>${capitalised(jobWords(j.queue, j.name))}</strong>: ${words(j.failedReason)}`),
    )}`,
  );
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
