import type { z } from 'zod';

/**
 * How a document's problems are told: zod's issues as `{path, message}` pairs with JSON paths and plain words. The
 * order (parseOrder), the mapping files and the emulator's checks all speak of problems this way.
 */

export interface SchemaProblem {
  /** e.g. `orderData.items[1].components[0].path` */
  path: string;
  message: string;
}

/** Turns a zod error into `{path, message}` pairs with JSON paths (`a.b[0].c`). */
export function toProblems(error: z.ZodError): SchemaProblem[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
}

export function formatProblems(problems: readonly SchemaProblem[]): string {
  return problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('\n');
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$]*$/.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

/** Plain words for the common issues; zod's own message for the rest. */
export function describeIssue(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code === 'invalid_type') {
    if (issue.input === undefined) return 'required';
    return `must be ${article(issue.expected)}, got ${describeValue(issue.input)}`;
  }
  return undefined;
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
