import {
  getNamedType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

/**
 * Query cost, after Shopify's published rules in simplified form. Before a query runs, its requested cost is what it
 * could return at most: an object costs 1, a connection costs 2 plus `first` times what one of its nodes costs, a
 * list of objects 1 plus `first` times one element, scalars and enums are free, and each mutation costs 10. After it
 * ran, its actual cost is the same sum over what it did return: a connection that asked for 25 nodes and got 2 costs
 * 2 plus those 2 nodes. Shopify takes the requested cost from the bucket and refunds the difference. The numbers are
 * close to Shopify's for the shapes print-bridge sends, which is what matters for pacing.
 */

export const MUTATION_COST = 10;
/** Shopify refuses any single query whose requested cost is above this, whatever the bucket holds. */
export const SINGLE_QUERY_MAX_COST = 1000;

// Fields that only wrap a connection's nodes; the connection itself already paid for them.
const CONNECTION_WRAPPERS = new Set(['nodes', 'edges', 'node', 'pageInfo']);
const NODE_FIELDS = new Set(['nodes', 'node']);

type Fragments = Map<string, FragmentDefinitionNode>;

/** How a field selecting objects is costed; fields of scalars and enums are free and never classified. */
interface CostedField {
  node: FieldNode;
  /** The object or interface type the field's selection is made on. */
  type: GraphQLCompositeType;
  kind: 'connection' | 'connection-node' | 'connection-wrapper' | 'list' | 'objects-by-id' | 'object';
  first: number | undefined;
  /** Whether the field's own selection is made inside a connection, i.e. its wrappers are per node. */
  selectsInsideConnection: boolean;
}

export function requestedQueryCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): number {
  const fragments = fragmentsOf(document);
  if (operation.operation === 'mutation') {
    const rootFields = collectFields(schema, schema.getMutationType()!, operation.selectionSet, fragments);
    return Math.max(1, rootFields.filter((f) => !f.node.name.value.startsWith('__')).length * MUTATION_COST);
  }
  return Math.max(1, requestedSelectionCost(schema, schema.getQueryType()!, operation.selectionSet, fragments, variables, false));
}

/**
 * What a query cost once it ran, from the data it answered: never more than its requested cost, and a mutation's is
 * its requested cost.
 */
export function actualQueryCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  data: unknown,
): number {
  const requested = requestedQueryCost(schema, document, operation, variables);
  if (operation.operation === 'mutation') return requested;
  const spent = actualSelectionCost(schema, schema.getQueryType()!, operation.selectionSet, fragmentsOf(document), variables, false, data);
  // A list asked for without `first` was requested as one element; it never costs more than was paid up front.
  return Math.max(1, Math.min(requested, spent));
}

function requestedSelectionCost(
  schema: GraphQLSchema,
  parent: GraphQLCompositeType,
  selectionSet: SelectionSetNode,
  fragments: Fragments,
  variables: Record<string, unknown>,
  insideConnection: boolean,
): number {
  let total = 0;
  for (const field of costedFields(schema, parent, selectionSet, fragments, variables, insideConnection)) {
    const child = requestedSelectionCost(schema, field.type, field.node.selectionSet!, fragments, variables, field.selectsInsideConnection);
    switch (field.kind) {
      case 'connection':
        total += 2 + (field.first ?? 1) * child;
        break;
      case 'connection-node':
        // Each node object costs 1; edges and pageInfo only carry them.
        total += 1 + child;
        break;
      case 'connection-wrapper':
        total += child;
        break;
      case 'list':
        total += 1 + (field.first ?? 1) * child;
        break;
      case 'objects-by-id':
        // Each id is an object looked up, as `order(id:)` is one.
        total += (field.first ?? 1) * (1 + child);
        break;
      case 'object':
        total += 1 + child;
        break;
    }
  }
  return total;
}

/**
 * The requested rules applied to the answer: a connection pays for the nodes (or edges) it returned instead of
 * `first`, a list for its elements. A field missing from the answer (a fragment on another type) costs nothing; one
 * answered null still cost its lookup.
 */
function actualSelectionCost(
  schema: GraphQLSchema,
  parent: GraphQLCompositeType,
  selectionSet: SelectionSetNode,
  fragments: Fragments,
  variables: Record<string, unknown>,
  insideConnection: boolean,
  data: unknown,
): number {
  if (!isRecord(data)) return 0;
  let total = 0;
  for (const field of costedFields(schema, parent, selectionSet, fragments, variables, insideConnection)) {
    const value = data[field.node.alias?.value ?? field.node.name.value];
    if (value === undefined) continue;
    const childOf = (element: unknown) =>
      actualSelectionCost(schema, field.type, field.node.selectionSet!, fragments, variables, field.selectsInsideConnection, element);
    const elements = Array.isArray(value) ? value : value === null ? [] : [value];
    switch (field.kind) {
      case 'connection':
        // The connection's wrappers sum its nodes, so its own value is costed once, not per node.
        total += 2 + childOf(value);
        break;
      case 'connection-node':
        total += elements.reduce((sum: number, element) => sum + 1 + childOf(element), 0);
        break;
      case 'connection-wrapper':
        total += elements.reduce((sum: number, element) => sum + childOf(element), 0);
        break;
      case 'list':
        total += 1 + elements.reduce((sum: number, element) => sum + childOf(element), 0);
        break;
      case 'objects-by-id':
        // A null answer still cost its lookup.
        total += elements.length + elements.reduce((sum: number, element) => sum + childOf(element), 0);
        break;
      case 'object':
        total += 1 + childOf(value);
        break;
    }
  }
  return total;
}

function costedFields(
  schema: GraphQLSchema,
  parent: GraphQLCompositeType,
  selectionSet: SelectionSetNode,
  fragments: Fragments,
  variables: Record<string, unknown>,
  insideConnection: boolean,
): CostedField[] {
  const out: CostedField[] = [];
  for (const { node, type } of collectFields(schema, parent, selectionSet, fragments)) {
    if (node.name.value.startsWith('__')) continue;
    const fields = isObjectType(type) || isInterfaceType(type) ? type.getFields() : undefined;
    const def = fields?.[node.name.value];
    if (!def) continue;
    const named = getNamedType(def.type);
    if (!(isObjectType(named) || isInterfaceType(named)) || !node.selectionSet) continue;
    const isConnection = named.name.endsWith('Connection');
    const fieldType = isNonNullType(def.type) ? def.type.ofType : def.type;
    const kind: CostedField['kind'] = isConnection
      ? 'connection'
      : insideConnection && CONNECTION_WRAPPERS.has(node.name.value)
        ? NODE_FIELDS.has(node.name.value)
          ? 'connection-node'
          : 'connection-wrapper'
        : isListType(fieldType)
          ? node.arguments?.some((a) => a.name.value === 'ids')
            ? 'objects-by-id'
            : 'list'
          : 'object';
    out.push({
      node,
      type: named,
      kind,
      // `nodes(ids:)` asks for as many objects as ids.
      first: intArgument(node, 'first', variables) ?? listArgumentLength(node, 'ids', variables),
      selectsInsideConnection: isConnection || (insideConnection && node.name.value === 'edges'),
    });
  }
  return out;
}

function fragmentsOf(document: DocumentNode): Fragments {
  const fragments: Fragments = new Map();
  for (const def of document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  }
  return fragments;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Flattens fragments so that every field is costed against the type it is selected on. */
function collectFields(
  schema: GraphQLSchema,
  parent: GraphQLCompositeType,
  selectionSet: SelectionSetNode,
  fragments: Fragments,
  seen: Set<string> = new Set(),
): { node: FieldNode; type: GraphQLCompositeType }[] {
  const out: { node: FieldNode; type: GraphQLCompositeType }[] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      out.push({ node: selection, type: parent });
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const type = selection.typeCondition ? (schema.getType(selection.typeCondition.name.value) as GraphQLCompositeType) : parent;
      out.push(...collectFields(schema, type, selection.selectionSet, fragments, seen));
    } else {
      const name = selection.name.value;
      const fragment = fragments.get(name);
      if (!fragment || seen.has(name)) continue;
      const type = schema.getType(fragment.typeCondition.name.value) as GraphQLCompositeType;
      out.push(...collectFields(schema, type, fragment.selectionSet, fragments, new Set([...seen, name])));
    }
  }
  return out;
}

function intArgument(node: FieldNode, name: string, variables: Record<string, unknown>): number | undefined {
  const arg = node.arguments?.find((a) => a.name.value === name);
  if (!arg) return undefined;
  return intValue(arg.value, variables);
}

function listArgumentLength(node: FieldNode, name: string, variables: Record<string, unknown>): number | undefined {
  const arg = node.arguments?.find((a) => a.name.value === name);
  if (!arg) return undefined;
  if (arg.value.kind === Kind.LIST) return arg.value.values.length;
  if (arg.value.kind === Kind.VARIABLE) {
    const v = variables[arg.value.name.value];
    return Array.isArray(v) ? v.length : undefined;
  }
  return undefined;
}

function intValue(value: ValueNode, variables: Record<string, unknown>): number | undefined {
  if (value.kind === Kind.INT) return Number.parseInt(value.value, 10);
  if (value.kind === Kind.VARIABLE) {
    const v = variables[value.name.value];
    return typeof v === 'number' ? v : undefined;
  }
  return undefined;
}

export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

/**
 * Shopify's leaky bucket, one per shop: it holds at most `maximumAvailable` points, refills at `restoreRate` points a
 * second, and a query runs only if the bucket can pay its requested cost; what a query did not use of it is refunded
 * once it ran.
 */
export class LeakyBucket {
  private available: number;
  private updatedAt: number;

  constructor(
    readonly maximumAvailable: number,
    readonly restoreRate: number,
    private readonly now: () => number = Date.now,
  ) {
    this.available = maximumAvailable;
    this.updatedAt = now();
  }

  private refill(): void {
    const t = this.now();
    this.available = Math.min(this.maximumAvailable, this.available + ((t - this.updatedAt) / 1000) * this.restoreRate);
    this.updatedAt = t;
  }

  tryTake(cost: number): boolean {
    this.refill();
    if (cost > this.available) return false;
    this.available -= cost;
    return true;
  }

  /** Gives back points taken for a query that cost less than was requested; never above the maximum. */
  refund(points: number): void {
    if (points <= 0) return;
    this.refill();
    this.available = Math.min(this.maximumAvailable, this.available + points);
  }

  /** Empties the bucket down to `level` points (0 by default), as a burst of other calls would. */
  drain(level = 0): void {
    this.refill();
    this.available = Math.max(0, Math.min(this.available, level));
  }

  status(): ThrottleStatus {
    this.refill();
    return {
      maximumAvailable: this.maximumAvailable,
      currentlyAvailable: Math.floor(this.available),
      restoreRate: this.restoreRate,
    };
  }
}
