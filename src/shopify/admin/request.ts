import { z } from 'zod';
import {
  ShopifyProtocolError,
  ShopifyThrottledError,
  ShopifyUnauthorizedError,
  ShopifyUnavailableError,
  ShopifyUserError,
  type ShopifyUserErrorDetail,
} from './errors.js';
import { gidPattern } from '../gid.js';
import { ShopifyPacer, type CostReport } from './pacing.js';
import type { AdminGraphqlTransport, GraphqlAnswer } from './transport.js';
import type { StatusMetafieldBatches } from './order-status.js';
import type { OrderReads } from './order-read-batches.js';
import type { StatusWriteBatches } from './status-write-batches.js';

/**
 * One shop's Admin GraphQL requests, as every operation family sends them (fulfillments.ts, order-status.ts,
 * order-reads.ts): through the shop's pacer, the answer checked for throttling and errors and parsed with zod at the
 * boundary; failures are the typed errors of errors.ts.
 */

/** A gid of `kind` in an answer, with the query some types carry (`FulfillmentService/1?id=true`) kept as part of it. */
export const gid = (kind: string) => z.string().regex(gidPattern(kind), `must be a gid://shopify/${kind}/<id>`);

/*
 * Answer schemas are made once, at module level, never per call: zod 4 compiles a schema on its first parse, which costs
 * about 100 times the parse itself (185 µs against 2 µs for an order read; issue 27's flash-sale profile).
 */
/** The most orders one read by ids (`nodes(ids:)`) names; Shopify's `nodes` takes up to 250. */
export const ORDERS_BY_ID_MAX = 50;

/** GraphQL error codes that say Shopify failed this time, not that the request was wrong. */
const TRANSIENT_GRAPHQL_CODES: ReadonlySet<string> = new Set(['INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE', 'TIMEOUT']);

export const pageInfoSchema = z.object({ hasNextPage: z.boolean() });

/** A page of a fulfillment order's lines, each with the order line item it stands for (read as `lineItem`). */
export function fulfillmentOrderLinesPage<T extends z.ZodType>(lineItem: T) {
  return z.object({
    nodes: z.array(z.object({ id: gid('FulfillmentOrderLineItem'), totalQuantity: z.number().int(), remainingQuantity: z.number().int(), lineItem })),
    pageInfo: pageInfoSchema,
  });
}
export const userErrorSchema = z.object({
  field: z.array(z.string()).nullable(),
  message: z.string(),
  code: z.string().nullish(),
});
const costSchema = z.object({
  requestedQueryCost: z.number(),
  actualQueryCost: z.number().nullable(),
  throttleStatus: z.object({ maximumAvailable: z.number(), currentlyAvailable: z.number(), restoreRate: z.number() }),
});
const graphqlErrorSchema = z.object({
  message: z.string(),
  path: z.array(z.union([z.string(), z.number()])).optional(),
  extensions: z.object({ code: z.string().optional() }).loose().optional(),
});

/**
 * Calls that yield to the shop's other calls when its bucket is short (ShopifyPacer, `background`): showing a status
 * can wait a burst of fulfillments out; the fulfillments, with the customer's tracking e-mail, cannot.
 */
const BACKGROUND_OPERATIONS: ReadonlySet<string> = new Set(['orderShows', 'ordersShow', 'showStatus', 'showStatuses', 'showStatusMetafields', 'flowTriggerReceive']);

export interface ShopifyAdminApiOptions {
  /** Shared by every ShopifyAdminApi of the process so that each shop's budget is seen as a whole. */
  pacer?: ShopifyPacer;
  /**
   * Shared by every ShopifyAdminApi of the process, as the pacer: the orders' status metafields written together, up
   * to 25 in one `metafieldsSet` (issue 27). Without it each order's status is written on its own.
   */
  statusMetafields?: StatusMetafieldBatches;
  /**
   * Shared by every ShopifyAdminApi of the process: the reads of an order (whether the shop has it, what it shows of
   * its status) asked together for the orders that reach them in the same turn (issue 27, orderReadBatches). Without
   * them each order is read on its own.
   */
  orderReads?: OrderReads;
  /**
   * Shared by every ShopifyAdminApi of the process: the status writes of a shop's orders made in the same turn, sent
   * as one request (issue 27). Without it each order's status is written in a request of its own.
   */
  statusWrites?: StatusWriteBatches;
  /** Called once per operation with how it ended (after the pacer's own retries); for metrics. */
  onCall?: (info: { operation: string; outcome: 'ok' | 'throttled' | 'user-error' | 'unavailable' | 'unauthorized' | 'error' }) => void;
}

export class AdminRequests {
  private readonly pacer: ShopifyPacer;

  constructor(
    private readonly transport: AdminGraphqlTransport,
    private readonly options: ShopifyAdminApiOptions = {},
  ) {
    this.pacer = options.pacer ?? new ShopifyPacer();
  }

  /** The process's batches of status metafields, when it has them (ShopifyAdminApiOptions.statusMetafields). */
  get statusMetafields(): StatusMetafieldBatches | undefined {
    return this.options.statusMetafields;
  }

  /** The process's batched status writes, when it has them (ShopifyAdminApiOptions.statusWrites). */
  get statusWrites(): StatusWriteBatches | undefined {
    return this.options.statusWrites;
  }

  /** The process's batches of order checks, when it has them (ShopifyAdminApiOptions.orderReads). */
  get orderReads(): OrderReads | undefined {
    return this.options.orderReads;
  }

  /** The share of the shop's bucket the pacer estimates it holds now (0 to 1); undefined before the first answer. */
  bucketShare(): number | undefined {
    return this.pacer.availableShare(this.shop);
  }

  get shop(): string {
    return this.transport.shop;
  }

  /**
   * One operation: `idempotent` lets the pacer send it again after an answer whose outcome is unknown. For a request
   * of several orders (the batches): `pacing`, the pacer's key for it (the operation and its size, so each size learns
   * its own cost) and its expected points until an answer says; `nodeErrors`, where a GraphQL error that names one
   * element of `nodes` (its `path`) is recorded by index instead of failing the request, the others' answers kept.
   */
  async call<T>(operation: string, query: string, variables: Record<string, unknown>, schema: z.ZodType<T>, idempotent: boolean, batch?: BatchOptions): Promise<T> {
    if (!this.options.onCall) return this.send(operation, query, variables, schema, idempotent, batch);
    try {
      const result = await this.send(operation, query, variables, schema, idempotent, batch);
      this.options.onCall({ operation, outcome: 'ok' });
      return result;
    } catch (error) {
      this.options.onCall({ operation, outcome: outcomeOf(error) });
      throw error;
    }
  }

  throwUserErrors(operation: string, subject: string, userErrors: ShopifyUserErrorDetail[]): void {
    if (userErrors.length > 0) throw new ShopifyUserError(operation, this.shop, subject, userErrors);
  }

  private async send<T>(
    operation: string,
    query: string,
    variables: Record<string, unknown>,
    schema: z.ZodType<T>,
    idempotent: boolean,
    batch?: BatchOptions,
  ): Promise<T> {
    const pacing = batch?.pacing;
    const paced = pacing?.key ?? operation;
    const options = { idempotent, background: BACKGROUND_OPERATIONS.has(operation), ...(pacing ? { estimatedCost: pacing.estimate } : {}) };
    return this.pacer.run(this.shop, paced, options, async (reportCost) => {
      const answer = await this.transport.request(operation, query, variables);
      const cost = readCost(answer);
      if (cost) reportCost(cost);
      let errors = readErrors(answer);
      const nodeErrors = batch?.nodeErrors;
      if (nodeErrors && errors.length > 0 && errors.every((e) => nodeIndexOf(e) !== undefined && e.extensions?.code !== 'THROTTLED')) {
        nodeErrors.push(...errors.map((e) => nodeIndexOf(e)!));
        errors = [];
      }
      if (errors.length > 0) {
        if (errors.some((e) => e.extensions?.code === 'THROTTLED')) {
          throw new ShopifyThrottledError(operation, this.shop, cost?.requestedQueryCost ?? this.pacer.expectedCost(paced, pacing?.estimate), cost?.throttleStatus);
        }
        const detail = errors.map((e) => (e.extensions?.code ? `${e.extensions.code}: ${e.message}` : e.message)).join('; ');
        // Shopify's own failure, answered with HTTP 200: worth trying again, as a 5xx is.
        if (errors.some((e) => TRANSIENT_GRAPHQL_CODES.has(e.extensions?.code ?? ''))) throw new ShopifyUnavailableError(operation, this.shop, 500, detail);
        throw new ShopifyProtocolError(operation, this.shop, detail, { graphqlCodes: errors.flatMap((e) => (e.extensions?.code ? [e.extensions.code] : [])) });
      }
      const parsed = schema.safeParse(answer.data);
      if (!parsed.success) {
        throw new ShopifyProtocolError(
          operation,
          this.shop,
          parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
        );
      }
      return parsed.data;
    });
  }
}

/** A metafield's value, parsed when it is JSON (the app writes JSON), else as written. */
export function parseJsonValue(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** What a request of several orders asks of `call` (see there). */
export interface BatchOptions {
  pacing?: { key: string; estimate: number };
  /** Filled with the indexes of the `nodes` elements a GraphQL error named. */
  nodeErrors?: number[];
}

/** A read of several orders: the answer for each id, and the ids whose element came back with an error of its own. */
export interface BatchAnswers<T> {
  answers: Map<string, T | null>;
  /** To be asked alone, so each gets exactly what the one-order read answers (its error included). */
  alone: string[];
}

export function batchAnswers<T>(ids: readonly string[], found: Map<string, T>, nodeErrors: readonly number[]): BatchAnswers<T> {
  const alone = [...new Set(nodeErrors)].flatMap((i) => (ids[i] === undefined ? [] : [ids[i]!]));
  return { answers: new Map(ids.map((id) => [id, found.get(id) ?? null])), alone };
}

/** The index of the `nodes(ids:)` element a GraphQL error names by its path, if it names one. */
function nodeIndexOf(error: { path?: (string | number)[] }): number | undefined {
  const [root, index] = error.path ?? [];
  return root === 'nodes' && typeof index === 'number' && Number.isInteger(index) && index >= 0 ? index : undefined;
}

function outcomeOf(error: unknown): 'throttled' | 'user-error' | 'unavailable' | 'unauthorized' | 'error' {
  if (error instanceof ShopifyThrottledError) return 'throttled';
  if (error instanceof ShopifyUserError) return 'user-error';
  if (error instanceof ShopifyUnavailableError) return 'unavailable';
  if (error instanceof ShopifyUnauthorizedError) return 'unauthorized';
  return 'error';
}

function readCost(answer: GraphqlAnswer): CostReport | undefined {
  const extensions = answer.extensions as { cost?: unknown } | undefined;
  const parsed = costSchema.safeParse(extensions?.cost);
  return parsed.success ? parsed.data : undefined;
}

const graphqlErrorsSchema = z.array(graphqlErrorSchema);

function readErrors(answer: GraphqlAnswer): z.infer<typeof graphqlErrorSchema>[] {
  if (answer.errors === undefined || answer.errors === null) return [];
  const parsed = graphqlErrorsSchema.safeParse(answer.errors);
  return parsed.success ? parsed.data : [{ message: JSON.stringify(answer.errors) }];
}
