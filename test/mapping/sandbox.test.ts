import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { artworkUrlProblem, hostMatches } from '../../src/mapping/artwork-url.js';
import { loadMappingText } from '../../src/mapping/load.js';
import { mapOrder } from '../../src/mapping/map-order.js';
import { ORDER_RENDER_BUDGET_MS } from '../../src/mapping/templates.js';
import { runCliInProcess } from '../helpers/run-cli.js';
import { mustLoad, order, withBase } from './helpers.js';

const SHOP = 'acme.myshopify.com';

function rule(path: string, extra = ''): string {
  return withBase(`products:
  - match: { sku: "*" }
    sku: "{{ line.sku }}"
    components:
      - code: cover
        path: ${JSON.stringify(path)}
${extra}`);
}

function problemsOf(result: ReturnType<typeof mapOrder>) {
  if (result.ok) throw new Error(`expected problems, got ${JSON.stringify(result.order)}`);
  return result.problems;
}

describe('templates have no file system and no environment (issue 12 item 4)', () => {
  it.each([
    [`{% include '.env' %}`, 'include'],
    [`{% include "/etc/passwd" %}`, 'include'],
    [`{% render 'secrets' %}`, 'render'],
    [`{% layout 'base' %}x`, 'layout'],
  ])('refuses %s at load with the line and column of the tag', (template, tag) => {
    const result = loadMappingText(rule(`https://files.example.com/{{ line.sku }}.pdf`, `    description: "a ${template.replace(/"/g, "'")}"\n`), 'm.yaml');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const problem = result.problems.find((p) => p.message.includes(`{% ${tag} %} is not allowed`));
    expect(problem, JSON.stringify(result.problems)).toBeDefined();
    // The description is on line 12 of the file; the column points into that line.
    expect(problem!.line).toBe(12);
    expect(problem!.col).toBeGreaterThan(1);
  });

  it('mappings check exits 1 with FILE:LINE:COL for an include, and nothing of the server is rendered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pb-sandbox-'));
    writeFileSync(join(dir, '.env'), 'PRINT_API_SECRET=do-not-print-me\n');
    writeFileSync(join(dir, 'shop.yaml'), rule(`https://files.example.com/{% include '.env' %}.pdf`));
    const checked = await runCliInProcess(['mappings', 'check', '--dir', dir], {}, { cwd: dir });
    expect(checked.code).toBe(1);
    expect(checked.stdout + checked.stderr).toMatch(/shop\.yaml:11:\d+ .*\{% include %\} is not allowed/);
    writeFileSync(join(dir, 'order.json'), JSON.stringify(order([{ sku: 'A' }])));
    const preview = await runCliInProcess(['mappings', 'preview', 'order.json', '--dir', dir], {}, { cwd: dir });
    expect(preview.code).toBe(1);
    expect(preview.stdout + preview.stderr).not.toContain('do-not-print-me');
  });

  it('reads no prototype properties of the order', () => {
    const mapping = mustLoad(rule('https://files.example.com/{{ line.sku }}.pdf', '    description: "{{ order.constructor }}|{{ order.__proto__ }}|{{ line.constructor.name | default: \'none\' }}"\n'));
    const result = mapOrder(order([{ sku: 'A' }]), mapping, SHOP);
    const text = JSON.stringify(result);
    expect(text).not.toMatch(/function|Object\]|native code/);
  });

  it(`stops a slow template within the order's budget (${ORDER_RENDER_BUDGET_MS} ms), with one problem`, () => {
    const slow = `{% for i in (1..5000) %}{% for j in (1..5000) %}{% endfor %}{% endfor %}x`;
    const mapping = mustLoad(rule('https://files.example.com/{{ line.sku }}.pdf', `    description: "${slow}"\n`));
    const lines = Array.from({ length: 20 }, (_, i) => ({ sku: `S-${i}` }));
    const started = performance.now();
    const problems = problemsOf(mapOrder(order(lines), mapping, SHOP));
    const took = performance.now() - started;
    expect(took).toBeLessThan(ORDER_RENDER_BUDGET_MS * 3);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toMatch(/budget/);
    expect(problems[0]!.lineItem?.sku).toBe('S-0');
  });
});

describe('artwork and attachment URLs (issue 12 item 5)', () => {
  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'https://169.254.169.254/latest/meta-data/',
    'https://2852039166/latest',
    'https://0xa9.0xfe.0xa9.0xfe/',
    'https://127.1/x.pdf',
    'https://0x7f.1/x.pdf',
    'https://[::1]/x.pdf',
    'https://[::ffff:127.0.0.1]/x.pdf',
    'https://[fe80::1]/x.pdf',
    'https://10.0.0.8/x.pdf',
    'https://192.168.1.1/x.pdf',
    'https://100.64.0.1/x.pdf',
    'https://localhost/x.pdf',
    'https://files.localhost/x.pdf',
    'https://localhost./x.pdf',
    'https://metadata/computeMetadata/v1',
    'https://metadata.google.internal/computeMetadata/v1',
    'https://printer.local/x.pdf',
    'https://user:pass@files.example.com/x.pdf',
    'file:///etc/passwd',
    'data:application/pdf;base64,JVBERi0=',
    'ftp://files.example.com/x.pdf',
    '/etc/passwd',
    'cover.pdf',
  ])('refuses %s', (url) => {
    expect(artworkUrlProblem(url)).toBeDefined();
  });

  it.each(['https://files.example.com/posters/a.pdf', 'https://cdn.shopify.com/s/files/1/art.png?v=3', 'https://files.print-bridge.example/a.pdf'])(
    'accepts %s',
    (url) => {
      expect(artworkUrlProblem(url)).toBeUndefined();
    },
  );

  it('narrows to ARTWORK_HOSTS when given', () => {
    const policy = { hosts: ['files.example.com', '*.cdn.example.net'] };
    expect(artworkUrlProblem('https://files.example.com/a.pdf', policy)).toBeUndefined();
    expect(artworkUrlProblem('https://eu.cdn.example.net/a.pdf', policy)).toBeUndefined();
    expect(artworkUrlProblem('https://cdn.example.net/a.pdf', policy)).toMatch(/ARTWORK_HOSTS/);
    expect(artworkUrlProblem('https://evil.example.org/a.pdf', policy)).toMatch(/ARTWORK_HOSTS/);
    expect(hostMatches('xfiles.example.com', 'files.example.com')).toBe(false);
    expect(hostMatches('a.evilcdn.example.net', '*.cdn.example.net')).toBe(false);
  });

  it('a cart property pointing at the metadata service is a problem naming the line item and field; nothing is sent', () => {
    const mapping = mustLoad(rule('{{ line.properties._artwork }}'));
    const body = order([{ sku: 'POSTER', properties: [{ name: '_artwork', value: 'http://169.254.169.254/latest/meta-data/iam' }] }]);
    const [problem, ...rest] = problemsOf(mapOrder(body, mapping, SHOP));
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({ kind: 'value', field: 'items[0].components[cover].path', lineItem: { id: '100', sku: 'POSTER' } });
    expect(problem!.message).toMatch(/https/);
  });

  it('checks shipment attachments too, and applies the allow-list given to mapOrder', () => {
    const mapping = mustLoad(
      withBase(
        `products:
  - match: { sku: "*" }
    sku: "{{ line.sku }}"
    components: [{ code: cover, path: "https://files.example.com/{{ line.sku }}.pdf" }]
`,
      ).replace('shipments:\n', 'shipments:\n  attachments: [{ path: "https://10.1.2.3/slip-{{ order.order_number }}.pdf", type: packingslip }]\n'),
    );
    const problems = problemsOf(mapOrder(order([{ sku: 'A' }]), mapping, SHOP));
    expect(problems.map((p) => p.field)).toEqual(['shipments[0].attachments[0].path']);
    const narrowed = problemsOf(mapOrder(order([{ sku: 'A' }]), mustLoad(rule('https://files.example.com/{{ line.sku }}.pdf')), SHOP, { artwork: { hosts: ['art.example.org'] } }));
    expect(narrowed[0]!.message).toMatch(/ARTWORK_HOSTS/);
  });

  it('leaves a file that is already at the printer (localFile, not fetched) alone', () => {
    const mapping = mustLoad(
      withBase(`products:
  - match: { sku: "*" }
    sku: "{{ line.sku }}"
    components: [{ code: cover, path: "artwork/{{ line.sku }}.pdf", localFile: true }]
`),
    );
    expect(mapOrder(order([{ sku: 'A' }]), mapping, SHOP).ok).toBe(true);
  });
});

describe('an empty part of a required value (issue 13 item 6)', () => {
  it('is a problem: /posters/{{ line.variant_id }}.pdf with no variant is no file', () => {
    const mapping = mustLoad(rule('https://files.example.com/posters/{{ line.variant_id }}.pdf'));
    const [problem] = problemsOf(mapOrder(order([{ sku: 'P', variant_id: null }]), mapping, SHOP));
    expect(problem).toMatchObject({ kind: 'value', field: 'items[0].components[cover].path', lineItem: { sku: 'P' } });
    expect(problem!.message).toContain('{{ line.variant_id }} rendered empty');
  });

  it('is a problem through the Liquid engine too (tags, other filters)', () => {
    const mapping = mustLoad(rule('https://files.example.com/{% if true %}{{ line.variant_id | upcase }}{% endif %}/a.pdf'));
    const [problem] = problemsOf(mapOrder(order([{ sku: 'P', variant_id: null }]), mapping, SHOP));
    expect(problem!.message).toMatch(/rendered empty/);
  });

  it("is fine where the merchant wrote | default: for the part", () => {
    const fast = mustLoad(rule("https://files.example.com/posters/{{ line.variant_id | default: '' }}a.pdf"));
    expect(mapOrder(order([{ sku: 'P', variant_id: null }]), fast, SHOP).ok).toBe(true);
    const engine = mustLoad(rule("https://files.example.com/{% if true %}{{ line.variant_id | default: '' | upcase }}{% endif %}a.pdf"));
    expect(mapOrder(order([{ sku: 'P', variant_id: null }]), engine, SHOP).ok).toBe(true);
  });

  it('mappings preview exits 1 on the README example with a null variant_id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pb-empty-part-'));
    writeFileSync(join(dir, 'shop.yaml'), rule('https://files.example.com/posters/{{ line.variant_id }}.pdf'));
    writeFileSync(join(dir, 'order.json'), JSON.stringify(order([{ sku: 'P', variant_id: null }])));
    const preview = await runCliInProcess(['mappings', 'preview', 'order.json', '--dir', dir], {}, { cwd: dir });
    expect(preview.code).toBe(1);
    expect(preview.stdout).toContain('rendered empty');
  });
});

describe('control characters never reach the printer (issue 13 item 7)', () => {
  it('removes NUL, C0/C1 controls and bidi overrides from the customer address and rendered values', () => {
    const mapping = mustLoad(rule('https://files.example.com/{{ line.sku }}.pdf', '    description: "{{ line.properties.note }}"\n'));
    const body = order([{ sku: 'A', properties: [{ name: 'note', value: 'Happy\u0000 birthday\u202E\u0007\r\nLove' }] }], {
      shipping_address: { name: 'Ann\u202EelpmaxE', address1: '1 High\u0000 Street\u0085', city: 'York', zip: 'YO1 7HH', country_code: 'GB' },
    });
    const result = mapOrder(body, mapping, SHOP);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    const text = JSON.stringify(result.order);
    expect(text).not.toMatch(/\\u0000|\\u0007|\u202E|\u0085|\\r/);
    expect(result.order.orderData.items[0]!.description).toBe('Happy birthday\nLove');
    expect(result.order.orderData.shipments[0]!.shipTo?.name).toBe('AnnelpmaxE');
  });
});
