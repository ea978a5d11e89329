import { createHash } from 'node:crypto';
import type { Liquid } from 'liquidjs';

/**
 * Filters of Shopify's Liquid that liquidjs lacks or reads differently. Registered on the one engine
 * (templates.ts) before its filters are wrapped in the render budget, so these are bounded like the built-in ones.
 */
export function registerShopifyFilters(engine: Liquid): void {
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
  sizeOfHashes(engine);
}

/**
 * `{{ line.properties | size }}`: in Shopify's Liquid a hash's size is its number of keys. liquidjs's `size` reads
 * `.length`, so every name → value map (line item properties, the order itself) gave 0, and `{% if n > 0 %}` on it
 * silently took the wrong branch. Plain objects count their own keys; text, arrays and the rest are left to the
 * built-in filter.
 */
function sizeOfHashes(engine: Liquid): void {
  type Handler = (this: unknown, ...args: unknown[]) => unknown;
  const builtIn = engine.filters.size as Handler | { handler: Handler } | undefined;
  const handler = typeof builtIn === 'function' ? builtIn : builtIn?.handler;
  if (!handler) throw new Error('liquidjs has no size filter to extend');
  engine.registerFilter('size', function (this: unknown, value: unknown, ...args: unknown[]) {
    if (isPlainObject(value)) return Object.keys(value).length;
    return handler.call(this, value, ...args);
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
