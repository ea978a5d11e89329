/**
 * Match rules of products, stock items and ignore rules. All given keys must match (an empty `match` matches every
 * line). String keys are globs (`*` any run of characters, `?` one character; case-sensitive; a value without
 * wildcards matches exactly); a list means any of its entries.
 *
 * Ids are compared as exact decimal strings. Shopify ids can exceed 2^53, where a JavaScript number cannot hold
 * them: mapping files keep big integers exact (YAML parsed with big ints), and order bodies are read with
 * `parseShopifyOrderJson`, which keeps big integers as strings. A line item id that arrived as an imprecise number is
 * never matched by a rule id (see `exactId`).
 */

export interface Glob {
  source: string;
  test(value: string): boolean;
}

export function compileGlob(pattern: string): Glob {
  if (!/[*?]/.test(pattern)) return { source: pattern, test: (v) => v === pattern };
  const glob = [...pattern];
  return { source: pattern, test: (v) => wildcardMatch(glob, [...v]) };
}

/**
 * `*` (any run) and `?` (one character) over code points, in at most pattern × value steps. A regular expression of
 * the same glob backtracks once per `*` nested in the one before: `*a*a*a*a*a*a*b` against a long SKU of `a`s grows
 * with the SKU's length to the power of the stars. Here only the last `*` is ever resumed, which is enough: a later
 * star can take whatever an earlier one would have.
 */
function wildcardMatch(glob: readonly string[], value: readonly string[]): boolean {
  let g = 0;
  let v = 0;
  let star = -1;
  let resume = 0;
  while (v < value.length) {
    if (g < glob.length && glob[g] !== '*' && (glob[g] === '?' || glob[g] === value[v])) {
      g += 1;
      v += 1;
    } else if (g < glob.length && glob[g] === '*') {
      star = g;
      g += 1;
      resume = v;
    } else if (star >= 0) {
      g = star + 1;
      resume += 1;
      v = resume;
    } else {
      return false;
    }
  }
  while (g < glob.length && glob[g] === '*') g += 1;
  return g === glob.length;
}

export interface CompiledMatch {
  sku?: Glob[];
  variantId?: string[];
  productId?: string[];
  vendor?: Glob[];
  productType?: Glob[];
  title?: Glob[];
  properties?: [name: string, glob: Glob][];
  requiresShipping?: boolean;
  giftCard?: boolean;
}

/** What a rule sees of a line item; built once per line by the mapper. */
export interface MatchableLine {
  sku: string;
  /** Exact decimal string, or undefined when the body has none or only an imprecise number. */
  variantId: string | undefined;
  productId: string | undefined;
  vendor: string;
  productType: string;
  title: string;
  properties: Readonly<Record<string, string>>;
  requiresShipping: boolean;
  giftCard: boolean;
}

const anyOf = (globs: Glob[], value: string) => globs.some((g) => g.test(value));

export function matches(m: CompiledMatch, line: MatchableLine): boolean {
  if (m.sku && !anyOf(m.sku, line.sku)) return false;
  if (m.variantId && (line.variantId === undefined || !m.variantId.includes(line.variantId))) return false;
  if (m.productId && (line.productId === undefined || !m.productId.includes(line.productId))) return false;
  if (m.vendor && !anyOf(m.vendor, line.vendor)) return false;
  if (m.productType && !anyOf(m.productType, line.productType)) return false;
  if (m.title && !anyOf(m.title, line.title)) return false;
  if (m.requiresShipping !== undefined && m.requiresShipping !== line.requiresShipping) return false;
  if (m.giftCard !== undefined && m.giftCard !== line.giftCard) return false;
  if (m.properties) {
    for (const [name, glob] of m.properties) {
      const value = line.properties[name];
      if (value === undefined || !glob.test(value)) return false;
    }
  }
  return true;
}

const GID = /^gid:\/\/shopify\/([A-Za-z]+)\/(\d+)(?:\?.*)?$/;

/**
 * An id from a mapping file as an exact decimal string: a number, a big integer, a decimal string or a gid of the
 * expected type (`gid://shopify/ProductVariant/123`). Returns an error message otherwise.
 */
export function normaliseRuleId(value: unknown, gidType: string): string | { error: string } {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value <= 0) return { error: `must be a positive whole number, got ${value}` };
    return String(value);
  }
  if (typeof value === 'bigint') return value > 0n ? value.toString() : { error: 'must be a positive whole number' };
  if (typeof value === 'string') {
    if (/^\d+$/.test(value)) return value.replace(/^0+(?=\d)/, '');
    const gid = GID.exec(value);
    if (gid) {
      if (gid[1] !== gidType) return { error: `is a ${gid[1]} gid; expected gid://shopify/${gidType}/<id>` };
      return gid[2] as string;
    }
  }
  return { error: `must be a number or a gid such as gid://shopify/${gidType}/123` };
}

/**
 * The exact decimal form of an id from an order body: strings (big integers kept by `parseShopifyOrderJson`) as
 * they are, safe integers printed; an integer beyond 2^53 that JSON.parse has already rounded is not exact, so
 * undefined.
 */
export function exactId(value: unknown): string | undefined {
  if (typeof value === 'string' && /^\d+$/.test(value)) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return String(value);
  if (typeof value === 'bigint' && value > 0n) return value.toString();
  return undefined;
}

/** The numeric tail of `gid://shopify/<type>/<id>`, when the value is such a gid. */
export function gidTail(value: unknown, type: string): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = GID.exec(value);
  return m && m[1] === type ? m[2] : undefined;
}
