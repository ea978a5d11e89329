import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  execute,
  getOperationAST,
  getVariableValues,
  print,
  GraphQLError,
  parse,
  validate,
  type DocumentNode,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from 'graphql';
import { z } from 'zod';
import { actualQueryCost, requestedQueryCost, SINGLE_QUERY_MAX_COST, type LeakyBucket } from './cost.js';
import type { FaultPlan } from './faults.js';
import { shopifyValidationError, shopifyVariableError } from './graphql-errors.js';
import type { StandInHolds } from './holds.js';
import { ACCESS_TOKEN_HEADER, failureMessage, readJson, sendJson, SHOP_DOMAIN_HEADER, shopOf } from './http-io.js';
import type { RequestLog, RequestLogEntry } from './request-log.js';
import { rootValue, type ResolverContext } from './resolvers.js';
import { serviceRootValue } from './service-resolvers.js';
import { holdRootValue } from './hold-resolvers.js';
import type { StandInStore } from './store.js';
import type { StandInFlow } from './flow.js';

/**
 * `POST /admin/api/<version>/graphql.json`: what Shopify checks before it runs a call (injected failures, the version,
 * the shop, the access token), the document and its variables against Shopify's schema, the query cost and the shop's
 * leaky bucket, then the run (resolvers.ts) and the cost it really had.
 */

/** What the endpoint works with; server.ts makes one per stand-in. */
export interface GraphqlEndpoint {
  schema: GraphQLSchema;
  store: StandInStore;
  faults: FaultPlan;
  holds: StandInHolds;
  /** The Admin API versions answered; any `YYYY-MM` or `unstable` when undefined. */
  allowedVersions: readonly string[] | undefined;
  bucketOf(shop: string): LeakyBucket;
  log: RequestLog;
  /** Shopify Flow's side: the triggers the app sends (flow.ts). */
  flow?: StandInFlow;
}

const graphqlBodySchema = z.object({
  query: z.string().min(1),
  variables: z.record(z.string(), z.unknown()).nullish(),
  operationName: z.string().nullish(),
});

const API_VERSION = /^(\d{4}-\d{2}|unstable)$/;
/** The orders and fulfillments of resolvers.ts, the fulfillment-service flow of service-resolvers.ts, the app's holds of hold-resolvers.ts. */
const root = { ...rootValue, ...serviceRootValue, ...holdRootValue };

export async function handleGraphql(endpoint: GraphqlEndpoint, req: IncomingMessage, res: ServerResponse, apiVersion: string): Promise<void> {
  const { schema, store, faults, holds, bucketOf, log } = endpoint;
  const entry: RequestLogEntry = {
    at: new Date().toISOString(),
    shop: null,
    apiVersion,
    status: 200,
    operation: null,
    requestedQueryCost: null,
    actualQueryCost: null,
    throttled: false,
    variables: null,
  };
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    entry.status = status;
    log.record(entry);
    sendJson(res, status, body, headers);
  };
  const refuse = (errors: { message: string }[]) => {
    entry.refused = errors.map((e) => e.message);
    answer(200, { errors });
  };

  const shop = admit(endpoint, req, apiVersion, entry, answer);
  if (!shop) return;

  const raw = await readJson(req);
  const body = graphqlBodySchema.safeParse(raw);
  if (!body.success) return answer(400, { errors: { query: 'Required parameter missing or invalid' } });
  const variables = body.data.variables ?? {};
  entry.variables = variables;

  const prepared = preparedDocument(schema, body.data.query);
  if ('parseError' in prepared) return answer(200, { errors: [prepared.parseError] });
  const { document } = prepared;
  entry.document = body.data.query;
  // Shopify's own schema of the pinned version (admin-schema.ts): a document or variables it would refuse are refused
  // here in its words and shape, and nothing runs.
  if (prepared.validationErrors.length > 0) return refuse(prepared.validationErrors.map(shopifyValidationError));
  const operation = getOperationAST(document, body.data.operationName ?? undefined);
  if (!operation) return answer(200, { errors: [{ message: 'No operation named in the document, or several and no operationName.' }] });
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
  if (coerced.errors) {
    const declared = new Map((operation.variableDefinitions ?? []).map((d) => [d.variable.name.value, print(d.type)]));
    return refuse(coerced.errors.map((e) => shopifyVariableError(e, variables, (name) => declared.get(name))));
  }
  entry.operation = `${operation.operation} ${operation.selectionSet.selections
    .map((s) => (s.kind === 'Field' ? s.name.value : '…'))
    .join(',')}`;

  const cost = requestedQueryCost(schema, document, operation, variables);
  entry.requestedQueryCost = cost;
  const bucket = bucketOf(shop);
  if (cost > SINGLE_QUERY_MAX_COST) {
    return answer(200, {
      errors: [
        {
          message: `Query cost is ${cost}, which exceeds the single query max cost limit (${SINGLE_QUERY_MAX_COST}).`,
          extensions: { code: 'MAX_COST_EXCEEDED', cost, maxCost: SINGLE_QUERY_MAX_COST },
        },
      ],
      extensions: { cost: { requestedQueryCost: cost, actualQueryCost: null, throttleStatus: bucket.status() } },
    });
  }
  // An injected throttle answers THROTTLED whatever the bucket refilled in between (a pause of a few ms on a slow
  // machine refilled enough for a cheap call to pass, and a test counting its 15 THROTTLED answers saw 14).
  const injected = faults.takeThrottle(shop);
  if (injected) bucket.drain(0);
  if (injected || !bucket.tryTake(cost)) {
    entry.throttled = true;
    return answer(200, {
      errors: [
        {
          message: 'Throttled',
          extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' },
        },
      ],
      extensions: { cost: { requestedQueryCost: cost, actualQueryCost: null, throttleStatus: bucket.status() } },
    });
  }

  // Shopify opens a scheduled fulfillment order at its time whatever else happens; a read never sees it late.
  holds.openDue();
  const context: ResolverContext = { shop, store, holds, flow: endpoint.flow };
  const result = await execute({
    schema,
    document,
    rootValue: root,
    contextValue: context,
    variableValues: variables,
    operationName: body.data.operationName ?? undefined,
  });
  // As on Shopify, the answer's throttleStatus already shows the refund of what the query did not use.
  const actual = actualQueryCost(schema, document, operation, variables, result.data);
  entry.actualQueryCost = actual;
  bucket.refund(cost - actual);
  return answer(200, {
    ...(result.data !== undefined ? { data: result.data } : {}),
    ...(result.errors ? { errors: result.errors.map((e) => e.toJSON()) } : {}),
    extensions: { cost: { requestedQueryCost: cost, actualQueryCost: actual, throttleStatus: bucket.status() } },
  });
}

type PreparedDocument = { document: DocumentNode; validationErrors: readonly GraphQLError[] } | { parseError: GraphQLFormattedError };

/**
 * A document's parse and its validation against the schema, kept by its text: an app sends the same few documents
 * over and over, and parsing and validating each again made the stand-in, which stands for Shopify's servers, a large
 * share of a benchmark's CPU on the app's own cores (bench:flash-sale). Bounded, oldest dropped first.
 */
const preparedBySchema = new WeakMap<GraphQLSchema, Map<string, PreparedDocument>>();
const PREPARED_DOCUMENTS_KEPT = 500;

function preparedDocument(schema: GraphQLSchema, query: string): PreparedDocument {
  let kept = preparedBySchema.get(schema);
  if (!kept) preparedBySchema.set(schema, (kept = new Map()));
  const found = kept.get(query);
  if (found) return found;
  let prepared: PreparedDocument;
  try {
    const document = parse(query);
    prepared = { document, validationErrors: validate(schema, document) };
  } catch (error) {
    prepared = { parseError: formatError(error) };
  }
  if (kept.size >= PREPARED_DOCUMENTS_KEPT) kept.delete(kept.keys().next().value as string);
  kept.set(query, prepared);
  return prepared;
}

/**
 * What Shopify checks before it looks at a request, in its order: injected failures (a load balancer or an outage),
 * the API version, the shop, the access token. Answers and returns undefined when the request stops here.
 */
function admit(
  endpoint: GraphqlEndpoint,
  req: IncomingMessage,
  apiVersion: string,
  entry: RequestLogEntry,
  answer: (status: number, body: unknown, headers?: Record<string, string>) => void,
): string | undefined {
  const { faults, store, allowedVersions, log } = endpoint;
  const failure = faults.takeFailure(shopOf(req));
  if (failure) {
    if (failure.failure === 'network') {
      entry.status = 0;
      log.record(entry);
      req.socket.destroy();
      return undefined;
    }
    const headers: Record<string, string> =
      failure.retryAfterSeconds !== undefined ? { 'retry-after': String(failure.retryAfterSeconds) } : {};
    answer(failure.failure, { errors: failureMessage(failure.failure) }, headers);
    return undefined;
  }

  const known = allowedVersions ? allowedVersions.includes(apiVersion) : API_VERSION.test(apiVersion);
  if (!known) {
    answer(404, { errors: 'Not Found' });
    return undefined;
  }

  const shop = shopOf(req);
  entry.shop = shop;
  const expected = shop ? store.accessTokenFor(shop) : undefined;
  if (!shop || expected === undefined) {
    answer(404, { errors: `Not Found (stand-in: no registered shop named by the ${SHOP_DOMAIN_HEADER} or Host header)` });
    return undefined;
  }
  if (req.headers[ACCESS_TOKEN_HEADER] !== expected) {
    answer(401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
    return undefined;
  }
  return shop;
}

function formatError(error: unknown): GraphQLFormattedError {
  if (error instanceof GraphQLError) return error.toJSON();
  return { message: error instanceof Error ? error.message : String(error) };
}
