import { html, type Html } from './html.js';
import { dataTable, submitButton, textArea, textField } from './fields.js';
import { banner, layout, type PageContext } from './page-layout.js';
import { asRecorded, merchantWords } from './merchant-words.js';

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
  // A merchant reads the preview's problems without JSON paths or line item ids (merchant-words.ts).
  const words = ctx.viewer.kind === 'shop' ? merchantWords : asRecorded;
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
          data.preview.notes.length ? html`<ul class="problems">${data.preview.notes.map((n) => html`<li>${words(n)}</li>`)}</ul>` : ''
        }<pre id="preview-result">${JSON.stringify(data.preview.order, null, 2)}</pre>`
      : html`<h3>It cannot be mapped${data.preview.shop ? html` for ${data.preview.shop}` : ''}</h3><div class="banner critical" id="preview-result"><ul class="problems">${data.preview.problems.map((p) => html`<li>${words(p)}</li>`)}</ul></div>`
    : ''
}
</div>`;
  return layout(ctx, 'Mappings', 'mappings', body, { problems: data.problems_count });
}
