import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatFileProblem } from '../../src/mapping/errors.js';
import { loadMappingDir, loadMappingText, selectMapping } from '../../src/mapping/load.js';
import { exampleMapping, withBase } from './helpers.js';

function problemsOf(yaml: string): string[] {
  const result = loadMappingText(yaml, 'm.yaml');
  if (result.ok) throw new Error('expected problems');
  return result.problems.map(formatFileProblem);
}

describe('loading a mapping file', () => {
  it('loads the documented example', () => {
    const m = exampleMapping();
    expect(m.shops).toEqual(['*']);
    expect(m.config.products).toHaveLength(2);
    expect(m.config.submit).toEqual({ on: 'orders/paid', holdMinutes: 30, validate: true, wait_for_holds: 'all', wait_for_risk: 'cancel' });
    expect(m.config.unmapped).toBe('hold');
  });

  it('takes a hold window in fractions of a minute, and refuses a negative one', () => {
    const seconds = loadMappingText(withBase('submit: { holdMinutes: 0.05 }\n'), 'm.yaml');
    expect(seconds.ok && seconds.mapping.config.submit.holdMinutes).toBe(0.05);
    expect(problemsOf(withBase('submit: { holdMinutes: -1 }\n'))).toEqual([expect.stringMatching(/submit\.holdMinutes: must be 0 or more/)]);
  });

  it("takes which of Shopify's holds and risk recommendations an order waits for, and names a reason Shopify does not have", () => {
    const listed = loadMappingText(withBase('submit:\n  wait_for_holds: [HIGH_RISK_OF_FRAUD, INCORRECT_ADDRESS]\n  wait_for_risk: investigate\n'), 'm.yaml');
    expect(listed.ok && listed.mapping.config.submit).toMatchObject({ wait_for_holds: ['HIGH_RISK_OF_FRAUD', 'INCORRECT_ADDRESS'], wait_for_risk: 'investigate' });
    const none = loadMappingText(withBase('submit: { wait_for_holds: none, wait_for_risk: none }\n'), 'm.yaml');
    expect(none.ok && none.mapping.config.submit).toMatchObject({ wait_for_holds: 'none', wait_for_risk: 'none' });
    expect(problemsOf(withBase('submit:\n  wait_for_holds: [FRAUD]\n'))).toEqual([expect.stringMatching(/m\.yaml:\d+:\d+ submit\.wait_for_holds\[0\]: FRAUD is not one of Shopify's hold reasons: AWAITING_PAYMENT/)]);
    expect(problemsOf(withBase('submit: { wait_for_risk: always }\n'))).toEqual([expect.stringMatching(/submit\.wait_for_risk/)]);
  });

  it('reports a typo in a key at the key, with a suggestion', () => {
    const yaml = withBase(`products:
  - match: { sku: "BOOK-*" }
    sku: A5
    compnents:
      - { code: cover, path: "https://x.example/a.pdf" }
`);
    const problems = problemsOf(yaml);
    expect(problems).toContain('m.yaml:9:5 products[0].compnents: unknown key (did you mean "components"?)');
    // The rule also lacks its components, reported at the rule.
    expect(problems).toContain('m.yaml:7:5 products[0].components: required (the artwork of the item)');
  });

  it('reports an unknown key inside a flow mapping and at the top level', () => {
    const problems = problemsOf(withBase(`products:
  - match: { sku: "A", variantID: 3 }
    sku: A
    components: [{ code: c, path: "https://x.example/a.pdf" }]
unmaped: skip
`));
    expect(problems).toEqual([
      'm.yaml:7:24 products[0].match.variantID: unknown key (did you mean "variantId"?)',
      'm.yaml:10:1 unmaped: unknown key (did you mean "unmapped"?)',
    ]);
  });

  it('reports a Liquid syntax error at load, at the string', () => {
    const problems = problemsOf(withBase(`products:
  - match: { sku: "A" }
    sku: A
    components:
      - code: cover
        path: "{{ line.properties._cover_pdf "
`));
    expect(problems).toHaveLength(1);
    expect(problems).toEqual(['m.yaml:11:16 products[0].components[0].path: Liquid error: output "{{ line.properties._cover_pdf " not closed']);
  });

  it('reports an unknown filter at load (strict filters)', () => {
    const problems = problemsOf(withBase(`order:
  customerName: "{{ order.shipping_address.name | upcse }}"
`));
    expect(problems).toEqual(['m.yaml:7:18 order.customerName: Liquid error: undefined filter: upcse']);
    // The column points into the string when the YAML holds the template as written; else at the string.
    expect(problemsOf(withBase(`order:\n  customerName: Dear {% if order.x %}{{ order.x }}\n`))).toEqual([
      'm.yaml:7:22 order.customerName: Liquid error: tag {% if order.x %} not closed',
    ]);
    expect(problemsOf(withBase(`order:\n  customerName: "Dear\\t{% nosuchtag %}"\n`))).toEqual([
      'm.yaml:7:17 order.customerName: Liquid error: tag "nosuchtag" not found',
    ]);
  });

  it('reports a template reading a name its field does not see', () => {
    expect(
      problemsOf(
        withBase(`order:
  customerName: "{{ line.title }}"
products:
  - match: {}
    sku: "{{ shipment.index }}"
    components: [{ code: c, path: "https://x.example/{{ line.sku }}.pdf" }]
  - match: {}
    items:
      - sku: A
        components: [{ code: c, path: "{% for l in order.line_items %}{{ l.sku }}{% endfor %}{{ address.zip }}" }]
tracking:
  dpd: { company: DPD, url: "https://dpd.example/{{ order.name }}/{{ trackingNumber }}" }
`).replace('  returnAddress:', '  sourceShipmentId: "{{ line.id }}-{{ shipment.index }}"\n  returnAddress:'),
      ),
    ).toEqual([
      'm.yaml:5:21 shipments.sourceShipmentId: the template reads "line", which is not available here (this field sees order, shipment, shop)',
      'm.yaml:8:17 order.customerName: the template reads "line", which is not available here (this field sees order, shop)',
      'm.yaml:11:10 products[0].sku: the template reads "shipment", which is not available here (this field sees line, order, shop)',
      'm.yaml:16:39 products[1].items[0].components[0].path: the template reads "address", which is not available here (this field sees line, order, shop)',
      'm.yaml:18:29 tracking.dpd.url: the template reads "order", which is not available here (this field sees carrierCode, trackingNumber)',
    ]);
  });

  it('refuses a javascript: (or any non-web) tracking URL when the mapping is saved', () => {
    // The URL becomes a link on the merchant's pages and goes into the Shopify fulfillment the customer sees.
    for (const url of ['javascript:alert(document.domain)//{{ trackingNumber }}', ' JavaScript:alert(1)', 'data:text/html,x', '{{ trackingNumber }}', '//evil.example/{{ trackingNumber }}', 'https://{{ carrierCode }}.example/x']) {
      expect(problemsOf(withBase(`tracking:\n  dpd: { company: DPD, url: ${JSON.stringify(url)} }\n`)), url).toEqual([
        expect.stringMatching(/^m\.yaml:\d+:\d+ tracking\.dpd\.url: must be a web address starting with https:\/\/ \(or http:\/\/\) and a host, written out rather than rendered$/),
      ]);
    }
    expect(loadMappingText(withBase('tracking:\n  dpd: { company: DPD, url: "HTTPS://track.example/{{ trackingNumber }}" }\n'), 'm.yaml').ok).toBe(true);
  });

  it('reports YAML syntax errors and duplicate keys with positions', () => {
    expect(problemsOf('shops: ["*"\ndestination: x\n')[0]).toMatch(/^m\.yaml:\d+:\d+ YAML: /);
    expect(problemsOf(withBase('unmapped: hold\nunmapped: skip\n'))).toEqual(['m.yaml:7:1 YAML: Map keys must be unique']);
  });

  it('refuses aliases that expand without bound', () => {
    const laughs = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 8; i++) laughs.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    expect(problemsOf(laughs.join('\n'))[0]).toMatch(/^m\.yaml:1:1 YAML: .*alias/i);
  });

  it('checks constants of typed fields at load', () => {
    const problems = problemsOf(withBase(`products:
  - match: {}
    sku: A
    quantity: 0
    components:
      - { code: c, path: "https://x.example/a.pdf", fetch: maybe, duplicate: "2x" }
`));
    expect(problems).toEqual([
      'm.yaml:9:15 products[0].quantity: must be 1 or more',
      'm.yaml:11:60 products[0].components[0].fetch: must be true or false or a Liquid template, got "maybe"',
      'm.yaml:11:78 products[0].components[0].duplicate: must be a whole number or a Liquid template, got "2x"',
    ]);
    expect(
      problemsOf(withBase(`products:
  - match: {}
    sku: A
    quantity: "{{ line.properties.copies "
    unitWeight: [1]
    components: [{ code: c, path: "https://x.example/a.pdf", preflight: "{{ x | nofilter }}" }]
`)),
    ).toEqual([
      'm.yaml:9:16 products[0].quantity: Liquid error: output "{{ line.properties.copies " not closed',
      'm.yaml:10:17 products[0].unitWeight: must be a number or a Liquid template',
      'm.yaml:11:74 products[0].components[0].preflight: Liquid error: undefined filter: nofilter',
    ]);
  });

  it('requires the return address and names missing keys at their object', () => {
    const problems = problemsOf(`shops: ["*"]
destination: acme-print
shipments:
  carrier: { alias: standard }
`);
    expect(problems).toEqual(['m.yaml:4:3 shipments.returnAddress: required']);
    expect(problemsOf('')).toEqual(['m.yaml:1:1 the file is empty']);
  });

  it('rejects store names that are not myshopify domains or "*"', () => {
    expect(problemsOf(withBase('', '["acme.com"]'))).toEqual([
      'm.yaml:1:9 shops[0]: must be a store\'s myshopify.com domain (e.g. acme-books.myshopify.com) or "*" for any other store',
    ]);
  });

  it('keeps ids above 2^53 exact, as numbers, strings or gids', () => {
    const m = loadMappingText(
      withBase(`products:
  - match: { variantId: 9007199254740993, productId: ["gid://shopify/Product/12345678901234567890", "42"] }
    sku: A
    components: [{ code: c, path: "https://x.example/a.pdf" }]
`),
      'm.yaml',
    );
    expect(m.ok && m.mapping.config.products[0]?.match).toMatchObject({
      variantId: ['9007199254740993'],
      productId: ['12345678901234567890', '42'],
    });
    expect(
      problemsOf(withBase(`products:
  - match: { variantId: "gid://shopify/Product/1" }
    sku: A
    components: [{ code: c, path: "https://x.example/a.pdf" }]
`)),
    ).toEqual(['m.yaml:7:25 products[0].match.variantId: is a Product gid; expected gid://shopify/ProductVariant/<id>']);
  });

  it('warns about rules after a catch-all, which can never match', () => {
    const m = loadMappingText(
      withBase(`products:
  - match: { sku: "A" }
    sku: A
    components: [{ code: c, path: "https://x.example/a.pdf" }]
  - match: {}
    sku: ANY
    components: [{ code: c, path: "https://x.example/any.pdf" }]
  - match: { sku: "B" }
    sku: B
    components: [{ code: c, path: "https://x.example/b.pdf" }]
stockItems:
  - match: { sku: "C" }
    code: C
`),
      'm.yaml',
    );
    expect(m.ok && m.mapping.warnings.map(formatFileProblem)).toEqual([
      'm.yaml:13:5 warning: products[2] can never match: products[1] (match: {}) takes every line first',
      'm.yaml:17:5 warning: stockItems[0] can never match: products[1] (match: {}) takes every line first',
    ]);
    expect(exampleMapping().warnings).toEqual([]);
  });

  it('accepts anchors, aliases and merge keys for repeated parts', () => {
    const m = loadMappingText(
      withBase(`products:
  - &book
    match: { sku: "BOOK-A5-*" }
    sku: A5
    components: &parts
      - { code: cover, path: "{{ line.properties._cover }}" }
  - <<: *book
    match: { sku: "BOOK-A4-*" }
    sku: A4
  - match: { sku: "X" }
    sku: X
    components: *parts
`),
      'm.yaml',
    );
    expect(m.ok && m.mapping.config.products.map((p) => [p.items[0]?.sku.source, p.items[0]?.components[0]?.code.source])).toEqual([
      ['A5', 'cover'],
      ['A4', 'cover'],
      ['X', 'cover'],
    ]);
  });

  it('rejects a product rule with both items and sku', () => {
    expect(
      problemsOf(withBase(`products:
  - match: {}
    sku: A
    items:
      - { sku: B, components: [{ code: c, path: "https://x.example/b.pdf" }] }
`)),
    ).toEqual(['m.yaml:8:10 products[0].sku: give either "items" or "sku" and "components", not both']);
  });
});

describe('a mapping directory', () => {
  function dirWith(files: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), 'pb-mappings-'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return dir;
  }

  it('selects the file naming the store over the "*" file', () => {
    const dir = dirWith({
      'a-default.yaml': withBase(''),
      'b-acme.yml': withBase('', '["acme-books.myshopify.com", "Acme-Two.myshopify.com"]'),
      'notes.txt': 'not a mapping',
    });
    const loaded = loadMappingDir(dir);
    expect(loaded.problems).toEqual([]);
    expect(loaded.files.map((f) => f.slice(dir.length + 1))).toEqual(['a-default.yaml', 'b-acme.yml']);
    expect(selectMapping(loaded.mappings, 'acme-books.myshopify.com')?.file).toBe(join(dir, 'b-acme.yml'));
    expect(selectMapping(loaded.mappings, 'ACME-TWO.myshopify.com')?.file).toBe(join(dir, 'b-acme.yml'));
    expect(selectMapping(loaded.mappings, 'other.myshopify.com')?.file).toBe(join(dir, 'a-default.yaml'));
  });

  it('reports two files claiming one store, in both files, and uses neither', () => {
    const dir = dirWith({
      'one.yaml': withBase('', '["acme-books.myshopify.com"]'),
      'two.yaml': withBase('', '["other.myshopify.com", "acme-books.myshopify.com"]'),
      'star.yaml': withBase(''),
    });
    const loaded = loadMappingDir(dir);
    expect(loaded.problems.map(formatFileProblem)).toEqual([
      `${join(dir, 'one.yaml')}:1:9 shops: acme-books.myshopify.com is also claimed by ${join(dir, 'two.yaml')}; one store, one file`,
      `${join(dir, 'two.yaml')}:1:32 shops: acme-books.myshopify.com is also claimed by ${join(dir, 'one.yaml')}; one store, one file`,
    ]);
    expect(loaded.mappings.map((m) => m.file)).toEqual([join(dir, 'star.yaml')]);
    // The store then falls to no file of its own: the "*" file would be wrong, but neither claimant is trusted.
    expect(selectMapping(loaded.mappings, 'other.myshopify.com')?.file).toBe(join(dir, 'star.yaml'));
  });

  it('reports two "*" files', () => {
    const dir = dirWith({ 'a.yaml': withBase(''), 'b.yaml': withBase('') });
    expect(loadMappingDir(dir).problems.map((p) => p.message)).toEqual([
      `shops: "*" is also claimed by ${join(dir, 'b.yaml')}; one store, one file`,
      `shops: "*" is also claimed by ${join(dir, 'a.yaml')}; one store, one file`,
    ]);
  });
});
