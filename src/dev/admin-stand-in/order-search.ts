import { GraphQLError } from 'graphql';
import type { OrderRecord } from './records.js';

/** The `orders` query's search and sort: which of a shop's orders it lists, in which order. */

export type OrderSortKey = 'CREATED_AT' | 'UPDATED_AT' | 'ID';

function numericTail(gid: string): bigint {
  const tail = gid.slice(gid.lastIndexOf('/') + 1);
  return /^\d+$/.test(tail) ? BigInt(tail) : 0n;
}

export function compareOrders(key: OrderSortKey) {
  const byId = (a: OrderRecord, b: OrderRecord) => {
    const x = numericTail(a.id);
    const y = numericTail(b.id);
    return x < y ? -1 : x > y ? 1 : 0;
  };
  if (key === 'ID') return byId;
  const field = key === 'CREATED_AT' ? 'createdAt' : 'updatedAt';
  return (a: OrderRecord, b: OrderRecord) => Date.parse(a[field]) - Date.parse(b[field]) || byId(a, b);
}

/**
 * The small part of Shopify's search syntax that print-bridge uses: `created_at`/`updated_at` with a comparison,
 * `status`, `name` and `tag`, joined by spaces or AND. Anything else is refused rather than silently matched.
 */
export function orderFilter(query: string | null | undefined): (order: OrderRecord) => boolean {
  if (!query || query.trim() === '') return () => true;
  const tests: ((o: OrderRecord) => boolean)[] = [];
  const term = /(\w+):(<=|>=|<|>)?('([^']*)'|"([^"]*)"|[^\s()]+)|(\S+)/g;
  for (const m of query.matchAll(term)) {
    if (m[6] !== undefined) {
      if (m[6].toUpperCase() === 'AND') continue;
      throw new GraphQLError(`The Admin API stand-in does not support "${m[6]}" in an orders query (only field:value terms joined by AND).`);
    }
    const field = m[1]!.toLowerCase();
    const op = m[2] ?? '';
    const value = m[4] ?? m[5] ?? m[3]!;
    switch (field) {
      case 'created_at':
      case 'updated_at': {
        const limit = Date.parse(value);
        if (Number.isNaN(limit)) throw new GraphQLError(`Invalid date in orders query: ${field}:${op}${value}`);
        const key = field === 'created_at' ? 'createdAt' : 'updatedAt';
        tests.push((o) => {
          const t = Date.parse(o[key]);
          switch (op) {
            case '>':
              return t > limit;
            case '>=':
              return t >= limit;
            case '<':
              return t < limit;
            case '<=':
              return t <= limit;
            default:
              return t === limit;
          }
        });
        break;
      }
      case 'status': {
        const status = value.toLowerCase();
        if (status === 'any') break;
        if (status === 'open') tests.push((o) => o.cancelledAt === null);
        else if (status === 'cancelled') tests.push((o) => o.cancelledAt !== null);
        else throw new GraphQLError(`The Admin API stand-in does not support status:${value} in an orders query.`);
        break;
      }
      case 'name':
        tests.push((o) => o.name === value || o.name === `#${value}`);
        break;
      case 'tag':
        tests.push((o) => o.tags.some((t) => t.toLowerCase() === value.toLowerCase()));
        break;
      default:
        throw new GraphQLError(`The Admin API stand-in does not support the search field "${field}" in an orders query.`);
    }
  }
  return (o) => tests.every((t) => t(o));
}
