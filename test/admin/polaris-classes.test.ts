import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ordersPage } from '../../src/admin/order-views.js';
import type { PageContext } from '../../src/admin/page-layout.js';
import { type Harness, SHOP, SHOPIFY_SECRET, startHarness } from '../helpers/harness.js';
import { ctx, link, pages } from './embedded-pages.js';
import { sessionToken } from './helpers.js';

/**
 * Issue 26: the embedded (merchant) pages draw every layout piece with Polaris web components. This lists the CSS
 * classes their markup still uses and fails on one that is not below: a class here is for something Polaris has no
 * component for. A new page piece takes a Polaris component (src/admin/parts.ts), not a class. The operator console
 * (no Polaris) keeps its own classes and is not scanned.
 */
const ALLOWED: Record<string, string> = {
  mono: 'identifiers and code in monospace (Polaris text has no monospace type)',
  nowrap: 'a carrier and tracking number kept on one line in a table cell',
  diff: 'the version diff, a code block',
  'diff-add': 'the version diff, a code block',
  'diff-del': 'the version diff, a code block',
  'diff-same': 'the version diff, a code block',
};

/** Hand-made layout elements Polaris has a component for (section headings, lists, description lists, checkboxes). */
const HAND_LAYOUT = [/<h[1-6]\b/, /<(ul|ol|dl)\b/, /<input type="checkbox"/, /<label class=/, /style="padding/];

/**
 * A plain link: inside the Shopify admin a link in text is a Polaris `<s-link>` (parts.ts `textLink`) and a link that
 * looks like a button an `<s-button href>`; Polaris has both for every link these pages have (same page, new window,
 * `_top`, `shopify:` addresses, downloads).
 */
const PLAIN_LINK = /<a\b[^>]*>/;

/** The markup of the page's content (the `<head>` and the App Bridge modals' own buttons aside). */
function content(page: string): string {
  return page.replace(/<head>[\s\S]*?<\/head>/, '').replace(/<ui-(modal|save-bar)\b[\s\S]*?<\/ui-\1>/g, '');
}

function classesOf(page: string): Set<string> {
  const found = new Set<string>();
  for (const m of content(page).matchAll(/\bclass="([^"]*)"/g)) for (const c of m[1]!.split(/\s+/).filter(Boolean)) found.add(c);
  return found;
}

describe('hand-written CSS classes on the embedded pages', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  }, 30_000);
  afterAll(() => h?.close());

  it('uses only classes for what Polaris has no component for, on every embedded page', () => {
    const unknown: Record<string, string[]> = {};
    const used = new Set<string>();
    for (const [name, page] of Object.entries(pages())) {
      expect(page, name).toContain('<s-page');
      for (const c of classesOf(page)) {
        used.add(c);
        if (!(c in ALLOWED)) (unknown[name] ??= []).push(c);
      }
      for (const pattern of HAND_LAYOUT) expect(content(page), `${name}: ${pattern}`).not.toMatch(pattern);
      expect(content(page).match(PLAIN_LINK)?.[0], `${name}: a plain <a> where <s-link> fits`).toBeUndefined();
    }
    expect(unknown).toEqual({});
    // The list shrinks with the pages: a class no page uses any more leaves it.
    expect([...used].sort()).toEqual(Object.keys(ALLOWED).sort());
  });

  it('draws links as Polaris links on the embedded pages, and keeps the operator console’s own', () => {
    const all = pages();
    // The order in the list, the order page's link to Shopify and its tracking, the editor's version changes.
    expect(all['orders']).toMatch(/<s-link href="\/admin\/orders\/[^"]+">#submitted<\/s-link>/);
    expect(all['order']).toContain('<s-link href="shopify:admin/orders/900" id="shopify-order" target="_top">Open the order in Shopify</s-link>');
    expect(all['order']).toContain('<s-link href="https://track.example/RM1" target="_blank"><span class="mono">RM1</span></s-link>');
    expect(all['editor']).toMatch(/<s-link href="\/admin\/mappings\/versions\/2">Changes<\/s-link>/);
    const operator: PageContext = { ...ctx, viewer: { kind: 'operator' }, embedded: undefined };
    const console = ordersPage(operator, { links: [link('submitted')], filters: {}, paged: false, counts: {}, all: 1, problems: 0 }).value;
    expect(console).toMatch(/<a href="\/admin\/orders\/[^"]+">#submitted<\/a>/);
    expect(console).not.toContain('<s-link');
  });

  it('ships only the CSS for those classes and the code editor to the embedded pages', () => {
    const style = /<style>([\s\S]*?)<\/style>/.exec(pages()['orders']!)![1]!;
    const selectors = new Set([...style.matchAll(/\.([a-z][\w-]*)/g)].map((m) => m[1]!));
    for (const s of selectors) expect(s in ALLOWED || s.startsWith('cm-') || s === 'problem', s).toBe(true);
  });

  it('answers a missing page inside the Shopify admin as an embedded page: App Bridge, Polaris, the navigation', async () => {
    const response = await fetch(`${h.runtime.url}/admin/no-such-page?embedded=1&shop=${SHOP}&host=abc&id_token=${sessionToken(SHOPIFY_SECRET, { shop: SHOP, apiKey: 'test-key' })}`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(404);
    const page = await response.text();
    expect(page).toContain('https://cdn.shopify.com/shopifycloud/app-bridge.js');
    expect(page).toContain('https://cdn.shopify.com/shopifycloud/polaris.js');
    expect(page).toMatch(/<s-app-nav>[\s\S]*<s-link href="[^"]*\/admin\?[^"]*" rel="home">Orders<\/s-link>/);
    expect(page).toMatch(/<s-page heading="Not found">/);
    expect(page).toContain('There is no such page or order');
    expect([...classesOf(page)].filter((c) => !(c in ALLOWED))).toEqual([]);
    expect(content(page)).not.toMatch(PLAIN_LINK);
    // Operators keep the console's page (no App Bridge).
    const operator = await fetch(`${h.runtime.url}/admin/no-such-page`, { headers: { accept: 'text/html' } });
    expect(await operator.text()).not.toContain('app-bridge.js');
  });
});
