import { html, type Html } from './html.js';
import { dataTable, submitButton, textArea, textField } from './fields.js';
import { banner, layout, type PageContext } from './page-layout.js';
import { card, list, paragraph, row, subheading } from './parts.js';
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
  const body = html`${card(
    ctx,
    { heading: 'Mapping files in use' },
    
  data.files.length === 0
    ? banner(ctx, 'critical', html`No mapping file loads: every order is held until one does.`)
    : dataTable(ctx, ['File', 'Stores', 'Destination'], data.files.map((f) => ({ cells: [html`<span class="mono">${f.file}</span>`, f.shops.join(', '), f.destination ?? '—'] }))),
  )}
${card(
  ctx,
  { heading: `Problems in the files (${data.problems.length})` },
  html`${data.problems.length === 0 ? paragraph(ctx, 'None: every file loads.', { subdued: true }) : html`<pre>${data.problems.join('\n')}</pre>`}
${data.warnings.length > 0 ? html`${subheading(ctx, 'Warnings')}<pre>${data.warnings.join('\n')}</pre>` : ''}
${paragraph(ctx, 'A file with problems keeps its last good version in use. Files are reloaded as soon as they change.', { subdued: true, small: true })}`,
)}
${card(
  ctx,
  { heading: 'Preview' },
  html`${paragraph(ctx, 'See the print order a Shopify order becomes with the mapping in force now: give the id of an order the app has received, or paste an order body (webhook JSON).', { subdued: true })}
<form method="post" action="${ctx.link('/admin/mappings/preview')}">${ctx.formFields}
${ctx.viewer.kind === 'operator' ? textField(ctx, { name: 'shop', label: 'Store domain', placeholder: 'acme.myshopify.com (default: the order\'s own, else the "*" file)', value: data.input?.shop }) : ''}
${textField(ctx, { name: 'orderId', label: 'Shopify order id', placeholder: 'gid://shopify/Order/123 or 123', value: data.input?.orderId })}
${textArea(ctx, { name: 'body', label: 'or an order body (JSON)', value: data.input?.body })}
${row(ctx, submitButton(ctx, 'Preview', { primary: true }), { spaced: true })}
</form>
${
  data.preview
    ? data.preview.ok
      ? html`${subheading(ctx, html`Print order${data.preview.file ? html` (from ${data.preview.file} for ${data.preview.shop})` : ''}`)}${
          data.preview.notes.length ? list(ctx, data.preview.notes.map((n) => words(n))) : ''
        }<pre id="preview-result">${JSON.stringify(data.preview.order, null, 2)}</pre>`
      : html`${subheading(ctx, html`It cannot be mapped${data.preview.shop ? html` for ${data.preview.shop}` : ''}`)}${banner(ctx, 'critical', list(ctx, data.preview.problems.map((p) => words(p))), ' id="preview-result"')}`
    : ''
}`,
)}`;
  return layout(ctx, 'Mappings', 'mappings', body, { problems: data.problems_count });
}
