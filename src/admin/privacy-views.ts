import type { DataRequestSummary } from '../storage/data-requests.js';
import { dataTable } from './fields.js';
import { html, type Html } from './html.js';
import { formatTime, layout, type PageContext } from './page-layout.js';

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
      html`<span class="small">${formatTime(r.createdAt)}</span>`,
      r.orders,
      html`<span class="small muted">${formatTime(r.expiresAt)}</span>`,
      html`<a class="button" download href="${ctx.link(`/admin/privacy/${encodeURIComponent(r.shop)}/${encodeURIComponent(r.requestId)}/report.json`)}">Download JSON</a>`,
    ],
  }));
  const body = html`<div class="card"><h2>Customer data requests</h2>
<p class="muted">When a customer asks a store for their data, Shopify sends the request to print-bridge too. The report below
lists what print-bridge holds about the customer's orders (the order link, its print status and shipments, and the stored
Shopify order body, when still kept). Send it to the customer with the rest of the store's answer; it is deleted after 30 days,
or as soon as the customer's data is redacted.</p>
${
  data.requests.length === 0
    ? html`<p class="muted">No data request in the last 30 days.</p>`
    : dataTable(ctx, headings, rows)
}
</div>`;
  return layout(ctx, 'Customer data', 'privacy', body, { problems: data.problems });
}
