import { describeLineItem, type NamedLineItem } from '../orders/shopify-order.js';

/**
 * Problems the mapping engine reports. Two families: a mapping *file* that cannot be used (`FileProblem`, always with a
 * position so the merchant can go straight to it), and a Shopify *order* that a good mapping cannot turn into a print
 * order (`MappingProblem`, naming the line item and the print-order field). Neither is cured by retrying: an order
 * that does not map stays held until the mapping or the order changes.
 */

export interface FileProblem {
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  col: number;
  message: string;
  /** Errors (the default) stop a file from loading; warnings are shown and the file is used. */
  severity?: 'error' | 'warning';
}

export function formatFileProblem(p: FileProblem): string {
  return `${p.file}:${p.line}:${p.col} ${p.severity === 'warning' ? 'warning: ' : ''}${p.message}`;
}

export type MappingProblemKind =
  /** No rule maps the line item and `unmapped: hold` is in force. */
  | 'unmapped'
  /** A template could not be rendered (an undefined variable, a filter error, a limit). */
  | 'template'
  /** A rendered value is empty where one is required, or does not have the field's type. */
  | 'value'
  /** The order needs shipping but has no usable shipping address. */
  | 'address'
  /** No carrier for the order's shipping line and no default carrier. */
  | 'carrier'
  /** The Shopify order body itself is not an order we can read. */
  | 'order'
  /** Nothing in the order maps to a print item: there is nothing to send. */
  | 'empty'
  /** No mapping file serves the store. */
  | 'no-mapping'
  /** The assembled print order does not pass the print service's strict schema. */
  | 'schema';

/** The line item a mapping problem belongs to (the order model's NamedLineItem). */
export type LineItemRef = NamedLineItem;

export interface MappingProblem {
  kind: MappingProblemKind;
  /** The Shopify line item the problem belongs to; absent for order-level problems. */
  lineItem?: LineItemRef;
  /** The print-order field, e.g. `items[0].components[cover].path` or `shipments[0].shipTo.postcode`. */
  field: string;
  message: string;
  /** The mapping rule in force, e.g. `products[2]`, when there is one. */
  rule?: string;
  readonly retryable: false;
}

export function mappingProblem(p: Omit<MappingProblem, 'retryable'>): MappingProblem {
  return { ...p, retryable: false };
}

/** One line per problem, for logs, the command line and the admin page. */
export function formatMappingProblem(p: MappingProblem): string {
  const where = p.lineItem ? describeLineItem(p.lineItem) : 'order';
  const field = p.field ? ` ${p.field}:` : '';
  const rule = p.rule ? ` [${p.rule}]` : '';
  return `${where}${field} ${p.message}${rule}`;
}

/** A mapping file (or directory) that cannot be used; lists every problem with its position. */
export class MappingLoadError extends Error {
  readonly retryable = false;
  constructor(readonly problems: readonly FileProblem[]) {
    super(`The mapping files have ${problems.length} problem(s):\n` + problems.map((p) => `  ${formatFileProblem(p)}`).join('\n'));
    this.name = 'MappingLoadError';
  }
}
