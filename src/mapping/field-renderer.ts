import { mappingProblem, type LineItemRef, type MappingProblem } from './errors.js';
import { artworkUrlProblem, type ArtworkUrlPolicy } from './artwork-url.js';
import { TEMPLATE_LEAF, toBool, toInt, toNumber, type Convert, type Typed } from './schema.js';
import { renderTemplate, type RenderBudget, type Tmpl } from './templates.js';

/** What a mapping template sees: `order`, `shop`, and per context `line`, `address` or `shipment`. */
export type Scope = Record<string, unknown>;

/** Shared by every renderer of one order: one render budget, reported once when it runs out. */
export interface OrderRenderState {
  budget: RenderBudget;
  artwork: ArtworkUrlPolicy;
  overBudget: boolean;
}

/** Renders templates for one context, collecting problems instead of throwing. */
export class Renderer {
  failed = false;
  constructor(
    private readonly scope: Scope,
    private readonly problems: MappingProblem[],
    private readonly lineItem: LineItemRef | undefined,
    private readonly rule: string | undefined,
    private readonly state: OrderRenderState,
  ) {}

  private problem(kind: MappingProblem['kind'], field: string, message: string): undefined {
    this.failed = true;
    if (this.state.overBudget) return undefined; // One problem says the budget ran out; the rest would repeat it.
    this.problems.push(
      mappingProblem({
        kind,
        field,
        message,
        ...(this.lineItem ? { lineItem: this.lineItem } : {}),
        ...(this.rule ? { rule: this.rule } : {}),
      }),
    );
    return undefined;
  }

  /** The rendered text; templates are trimmed (multi-line `{% if %}` blocks), constants are kept as written. */
  raw(t: Tmpl, field: string): string | undefined {
    return this.render(t, field)?.value;
  }

  private render(t: Tmpl, field: string): { value: string; emptyPart?: string | true } | undefined {
    const r = renderTemplate(t, this.scope, this.state.budget);
    if (!r.ok) {
      const problem = this.problem('template', field, r.message);
      if (r.message.includes('budget')) this.state.overBudget = true;
      return problem;
    }
    const value = t.kind === 'const' ? r.value : r.value.trim();
    return r.emptyPart === undefined ? { value } : { value, emptyPart: r.emptyPart };
  }

  required(t: Tmpl, field: string): string | undefined {
    const r = this.render(t, field);
    if (r === undefined) return undefined;
    if (r.value === '') return this.problem('value', field, `is required but ${describeEmpty(t)}`);
    // A required value with a part that printed nothing is as wrong as an empty one: "/posters/.pdf" is no file.
    if (r.emptyPart !== undefined) {
      const part = r.emptyPart === true ? 'a part of it' : `{{ ${r.emptyPart} }}`;
      return this.problem(
        'value',
        field,
        `is required but ${part} rendered empty in ${JSON.stringify(truncate(t.source))}` +
          ` (write "| default: '...'" after a part that may be missing)`,
      );
    }
    return r.value;
  }

  /** A URL the printer fetches: required, and https to a public host (artwork-url.ts). */
  url(t: Tmpl, field: string): string | undefined {
    const v = this.required(t, field);
    if (v === undefined) return undefined;
    const problem = artworkUrlProblem(v, this.state.artwork);
    return problem ? this.problem('value', field, problem) : v;
  }

  /** Optional text: empty output leaves the field out. */
  optional(t: Tmpl | undefined, field: string): string | undefined {
    if (t === undefined) return undefined;
    const v = this.raw(t, field);
    return v === '' ? undefined : v;
  }

  int(f: Typed<number> | undefined, field: string, min: number): number | undefined {
    return this.typed(f, field, toInt(min));
  }

  number(f: Typed<number> | undefined, field: string): number | undefined {
    return this.typed(f, field, toNumber);
  }

  bool(f: Typed<boolean> | undefined, field: string): boolean | undefined {
    return this.typed(f, field, toBool);
  }

  private typed<T>(f: Typed<T> | undefined, field: string, convert: Convert<T>): T | undefined {
    if (f === undefined) return undefined;
    if (f.kind === 'value') return f.value;
    const s = this.raw(f.tmpl, field);
    if (s === undefined || s === '') return undefined;
    const v = convert(s);
    if (v !== null && typeof v === 'object' && 'error' in v) {
      return this.problem('value', field, `${v.error}; the template rendered ${JSON.stringify(truncate(s))}`);
    }
    return v as T;
  }

  data(value: unknown, field: string): unknown {
    if (value === null || typeof value !== 'object') return value;
    if (TEMPLATE_LEAF in value) return this.raw((value as { [TEMPLATE_LEAF]: Tmpl })[TEMPLATE_LEAF], field) ?? '';
    if (Array.isArray(value)) return value.map((v, i) => this.data(v, `${field}[${i}]`));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = this.data(v, `${field}.${k}`);
    return out;
  }

  attributes(attrs: Record<string, Tmpl | number | boolean>, field: string): Record<string, string | number | boolean> {
    const out: Record<string, string | number | boolean> = {};
    for (const [k, v] of Object.entries(attrs)) {
      if (typeof v === 'object') {
        const s = this.raw(v, `${field}.${k}`);
        if (s !== undefined && s !== '') out[k] = s;
      } else {
        out[k] = v;
      }
    }
    return out;
  }
}

function describeEmpty(t: Tmpl): string {
  return t.kind === 'const' ? 'the mapping gives an empty value' : `the template ${JSON.stringify(truncate(t.source))} rendered empty`;
}

function truncate(s: string): string {
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
}
