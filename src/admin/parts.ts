import { html, type Html, type HtmlValue, trusted } from './html.js';
import type { PageContext } from './page-layout.js';

/**
 * The layout pieces of the admin pages, each in one call for both contexts (issue 26): inside the Shopify admin a
 * Polaris web component (`s-section`, `s-heading`, `s-paragraph`, `s-text`, `s-badge`, `s-stack`, `s-grid`,
 * `s-unordered-list`, `s-checkbox`, `s-divider`, `s-box`, `s-button-group`), for the operator console (no Polaris
 * script) the app's own markup and classes (styles.ts). Hand CSS in an embedded page is only for what Polaris has no
 * component for (test/admin/polaris-classes.test.ts keeps the list).
 */

const attr = (name: string, value: string | undefined): Html => (value === undefined ? html`` : html` ${trusted(name)}="${value}"`);

/** A card with an optional heading; `flush` for a table that runs to the card's edges. */
export function card(ctx: PageContext, options: { heading?: string; aside?: Html; id?: string; flush?: boolean }, body: HtmlValue): Html {
  if (ctx.embedded) {
    // The heading as a Polaris heading in the section (its text stays in the page's text, for readers without script).
    const heading = options.heading
      ? options.aside
        ? html`<s-stack direction="inline" gap="small-200" alignItems="center"><s-heading>${options.heading}</s-heading> ${options.aside}</s-stack>`
        : html`<s-heading>${options.heading}</s-heading>`
      : '';
    return html`<s-section${attr('id', options.id)}${options.flush ? trusted(' padding="none"') : ''}>${options.flush && heading ? html`<s-box padding="base">${heading}</s-box>` : heading}
${body}</s-section>`;
  }
  const heading = options.heading ? html`<h2>${options.heading}${options.aside ? html` ${options.aside}` : ''}</h2>` : '';
  return html`<div class="card${options.flush ? ' flush' : ''}"${attr('id', options.id)}>${heading}
${body}</div>`;
}

/** A heading inside a card. */
export function subheading(ctx: PageContext, text: HtmlValue, id?: string): Html {
  return ctx.embedded ? html`<s-heading${attr('id', id)}>${text}</s-heading>` : html`<h3${attr('id', id)}>${text}</h3>`;
}

/** A paragraph; `subdued` for an explanation in grey. */
export function paragraph(ctx: PageContext, content: HtmlValue, options: { subdued?: boolean; small?: boolean; id?: string } = {}): Html {
  if (ctx.embedded) return html`<s-paragraph${options.subdued ? trusted(' color="subdued"') : ''}${attr('id', options.id)}>${content}</s-paragraph>`;
  const classes = [options.subdued ? 'muted' : '', options.small ? 'small' : ''].filter(Boolean).join(' ');
  return html`<p${classes ? html` class="${classes}"` : ''}${attr('id', options.id)}>${content}</p>`;
}

/** Words in grey inside a line (a time, a note beside a name). */
export function subdued(ctx: PageContext, content: HtmlValue, small = true): Html {
  return ctx.embedded ? html`<s-text color="subdued">${content}</s-text>` : html`<span class="muted${small ? ' small' : ''}">${content}</span>`;
}

/** The app's badge tones and Polaris's. */
export type Tone = 'new' | 'info' | 'success' | 'attention' | 'warning' | 'critical';
const POLARIS_TONE: Record<Tone, string> = { new: 'neutral', info: 'info', success: 'success', attention: 'caution', warning: 'warning', critical: 'critical' };

export function badge(ctx: PageContext | boolean, tone: Tone, text: HtmlValue): Html {
  const polaris = typeof ctx === 'boolean' ? ctx : Boolean(ctx.embedded);
  return polaris ? html`<s-badge tone="${POLARIS_TONE[tone]}">${text}</s-badge>` : html`<span class="badge ${tone}">${text}</span>`;
}

/** Things side by side (buttons, forms, a badge and a note), wrapping at phone width; `spaced` leaves room above. */
export function row(ctx: PageContext, items: HtmlValue, options: { spaced?: boolean; spread?: boolean; id?: string } = {}): Html {
  if (ctx.embedded) {
    return html`<s-stack direction="inline" gap="small-200" alignItems="center"${options.spread ? trusted(' justifyContent="space-between" padding="base"') : ''}${
      options.spaced ? trusted(' paddingBlockStart="small-200"') : ''
    }${attr('id', options.id)}>${items}</s-stack>`;
  }
  if (options.spread) return html`<div class="pager"${attr('id', options.id)}>${items}</div>`;
  return html`<div class="actions"${options.spaced ? trusted(' style="margin-top:8px"') : ''}${attr('id', options.id)}>${items}</div>`;
}

/** A bulleted (or numbered) list; each item's attributes written as given (callers build them from constants). */
export function list(ctx: PageContext, items: readonly (HtmlValue | { content: HtmlValue; attributes: string })[], options: { ordered?: boolean; id?: string; className?: string } = {}): Html {
  const parts = items.map((i) => (typeof i === 'object' && i !== null && !(i instanceof Array) && 'content' in i ? i : { content: i as HtmlValue, attributes: '' }));
  const extra = (a: string) => trusted(a ? ` ${a}` : '');
  if (ctx.embedded) {
    const tag = trusted(options.ordered ? 's-ordered-list' : 's-unordered-list');
    return html`<${tag}${attr('id', options.id)}>${parts.map((p) => html`<s-list-item${extra(p.attributes)}>${p.content}</s-list-item>`)}</${tag}>`;
  }
  const tag = trusted(options.ordered ? 'ol' : 'ul');
  return html`<${tag} class="${options.className ?? 'problems'}"${attr('id', options.id)}>${parts.map((p) => html`<li${extra(p.attributes)}>${p.content}</li>`)}</${tag}>`;
}

/** Entries one under the other with a line between (a list of orders with their problems, a list of requests). */
export function entries(ctx: PageContext, items: readonly { head: HtmlValue; body: HtmlValue }[]): Html {
  if (ctx.embedded) {
    return html`${items.map(
      (item, i) => html`${i > 0 ? trusted('<s-divider></s-divider>') : ''}<s-box paddingBlock="small"><s-stack gap="small-200"><s-stack direction="inline" gap="small-200" alignItems="center">${item.head}</s-stack>
${item.body}</s-stack></s-box>`,
    )}`;
  }
  return html`${items.map((item) => html`<div class="item"><div class="head">${item.head}</div>
${item.body}</div>`)}`;
}

/** Labelled values (a label column and a value column; one column at phone width). */
type Fact = [label: string, value: HtmlValue, options?: { id?: string; mono?: boolean }];
export function facts(ctx: PageContext, pairs: readonly (Fact | false)[]): Html {
  const shown = pairs.filter((p): p is Fact => p !== false);
  if (ctx.embedded) {
    return html`<s-query-container><s-grid gridTemplateColumns="@container (inline-size &gt; 500px) max-content 1fr, 1fr" gap="small-200 base">${shown.map(
      ([label, value, o]) => html`
<s-text color="subdued">${label}</s-text> <s-box${attr('id', o?.id)}>${o?.mono ? html`<span class="mono">${value}</span>` : value}</s-box>`,
    )}</s-grid></s-query-container>`;
  }
  return html`<dl class="facts">${shown.map(([label, value, o]) => html`<dt>${label}</dt><dd${o?.mono ? trusted(' class="mono"') : ''}${attr('id', o?.id)}>${value}</dd>`)}</dl>`;
}

/** Dated events, newest first: the time in a column beside what happened. */
export function timeline(ctx: PageContext, items: readonly { at: string; content: HtmlValue }[]): Html {
  if (ctx.embedded) {
    return html`<s-stack gap="small-200" id="timeline">${items.map(
      (item, i) => html`${i > 0 ? trusted('<s-divider></s-divider>') : ''}<s-query-container><s-grid gridTemplateColumns="@container (inline-size &gt; 500px) 170px 1fr, 1fr" gap="small-200 base">
<s-text color="subdued">${item.at}</s-text> <s-box>${item.content}</s-box></s-grid></s-query-container>`,
    )}</s-stack>`;
  }
  return html`<ol class="timeline">${items.map((item) => html`<li><span class="small muted">${item.at}</span><span>${item.content}</span></li>`)}</ol>`;
}

/** A confirm box the server checks (`name=value`); the embedded script hides it when an App Bridge modal asks instead. */
export function checkbox(ctx: PageContext, field: { name: string; value: string; label: string; required?: boolean }): Html {
  if (ctx.embedded) return html`<s-checkbox name="${field.name}" value="${field.value}" label="${field.label}"${field.required ? trusted(' required') : ''}></s-checkbox>`;
  return html`<label class="inline"><input type="checkbox" name="${field.name}" value="${field.value}"${field.required ? trusted(' required') : ''}> ${field.label}</label>`;
}

/**
 * Choices under a label: one of them (radio buttons), or any of them with `multiple` (checkboxes); each with an optional
 * line of what it means. Inside the admin a Polaris choice list, whose selected values go with the form under `name`.
 */
export function choiceList(
  ctx: PageContext,
  field: { name: string; label: string; multiple?: boolean; id?: string; choices: readonly { value: string; label: string; details?: string; selected: boolean }[] },
): Html {
  if (ctx.embedded) {
    return html`<s-choice-list name="${field.name}" label="${field.label}"${field.multiple ? trusted(' multiple') : ''}${attr('id', field.id)}>${field.choices.map(
      (c) => html`<s-choice value="${c.value}"${c.selected ? trusted(' selected') : ''}>${c.label}${c.details ? html`<s-text slot="details">${c.details}</s-text>` : ''}</s-choice>`,
    )}</s-choice-list>`;
  }
  const type = field.multiple ? 'checkbox' : 'radio';
  return html`<fieldset class="choices"${attr('id', field.id)}><legend>${field.label}</legend>${field.choices.map(
    (c) => html`<label class="inline"><input type="${type}" name="${field.name}" value="${c.value}"${c.selected ? trusted(' checked') : ''}> <span>${c.label}${c.details ? html`<br><span class="muted small">${c.details}</span>` : ''}</span></label>`,
  )}</fieldset>`;
}

/** Links to views of one list (status tabs): the current one marked. */
export function tabs(ctx: PageContext, label: string, items: readonly { href: string; text: string; count: number; current: boolean }[]): Html {
  if (ctx.embedded) {
    // Polaris's own label for the group (an aria-label on the element would stay outside its shadow root).
    return html`<s-box paddingBlockEnd="base"><s-button-group accessibilityLabel="${label}">${items.map(
      (i) => html`<s-button href="${i.href}" variant="${i.current ? 'primary' : 'secondary'}"${i.current ? trusted(' aria-current="page"') : ''}>${i.text} (${i.count})</s-button>`,
    )}</s-button-group></s-box>`;
  }
  return html`<nav class="tabs" aria-label="${label}">
${items.map((i) => html`<a href="${i.href}"${i.current ? trusted(' aria-current="page"') : ''}>${i.text}<span class="count">${i.count}</span></a>`)}
</nav>`;
}

/**
 * A link in text: a Polaris link inside the Shopify admin (the admin's look, and App Bridge's handling of a
 * `shopify:` address), the app's own `<a>` elsewhere. `target="_blank"` opens with no hold on this page: the `<a>` says
 * so with `rel`; `<s-link>` declares no `rel` (@shopify/polaris-types), and a new window from its link gets no opener
 * anyway (browsers imply `noopener` for `_blank`) and no address of ours (the pages' referrer policy is same-origin).
 */
export function textLink(ctx: PageContext, href: string, content: HtmlValue, options: { target?: '_blank' | '_top'; id?: string } = {}): Html {
  const extra = html`${attr('id', options.id)}${attr('target', options.target)}`;
  if (ctx.embedded) return html`<s-link href="${href}"${extra}>${content}</s-link>`;
  return html`<a href="${href}"${extra}${options.target === '_blank' ? trusted(' rel="noopener noreferrer"') : ''}>${content}</a>`;
}
