/**
 * Just enough of Polaris web components (https://cdn.shopify.com/shopifycloud/polaris.js) to draw the embedded pages
 * readably and use them: the page with its title, sections as cards, headings, stacks, grids, lists, badges, banners
 * and tables laid out plainly; form fields and checkboxes form-associated (their values go with the form, as
 * Polaris's do); buttons that submit their form; links (`s-link`) that are followed. For the browser tests and the
 * demo's local preview (preview-server.ts); nothing here is Polaris's own look.
 */
export const POLARIS_STAND_IN = `
window.__cdn = (window.__cdn || []).concat('polaris');
// Tables laid out as tables (Polaris draws its own; the stub only needs them readable in screenshots).
const style = document.createElement('style');
style.textContent = 's-table{display:table;width:100%;border-collapse:collapse}s-table-header-row,s-table-row{display:table-row}s-table-body{display:table-row-group}s-table-header,s-table-cell{display:table-cell;padding:6px 10px;border-bottom:1px solid #e3e3e3;vertical-align:top}s-table-header{font-weight:600}s-badge{display:inline-block;padding:0 6px;border-radius:6px;background:#e3e3e3}s-banner{display:block;padding:8px 12px;margin:8px 0;border-radius:8px;background:#eaf4ff}s-banner[tone=critical]{background:#fed1d7}s-banner[tone=success]{background:#cdfee1}'
  // Layout pieces, drawn plainly: sections as white cards, stacks and grids as flex and grid boxes.
  + 'body{background:#f1f1f1;font:13px/20px system-ui,sans-serif;margin:0}main{padding:16px;max-width:1200px;margin:0 auto}s-page>h1{font-size:20px;max-width:1200px;margin:16px auto 0;padding:0 16px}'
  + 's-section{display:block;background:#fff;border-radius:12px;padding:16px;margin-bottom:16px;box-shadow:0 1px 3px #0002}s-section[padding=none]{padding:0;overflow:hidden}s-section[padding=none]>h2{padding:16px 16px 0}'
  + 's-stack{display:flex;flex-direction:column;gap:8px}s-stack[direction=inline]{flex-direction:row;flex-wrap:wrap;align-items:center}s-stack[justifyContent=space-between]{justify-content:space-between}s-stack[padding=base],s-box[padding=base]{padding:12px 16px}s-stack[paddingBlockStart]{padding-top:8px}'
  + 's-box{display:block}s-box[paddingBlock]{padding-block:8px}s-box[paddingBlockEnd]{padding-bottom:16px}s-grid{display:grid;gap:6px 16px}s-divider{display:block;border-top:1px solid #e3e3e3}'
  + 's-heading{display:block;font-weight:650;margin:12px 0 8px}s-paragraph{display:block;margin:8px 0}s-text[color=subdued],s-paragraph[color=subdued]{color:#616161}s-text[type=strong]{font-weight:650;display:block;margin-top:8px}'
  + 's-unordered-list,s-ordered-list{display:block;padding-left:20px;margin:8px 0}s-unordered-list>s-list-item{display:list-item;list-style:disc}s-ordered-list>s-list-item{display:list-item;list-style:decimal}'
  + 's-button-group{display:flex;flex-wrap:wrap;gap:4px}s-button{display:inline-block;padding:4px 10px;border-radius:8px;border:1px solid #d4d4d4;background:#fff;cursor:pointer}s-button[variant=primary]{background:#303030;color:#fff}s-checkbox{display:block;margin:8px 0}s-choice-list,s-choice{display:block;margin:6px 0}'
  // Fields with their label above, side by side while they fit.
  + 's-text-field,s-search-field,s-date-field,s-url-field,s-password-field,s-text-area{display:inline-flex;flex-direction:column;gap:2px;margin:4px 12px 4px 0;vertical-align:bottom}';
document.head.append(style);
customElements.define('s-page', class extends HTMLElement {
  connectedCallback() {
    if (this.querySelector(':scope > h1')) return;
    const h = document.createElement('h1');
    h.textContent = this.getAttribute('heading');
    this.prepend(h);
  }
});
// Form fields are form-associated, as Polaris's are: their value goes with the form.
const field = (multiline, type) => class extends HTMLElement {
  static formAssociated = true;
  constructor() { super(); this.internals = this.attachInternals(); }
  connectedCallback() {
    if (this.input) return;
    const label = document.createElement('label');
    label.textContent = this.getAttribute('label');
    this.input = document.createElement(multiline ? 'textarea' : 'input');
    if (!multiline) this.input.type = type;
    this.input.value = this.getAttribute('value') || '';
    this.input.setAttribute('aria-label', this.getAttribute('label'));
    this.input.addEventListener('input', () => this.internals.setFormValue(this.input.value));
    this.internals.setFormValue(this.input.value);
    this.append(label, this.input);
  }
  formResetCallback() {
    if (!this.input) return;
    this.input.value = this.getAttribute('value') || '';
    this.internals.setFormValue(this.input.value);
  }
};
customElements.define('s-text-field', field(false, 'text'));
customElements.define('s-search-field', field(false, 'search'));
customElements.define('s-date-field', field(false, 'date'));
customElements.define('s-url-field', field(false, 'url'));
customElements.define('s-password-field', field(false, 'password'));
customElements.define('s-text-area', field(true));
// Headings as headings (the section's from its heading attribute), grids with their columns (the last, narrow layout
// of a container query when it has one: enough for a readable screenshot).
customElements.define('s-section', class extends HTMLElement {
  connectedCallback() {
    if (!this.getAttribute('heading') || this.querySelector(':scope > h2')) return;
    const h = document.createElement('h2');
    h.textContent = this.getAttribute('heading');
    this.prepend(h);
  }
});
customElements.define('s-heading', class extends HTMLElement {
  connectedCallback() { this.setAttribute('role', 'heading'); this.setAttribute('aria-level', '3'); }
});
customElements.define('s-grid', class extends HTMLElement {
  connectedCallback() {
    const columns = this.getAttribute('gridTemplateColumns') || '';
    const wide = /^@container \\([^)]*\\) ([^,]+),/.exec(columns);
    this.style.gridTemplateColumns = wide ? wide[1] : columns;
  }
});
// A checkbox is form-associated, as Polaris's is: its value goes with the form when checked.
customElements.define('s-checkbox', class extends HTMLElement {
  static formAssociated = true;
  constructor() { super(); this.internals = this.attachInternals(); }
  connectedCallback() {
    if (this.input) return;
    const label = document.createElement('label');
    this.input = document.createElement('input');
    this.input.type = 'checkbox';
    this.input.addEventListener('change', () => this.internals.setFormValue(this.input.checked ? this.getAttribute('value') || 'on' : null));
    label.append(this.input, ' ' + (this.getAttribute('label') || ''));
    this.append(label);
  }
});
// A choice list is form-associated, as Polaris's is: the values of its selected choices go with the form under its
// name. Each choice draws its own radio button (a checkbox in a multiple list) before its label.
customElements.define('s-choice-list', class extends HTMLElement {
  static formAssociated = true;
  constructor() { super(); this.internals = this.attachInternals(); this.group = 'choices-' + Math.random().toString(36).slice(2); }
  connectedCallback() {
    if (this.legend) return;
    this.legend = document.createElement('strong');
    this.legend.textContent = this.getAttribute('label') || '';
    this.prepend(this.legend);
  }
  _update() {
    const data = new FormData();
    for (const input of this.querySelectorAll('s-choice > label > input')) if (input.checked) data.append(this.getAttribute('name'), input.value);
    this.internals.setFormValue(data);
  }
});
customElements.define('s-choice', class extends HTMLElement {
  connectedCallback() {
    const list = this.closest('s-choice-list');
    if (this.input || !list) return;
    const label = document.createElement('label');
    this.input = document.createElement('input');
    this.input.type = list.hasAttribute('multiple') ? 'checkbox' : 'radio';
    this.input.name = list.group;
    this.input.value = this.getAttribute('value') || '';
    this.input.checked = this.hasAttribute('selected');
    this.input.addEventListener('change', () => list._update());
    label.append(this.input);
    this.prepend(label);
    // The label's words are the choice's own text, after the input (the parser may not have reached them yet).
    queueMicrotask(() => { for (const node of [...this.childNodes]) if (node !== label && node.nodeType === 3) label.append(node); list._update(); });
  }
});
// A group of buttons named by its accessibilityLabel, as Polaris names it.
customElements.define('s-button-group', class extends HTMLElement {
  connectedCallback() {
    this.setAttribute('role', 'group');
    if (this.getAttribute('accessibilityLabel')) this.setAttribute('aria-label', this.getAttribute('accessibilityLabel'));
  }
});
customElements.define('s-button', class extends HTMLElement {
  connectedCallback() {
    this.setAttribute('role', this.hasAttribute('href') ? 'link' : 'button');
    this.addEventListener('click', () => { if (this.getAttribute('type') === 'submit') this.closest('form')?.requestSubmit(); });
  }
});
// A link as Polaris draws it: an <a> in its shadow root around the text, so it is followed (or its click taken by the
// app's script) as any link is.
customElements.define('s-link', class extends HTMLElement {
  static observedAttributes = ['href', 'target', 'download'];
  constructor() {
    super();
    this.attachShadow({ mode: 'open' }).innerHTML = '<style>a{color:#005bd3;text-decoration:underline}</style><a part="link"><slot></slot></a>';
  }
  attributeChangedCallback(name, _old, value) {
    const a = this.shadowRoot.querySelector('a');
    if (value === null) a.removeAttribute(name);
    else a.setAttribute(name, value);
    // A new window gets no hold on this one.
    if (name === 'target' && value === '_blank') a.setAttribute('rel', 'noopener noreferrer');
  }
});
for (const name of ['s-banner', 's-badge', 's-stack', 's-box', 's-paragraph', 's-text', 's-divider', 's-query-container', 's-unordered-list', 's-ordered-list', 's-list-item', 's-table', 's-table-header-row', 's-table-header', 's-table-body', 's-table-row', 's-table-cell']) customElements.define(name, class extends HTMLElement {});`;
