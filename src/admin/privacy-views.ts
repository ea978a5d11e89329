import type { DataRequestSummary } from '../storage/data-requests.js';
import { dataTable } from './fields.js';
import { html, type Html } from './html.js';
import { formatTime, layout, type PageContext } from './page-layout.js';
import { card, paragraph, subdued } from './parts.js';

/**
 * Customer data requests (`customers/data_request`): what the app holds about a customer's orders, kept 30 days for
 * the merchant to send on. Each report downloads as JSON; the store's own only, for an embedded viewer.
 */
export function dataRequestsPage(ctx: PageContext, data: { requests: DataRequestSummary[]; problems: number }): Html {
  const operator = ctx.viewer.kind === 'operator';
  const headings = ['Request', ...(operator ? ['Store'] : []), 'Received', 'Orders', 'Kept until', 'Report'];
  const rows = data.requests.map((r) => ({
    cells: [
      html`<span class="mono">${r.requestId}</span>`,
      ...(operator ? [r.shop] : []),
      formatTime(r.createdAt),
      r.orders,
      subdued(ctx, formatTime(r.expiresAt)),
      ctx.embedded
        ? html`<s-button download href="${ctx.link(`/admin/privacy/${encodeURIComponent(r.shop)}/${encodeURIComponent(r.requestId)}/report.json`)}">Download JSON</s-button>`
        : html`<a class="button" download href="${ctx.link(`/admin/privacy/${encodeURIComponent(r.shop)}/${encodeURIComponent(r.requestId)}/report.json`)}">Download JSON</a>`,
    ],
  }));
  const body = card(
    ctx,
    { heading: 'Customer data requests' },
    html`${paragraph(
      ctx,
      `When a customer asks a store for their data, Shopify sends the request to print-bridge too. The report below
lists what print-bridge holds about the customer's orders (the order link, its print status and shipments, and the stored
Shopify order body, when still kept). Send it to the customer with the rest of the store's answer; it is deleted after 30 days,
or as soon as the customer's data is redacted.`,
      { subdued: true },
    )}
${data.requests.length === 0 ? paragraph(ctx, 'No data request in the last 30 days.', { subdued: true }) : dataTable(ctx, headings, rows)}`,
  );
  return layout(ctx, 'Customer data', 'privacy', body, { problems: data.problems });
}
