import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { z } from 'zod';
import { describeIssue, formatPath } from '../print-service/schema.js';
import type { FileProblem } from './errors.js';
import { KNOWN_KEYS, mappingFileSchema, TEMPLATE_LEAF, type MappingFile, type TemplateLeaf } from './schema.js';
import type { Tmpl } from './templates.js';

/**
 * Reading mapping files: YAML with source positions kept, the zod schema of schema.ts, and every problem reported
 * as `FILE:LINE:COL message` at the node it is about (an unknown key at the key itself).
 */

export interface LoadedMapping {
  file: string;
  /** Store domains (lower case) or "*". */
  shops: readonly string[];
  config: MappingFile;
  /** Things that load but are probably mistakes (a rule that can never match). */
  warnings: readonly FileProblem[];
  /** Where each entry of `shops` is written, for conflict reports. */
  shopPositions: ReadonlyMap<string, { line: number; col: number }>;
  /** The text it was loaded from. */
  source: string;
  /** The file's name and a hash of its text: one key per version of a mapping. */
  key: string;
}

export type LoadResult = { ok: true; mapping: LoadedMapping } | { ok: false; problems: FileProblem[] };

export function loadMappingText(text: string, file: string): LoadResult {
  const lineCounter = new LineCounter();
  // Big integers stay exact (Shopify ids exceed 2^53); the reviver turns the others back into numbers.
  const doc = parseDocument(text, { lineCounter, intAsBigInt: true, prettyErrors: false, uniqueKeys: true, merge: true });
  const at = (offset: number) => lineCounter.linePos(offset);
  const problems: FileProblem[] = [];
  for (const error of doc.errors) {
    const { line, col } = at(error.pos[0]);
    problems.push({ file, line, col, message: `YAML: ${firstLine(error.message)}` });
  }
  if (problems.length > 0) return { ok: false, problems };
  if (doc.contents === null) return { ok: false, problems: [{ file, line: 1, col: 1, message: 'the file is empty' }] };

  let raw: unknown;
  try {
    raw = doc.toJS({
      // Aliases that expand without bound (a "billion laughs" file) are refused by toJS.
      maxAliasCount: 1_000,
      reviver: (_key: unknown, value: unknown) =>
        typeof value === 'bigint' && value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
          ? Number(value)
          : value,
    });
  } catch (error) {
    return { ok: false, problems: [{ file, line: 1, col: 1, message: `YAML: ${firstLine((error as Error).message)}` }] };
  }
  const parsed = mappingFileSchema.safeParse(raw, { error: describeIssue });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(...issueProblems(doc, text, file, at, issue));
    return { ok: false, problems: inFileOrder(dedupe(problems)) };
  }
  problems.push(...contextProblems(parsed.data, doc, file, at));
  if (problems.length > 0) return { ok: false, problems: inFileOrder(problems) };
  const shopPositions = new Map<string, { line: number; col: number }>();
  const shopsNode = doc.getIn(['shops'], true);
  if (isSeq(shopsNode)) {
    for (const item of shopsNode.items) {
      if (isScalar(item) && item.range) shopPositions.set(String(item.value).trim().toLowerCase(), at(item.range[0]));
    }
  }
  const warnings = unreachableRules(parsed.data, doc, file, at);
  // The text and a key naming it travel to the render threads (render-pool.ts), which load it once per key.
  const key = `${file}#${createHash('sha256').update(text).digest('base64url').slice(0, 22)}`;
  return { ok: true, mapping: { file, shops: [...new Set(parsed.data.shops)], config: parsed.data, shopPositions, warnings, source: text, key } };
}

type At = (offset: number) => { line: number; col: number };

/**
 * Rules are tried in order (ignore, products, stockItems) and the first match wins, so a rule after a catch-all
 * (`match: {}`) never matches: worth a warning, as it usually means the catch-all is in the wrong place.
 */
function unreachableRules(data: MappingFile, doc: Document, file: string, at: At): FileProblem[] {
  const warnings: FileProblem[] = [];
  const lists = [
    ['ignore', data.ignore],
    ['products', data.products],
    ['stockItems', data.stockItems],
  ] as const;
  let catchAll: string | undefined;
  for (const [name, rules] of lists) {
    rules.forEach((rule, i) => {
      if (catchAll) {
        const { node } = deepestNode(doc, [name, i]);
        const pos = node?.range ? at(node.range[0]) : { line: 1, col: 1 };
        warnings.push({ file, ...pos, severity: 'warning', message: `${name}[${i}] can never match: ${catchAll} (match: {}) takes every line first` });
      } else if (Object.keys(rule.match).length === 0) {
        catchAll = `${name}[${i}]`;
      }
    });
  }
  return warnings;
}

/** What templates may read, by where they are in the file. */
function contextFor(path: readonly PropertyKey[]): readonly string[] {
  if (path[0] === 'products' || path[0] === 'stockItems') return ['line', 'order', 'shop'];
  if (path[0] === 'shipments') return path[1] === 'shipTo' ? ['address', 'order', 'shop'] : ['order', 'shipment', 'shop'];
  if (path[0] === 'tracking') return ['carrierCode', 'trackingNumber'];
  return ['order', 'shop'];
}

/**
 * A template that reads a name its field's context does not have (`line` in an order-level field, say) would fail
 * on every order: it is a load error instead.
 */
function contextProblems(data: MappingFile, doc: Document, file: string, at: At): FileProblem[] {
  const problems: FileProblem[] = [];
  const visit = (value: unknown, path: PropertyKey[]) => {
    if (value === null || typeof value !== 'object') return;
    if (TEMPLATE_LEAF in value) {
      visit((value as TemplateLeaf)[TEMPLATE_LEAF], path);
      return;
    }
    const t = value as Partial<Tmpl>;
    if ((t.kind === 'segments' || t.kind === 'liquid') && typeof t.source === 'string' && Array.isArray(t.globals)) {
      const allowed = contextFor(path);
      for (const name of t.globals) {
        if (allowed.includes(name)) continue;
        const { node } = deepestNode(doc, path);
        const pos = node?.range ? at(node.range[0]) : { line: 1, col: 1 };
        problems.push({
          file,
          ...pos,
          message: `${formatPath(path)}: the template reads "${name}", which is not available here (this field sees ${allowed.join(', ')})`,
        });
      }
      return;
    }
    if (path.length === 2 && path[0] === 'products' && (value as { single?: boolean }).single) {
      // A rule written as one item: its fields are the rule's own in the file.
      const { items, single: _single, ...rest } = value as { items: unknown[]; single: boolean };
      visit(rest, path);
      visit(items[0], path);
      return;
    }
    if (Array.isArray(value)) value.forEach((v, i) => visit(v, [...path, i]));
    else if (!(value instanceof RegExp)) for (const [k, v] of Object.entries(value)) visit(v, [...path, k]);
  };
  visit(data, []);
  return problems;
}

function issueProblems(doc: Document, text: string, file: string, at: At, issue: z.core.$ZodIssue): FileProblem[] {
  const { node, depth } = deepestNode(doc, issue.path);
  const pos = node?.range ? at(node.range[0]) : { line: 1, col: 1 };
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const keyNode = isMap(node) ? node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key)?.key : undefined;
      const keyPos = isScalar(keyNode) && keyNode.range ? at(keyNode.range[0]) : pos;
      const hint = suggest(key);
      return {
        file,
        ...keyPos,
        message: `${formatPath([...issue.path, key])}: unknown key${hint ? ` (did you mean "${hint}"?)` : ''}`,
      };
    });
  }
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    // A union's message is set on the union itself when it is helpful; otherwise the branch closest to the input.
    // The branch that got past the type check says the most: "is a Product gid" beats "must be an array".
    const score = (branch: z.core.$ZodIssue[]) =>
      branch.filter((i) => i.code === 'invalid_type' && i.path.length === 0).length * 1000 + branch.length;
    const best = issue.errors.reduce((a, b) => (score(b) < score(a) ? b : a));
    if (issue.message === 'Invalid input' && best.length > 0) {
      return best.flatMap((inner) => issueProblems(doc, text, file, at, { ...inner, path: [...issue.path, ...inner.path] }));
    }
  }
  const path = formatPath(issue.path);
  const offset = issue.code === 'custom' ? (issue.params as { templateOffset?: number } | undefined)?.templateOffset : undefined;
  if (offset !== undefined && isScalar(node) && node.range && depth === issue.path.length) {
    // Point inside the string when the YAML text is the template as written (plain or quoted without escapes).
    const written = text.slice(node.range[0], node.range[1]);
    const quoted = /^["']/.test(written);
    const inner = quoted ? written.slice(1, -1) : written;
    if (inner === String(node.value)) {
      return [{ file, ...at(node.range[0] + (quoted ? 1 : 0) + offset), message: `${path}: ${issue.message}` }];
    }
  }
  // A required key that is absent is reported at the object that should hold it.
  const missing = depth < issue.path.length;
  const message =
    missing && issue.message === 'required'
      ? `${path}: required`
      : `${path ? `${path}: ` : ''}${issue.message}`;
  return [{ file, ...pos, message }];
}

function deepestNode(doc: Document, path: readonly PropertyKey[]): { node: Node | null; depth: number } {
  let node: unknown = doc.contents;
  let depth = 0;
  for (const segment of path) {
    let next: unknown;
    if (isMap(node)) {
      next = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment))?.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      next = node.items[segment];
    }
    if (next === undefined || next === null) break;
    node = next;
    depth++;
  }
  return { node: (node as Node | null) ?? null, depth };
}

function suggest(key: string): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(key.length / 3)) + 1;
  for (const known of KNOWN_KEYS) {
    const d = distance(key.toLowerCase(), known.toLowerCase());
    if (d < bestDistance) {
      best = known;
      bestDistance = d;
    }
  }
  return best;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j] as number;
      row[j] = Math.min((row[j] as number) + 1, (row[j - 1] as number) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length] as number;
}

function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).trim();
}

function inFileOrder(problems: FileProblem[]): FileProblem[] {
  return problems.sort((a, b) => a.line - b.line || a.col - b.col);
}

function dedupe(problems: FileProblem[]): FileProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.line}:${p.col}:${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function isMappingFileName(name: string): boolean {
  return /\.ya?ml$/i.test(name) && !name.startsWith('.');
}

/** The mapping files of a directory, sorted by name so loading and conflict reports are deterministic. */
export function listMappingFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter(isMappingFileName)
    .sort()
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

export interface DirLoad {
  files: string[];
  /** Files that loaded and do not conflict with another file. */
  mappings: LoadedMapping[];
  problems: FileProblem[];
  warnings: FileProblem[];
}

/** Loads every mapping file of a directory; files in conflict over a store are left out, with a problem each. */
export function loadMappingDir(dir: string): DirLoad {
  const files = listMappingFiles(dir);
  const loaded: LoadedMapping[] = [];
  const problems: FileProblem[] = [];
  for (const file of files) {
    const result = loadMappingText(readFileSync(file, 'utf8'), file);
    if (result.ok) loaded.push(result.mapping);
    else problems.push(...result.problems);
  }
  const conflicts = findConflicts(loaded);
  problems.push(...conflicts.problems);
  return {
    files,
    mappings: loaded.filter((m) => !conflicts.files.has(m.file)),
    problems,
    warnings: loaded.flatMap((m) => m.warnings),
  };
}

/** Two files claiming one store (or two "*" files): a problem in each, at the claim. */
export function findConflicts(mappings: readonly LoadedMapping[]): { problems: FileProblem[]; files: Set<string> } {
  const owners = new Map<string, LoadedMapping[]>();
  for (const m of mappings) {
    for (const shop of m.shops) owners.set(shop, [...(owners.get(shop) ?? []), m]);
  }
  const problems: FileProblem[] = [];
  const files = new Set<string>();
  for (const [shop, claimants] of owners) {
    if (claimants.length < 2) continue;
    for (const m of claimants) {
      files.add(m.file);
      const others = claimants.filter((o) => o !== m).map((o) => o.file);
      const pos = m.shopPositions.get(shop) ?? { line: 1, col: 1 };
      problems.push({
        file: m.file,
        ...pos,
        message: `shops: ${shop === '*' ? '"*"' : shop} is also claimed by ${others.join(', ')}; one store, one file`,
      });
    }
  }
  return { problems, files };
}

/** The file that names the store wins over a "*" file. */
export function selectMapping(mappings: readonly LoadedMapping[], shopDomain: string): LoadedMapping | undefined {
  const shop = shopDomain.trim().toLowerCase();
  return mappings.find((m) => m.shops.includes(shop)) ?? mappings.find((m) => m.shops.includes('*'));
}
