/**
 * Text that reaches the printer passes through here. NUL and the other C0 and C1 control characters break the
 * printer's and carriers' systems (labels, CSV exports, C strings), and bidirectional overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069) make text read differently from what it holds ("Trojan Source"): a customer's
 * address or a cart property could carry either. They are removed. Tab and line feed stay (a gift message may have
 * several lines); a carriage return becomes a line feed.
 */

// eslint-disable-next-line no-control-regex
const UNWANTED = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const ANY = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;

export function cleanString(value: string): string {
  if (!ANY.test(value)) return value;
  return value.replace(/\r\n?/g, '\n').replace(UNWANTED, '');
}

/** Cleans every string in a freshly built value, in place (arrays and plain objects), and returns it. */
export function cleanText<T>(value: T): T {
  return clean(value, 0) as T;
}

function clean(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return cleanString(value);
  if (value === null || typeof value !== 'object' || depth > 64) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = clean(value[i], depth + 1);
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) record[key] = clean(record[key], depth + 1);
  return value;
}
