import type { CarrierNames } from '../bridge/ports.js';
import type { OrderLink, ShipmentLink } from '../orders/model.js';
import type { RequestedFulfillmentOrder, ServiceRequest } from '../orders/service-request.js';
import { html, type Html } from './html.js';
import type { Words } from './merchant-words.js';
import { formatTime, type PageContext } from './page-layout.js';
import { badge, card, entries, list, paragraph, subdued, subheading, textLink } from './parts.js';

/** Parts of the order pages that read differently for a merchant (issue 26): shipments, the test run, the requests. */

export const isMerchant = (ctx: PageContext): boolean => ctx.viewer.kind === 'shop';

/** Shipments are counted from 1 for a merchant; operators see the index the print order uses. */
export function shipmentLabel(ctx: PageContext, s: Pick<ShipmentLink, 'index'>): string {
  return isMerchant(ctx) ? `Shipment ${s.index + 1}` : `#${s.index}`;
}

/** A shipment of a cancelled order that never shipped is cancelled, not pending. */
export function shipmentState(link: Pick<OrderLink, 'status'>, s: Pick<ShipmentLink, 'status'>): 'shipped' | 'pending' | 'cancelled' {
  return s.status === 'shipped' ? 'shipped' : link.status === 'cancelled' ? 'cancelled' : 'pending';
}

export function shipmentBadge(ctx: PageContext, state: ReturnType<typeof shipmentState>): Html {
  return badge(ctx, ({ shipped: 'success', pending: 'new', cancelled: 'critical' } as const)[state], state);
}

/**
 * The carrier and tracking number of a shipment: for a merchant, the company the mapping's `tracking` table names for
 * the printer's carrier code, and the tracking page the shipment was fulfilled with (its URL template was rendered
 * once, in a render thread, when the shipment shipped: a page never runs a store's template); for operators the code
 * as sent.
 */
export function trackingText(ctx: PageContext, shop: string, s: ShipmentLink, carriers?: CarrierNames): Html | undefined {
  if (!s.trackingNumber) return undefined;
  const code = s.carrier?.code;
  if (!isMerchant(ctx)) return html`<span class="mono nowrap">${code ?? s.carrier?.alias ?? ''} ${s.trackingNumber}</span>`;
  const company = (code && carriers?.(shop, code)) || (code ?? s.carrier?.alias);
  const number = s.trackingUrl ? textLink(ctx, s.trackingUrl, html`<span class="mono">${s.trackingNumber}</span>`, { target: '_blank' }) : html`<span class="mono">${s.trackingNumber}</span>`;
  return html`<span class="nowrap">${company ? html`${company} ` : ''}${number}</span>`;
}

/** The Shopify admin's page of the order: App Bridge's `shopify:` URL inside the admin, the store's admin elsewhere. */
export function shopifyOrderLink(ctx: PageContext, link: Pick<OrderLink, 'shop' | 'orderId'>): Html {
  const id = link.orderId.slice(link.orderId.lastIndexOf('/') + 1);
  if (!/^\d+$/.test(id)) return html``;
  const href = ctx.embedded ? `shopify:admin/orders/${id}` : `https://${link.shop}/admin/orders/${id}`;
  return textLink(ctx, href, 'Open the order in Shopify', { id: 'shopify-order', target: '_top' });
}

interface PrintItem {
  sku?: string;
  quantity?: number;
  description?: string;
  shipmentIndex?: number;
  components?: { code?: string; path?: string }[];
}
interface PrintShipment {
  shipTo?: Record<string, unknown>;
  carrier?: { alias?: string };
}

function fileName(url: string): string {
  try {
    const path = new URL(url).pathname;
    return decodeURIComponent(path.slice(path.lastIndexOf('/') + 1)) || url;
  } catch {
    return url.slice(url.lastIndexOf('/') + 1) || url;
  }
}

function address(to: Record<string, unknown> | undefined): string[] {
  if (!to) return [];
  const text = (key: string) => (typeof to[key] === 'string' && to[key] ? (to[key] as string) : undefined);
  const town = [text('town'), text('state'), text('postcode')].filter(Boolean).join(' ');
  return [text('name'), text('companyName'), text('address1'), text('address2'), text('address3'), town, text('country') ?? text('isoCountry')].filter((l): l is string => Boolean(l));
}

/**
 * Test mode's print order. A merchant reads it as a summary (what would be printed, with which artwork, shipped
 * where) with the JSON behind a disclosure; an operator gets the JSON as before.
 */
export function testRunCard(ctx: PageContext, run: NonNullable<OrderLink['testRun']>, words: Words): Html {
  const verdict = paragraph(ctx, html`${formatTime(run.at)}: ${run.valid ? 'the print service found it valid; nothing was created.' : 'the print service refused it (below); nothing was created.'} It goes out, once, when the store goes live.`, { subdued: true, small: true });
  const problems = run.problems.length ? list(ctx, run.problems.map((p) => words(p))) : '';
  const testCard = (body: Html) => card(ctx, { id: 'test-run', heading: 'Test mode: what would have been sent' }, html`${verdict}${problems}${body}`);
  if (run.order === undefined) return testCard(paragraph(ctx, "The print order is no longer kept (the customer's data was redacted).", { subdued: true }));
  const json = JSON.stringify(run.order, null, 2);
  if (!isMerchant(ctx)) return testCard(html`<pre class="mono">${json}</pre>`);
  const data = (run.order as { orderData?: { items?: PrintItem[]; shipments?: PrintShipment[] } }).orderData ?? {};
  const items = Array.isArray(data.items) ? data.items : [];
  const shipments = Array.isArray(data.shipments) ? data.shipments : [];
  const summary = html`${subheading(ctx, 'Items')}
${list(
  ctx,
  items.map(
    (item) => html`<strong>${item.quantity ?? 1} × SKU ${item.sku ?? '?'}</strong>${item.description ? html` ${subdued(ctx, item.description, false)}` : ''}${
      shipments.length > 1 ? html` ${subdued(ctx, `(shipment ${(item.shipmentIndex ?? 0) + 1})`)}` : ''
    }${(item.components ?? []).map((c) =>
      c.path ? html`<div>${c.code ? `${c.code}: ` : ''}${/^https?:\/\//i.test(c.path) ? html`${textLink(ctx, c.path, fileName(c.path), { target: '_blank' })} ${subdued(ctx, c.path, false)}` : c.path}</div>` : '',
    )}`,
  ),
  { id: 'test-run-items' },
)}
${shipments.map(
  (s, i) => html`${subheading(ctx, `Ship to${shipments.length > 1 ? ` (shipment ${i + 1})` : ''}`)}<address id="test-run-ship-to" style="font-style:normal">${address(s.shipTo).map((line) => html`${line}<br>`)}</address>${
    s.carrier?.alias ? paragraph(ctx, `Shipping service: ${s.carrier.alias}`, { subdued: true, small: true }) : ''
  }`,
)}`;
  return testCard(html`${summary}
<details id="test-run-json"><summary>The print order as sent to the print service (JSON)</summary><pre class="mono">${json}</pre></details>`);
}

function requestState(fo: RequestedFulfillmentOrder, rejection: ServiceRequest['rejection']): string {
  if (fo.movedAway !== undefined) return 'Moved to another location in Shopify: it is no longer print-bridge’s to fulfil.';
  if (fo.answer === 'accepted') return `Accepted${fo.answeredAt ? ` ${formatTime(fo.answeredAt)}` : ''}: the printer has the order.`;
  if (fo.answer === 'rejected') return `Rejected${fo.answeredAt ? ` ${formatTime(fo.answeredAt)}` : ''}: it stays yours to fulfil in Shopify.`;
  if (fo.answerRefused !== undefined) return 'Shopify did not take the answer (the request was withdrawn or answered elsewhere).';
  if (rejection) return 'To be rejected: it cannot be printed (why below).';
  return 'Not answered yet: it is accepted once the printer has the order.';
}

const CANCELLATION: Record<string, string> = {
  requested: 'Cancellation asked in Shopify: waiting for the printer’s answer.',
  accepted: 'Cancellation accepted: nothing of it is printed.',
  rejected: 'Cancellation refused: the printer had already started it.',
};

/** Fulfillment-service mode: what Shopify asked print-bridge's location to fulfil, and how each request was answered. */
export function fulfillmentRequestCard(ctx: PageContext, request: ServiceRequest, words: Words & { line(gid: string, sku?: string | null): string }): Html {
  const merchant = isMerchant(ctx);
  const lineOf = (id: string) => request.fulfillmentOrders.flatMap((fo) => fo.lineItems).find((l) => l.id === id);
  const requests = entries(
    ctx,
    request.fulfillmentOrders.map((fo, i) => ({
      head: html`<strong>Request ${i + 1}</strong> ${subdued(ctx, `received ${formatTime(fo.requestedAt)}`)}${merchant ? '' : html` <span class="mono small">${fo.id}</span>`}`,
      body: html`${list(ctx, fo.lineItems.map((l) => html`${l.quantity} × ${merchant ? words.line(l.lineItemId, l.sku) : html`<span class="mono">${l.sku ?? l.lineItemId}</span>`}`))}
${paragraph(
  ctx,
  html`${requestState(fo, request.rejection)}${fo.answerRefused ? html` ${subdued(ctx, words(fo.answerRefused))}` : ''}${fo.movedAway && !merchant ? html` <span class="small mono">${fo.movedAway}</span>` : ''}`,
)}
${fo.cancellation ? paragraph(ctx, CANCELLATION[fo.cancellation]) : ''}`,
    })),
  );
  const rejection = request.rejection
    ? html`<div id="planned-rejection">${subheading(ctx, 'Why it cannot be printed')}${paragraph(ctx, words(request.rejection.message))}${
        request.rejection.lineItems.length
          ? list(
              ctx,
              request.rejection.lineItems.map((r) => {
                const line = lineOf(r.fulfillmentOrderLineItemId);
                return html`${line ? words.line(line.lineItemId, line.sku) : words(r.fulfillmentOrderLineItemId)}: ${words(r.message)}`;
              }),
            )
          : ''
      }</div>`
    : '';
  return card(
    ctx,
    { id: 'fulfillment-requests', heading: 'Fulfillment requests from Shopify' },
    html`${paragraph(ctx, 'Your store sends print-bridge’s location a request for the lines it should fulfil; print-bridge accepts it once the printer has the order, or rejects it when it cannot be printed.', { subdued: true, small: true })}
<div>${requests}</div>
${rejection}`,
  );
}
