import { existsSync, readFileSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { CliError } from '../cli/errors.js';
import { loadConfig } from '../config.js';
import { formatFileProblem, formatMappingProblem } from './errors.js';
import { loadMappingDir, selectMapping } from './load.js';
import { mapOrder } from './map-order.js';
import { parseShopifyOrderJson, shopDomainOf, unwrapOrder } from './shopify-order.js';

/** `print-bridge mappings check` and `print-bridge mappings preview` (DESIGN section 3). */

export interface MappingCliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

const defaultIo: MappingCliIo = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
};

/** The shop used when neither --shop nor the body names one; only the "*" file can serve it. */
export const PREVIEW_SHOP = 'preview.myshopify.com';

export function registerMappingCommands(program: Command, io: MappingCliIo = defaultIo): void {
  const mappings = program.command('mappings').description('check mapping files and preview what an order maps to');

  mappings
    .command('check')
    .description('validate every mapping file; prints FILE:LINE:COL message lines and exits 1 on error')
    .option('--dir <DIR>', 'mapping directory (default: MAPPINGS_DIR, ./mappings)')
    .action((opts: { dir?: string }) => {
      const dir = resolveDir(opts.dir);
      const result = loadMappingDir(dir);
      if (result.files.length === 0) throw new CliError(`no mapping files (*.yaml, *.yml) in ${dir}`);
      for (const w of result.warnings) io.stdout(`${formatFileProblem(w)}\n`);
      if (result.problems.length > 0) {
        for (const p of result.problems) io.stdout(`${formatFileProblem(p)}\n`);
        io.stderr(`${result.problems.length} problem(s) in ${new Set(result.problems.map((p) => p.file)).size} of ${result.files.length} mapping file(s)\n`);
        process.exitCode = 1;
        return;
      }
      const summary = result.mappings.map((m) => `${m.file} (${m.shops.join(', ')})`).join('; ');
      const warned = result.warnings.length ? `, ${result.warnings.length} warning(s)` : '';
      io.stdout(`${result.mappings.length} mapping file(s) OK${warned}: ${summary}\n`);
      process.exitCode = 0;
    });

  mappings
    .command('preview')
    .description('print the print order a Shopify order body maps to (exit 0), or the reasons it cannot (exit 1)')
    .argument('<ORDER.json>', 'a Shopify order: a webhook body or a REST {"order": ...} answer')
    .option('--dir <DIR>', 'mapping directory (default: MAPPINGS_DIR, ./mappings)')
    .option('--shop <DOMAIN>', "store domain selecting the mapping file (default: the order's own, else the \"*\" file)")
    .action((orderFile: string, opts: { dir?: string; shop?: string }) => {
      const dir = resolveDir(opts.dir);
      const body = readOrderFile(orderFile);
      const loaded = loadMappingDir(dir);
      if (loaded.files.length === 0) throw new CliError(`no mapping files (*.yaml, *.yml) in ${dir}`);
      for (const p of loaded.problems) io.stderr(`${formatFileProblem(p)}\n`);
      const shop = opts.shop?.trim().toLowerCase() || shopDomainOf(body) || PREVIEW_SHOP;
      const mapping = selectMapping(loaded.mappings, shop);
      if (!mapping) {
        // "usable": a file with problems (listed just above) serves nothing, its "*" included.
        const refused = loaded.problems.length > 0 ? '; the files with problems above serve nothing until they are fixed' : '';
        io.stdout(`order: no usable mapping file serves ${shop} (and no usable "*" file) in ${dir}${refused}\n`);
        process.exitCode = 1;
        return;
      }
      io.stderr(`shop ${shop}: ${mapping.file}\n`);
      const cancelled = (body as { cancelled_at?: unknown }).cancelled_at;
      if (typeof cancelled === 'string' && cancelled) io.stderr(`note: this order is cancelled (cancelled_at ${cancelled})\n`);
      const result = mapOrder(body, mapping, shop, { artwork: { hosts: loadConfig().ARTWORK_HOSTS } });
      if (!result.ok) {
        for (const p of result.problems) io.stdout(`${formatMappingProblem(p)}\n`);
        process.exitCode = 1;
        return;
      }
      for (const l of result.ignored) io.stderr(`ignored: line item ${l.lineItem.id} (${l.lineItem.sku ?? 'no SKU'}): ${l.reason}\n`);
      for (const l of result.skipped) io.stderr(`skipped: line item ${l.lineItem.id} (${l.lineItem.sku ?? 'no SKU'}): ${l.reason}\n`);
      io.stdout(`${JSON.stringify(result.order, null, 2)}\n`);
      process.exitCode = 0;
    });
}

function resolveDir(dir: string | undefined): string {
  const chosen = dir ?? loadConfig().MAPPINGS_DIR;
  if (!existsSync(chosen) || !statSync(chosen).isDirectory()) throw new CliError(`mapping directory not found: ${chosen}`);
  return chosen;
}

function readOrderFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  let body: unknown;
  try {
    // Big ids stay exact (see parseShopifyOrderJson).
    body = parseShopifyOrderJson(text);
  } catch (error) {
    throw new CliError(`${file} is not JSON: ${(error as Error).message}`);
  }
  const order = unwrapOrder(body);
  if (!order || typeof order !== 'object' || Array.isArray(order)) {
    throw new CliError(`${file} is not a Shopify order: expected an object (a webhook body, or {"order": {...}})`);
  }
  return order;
}
