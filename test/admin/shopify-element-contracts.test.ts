import { describe, expect, it } from 'vitest';
import { EMBEDDED_SCRIPT } from '../../src/admin/embedded-script.js';
import { appBridgeStandIn } from '../../src/dev/embedded-preview/app-bridge-stand-in.js';
import { POLARIS_STAND_IN } from '../../src/dev/embedded-preview/polaris-stand-in.js';
import { pages } from './embedded-pages.js';
import { type DeclaredAttribute, shopifyContracts, shopifyGlobalProblems, type ShopifyContracts, standInElementProblems } from './shopify-contracts.js';

/**
 * Issue 26: the embedded pages run against stand-ins here (the real App Bridge and Polaris scripts load from Shopify's
 * CDN), so their markup and script are held to what Shopify publishes instead: `@shopify/app-bridge-types` and
 * `@shopify/polaris-types`, read at run time (shopify-contracts.ts). Every `ui-*`/`s-*` element of every embedded page
 * exists in the packages; every attribute on it is one its package declares for it (or a global HTML attribute);
 * an attribute whose declared type enumerates its values has one of them; the buttons App Bridge reads from a
 * `ui-title-bar` or `ui-save-bar`, and the links of `s-app-nav`, are held to App Bridge's declaration of those
 * children. The embedded script (and the App Bridge stand-in) use only the `shopify` global App Bridge declares, and
 * the stand-ins' elements have only methods the packages declare for them.
 */

/** Global HTML attributes (any element may carry them), with `aria-*` and `data-*`. */
const GLOBAL = new Set([
  'accesskey', 'autocapitalize', 'autofocus', 'class', 'contenteditable', 'dir', 'draggable', 'enterkeyhint', 'hidden', 'id', 'inert', 'inputmode', 'is',
  'itemid', 'itemprop', 'itemref', 'itemscope', 'itemtype', 'lang', 'nonce', 'part', 'popover', 'role', 'slot', 'spellcheck', 'style', 'tabindex', 'title', 'translate',
]);
const isGlobal = (name: string) => GLOBAL.has(name) || name.startsWith('aria-') || name.startsWith('data-');

/**
 * Stricter than "global": an ARIA attribute where the element declares its own property for it. Polaris draws its
 * elements in a shadow root and puts `accessibilityLabel` where a reader finds it; an `aria-label` on the host may not be.
 */
const PREFER: Record<string, string> = { 'aria-label': 'accessibilitylabel' };

/**
 * Deliberate exceptions: an attribute a package does not declare, used on purpose. Keyed `tag attribute`, with the
 * reason. (Empty: everything the pages use is declared. A new entry needs a reason Shopify's docs back.)
 */
const EXCEPTIONS: Record<string, string> = {};
const exceptionsUsed = new Set<string>();

/** The plain HTML attributes of a `<button>`/`<a>` that App Bridge reads from a title bar or save bar (as any button). */
const BUTTON_HTML = new Set(['type', 'disabled', 'name', 'value', 'form', 'href', 'target', 'rel', 'download']);

interface Tag {
  name: string;
  attributes: [string, string][];
  /** The nearest ancestor whose children App Bridge reads (`ui-title-bar`, `ui-save-bar`, `s-app-nav`). */
  reader?: string;
  /** The element's line in the page. */
  line: number;
}

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);

/** The start tags of a server-rendered page, with their attributes (names lowercased as HTML does) and nesting. */
function startTags(page: string, readers: ReadonlySet<string>): Tag[] {
  const tags: Tag[] = [];
  const open: string[] = [];
  const token = /<!--[\s\S]*?-->|<\/([a-zA-Z][\w-]*)\s*>|<([a-zA-Z][\w-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>/g;
  for (let m = token.exec(page); m; m = token.exec(page)) {
    if (m[1]) {
      const at = open.lastIndexOf(m[1].toLowerCase());
      if (at >= 0) open.length = at;
      continue;
    }
    if (!m[2]) continue;
    const name = m[2].toLowerCase();
    const attributes = [...(m[3] ?? '').matchAll(/([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g)].map((a): [string, string] => [a[1]!.toLowerCase(), a[2] ?? a[3] ?? a[4] ?? '']);
    const reader = [...open].reverse().find((t) => readers.has(t));
    tags.push({ name, attributes, line: page.slice(0, m.index).split('\n').length, ...(reader ? { reader } : {}) });
    // Raw text: nothing in a script or style is markup.
    if (name === 'script' || name === 'style') {
      const end = page.indexOf(`</${name}`, token.lastIndex);
      token.lastIndex = end < 0 ? page.length : end;
    }
    if (!VOID.has(name)) open.push(name);
  }
  return tags;
}

/** Every way the page departs from the packages' declarations, one line each. */
function contractProblems(page: string, contracts: ShopifyContracts): string[] {
  const problems: string[] = [];
  const checkValue = (tag: Tag, name: string, value: string, declared: DeclaredAttribute) => {
    if (declared.values && !declared.values.includes(value)) problems.push(`line ${tag.line}: <${tag.name} ${name}="${value}">: not one of ${declared.values.map((v) => `"${v}"`).join(', ')}`);
  };
  for (const tag of startTags(page, new Set(contracts.children.keys()))) {
    const readBy = tag.reader ? contracts.children.get(tag.reader)?.get(tag.name) : undefined;
    if (tag.reader && !readBy && tag.reader !== 's-app-nav') {
      // Plain content of a title bar / save bar that App Bridge does not read: only declared children belong there.
      problems.push(`line ${tag.line}: <${tag.name}> in <${tag.reader}>: App Bridge reads only ${[...(contracts.children.get(tag.reader)?.keys() ?? [])].join(', ')} there`);
      continue;
    }
    const element = contracts.elements.get(tag.name);
    if (!element && /^(s|ui)-/.test(tag.name)) {
      problems.push(`line ${tag.line}: <${tag.name}> is not an element @shopify/app-bridge-types or @shopify/polaris-types declares`);
      continue;
    }
    if (!element && !readBy) continue;
    for (const [name, value] of tag.attributes) {
      const declared = readBy?.get(name) ?? element?.attributes.get(name);
      if (declared) {
        checkValue(tag, name, value, declared);
        continue;
      }
      if (`${tag.name} ${name}` in EXCEPTIONS) {
        exceptionsUsed.add(`${tag.name} ${name}`);
        continue;
      }
      if (readBy && !element && BUTTON_HTML.has(name)) continue;
      if (isGlobal(name)) {
        const better = PREFER[name];
        if (better && element?.attributes.has(better)) problems.push(`line ${tag.line}: <${tag.name} ${name}>: the element declares ${element.attributes.get(better)!.property}; use that`);
        continue;
      }
      const known = [...(readBy?.keys() ?? []), ...(element?.attributes.keys() ?? [])];
      problems.push(`line ${tag.line}: <${tag.name}${tag.reader ? ` (in ${tag.reader})` : ''} ${name}>: not declared (declared: ${known.join(' ')})`);
    }
  }
  return problems;
}

describe('the embedded pages against Shopify’s published App Bridge and Polaris types', () => {
  const contracts = shopifyContracts();

  it('reads the packages: their elements, attributes and the children App Bridge reads, in agreement', () => {
    expect(contracts.disagreements).toEqual([]);
    for (const tag of ['ui-modal', 'ui-title-bar', 'ui-save-bar', 's-app-nav', 's-page']) expect(contracts.elements.get(tag)?.from.has('app-bridge'), tag).toBe(true);
    for (const tag of ['s-page', 's-section', 's-link', 's-button', 's-badge', 's-text-field']) expect(contracts.elements.get(tag)?.from.has('polaris'), tag).toBe(true);
    // Spot checks that the reading finds what the .d.ts say (the rest follows from the same reading).
    expect(contracts.elements.get('ui-modal')!.attributes.get('variant')?.values).toEqual(['base', 'large', 'max', 'small']);
    expect(contracts.elements.get('s-button')!.attributes.get('variant')?.values).toEqual(['auto', 'primary', 'secondary', 'tertiary']);
    expect(contracts.elements.get('s-badge')!.attributes.get('tone')?.values).toContain('caution');
    expect(contracts.elements.get('s-stack')!.attributes.get('alignitems')?.property).toBe('alignItems');
    expect(contracts.children.get('ui-title-bar')!.get('button')!.get('variant')?.values).toEqual(['breadcrumb', 'primary']);
    expect(contracts.children.get('ui-save-bar')!.get('button')!.get('variant')?.values).toEqual(['primary']);
    expect(contracts.children.get('s-app-nav')!.get('s-link')!.get('rel')?.values).toEqual(['home']);
  });

  it('uses only declared elements, attributes and values on every embedded page', () => {
    const found: Record<string, string[]> = {};
    const used = new Set<string>();
    for (const [name, page] of Object.entries(pages())) {
      const problems = contractProblems(page, contracts);
      if (problems.length) found[name] = problems;
      for (const tag of startTags(page, new Set())) if (/^(s|ui)-/.test(tag.name)) used.add(tag.name);
    }
    expect(found).toEqual({});
    // The pages draw the App Bridge idioms this check is for (else it would prove nothing about them).
    for (const tag of ['ui-modal', 'ui-title-bar', 'ui-save-bar', 's-app-nav', 's-page', 's-link', 's-button']) expect(used, tag).toContain(tag);
    // Deliberate exceptions stay only while a page needs them.
    expect([...exceptionsUsed].sort()).toEqual(Object.keys(EXCEPTIONS).sort());
  });

  it('fails on a misspelled attribute, an undeclared value, an undeclared element, a title-bar button App Bridge does not know', () => {
    const page = [
      '<s-page heading="x"><s-button varient="primary">a</s-button>',
      '<s-badge tone="danger">b</s-badge>',
      '<s-card>c</s-card>',
      '<s-button-group aria-label="Tabs"></s-button-group>',
      '<ui-modal id="m" variant="huge"><ui-title-bar title="t"><button variant="secondary">d</button><button tone="critical" kind="x">e</button></ui-title-bar></ui-modal>',
      '<ui-save-bar id="s" discardconfirmation><button variant="primary">Save</button><button>Discard</button></ui-save-bar>',
      '<s-app-nav><s-link href="/" rel="home">Home</s-link><s-link href="/x" rel="next">X</s-link></s-app-nav></s-page>',
    ].join('\n');
    expect(contractProblems(page, contracts)).toEqual([
      expect.stringMatching(/^line 1: <s-button varient>: not declared/),
      expect.stringMatching(/^line 2: <s-badge tone="danger">: not one of "[^d]*"$/),
      'line 3: <s-card> is not an element @shopify/app-bridge-types or @shopify/polaris-types declares',
      'line 4: <s-button-group aria-label>: the element declares accessibilityLabel; use that',
      'line 5: <ui-modal variant="huge">: not one of "base", "large", "max", "small"',
      'line 5: <button variant="secondary">: not one of "breadcrumb", "primary"',
      expect.stringMatching(/^line 5: <button \(in ui-title-bar\) kind>: not declared/),
      'line 7: <s-link rel="next">: not one of "home"',
    ]);
  });

  it('calls only members of the shopify global that App Bridge declares, from the embedded script and the App Bridge stand-in', () => {
    const script = shopifyGlobalProblems({ 'embedded-script.ts': EMBEDDED_SCRIPT });
    expect(script.problems).toEqual([]);
    // What the script relies on (a change here is a change to what the real App Bridge must do for the pages).
    expect([...script.members].sort()).toEqual(['shopify.idToken', 'shopify.modal', 'shopify.modal.hide', 'shopify.modal.show', 'shopify.saveBar', 'shopify.saveBar.hide', 'shopify.saveBar.leaveConfirmation', 'shopify.saveBar.show', 'shopify.toast', 'shopify.toast.show']);
    // The stand-in models only what the real global has.
    const standIn = shopifyGlobalProblems({ 'app-bridge-stand-in.ts': appBridgeStandIn({ tokenUrl: '/token' }) });
    expect(standIn.problems).toEqual([]);
    for (const member of script.members) expect(standIn.members, `the stand-in models ${member}`).toContain(member);
  });

  it('gives the stand-ins’ elements only methods the packages declare for them', () => {
    const { problems, methods } = standInElementProblems({ 'app-bridge-stand-in.ts': appBridgeStandIn({ tokenUrl: '/token' }), 'polaris-stand-in.ts': POLARIS_STAND_IN });
    expect(problems).toEqual([]);
    // The element methods a page may call (the embedded script calls none today; App Bridge's own show/hide are modelled).
    expect([...methods].sort()).toEqual(['ui-modal.hide', 'ui-modal.show', 'ui-save-bar.hide', 'ui-save-bar.show']);
    expect(standInElementProblems({ wrong: "customElements.define('ui-modal', class extends HTMLElement { open() {} connectedCallback() {} });" }).problems).toEqual([
      'wrong:1: <ui-modal>.open() is not declared for the element by the packages',
    ]);
  });

  it('fails on a call App Bridge does not declare, or a declared one called wrongly', () => {
    const { problems } = shopifyGlobalProblems({
      wrong: "shopify.saveBar.leaveConfirm();\nshopify.toast.show();\nwindow.shopify.modal.open('x');\nObject.assign(shopify, { modal: { show() {}, open() {} } });\n",
    });
    expect(problems).toEqual([
      'wrong:1: shopify.saveBar.leaveConfirm is not declared by @shopify/app-bridge-types',
      'wrong:3: shopify.modal.open is not declared by @shopify/app-bridge-types',
      'wrong:4: shopify.modal.open (put in the global) is not declared by @shopify/app-bridge-types',
      "wrong:1: Property 'leaveConfirm' does not exist on type 'SaveBarApi'.",
      expect.stringMatching(/^wrong:2: Expected 1-2 arguments, but got 0/),
      "wrong:3: Property 'open' does not exist on type 'ModalApi'.",
    ]);
  });
});
