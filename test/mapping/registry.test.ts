import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatFileProblem, MappingLoadError } from '../../src/mapping/errors.js';
import { MappingRegistry, type RegistryChange } from '../../src/mapping/registry.js';
import { createLogger } from '../../src/logger.js';
import { order, withBase } from './helpers.js';

const registries: MappingRegistry[] = [];
afterEach(() => {
  for (const r of registries.splice(0)) r.close();
});

function setup(files: Record<string, string>, pollMs = 0) {
  const dir = mkdtempSync(join(tmpdir(), 'pb-registry-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const registry = new MappingRegistry({ dir, pollMs, debounceMs: 20 });
  registries.push(registry);
  return { dir, registry };
}

const destinationOf = (r: MappingRegistry, shop: string) => r.forShop(shop)?.config.destination.source;

describe('MappingRegistry', () => {
  it('serves again once the file it conflicted with is deleted (a deletion is a change like any other)', () => {
    const { dir, registry } = setup({
      'a.yaml': withBase('', '["acme.myshopify.com"]').replace('acme-print', 'printer-a'),
      'b.yaml': withBase('', '["acme.myshopify.com"]').replace('acme-print', 'printer-b'),
    });
    expect(registry.load().length).toBeGreaterThan(0);
    expect(registry.ready()).toBe(false);
    const changes: RegistryChange[] = [];
    registry.on('change', (c) => changes.push(c));

    rmSync(join(dir, 'b.yaml'));
    registry.rescan();
    expect(registry.problems()).toEqual([]);
    expect(registry.ready()).toBe(true);
    expect(destinationOf(registry, 'acme.myshopify.com')).toBe('printer-a');
    expect(changes).toHaveLength(1);
    expect(changes[0]!.files.map((f) => f.split('/').pop()).sort()).toEqual(['a.yaml', 'b.yaml']);
    expect(changes[0]!.shops).toEqual(['acme.myshopify.com']);
  });

  it('a file refused for taking a served store is taken again once that store is free', () => {
    const { dir, registry } = setup({ 'a.yaml': withBase('', '["acme.myshopify.com"]').replace('acme-print', 'printer-a') });
    registry.load();
    writeFileSync(join(dir, 'b.yaml'), withBase('', '["acme.myshopify.com"]').replace('acme-print', 'printer-b'));
    registry.rescan();
    expect(registry.problems().map((p) => p.file.split('/').pop())).toEqual(['b.yaml']);
    rmSync(join(dir, 'a.yaml'));
    registry.rescan();
    expect(registry.problems()).toEqual([]);
    expect(destinationOf(registry, 'acme.myshopify.com')).toBe('printer-b');
  });

  it('serves a store its own file, else the "*" file', () => {
    const { registry } = setup({
      'default.yaml': withBase(''),
      'acme.yaml': withBase('', '["acme.myshopify.com"]').replace('acme-print', 'acme-own-printer'),
    });
    expect(registry.load()).toEqual([]);
    expect(destinationOf(registry, 'acme.myshopify.com')).toBe('acme-own-printer');
    expect(destinationOf(registry, 'other.myshopify.com')).toBe('acme-print');
    expect(registry.ready()).toBe(true);
  });

  it('reloads a changed file; a broken version keeps the last good one in use and is reported', () => {
    const { dir, registry } = setup({ 'default.yaml': withBase('') });
    registry.load();
    const changes: RegistryChange[] = [];
    registry.on('change', (c) => changes.push(c));

    writeFileSync(join(dir, 'default.yaml'), withBase('').replace('acme-print', 'second-printer'));
    registry.rescan();
    expect(destinationOf(registry, 'x.myshopify.com')).toBe('second-printer');

    writeFileSync(join(dir, 'default.yaml'), withBase('unmaped: skip\n').replace('acme-print', 'broken-printer'));
    registry.rescan();
    expect(destinationOf(registry, 'x.myshopify.com')).toBe('second-printer');
    expect(registry.problems().map(formatFileProblem)).toEqual([
      `${join(dir, 'default.yaml')}:6:1 unmaped: unknown key (did you mean "unmapped"?)`,
    ]);
    expect(changes.map((c) => c.problems.length)).toEqual([0, 1]);

    // Nothing changed: no event.
    expect(registry.rescan()).toBeUndefined();

    writeFileSync(join(dir, 'default.yaml'), withBase('unmapped: skip\n').replace('acme-print', 'third-printer'));
    registry.rescan();
    expect(destinationOf(registry, 'x.myshopify.com')).toBe('third-printer');
    expect(registry.problems()).toEqual([]);
  });

  it('refuses a new version that claims a store another file serves', () => {
    const { dir, registry } = setup({
      'a.yaml': withBase('', '["acme.myshopify.com"]'),
      'b.yaml': withBase('', '["other.myshopify.com"]').replace('acme-print', 'b-printer'),
    });
    registry.load();
    writeFileSync(join(dir, 'b.yaml'), withBase('', '["other.myshopify.com", "acme.myshopify.com"]').replace('acme-print', 'b2'));
    registry.rescan();
    expect(destinationOf(registry, 'acme.myshopify.com')).toBe('acme-print');
    expect(destinationOf(registry, 'other.myshopify.com')).toBe('b-printer');
    expect(registry.problems().map((p) => p.message)).toEqual([
      `shops: acme.myshopify.com is also claimed by ${join(dir, 'a.yaml')}; one store, one file`,
    ]);
  });

  it('at start, files claiming the same store serve nothing; a deleted file stops serving', () => {
    const { dir, registry } = setup({
      'a.yaml': withBase('', '["acme.myshopify.com"]'),
      'b.yaml': withBase('', '["acme.myshopify.com"]'),
      'c.yaml': withBase('', '["c.myshopify.com"]'),
    });
    expect(registry.load()).toHaveLength(2);
    expect(registry.forShop('acme.myshopify.com')).toBeUndefined();
    expect(registry.mapOrder(order([{}]), 'acme.myshopify.com')).toMatchObject({
      ok: false,
      problems: [{ kind: 'no-mapping', message: `no mapping file serves acme.myshopify.com and there is no usable "*" file in ${dir}` }],
    });
    // c.yaml serves its store (it has no product rules, so the line is unmapped).
    expect(registry.mapOrder(order([{}]), 'c.myshopify.com')).toMatchObject({ ok: false, problems: [{ kind: 'unmapped' }] });
    rmSync(join(dir, 'c.yaml'));
    registry.rescan();
    expect(registry.forShop('c.myshopify.com')).toBeUndefined();
  });

  it('logs a broken edit with its problems', () => {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const dir = mkdtempSync(join(tmpdir(), 'pb-registry-'));
    writeFileSync(join(dir, 'default.yaml'), withBase(''));
    const registry = new MappingRegistry({ dir, pollMs: 0, logger: createLogger({ destination, level: 'info' }) });
    registries.push(registry);
    registry.load();
    writeFileSync(join(dir, 'default.yaml'), withBase('unmapped: later\n'));
    registry.rescan();
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [30, 'mapping file loaded'],
      [50, 'mapping file default.yaml has problems; the last good version stays in use'],
    ]);
    expect(lines[1]?.problems).toEqual([`${join(dir, 'default.yaml')}:6:11 unmapped: Invalid option: expected one of "hold"|"skip"`]);
  });

  it('loadStrict throws every problem at once', () => {
    const { dir, registry } = setup({ 'a.yaml': withBase('unmaped: skip\n'), 'b.yaml': 'shops: [' });
    expect(() => registry.loadStrict()).toThrow(MappingLoadError);
    try {
      registry.loadStrict();
    } catch (error) {
      expect((error as MappingLoadError).retryable).toBe(false);
      expect((error as MappingLoadError).message.split('\n')).toEqual([
        'The mapping files have 2 problem(s):',
        `  ${join(dir, 'a.yaml')}:6:1 unmaped: unknown key (did you mean "unmapped"?)`,
        expect.stringMatching(new RegExp(`^  ${join(dir, 'b.yaml')}:1:\\d+ YAML: `)),
      ]);
    }
  });

  it('notices an edit by itself once started', async () => {
    const { dir, registry } = setup({ 'default.yaml': withBase('') }, 200);
    registry.start();
    const changed = new Promise<RegistryChange>((resolve) => registry.once('change', resolve));
    writeFileSync(join(dir, 'default.yaml'), withBase('').replace('acme-print', 'watched-printer'));
    const change = await changed;
    expect(change.files).toEqual([join(dir, 'default.yaml')]);
    expect(destinationOf(registry, 'x.myshopify.com')).toBe('watched-printer');
  });
});
