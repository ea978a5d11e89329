import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli.js';
import { fixtureText, root, withBase } from './helpers.js';

let out = '';
let err = '';
beforeEach(() => {
  out = '';
  err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
});
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'pb-cli-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const examples = join(root, 'mappings');
const bookOrder = join(root, 'test/fixtures/shopify/book-order.json');

describe('print-bridge mappings check', () => {
  it('exits 0 with a one-line summary for good files', async () => {
    expect(await runCli(['mappings', 'check', '--dir', examples])).toBe(0);
    expect(out).toBe(`1 mapping file(s) OK: ${join(examples, 'default.yaml')} (*)\n`);
  });

  it('prints FILE:LINE:COL message lines and exits 1', async () => {
    const dir = dirWith({ 'bad.yaml': withBase('unmapped: hodl\n') });
    expect(await runCli(['mappings', 'check', '--dir', dir])).toBe(1);
    expect(out).toBe(`${join(dir, 'bad.yaml')}:6:11 unmapped: Invalid option: expected one of "hold"|"skip"\n`);
  });

  it('prints warnings and still exits 0', async () => {
    const dir = dirWith({
      'w.yaml': withBase(`ignore:\n  - match: {}\nproducts:\n  - match: {}\n    sku: A\n    components: [{ code: c, path: "https://x.example/a.pdf" }]\n`),
    });
    expect(await runCli(['mappings', 'check', '--dir', dir])).toBe(0);
    expect(out).toBe(
      `${join(dir, 'w.yaml')}:9:5 warning: products[0] can never match: ignore[0] (match: {}) takes every line first\n` +
        `1 mapping file(s) OK, 1 warning(s): ${join(dir, 'w.yaml')} (*)\n`,
    );
  });

  it('refuses a directory without mapping files', async () => {
    const stderr: string[] = [];
    const code = await runCli(['mappings', 'check', '--dir', dirWith({})], { stderr: (s) => stderr.push(s) });
    expect(code).toBe(1);
    expect(stderr.join('')).toMatch(/no mapping files/);
  });
});

describe('print-bridge mappings preview', () => {
  it('prints the print order (exit 0), choosing the store from the order', async () => {
    expect(await runCli(['mappings', 'preview', bookOrder, '--dir', examples])).toBe(0);
    const printed = JSON.parse(out) as { orderData: { sourceOrderId: string; items: unknown[] } };
    expect(printed.orderData.sourceOrderId).toBe('acme-books-1042');
    expect(printed.orderData.items).toHaveLength(2);
    expect(err).toContain('ignored: line item 13004 (no SKU): gift cards are not printed');
  });

  it('accepts a REST {"order": ...} wrapper and --shop', async () => {
    const dir = dirWith({
      'default.yaml': withBase(`products:
  - match: { sku: "POSTER-*" }
    sku: "{{ line.sku }}"
    components: [{ code: art, path: "{{ line.properties._artwork }}" }]
`),
    });
    const file = join(dirWith({}), 'order.json');
    writeFileSync(file, fixtureText('big-ids-order.json'));
    expect(await runCli(['mappings', 'preview', file, '--dir', dir, '--shop', 'Tokyo.myshopify.com'])).toBe(0);
    const printed = JSON.parse(out) as { orderData: { sourceOrderId: string; items: { sourceItemId: string }[] } };
    expect(printed.orderData.sourceOrderId).toBe('tokyo-2001');
    expect(printed.orderData.items.map((i) => i.sourceItemId)).toEqual(['1234567890123456789', '1234567890123456791']);
  });

  it('prints the problems and exits 1', async () => {
    const body = JSON.parse(fixtureText('book-order.json')) as { line_items: { properties: unknown[] }[] };
    body.line_items[0]!.properties = [];
    const file = join(dirWith({}), 'order.json');
    writeFileSync(file, JSON.stringify(body));
    expect(await runCli(['mappings', 'preview', file, '--dir', examples])).toBe(1);
    expect(out.trim().split('\n')).toEqual([
      `line item 13001 (SKU "BOOK-A5-POEMS", "Poems for a Rainy Day") items[0].components[cover].path: line.properties._cover_pdf is not defined for this order (write "{{ line.properties._cover_pdf | default: '...' }}" if it is optional) [products[0]]`,
      `line item 13001 (SKU "BOOK-A5-POEMS", "Poems for a Rainy Day") items[0].components[text].path: line.properties._text_pdf is not defined for this order (write "{{ line.properties._text_pdf | default: '...' }}" if it is optional) [products[0]]`,
    ]);
  });

  it('says that a "*" file with problems serves nothing, rather than that there is none', async () => {
    const dir = dirWith({ 'bad.yaml': withBase('unmapped: hodl\n') });
    expect(await runCli(['mappings', 'preview', bookOrder, '--dir', dir])).toBe(1);
    expect(err).toContain(`${join(dir, 'bad.yaml')}:6:11 unmapped`);
    expect(out).toMatch(/no usable mapping file serves .* \(and no usable "\*" file\) .*; the files with problems above serve nothing until they are fixed/);
  });

  it('says so when the file is not an order', async () => {
    const file = join(dirWith({}), 'lines.json');
    writeFileSync(file, '[{"id": 1}]');
    const stderr: string[] = [];
    expect(await runCli(['mappings', 'preview', file, '--dir', examples], { stderr: (s) => stderr.push(s) })).toBe(1);
    expect(stderr.join('')).toMatch(/is not a Shopify order/);
  });
});
