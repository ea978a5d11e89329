import { html, type Html, type HtmlValue, trusted } from './html.js';
import type { PageContext } from './page-layout.js';

/**
 * Form controls: Polaris web components inside the Shopify admin (form-associated: they submit with the form like
 * native inputs), native inputs with a label elsewhere. One call site for both.
 */

interface Field {
  name: string;
  label: string;
  value?: string;
  placeholder?: string;
  maxlength?: number;
  /** The field's id outside Polaris (for label/for and tests); default: the name. */
  id?: string;
}

export function textField(ctx: PageContext, field: Field & { kind?: 'text' | 'search' | 'date' | 'url' | 'password' }): Html {
  const kind = field.kind ?? 'text';
  const id = field.id ?? field.name;
  const max = field.maxlength ? trusted(` maxlength="${field.maxlength}"`) : '';
  const placeholder = field.placeholder ? html` placeholder="${field.placeholder}"` : '';
  if (ctx.embedded) {
    const tag = trusted({ text: 's-text-field', search: 's-search-field', date: 's-date-field', url: 's-url-field', password: 's-password-field' }[kind]);
    return html`<${tag} id="${id}" name="${field.name}" label="${field.label}" value="${field.value ?? ''}"${placeholder}${max}></${tag}>`;
  }
  return html`<label for="${id}">${field.label}</label><input type="${kind}" id="${id}" name="${field.name}" value="${field.value ?? ''}"${placeholder}${max}>`;
}

export function textArea(ctx: PageContext, field: Field & { rows?: number }): Html {
  const id = field.id ?? field.name;
  const placeholder = field.placeholder ? html` placeholder="${field.placeholder}"` : '';
  if (ctx.embedded) return html`<s-text-area id="${id}" name="${field.name}" label="${field.label}" rows="${field.rows ?? 8}" value="${field.value ?? ''}"${placeholder}></s-text-area>`;
  return html`<label for="${id}">${field.label}</label><textarea id="${id}" name="${field.name}" rows="${field.rows ?? 8}"${placeholder}>${field.value ?? ''}</textarea>`;
}

/** The submit button of a form; `tone` critical for destructive actions. */
export function submitButton(ctx: PageContext, label: string, options: { primary?: boolean; tone?: 'critical' } = {}): Html {
  if (ctx.embedded) {
    return html`<s-button type="submit"${options.primary ? trusted(' variant="primary"') : ''}${options.tone ? html` tone="${options.tone}"` : ''}>${label}</s-button>`;
  }
  const classes = [options.primary ? 'primary' : '', options.tone ?? ''].filter(Boolean).join(' ');
  return html`<button type="submit"${classes ? html` class="${classes}"` : ''}>${label}</button>`;
}

export interface TableRow {
  cells: readonly HtmlValue[];
  /** Attributes of the row (e.g. `data-version="2"`), written as given: callers build them from constants and numbers. */
  attributes?: string;
}

/**
 * A table: a Polaris table inside the Shopify admin, the app's own elsewhere (which stacks into cards at phone width,
 * each cell labelled with its heading).
 */
export function dataTable(ctx: PageContext, headings: readonly string[], rows: readonly TableRow[]): Html {
  if (ctx.embedded) {
    return html`<s-table><s-table-header-row>${headings.map((h) => html`<s-table-header>${h}</s-table-header>`)}</s-table-header-row>
<s-table-body>${rows.map((r) => html`<s-table-row${trusted(r.attributes ? ` ${r.attributes}` : '')}>${r.cells.map((c) => html`<s-table-cell>${c}</s-table-cell>`)}</s-table-row>`)}</s-table-body></s-table>`;
  }
  return html`<div class="table-wrap"><table class="stack"><thead><tr>${headings.map((h) => html`<th>${h}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr${trusted(r.attributes ? ` ${r.attributes}` : '')}>${r.cells.map((c, i) => html`<td data-label="${headings[i] ?? ''}">${c}</td>`)}</tr>`)}</tbody></table></div>`;
}
