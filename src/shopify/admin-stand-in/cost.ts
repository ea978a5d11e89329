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
 * Query cost, after Shopify's published rules in simplified form: an object costs 1, a connection costs 2 plus
 * `first` times what one of its nodes costs, scalars and enums are free, and each mutation costs 10. The numbers are
 * close to Shopify's for the shapes print-bridge sends, which is what matters for pacing.
 */

export const MUTATION_COST = 10;
/** Shopify refuses any single query whose requested cost is above this, whatever the bucket holds. */
export const SINGLE_QUERY_MAX_COST = 1000;

// Fields that only wrap a connection's nodes; the connection itself already paid for them.
const CONNECTION_WRAPPERS = new Set(['nodes', 'edges', 'node', 'pageInfo']);
const NODE_FIELDS = new Set(['nodes', 'node']);

export function requestedQueryCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  }
  if (operation.operation === 'mutation') {
    const rootFields = collectFields(schema, schema.getMutationType()!, operation.selectionSet, fragments);
    return Math.max(1, rootFields.filter((f) => !f.node.name.value.startsWith('__')).length * MUTATION_COST);
  }
  const root = schema.getQueryType()!;
  return Math.max(1, selectionCost(schema, root, operation.selectionSet, fragments, variables, false));
}

function selectionCost(
  schema: GraphQLSchema,
  parent: GraphQLCompositeType,
  selectionSet: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  insideConnection: boolean,
): number {
  let total = 0;
  for (const { node, type } of collectFields(schema, parent, selectionSet, fragments)) {
    if (node.name.value.startsWith('__')) continue;
    const fields = isObjectType(type) || isInterfaceType(type) ? type.getFields() : undefined;
    const def = fields?.[node.name.value];
    if (!def) continue;
    const named = getNamedType(def.type);
    if (!(isObjectType(named) || isInterfaceType(named)) || !node.selectionSet) continue;
    const isConnection = named.name.endsWith('Connection');
    const child = selectionCost(schema, named, node.selectionSet, fragments, variables, isConnection || (insideConnection && node.name.value === 'edges'));
    const first = intArgument(node, 'first', variables);
    const fieldType = isNonNullType(def.type) ? def.type.ofType : def.type;
    if (isConnection) {
      total += 2 + (first ?? 1) * child;
    } else if (insideConnection && CONNECTION_WRAPPERS.has(node.name.value)) {
      // Each node object costs 1; edges and pageInfo only carry them.
      total += NODE_FIELDS.has(node.name.value) ? 1 + child : child;
    } else if (isListType(fieldType)) {
      total += 1 + (first ?? 1) * child;
    } else {
      total += 1 + child;
    }
  }
  return total;
}

/** Flattens fragments so that every field is costed against the type it is selected on. */
function collectFields(
  schema: GraphQLSchema,
  parent: GraphQLCompositeType,
  selectionSet: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
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
 * second, and a query runs only if the bucket can pay its requested cost.
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
