import { type Context, evalToken, Filter, Liquid, Tag, type Template, type TagToken, type TopLevelToken } from 'liquidjs';
import { liquidPath, undefinedPathOf } from './liquid-names.js';
import { registerShopifyFilters } from './shopify-filters.js';

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

/**
 * Total rendering time one order's templates may take, in milliseconds. An ordinary order renders in well under a
 * millisecond; a template with a runaway loop is stopped here, so a hostile mapping costs a worker at most this long
 * per order, far below the 10 s event-loop stall that fails the liveness check.
 */
export const ORDER_RENDER_BUDGET_MS = 1_000;

/**
 * Set by the engine's output hook while a template renders: the number of `{{ }}` outputs that printed nothing. A
 * required value with an empty part (`/posters/{{ line.variant_id }}.pdf` with no variant) is a problem even when
 * the rest of the text is not empty. Rendering is synchronous, so one counter serves the process.
 */
let emptyOutputs = 0;

export const liquid = new Liquid({
  // Templates have no file system: `include`, `render` and `layout` are refused when a file loads (below), and the
  // in-memory template store is empty besides, so no path can ever be read. No globals: nothing of the environment.
  templates: {},
  relativeReference: false,
  ownPropertyOnly: true,
  globals: {},
  // Typed as returning text, but liquidjs passes the value on unchanged: returning it as it came keeps numbers and
  // booleans exactly as Liquid prints them.
  outputEscape: ((value: unknown) => {
    if (value === null || value === undefined || (typeof value === 'string' && value.trim() === '')) emptyOutputs++;
    return value;
  }) as (value: unknown) => string,
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
refuseFileTags(liquid);
countBudgetInFilters(liquid);
lenientDefaultArguments();

/**
 * `{{ a | default: b }}` where `b` is missing: in Shopify's Liquid a missing variable is nil, so the fallback is simply
 * absent and `a` prints when it has a value. With strict variables (a missing field is a mapping problem) liquidjs
 * refused the whole template instead, holding an order whose `a` was there (a line item with "Custom Engraving" held
 * for lacking "Custom Engraving Front", found with Shopify's docs order). The arguments of `default` are read
 * leniently, as its input already is (`lenientIf`); a template whose every value is missing still renders nothing,
 * which the field's own checks report. liquidjs builds a `Filter` for each filter it runs, so its `render` is the hook.
 */
function lenientDefaultArguments(): void {
  type FilterRender = (this: Filter, value: unknown, context: Context) => IterableIterator<unknown>;
  // The fields liquidjs keeps private on Filter, as its own render reads them.
  type FilterInside = { name: string; args: Filter['args']; handler: (...args: unknown[]) => unknown; token: unknown; liquid: Liquid };
  const strict: FilterRender = Filter.prototype.render;
  const lenient: FilterRender = function* (this: Filter, value, context) {
    if (this.name !== 'default') return yield* strict.call(this, value, context);
    const self = this as unknown as FilterInside;
    const argv: unknown[] = [];
    for (const arg of self.args) {
      // A keyword argument (`allow_false: true`) is a [name, value] pair.
      if (Array.isArray(arg)) argv.push([arg[0], yield evalToken(arg[1], context, true)]);
      else argv.push(yield evalToken(arg, context, true));
    }
    return yield self.handler.apply({ context, token: self.token, liquid: self.liquid }, [value, ...argv]);
  };
  Filter.prototype.render = lenient;
}

/**
 * `performance.now()` past which no filter may start, while a template renders under a budget. liquidjs checks its
 * render limit between template nodes only, so one `assign` with a long filter chain (`sort_natural | reverse` × 60
 * over a large value) ran for seconds past it; every filter now checks the deadline before it runs. What one filter
 * call does alone is bounded by the thread it runs in (render-pool.ts), which is stopped hard at the budget.
 */
let filterDeadline = Number.POSITIVE_INFINITY;

/** Every filter of the engine (built-in and ours), wrapped to refuse to start past the render deadline. */
function countBudgetInFilters(engine: Liquid): void {
  type Handler = (this: unknown, ...args: unknown[]) => unknown;
  const filters = engine.filters as Record<string, Handler | { handler: Handler; raw?: boolean }>;
  for (const [name, filter] of Object.entries(filters)) {
    const handler = typeof filter === 'function' ? filter : filter.handler;
    const bounded: Handler = function (this: unknown, ...args: unknown[]) {
      if (performance.now() > filterDeadline) throw new Error('template render limit exceeded (in a filter)');
      return handler.apply(this, args);
    };
    engine.registerFilter(name, typeof filter === 'function' ? bounded : { handler: bounded, raw: filter.raw === true });
  }
}

/** Tags that read other templates from files: a mapping is one file, and its templates may read nothing else. */
function refuseFileTags(engine: Liquid): void {
  for (const name of ['include', 'render', 'layout']) {
    engine.registerTag(
      name,
      class extends Tag {
        constructor(token: TagToken, remainTokens: TopLevelToken[], liquidEngine: Liquid) {
          super(token, remainTokens, liquidEngine);
          throw new Error(`{% ${name} %} is not allowed: mapping templates cannot read files`);
        }
        *render(): Generator<unknown, void, unknown> {
          // Never reached: the constructor refuses the tag while parsing.
        }
      },
    );
  }
}

/**
 * A string value of a mapping file after loading: a constant, a template the fast path renders without the Liquid
 * engine, or a compiled Liquid template. Most templates in mapping files are a property inside a URL or a name with a
 * filter or two (`default`, `remove`, `prepend`, ...): the fast path renders those several times faster than the
 * engine, which matters at thousands of orders per second. Anything else, or any value the fast path is not sure of
 * (an object, an array), goes to the engine; tests check that both give the same text.
 */
export type Tmpl =
  | { kind: 'const'; source: string; value: string }
  | { kind: 'segments'; source: string; parts: readonly Part[]; template: Template[]; globals: readonly string[] }
  | { kind: 'liquid'; source: string; template: Template[]; globals: readonly string[] };

interface Output {
  path: readonly string[];
  filters: readonly { name: FastFilter; args: readonly string[] }[];
}
type Part = string | Output;

export type RenderResult =
  | {
      ok: true;
      value: string;
      /** Set when an output inside the text printed nothing: its variable when known, else `true`. */
      emptyPart?: string | true;
    }
  | { ok: false; message: string; undefinedVariable?: string };

/** The rendering time left to one order's templates (`ORDER_RENDER_BUDGET_MS` from the first render). */
export interface RenderBudget {
  /** `performance.now()` past which nothing more is rendered. */
  deadline: number;
}

export function orderRenderBudget(ms: number = ORDER_RENDER_BUDGET_MS): RenderBudget {
  return { deadline: performance.now() + ms };
}

const TEMPLATE_MARK = /\{\{|\{%/;
const SIMPLE_PATH = String.raw`[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*|\[\s*"[^"\]]*"\s*\]|\[\s*'[^'\]]*'\s*\])*`;
const LITERAL = String.raw`(?:"[^"]*"|'[^']*'|-?\d+(?:\.\d+)?)`;
const FILTER = String.raw`\|\s*([a-z_]+)(?:\s*:\s*(${LITERAL}(?:\s*,\s*${LITERAL})*))?\s*`;
const SIMPLE_OUTPUT = new RegExp(String.raw`\{\{\s*(${SIMPLE_PATH})\s*((?:${FILTER})*)\}\}`, 'g');
/** Names with a meaning of their own in Liquid (`array.size`, `array.first`): left to the engine. */
const LIQUID_SPECIAL = new Set(['size', 'first', 'last', 'empty', 'blank', 'nil', 'null', 'true', 'false']);

type FastFilter = keyof typeof FAST_FILTERS;
/** Liquid's semantics for text input; `default` is handled apart (it sees nil, false and undefined). */
const FAST_FILTERS = {
  default: { arity: 1, apply: (v: string) => v },
  remove: { arity: 1, apply: (v: string, a: string[]) => v.split(a[0] as string).join('') },
  replace: { arity: 2, apply: (v: string, a: string[]) => v.split(a[0] as string).join(a[1] as string) },
  prepend: { arity: 1, apply: (v: string, a: string[]) => (a[0] as string) + v },
  append: { arity: 1, apply: (v: string, a: string[]) => v + (a[0] as string) },
  upcase: { arity: 0, apply: (v: string) => v.toUpperCase() },
  downcase: { arity: 0, apply: (v: string) => v.toLowerCase() },
  strip: { arity: 0, apply: (v: string) => v.trim() },
} as const;

/** Parses a string value; throws liquidjs's error (with the template's own line and column) on a syntax error. */
export function compileTemplate(source: string): Tmpl {
  if (!TEMPLATE_MARK.test(source)) return { kind: 'const', source, value: source };
  // Parse with the engine in every case, so a syntax error or an unknown filter is a load error.
  const template = liquid.parse(source);
  allowEmptyWhereDefaulted(template);
  // The names the template reads from its context (not those it assigns), checked against the context at load.
  const globals = liquid.globalVariablesSync(template);
  const parts = toParts(source);
  if (parts) return { kind: 'segments', source, parts, template, globals };
  return { kind: 'liquid', source, template, globals };
}

function toParts(source: string): Part[] | undefined {
  const parts: Part[] = [];
  let last = 0;
  for (const m of source.matchAll(SIMPLE_OUTPUT)) {
    const index = m.index;
    if (index > last) parts.push(source.slice(last, index));
    const path = splitPath(m[1] ?? '');
    if (path.some((seg) => LIQUID_SPECIAL.has(seg))) return undefined;
    const filters: Output['filters'][number][] = [];
    for (const f of (m[2] ?? '').matchAll(new RegExp(FILTER, 'g'))) {
      const name = f[1] as string;
      const args = f[2] ? [...f[2].matchAll(new RegExp(LITERAL, 'g'))].map((a) => unquote(a[0])) : [];
      if (!Object.hasOwn(FAST_FILTERS, name)) return undefined;
      const filter = FAST_FILTERS[name as FastFilter];
      if (args.length !== filter.arity) return undefined;
      // `default` after another filter sees a string, never nil: simple, but left to the engine to stay exact.
      if (name === 'default' && filters.length > 0) return undefined;
      filters.push({ name: name as FastFilter, args });
    }
    parts.push({ path, filters });
    last = index + m[0].length;
  }
  if (last < source.length) parts.push(source.slice(last));
  // Anything the fast path does not understand (tags, other filters, whitespace control) goes to the engine.
  if (parts.some((p) => typeof p === 'string' && TEMPLATE_MARK.test(p))) return undefined;
  return parts;
}

function unquote(literal: string): string {
  return literal.startsWith('"') || literal.startsWith("'") ? literal.slice(1, -1) : literal;
}

function splitPath(path: string): string[] {
  const out: string[] = [];
  for (const m of path.matchAll(/([A-Za-z_][\w-]*)|\[\s*"([^"\]]*)"\s*\]|\[\s*'([^'\]]*)'\s*\]/g)) {
    out.push(m[1] ?? m[2] ?? m[3] ?? '');
  }
  return out;
}

export function renderTemplate(t: Tmpl, scope: Record<string, unknown>, budget?: RenderBudget): RenderResult {
  if (t.kind === 'const') return { ok: true, value: t.value };
  const left = budget ? budget.deadline - performance.now() : undefined;
  if (left !== undefined && left <= 0) return overBudget();
  if (t.kind === 'segments') {
    const fast = renderParts(t.parts, scope);
    if (fast !== NOT_SURE) return fast;
  }
  try {
    emptyOutputs = 0;
    if (budget) filterDeadline = budget.deadline;
    const value: unknown = liquid.renderSync(t.template, scope, left === undefined ? undefined : { renderLimit: Math.max(1, Math.ceil(left)) });
    const text = String(value);
    if (text.length > MAX_OUTPUT_CHARS) {
      return { ok: false, message: `the template rendered more than ${MAX_OUTPUT_CHARS} characters` };
    }
    return emptyOutputs > 0 && text.trim() !== '' ? { ok: true, value: text, emptyPart: true } : { ok: true, value: text };
  } catch (error) {
    if (budget && budget.deadline - performance.now() <= 0) return overBudget();
    return describeRenderError(error);
  } finally {
    filterDeadline = Number.POSITIVE_INFINITY;
  }
}

function overBudget(): RenderResult {
  return { ok: false, message: `rendering this order's templates took longer than the ${ORDER_RENDER_BUDGET_MS} ms budget (rendering is bounded)` };
}

/**
 * Outputs with an explicit `default` filter may print nothing: the merchant said the part is optional. The engine
 * appends the output hook as the last filter of every output when it parses; it is taken off those outputs here,
 * walking the parsed tree (blocks of `if`, `for`, `case`, ... hold their own templates).
 */
function allowEmptyWhereDefaulted(templates: readonly Template[]): void {
  const seen = new Set<object>();
  const visit = (node: unknown, depth: number): void => {
    if (node === null || typeof node !== 'object' || seen.has(node) || depth > 50) return;
    seen.add(node);
    const value = (node as { value?: { filters?: { name?: string }[] } }).value;
    const filters = value?.filters;
    if (Array.isArray(filters) && filters.length > 1 && filters.slice(0, -1).some((f) => f.name === 'default')) filters.pop();
    for (const [key, child] of Object.entries(node)) {
      if (key === 'liquid' || key === 'token' || key === 'value') continue;
      if (Array.isArray(child)) for (const c of child) visit(c, depth + 1);
      else if (child && typeof child === 'object') visit(child, depth + 1);
    }
  };
  for (const t of templates) visit(t, 0);
}

const NOT_SURE = Symbol('not sure');
const MISSING = Symbol('missing');

function renderParts(parts: readonly Part[], scope: Record<string, unknown>): RenderResult | typeof NOT_SURE {
  let out = '';
  let emptyPart: string | undefined;
  for (const part of parts) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    let value: unknown = scope;
    const path = part.path;
    for (let i = 0; i < path.length; i++) {
      const key = path[i] as string;
      if (value === null) break; // Liquid prints nil for a property of nil.
      if (value === undefined || typeof value !== 'object' || !Object.hasOwn(value, key)) {
        value = MISSING;
        break;
      }
      value = (value as Record<string, unknown>)[key];
    }
    if (value === undefined) value = MISSING;
    const filters = part.filters;
    let i = 0;
    if (filters[0]?.name === 'default') {
      // Liquid's default: nil, false, undefined and empty text give the fallback (lenient about undefined).
      if (value === MISSING || value === null || value === false || value === '') value = filters[0].args[0];
      i = 1;
    }
    if (value === MISSING) return undefinedVariable(path);
    if (value !== null && typeof value === 'object') return NOT_SURE;
    let text = value === null ? '' : String(value);
    for (; i < filters.length; i++) {
      const f = filters[i] as Output['filters'][number];
      text = FAST_FILTERS[f.name].apply(text, f.args as string[]);
    }
    if (emptyPart === undefined && text.trim() === '' && filters[0]?.name !== 'default') emptyPart = liquidPath(path);
    out += text;
  }
  // A whole empty value is the caller's to judge (optional or required); a part only matters inside other text.
  return emptyPart === undefined || out.trim() === '' ? { ok: true, value: out } : { ok: true, value: out, emptyPart };
}

/** The message names the variable as Liquid, so its suggestion can be pasted into the mapping file as it is. */
function undefinedVariable(path: readonly (string | number)[]): RenderResult {
  const name = liquidPath(path);
  return { ok: false, undefinedVariable: name, message: `${name} is not defined for this order (write "{{ ${name} | default: '...' }}" if it is optional)` };
}

function describeRenderError(error: unknown): RenderResult {
  const err = error as { name?: string; message?: string };
  const message = err.message ?? String(error);
  const undef = err.name === 'UndefinedVariableError' ? undefinedPathOf(error) : undefined;
  if (undef) return undefinedVariable(undef);
  if (/memory alloc limit exceeded/.test(message)) {
    return { ok: false, message: 'the template produced too much output (rendering is bounded)' };
  }
  if (/template render limit exceeded/.test(message)) {
    return { ok: false, message: 'the template took too long to render (rendering is bounded)' };
  }
  return { ok: false, message: `the template failed: ${message}` };
}
