import type { Change } from 'diff';
import type { MappingVersion } from '../shops/model.js';
import { saveBar, saveBarAttributes } from './confirm.js';
import { dataTable, submitButton, textField } from './fields.js';
import { html, type Html, trusted } from './html.js';
import { banner, formatTime, layout, type PageContext } from './page-layout.js';
import { badge, card, list, paragraph, row, textLink } from './parts.js';

/**
 * The store's mapping in the app (issue 16): a YAML editor (CodeMirror, bundled and served by the app) whose problems
 * show at their line and column as you type, a preview of the store's recent real orders through the text being
 * edited, save as a new version with a note, and the versions with their diffs and a rollback.
 */

export interface EditorView {
  shop: string;
  text: string;
  /** Where the text comes from: the store's version N, the file serving it, or a starting point. */
  source: string;
  currentVersion?: number;
  versions: Omit<MappingVersion, 'yaml'>[];
  /** Problems of a refused save (`LINE:COL message`). */
  problems?: { line: number; col: number; message: string }[];
  note?: string;
  problemsCount: number;
  /**
   * Why the viewer may look but not change (a merchant whose store prints on the operator's account): the page then
   * has no save and no rollback. The server refuses them too; hiding them only spares the merchant a refusal.
   */
  readOnly?: string;
}

export function editorPage(ctx: PageContext, data: EditorView): Html {
  const shopField = ctx.viewer.kind === 'operator' ? html`<input type="hidden" name="shop" value="${data.shop}">` : '';
  const form = (action: string, inner: Html) => html`<form method="post" action="${ctx.link(action)}">${ctx.formFields}${shopField}${inner}</form>`;
  const previewButton = ctx.embedded ? html`<s-button id="preview-button">Preview my latest orders</s-button>` : html`<button type="button" id="preview-button">Preview my latest orders</button>`;
  const editorLink = ctx.link('/admin/mappings/editor', ctx.viewer.kind === 'operator' ? { shop: data.shop } : {});
  const checks = html`id="mapping-form" data-check="${ctx.link('/admin/mappings/check')}" data-preview="${ctx.link('/admin/mappings/draft-preview')}"`;
  const editor = data.readOnly
    ? card(
        ctx,
        { id: 'editor-card', heading: `Mapping of ${data.shop}` },
        html`${banner(ctx, 'info', html`<strong>Read only.</strong> ${data.readOnly} ${textLink(ctx, ctx.link('/admin/settings'), 'Settings')}`, ' id="read-only"')}
${paragraph(ctx, `${data.source} The preview shows what your latest orders are sent as with it (nothing is sent).`, { subdued: true, small: true })}
<form ${checks}>${ctx.formFields}${shopField}
<label for="mapping-yaml">Mapping (YAML, read only)</label>
<textarea id="mapping-yaml" name="yaml" rows="28" spellcheck="false" data-editor="yaml" readonly>${data.text}</textarea>
<div id="mapping-problems"${ctx.embedded ? '' : trusted(' class="small"')} role="status" aria-live="polite"></div>
${row(ctx, previewButton, { spaced: true })}
</form>
<div id="draft-preview" aria-live="polite"></div>`,
      )
    : card(
        ctx,
        { id: 'editor-card', heading: `Mapping of ${data.shop}` },
        html`${paragraph(ctx, `${data.source} Problems appear at their line as you type; the preview shows what your latest orders would be sent as with the text below (nothing is sent). Saving makes it a new version, used for the next orders.`, { subdued: true, small: true })}
${data.problems?.length ? banner(ctx, 'critical', html`<strong>Not saved: the mapping has problems.</strong>${list(ctx, data.problems.map((p) => `line ${p.line}, column ${p.col}: ${p.message}`), { id: 'save-problems' })}`) : ''}
<form method="post" action="${ctx.link('/admin/mappings/save')}" ${checks}${saveBarAttributes(ctx, 'mapping-save-bar', data.problems?.length ? { discard: editorLink } : undefined)}>${ctx.formFields}${shopField}
<label for="mapping-yaml">Mapping (YAML)</label>
<textarea id="mapping-yaml" name="yaml" rows="28" spellcheck="false" data-editor="yaml">${data.text}</textarea>
<div id="mapping-problems"${ctx.embedded ? '' : trusted(' class="small"')} role="status" aria-live="polite"></div>
${textField(ctx, { name: 'note', label: 'Note for this version (what changed, why)', value: data.note, maxlength: 500 })}
${row(ctx, html`${submitButton(ctx, 'Save as a new version', { primary: true })}${previewButton}`, { spaced: true })}
</form>
${saveBar(ctx, 'mapping-save-bar')}
<div id="draft-preview" aria-live="polite"></div>`,
      );
  const versions = card(
    ctx,
    { id: 'versions', heading: 'Versions' },
    data.versions.length === 0
    ? paragraph(ctx, 'No version of your own yet: the mapping files of this server serve your store.', { subdued: true })
    : dataTable(
        ctx,
        ['Version', 'Saved', 'By', 'Note', ''],
        data.versions.map((v) => ({
          attributes: `data-version="${Number(v.version)}"`,
          cells: [
            html`${v.version}${v.version === data.currentVersion ? html` ${badge(ctx, 'success', 'current')}` : ''}`,
            formatTime(v.createdAt),
            v.author,
            v.note ?? '',
            row(ctx, html`${textLink(ctx, ctx.link(`/admin/mappings/versions/${v.version}`, ctx.viewer.kind === 'operator' ? { shop: data.shop } : {}), 'Changes')}${
              v.version === data.currentVersion || data.readOnly ? '' : form('/admin/mappings/rollback', html`<input type="hidden" name="version" value="${v.version}">${submitButton(ctx, `Use version ${v.version} again`)}`)
            }`),
          ],
        })),
      ),
  );
  return layout(ctx, 'Mapping editor', 'editor', html`${editor}${versions}<script src="/admin/assets/editor.js" defer></script>`, { problems: data.problemsCount });
}

/** One version against the one before it, line by line. */
export function versionDiffPage(ctx: PageContext, data: { shop: string; version: MappingVersion; previous?: number; changes: Change[]; problemsCount: number }): Html {
  const lines = data.changes.flatMap((change) =>
    change.value
      .replace(/\n$/, '')
      .split('\n')
      .map((line) => html`<span class="${change.added ? 'diff-add' : change.removed ? 'diff-del' : 'diff-same'}">${change.added ? '+ ' : change.removed ? '- ' : '  '}${line}</span>\n`),
  );
  const body = card(
    ctx,
    { heading: `Version ${data.version.version} of ${data.shop}${data.previous ? ` against version ${data.previous}` : ' (the first)'}` },
    html`${paragraph(ctx, html`Saved ${formatTime(data.version.createdAt)} by ${data.version.author}${data.version.note ? html`: ${data.version.note}` : ''}.`, { subdued: true, small: true })}
<pre class="mono diff" id="diff">${lines}</pre>
${paragraph(ctx, textLink(ctx, ctx.link('/admin/mappings/editor', ctx.viewer.kind === 'operator' ? { shop: data.shop } : {}), 'Back to the editor'))}`,
  );
  return layout(ctx, `Mapping version ${data.version.version}`, 'editor', body, { problems: data.problemsCount });
}
