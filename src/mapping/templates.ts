import { createHash } from 'node:crypto';
import { Liquid, type Template } from 'liquidjs';

/**
 * Liquid templates in mapping files. One engine for the whole process: strict variables (a template that refers to
 * something the order does not have is a problem, never an empty string), strict filters (a misspelt filter is a
 * load error), and bounded rendering so a merchant's loop cannot take the worker down.
 *
 * `lenientIf` is what gives merchants a way out for optional values: a variable followed by `| default: ...`, or
 * tested in `{% if %}`, may be undefined.
 */

/** Upper bound of one template's output, in characters. */
export const MAX_OUTPUT_CHARS = 100_000;

export const liquid = new Liquid({
  strictVariables: true,
  strictFilters: true,
  lenientIf: true,
  // Dates keep the offset they were written with (Shopify sends the shop's local time), so `date` filters print what
  // the merchant sees in the admin, on any server time zone.
  preserveTimezones: true,
  timezoneOffset: 0,
  parseLimit: 100_000,
  renderLimit: 1_000,
  memoryLimit: 10_000_000,
  cache: false,
});

registerShopifyFilters(liquid);

function registerShopifyFilters(engine: Liquid): void {
  const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  const handleize = (v: unknown) =>
    str(v)
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/ß/g, 'ss')
      .toLowerCase()
      .replace(/['"]/g, '')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '');
  engine.registerFilter('handleize', handleize);
  engine.registerFilter('handle', handleize);
  engine.registerFilter('camelize', (v: unknown) =>
    str(v)
      .split(/[^A-Za-z0-9]+/)
      .filter(Boolean)
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join(''),
  );
  engine.registerFilter('pluralize', (n: unknown, singular: unknown, plural: unknown) =>
    Number(n) === 1 ? str(singular) : str(plural),
  );
  engine.registerFilter('md5', (v: unknown) => createHash('md5').update(str(v)).digest('hex'));
  engine.registerFilter('sha1', (v: unknown) => createHash('sha1').update(str(v)).digest('hex'));
  engine.registerFilter('url_param_escape', (v: unknown) => encodeURIComponent(str(v)).replace(/%20/g, '+'));
}

/**
 * A string value of a mapping file after loading: a constant, a variable lookup rendered without the Liquid
 * engine (most templates are `{{ line.properties.x }}` inside a URL: they take the fast path), or a compiled
 * Liquid template.
 */
export type Tmpl =
  | { kind: 'const'; source: string; value: string }
  | { kind: 'segments'; source: string; parts: readonly (string | readonly string[])[] }
  | { kind: 'liquid'; source: string; template: Template[] };

export type RenderResult = { ok: true; value: string } | { ok: false; message: string; undefinedVariable?: string };

const TEMPLATE_MARK = /\{\{|\{%/;
const SIMPLE_PATH = String.raw`[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*|\[\s*"[^"\]]*"\s*\]|\[\s*'[^'\]]*'\s*\])*`;
const SIMPLE_OUTPUT = new RegExp(String.raw`\{\{\s*(${SIMPLE_PATH})\s*\}\}`, 'g');
/** Names with a meaning of their own in Liquid (`array.size`, `array.first`): left to the engine. */
const LIQUID_SPECIAL = new Set(['size', 'first', 'last', 'empty', 'blank', 'nil', 'null', 'true', 'false']);

/** Parses a string value; throws liquidjs's error (with the template's own line and column) on a syntax error. */
export function compileTemplate(source: string): Tmpl {
  if (!TEMPLATE_MARK.test(source)) return { kind: 'const', source, value: source };
  // Parse with the engine in every case, so a syntax error or an unknown filter is a load error.
  const template = liquid.parse(source);
  const segments = toSegments(source);
  if (segments) return { kind: 'segments', source, parts: segments };
  return { kind: 'liquid', source, template };
}

function toSegments(source: string): (string | string[])[] | undefined {
  const parts: (string | string[])[] = [];
  let last = 0;
  for (const m of source.matchAll(SIMPLE_OUTPUT)) {
    const index = m.index;
    if (index > last) parts.push(source.slice(last, index));
    const path = splitPath(m[1] ?? '');
    if (path.some((seg) => LIQUID_SPECIAL.has(seg))) return undefined;
    parts.push(path);
    last = index + m[0].length;
  }
  if (last < source.length) parts.push(source.slice(last));
  // Anything the fast path does not understand (tags, filters, whitespace control) goes to the engine.
  if (parts.some((p) => typeof p === 'string' && TEMPLATE_MARK.test(p))) return undefined;
  return parts;
}

function splitPath(path: string): string[] {
  const out: string[] = [];
  for (const m of path.matchAll(/([A-Za-z_][\w-]*)|\[\s*"([^"\]]*)"\s*\]|\[\s*'([^'\]]*)'\s*\]/g)) {
    out.push(m[1] ?? m[2] ?? m[3] ?? '');
  }
  return out;
}

export function renderTemplate(t: Tmpl, scope: Record<string, unknown>): RenderResult {
  if (t.kind === 'const') return { ok: true, value: t.value };
  if (t.kind === 'segments') return renderSegments(t.parts, scope);
  try {
    const value: unknown = liquid.renderSync(t.template, scope);
    const text = String(value);
    if (text.length > MAX_OUTPUT_CHARS) {
      return { ok: false, message: `the template rendered more than ${MAX_OUTPUT_CHARS} characters` };
    }
    return { ok: true, value: text };
  } catch (error) {
    return describeRenderError(error);
  }
}

function renderSegments(parts: readonly (string | readonly string[])[], scope: Record<string, unknown>): RenderResult {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    let value: unknown = scope;
    for (let i = 0; i < part.length; i++) {
      const key = part[i] as string;
      if (value === null || value === undefined || typeof value !== 'object' || !Object.hasOwn(value, key)) {
        // Liquid prints nil for a property of nil; only a missing key is an undefined variable.
        if (value === null) break;
        return undefinedVariable(part.slice(0, i + 1).join('.'));
      }
      value = (value as Record<string, unknown>)[key];
    }
    if (value === undefined) return undefinedVariable(part.join('.'));
    if (value !== null && typeof value === 'object') {
      // Arrays and objects print as Liquid prints them; rare in a URL, so no fast path.
      out += String(liquid.renderSync(liquid.parse(`{{ v }}`), { v: value }));
      continue;
    }
    if (value !== null) out += String(value);
  }
  return { ok: true, value: out };
}

function undefinedVariable(name: string): RenderResult {
  return { ok: false, undefinedVariable: name, message: undefinedMessage(name) };
}

function undefinedMessage(name: string): string {
  return `${name} is not defined for this order (write "{{ ${name} | default: '...' }}" if it is optional)`;
}

function describeRenderError(error: unknown): RenderResult {
  const err = error as { name?: string; message?: string };
  const message = err.message ?? String(error);
  const undef = /^undefined variable: ([^,]+)/.exec(message);
  if (err.name === 'UndefinedVariableError' && undef?.[1]) return undefinedVariable(undef[1]);
  if (/memory alloc limit exceeded/.test(message)) {
    return { ok: false, message: 'the template produced too much output (rendering is bounded)' };
  }
  if (/template render limit exceeded/.test(message)) {
    return { ok: false, message: 'the template took too long to render (rendering is bounded)' };
  }
  return { ok: false, message: `the template failed: ${message}` };
}
