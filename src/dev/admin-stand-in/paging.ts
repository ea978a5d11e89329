import { GraphQLError } from 'graphql';

/**
 * Shopify's cursor pagination for the stand-in's connections: `first` (required, at most 250), `after` and `reverse`,
 * with opaque cursors that carry an item's id (the page goes on after that item).
 */

const MAX_PAGE_SIZE = 250;

export interface PageArgs {
  first?: number | null;
  after?: string | null;
  reverse?: boolean | null;
}

function encodeCursor(id: string): string {
  return Buffer.from(JSON.stringify({ last_id: id }), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (parsed && typeof parsed === 'object' && typeof (parsed as { last_id?: unknown }).last_id === 'string') {
      return (parsed as { last_id: string }).last_id;
    }
  } catch {
    // falls through to the error below
  }
  throw new GraphQLError(`Invalid cursor for current pagination sort.`);
}

export function connection<T extends { id: string }>(items: readonly T[], args: PageArgs, view: (item: T) => unknown) {
  if (args.first === undefined || args.first === null) throw new GraphQLError('you must provide one of first or last');
  if (args.first < 0 || args.first > MAX_PAGE_SIZE) {
    throw new GraphQLError(`The value of first must be between 0 and ${MAX_PAGE_SIZE}.`);
  }
  let list = args.reverse ? [...items].reverse() : [...items];
  if (args.after) {
    const afterId = decodeCursor(args.after);
    const index = list.findIndex((item) => item.id === afterId);
    list = index >= 0 ? list.slice(index + 1) : [];
  }
  const page = list.slice(0, args.first);
  const edges = page.map((item) => ({ cursor: encodeCursor(item.id), node: view(item) }));
  return {
    nodes: edges.map((e) => e.node),
    edges,
    pageInfo: {
      hasNextPage: list.length > page.length,
      hasPreviousPage: Boolean(args.after),
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}
