import { StandInOAuth, type StandInApp } from './oauth.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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
} from 'graphql';
import { z } from 'zod';
import { actualQueryCost, LeakyBucket, requestedQueryCost, SINGLE_QUERY_MAX_COST, type ThrottleStatus } from './cost.js';
import { FaultPlan, type InjectedFailure } from './faults.js';
import { buildAdminSchema, rootValue, type ResolverContext } from './resolvers.js';
import { shopifyValidationError, shopifyVariableError } from './graphql-errors.js';
import { isHoldReason, StandInHolds, StandInWebhooks, type HoldInput, type ReleaseInput, type ScheduleInput, type SentWebhook, type WebhookTarget } from './holds.js';
import { seedOrder, SeedError } from './seed.js';
import {
  normalizeShop,
  StandInStore,
  type FulfillmentInput,
  type FulfillmentRecord,
  type OrderSnapshot,
  type Result,
  type TrackingInput,
} from './store.js';

/**
 * A local Shopify Admin GraphQL API for tests and the demo: `POST /admin/api/<version>/graphql.json` per shop, with
 * access-token checks, query cost and a leaky bucket per shop, and a control surface under `/_stand-in/` to seed
 * orders, act as a merchant, and inject throttling and failures. See docs/shopify-stand-in.md.
 */

/** The header that names the shop when calls arrive at the stand-in's own host (see routing.ts in ../admin). */
export const SHOP_DOMAIN_HEADER = 'x-shopify-shop-domain';
export const ACCESS_TOKEN_HEADER = 'x-shopify-access-token';

export interface AdminStandInOptions {
  port?: number;
  host?: string;
  /** shop domain → Admin API access token. More can be added with `registerShop`. */
  accessTokens?: Record<string, string>;
  /** The one Admin API version answered (others get 404, as a retired version would); see `apiVersions`. */
  apiVersion?: string;
  /** Admin API versions answered; any `YYYY-MM` or `unstable` when neither this nor `apiVersion` is given. */
  apiVersions?: readonly string[];
  bucket?: { maximumAvailable?: number; restoreRate?: number };
  /** How many GraphQL calls the request log keeps. */
  requestLogSize?: number;
  /** Where to deliver the fulfillment-order webhooks (holds, scheduled orders); none are sent without it. */
  webhooks?: WebhookTarget;
  /** The app whose session tokens `POST /admin/oauth/access_token` exchanges (see oauth.ts); also `configureApp`. */
  app?: StandInApp;
}

export interface RequestLogEntry {
  at: string;
  shop: string | null;
  apiVersion: string;
  /** HTTP status of the answer, or 0 for a dropped connection. */
  status: number;
  /** `query` or `mutation`, with its root fields, e.g. `mutation fulfillmentCreate`. */
  operation: string | null;
  requestedQueryCost: number | null;
  /** What the query cost once it ran (the bucket got the rest back); null when it did not run. */
  actualQueryCost: number | null;
  throttled: boolean;
  variables: Record<string, unknown> | null;
  /** The GraphQL document as sent. */
  document?: string;
  /** Why Shopify's schema refused the document or its variables (nothing ran). */
  refused?: string[];
}

export interface ManualFulfillmentInput {
  /** Line items to fulfill (by gid or SKU) and how many; every remaining item when omitted. */
  lineItems?: { id?: string; sku?: string; quantity?: number }[];
  trackingInfo?: TrackingInput;
  notifyCustomer?: boolean;
}

export interface AdminStandIn {
  readonly origin: string;
  readonly port: number;
  readonly store: StandInStore;
  readonly faults: FaultPlan;
  registerShop(shop: string, accessToken: string): void;
  /** The app (client id and secret) the OAuth endpoint answers for: token exchange and refresh. */
  configureApp(app: StandInApp): void;
  /** The access token the stand-in accepts for a shop now (after an exchange or refresh, the newest). */
  accessTokenOf(shop: string): string | undefined;
  /** Token exchanges (of session tokens) answered with a token so far. */
  tokenExchanges(): number;
  /** Non-expiring offline tokens exchanged for expiring ones so far (Shopify's migration grant). */
  tokenMigrations(): number;
  /** Whether the stand-in issued this access token as an expiring one (with a refresh token). */
  isExpiringToken(accessToken: string): boolean;
  /**
   * The merchant approves the install at Shopify's `/admin/oauth/authorize` address the app redirected to (its
   * `https://<shop>/admin/oauth/authorize?...`): the app's `redirect_uri` with the signed `code`, as Shopify sends the
   * browser back. Also answered over HTTP (`GET /admin/oauth/authorize`, 302).
   */
  approveInstall(authorizeUrl: string): string;
  /** Seeds an order from a webhook body (REST JSON); see seed.ts. */
  seedOrder(shop: string, body: unknown, options?: { replace?: boolean }): { order: OrderSnapshot; created: boolean };
  getOrder(shop: string, id: string): OrderSnapshot | undefined;
  listOrders(shop: string): OrderSnapshot[];
  /** A merchant fulfilling by hand in Shopify admin. */
  fulfillByHand(shop: string, orderId: string, input?: ManualFulfillmentInput): Result<FulfillmentRecord>;
  cancelOrder(shop: string, orderId: string): Result<OrderSnapshot>;
  /** Places a fulfillment hold (status ON_HOLD) and sends `fulfillment_orders/placed_on_hold`. */
  placeHold(shop: string, orderId: string, input?: HoldInput): Result<OrderSnapshot>;
  /** Releases holds; a fulfillment order without any left sends `fulfillment_orders/hold_released`. */
  releaseHold(shop: string, orderId: string, input?: ReleaseInput): Result<OrderSnapshot>;
  /** Makes a fulfillment order SCHEDULED until `fulfillAt`; then OPEN with `fulfillment_orders/scheduled_fulfillment_order_ready`. */
  scheduleFulfillmentOrder(shop: string, orderId: string, input: ScheduleInput): Result<OrderSnapshot>;
  /** Opens the scheduled fulfillment orders that are due now (it also happens by itself at `fulfillAt`). */
  openDueFulfillmentOrders(): number;
  /** Where webhooks go; `paused` keeps them from being delivered (logged all the same), as a lost delivery. */
  configureWebhooks(target: WebhookTarget | undefined, options?: { paused?: boolean }): void;
  pauseWebhooks(paused: boolean): void;
  sentWebhooks(): SentWebhook[];
  /** Resolves when every webhook delivery started so far has been answered. */
  webhooksSettled(): Promise<void>;
  throttleNext(n: number): void;
  setForcedThrottle(on: boolean): void;
  failNext(n: number, failure: InjectedFailure, options?: { retryAfterSeconds?: number }): void;
  /** Empties a shop's bucket down to `level` points, as a burst of other apps' calls would. */
  drainBucket(shop: string, level?: number): void;
  throttleStatus(shop: string): ThrottleStatus;
  requests(): RequestLogEntry[];
  /** Forgets orders, requests, buckets and injected faults; with `shops`, registered shops too. */
  reset(options?: { shops?: boolean }): void;
  close(): Promise<void>;
}

const graphqlBodySchema = z.object({
  query: z.string().min(1),
  variables: z.record(z.string(), z.unknown()).nullish(),
  operationName: z.string().nullish(),
});

const trackingSchema = z.object({
  company: z.string().nullish(),
  number: z.string().nullish(),
  url: z.string().nullish(),
  numbers: z.array(z.string()).nullish(),
  urls: z.array(z.string()).nullish(),
});

const manualFulfillmentSchema = z.object({
  lineItems: z
    .array(
      z
        .object({ id: z.string().optional(), sku: z.string().optional(), quantity: z.number().int().positive().optional() })
        .refine((l) => l.id !== undefined || l.sku !== undefined, 'each line item needs an id or a sku'),
    )
    .optional(),
  trackingInfo: trackingSchema.optional(),
  notifyCustomer: z.boolean().optional(),
});

const registerShopSchema = z.object({ shop: z.string().min(1), accessToken: z.string().min(1) });
const throttleSchema = z.object({
  next: z.number().int().min(0).optional(),
  forced: z.boolean().optional(),
  shop: z.string().optional(),
  drainTo: z.number().min(0).optional(),
});
const failSchema = z.object({
  next: z.number().int().min(1),
  status: z.union([z.number().int().min(400).max(599), z.literal('network')]),
  retryAfterSeconds: z.number().min(0).optional(),
});
const resetSchema = z.object({ shops: z.boolean().optional() });
const holdSchema = z.object({
  fulfillmentOrderId: z.string().optional(),
  reason: z
    .string()
    .transform((r) => r.toUpperCase())
    .refine(isHoldReason, 'reason must be one of Shopify\'s FulfillmentHoldReason values')
    .optional(),
  reasonNotes: z.string().nullish(),
  handle: z.string().max(64).optional(),
});
const releaseSchema = z.object({ fulfillmentOrderId: z.string().optional(), holdIds: z.array(z.string()).optional() });
const scheduleSchema = z.object({ fulfillmentOrderId: z.string().optional(), fulfillAt: z.string().min(1) });
const webhooksSchema = z.object({ url: z.string().url().optional(), secret: z.string().min(1).optional(), apiVersion: z.string().optional(), paused: z.boolean().optional() });

const API_VERSION = /^(\d{4}-\d{2}|unstable)$/;
const MAX_BODY_BYTES = 5 * 1024 * 1024;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(typeof body === 'string' ? body : JSON.stringify(body));
  }
}

export async function startAdminStandIn(options: AdminStandInOptions = {}): Promise<AdminStandIn> {
  const store = new StandInStore();
  const faults = new FaultPlan();
  const schema = buildAdminSchema();
  const maximumAvailable = options.bucket?.maximumAvailable ?? 2000;
  const restoreRate = options.bucket?.restoreRate ?? 100;
  const buckets = new Map<string, LeakyBucket>();
  const log: RequestLogEntry[] = [];
  const logSize = options.requestLogSize ?? 1000;
  const allowedVersions =
    options.apiVersion !== undefined || options.apiVersions !== undefined
      ? [...(options.apiVersion !== undefined ? [options.apiVersion] : []), ...(options.apiVersions ?? [])]
      : undefined;
  for (const [shop, token] of Object.entries(options.accessTokens ?? {})) store.registerShop(shop, token);
  const webhooks = new StandInWebhooks(options.webhooks);
  const oauth = new StandInOAuth(options.app, () => Date.now(), (shop) => store.accessTokenFor(shop));
  const holds = new StandInHolds(store, (webhook) => webhooks.send(webhook));
  const snapshotResult = (shop: string, orderId: string, result: Result<unknown>): Result<OrderSnapshot> =>
    result.ok ? { ok: true, value: store.snapshot(store.findOrder(shop, orderId)!) } : result;

  const bucketOf = (shop: string) => {
    const key = normalizeShop(shop);
    let bucket = buckets.get(key);
    if (!bucket) {
      bucket = new LeakyBucket(maximumAvailable, restoreRate);
      buckets.set(key, bucket);
    }
    return bucket;
  };
  const record = (entry: RequestLogEntry) => {
    log.push(entry);
    if (log.length > logSize) log.splice(0, log.length - logSize);
  };

  const api: Omit<AdminStandIn, 'origin' | 'port' | 'close'> = {
    store,
    faults,
    registerShop: (shop, token) => store.registerShop(shop, token),
    configureApp: (app) => oauth.configure(app),
    accessTokenOf: (shop) => store.accessTokenFor(shop),
    tokenExchanges: () => oauth.exchanged(),
    tokenMigrations: () => oauth.migratedTokens(),
    isExpiringToken: (token) => oauth.isExpiring(token),
    approveInstall: (authorizeUrl) => {
      const url = new URL(authorizeUrl);
      const answer = oauth.authorize(normalizeShop(url.hostname), url.searchParams);
      if ('error' in answer) throw new Error(answer.error);
      return answer.location;
    },
    seedOrder: (shop, body, seedOptions) => {
      const { order, created } = seedOrder(store, shop, body, seedOptions);
      return { order: store.snapshot(order), created };
    },
    getOrder: (shop, id) => {
      const order = store.findOrder(shop, orderGid(id));
      return order ? store.snapshot(order) : undefined;
    },
    listOrders: (shop) => [...store.ordersOf(shop).values()].map((o) => store.snapshot(o)),
    fulfillByHand: (shop, orderId, input = {}) => fulfillByHand(store, shop, orderGid(orderId), input),
    cancelOrder: (shop, orderId) => {
      const result = store.cancelOrder(shop, orderGid(orderId));
      return result.ok ? { ok: true, value: store.snapshot(result.value) } : result;
    },
    placeHold: (shop, orderId, input = {}) => snapshotResult(shop, orderGid(orderId), holds.place(shop, orderGid(orderId), input)),
    releaseHold: (shop, orderId, input = {}) => snapshotResult(shop, orderGid(orderId), holds.release(shop, orderGid(orderId), input)),
    scheduleFulfillmentOrder: (shop, orderId, input) => snapshotResult(shop, orderGid(orderId), holds.schedule(shop, orderGid(orderId), input)),
    openDueFulfillmentOrders: () => holds.openDue(),
    configureWebhooks: (target, webhookOptions) => webhooks.configure(target, webhookOptions),
    pauseWebhooks: (paused) => webhooks.pause(paused),
    sentWebhooks: () => webhooks.log(),
    webhooksSettled: () => webhooks.settled(),
    throttleNext: (n) => faults.throttleNext(n),
    setForcedThrottle: (on) => faults.setForcedThrottle(on),
    failNext: (n, failure, failOptions) => faults.failNext(n, failure, failOptions),
    drainBucket: (shop, level = 0) => bucketOf(shop).drain(level),
    throttleStatus: (shop) => bucketOf(shop).status(),
    requests: () => log.map((e) => ({ ...e })),
    reset: (resetOptions = {}) => {
      store.reset(resetOptions);
      holds.close();
      faults.clear();
      buckets.clear();
      log.length = 0;
    },
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof HttpError) return sendJson(res, error.status, error.body);
      sendJson(res, 500, { errors: `stand-in failure: ${error instanceof Error ? error.message : String(error)}` });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const graphqlPath = /^\/admin\/api\/([^/]+)\/graphql\.json$/.exec(url.pathname);
    if (graphqlPath) {
      if (req.method !== 'POST') throw new HttpError(405, { errors: 'Method Not Allowed' });
      return handleGraphql(req, res, decodeURIComponent(graphqlPath[1]!));
    }
    if (url.pathname === '/admin/oauth/authorize' && req.method === 'GET') {
      const shop = shopOf(req);
      if (!shop) throw new HttpError(404, { errors: 'Not Found (stand-in: no shop named by the X-Shopify-Shop-Domain or Host header)' });
      const answer = oauth.authorize(shop, url.searchParams);
      if ('error' in answer) throw new HttpError(400, { errors: answer.error });
      res.writeHead(302, { location: answer.location }).end();
      return;
    }
    if (url.pathname === '/admin/oauth/access_token') {
      if (req.method !== 'POST') throw new HttpError(405, { errors: 'Method Not Allowed' });
      return handleOAuth(req, res);
    }
    if (url.pathname === '/_stand-in' || url.pathname.startsWith('/_stand-in/')) return handleControl(req, res, url);
    throw new HttpError(404, { errors: 'Not Found' });
  }

  /** Code grant, token exchange, migration and refresh (oauth.ts); a token issued becomes the one the shop's Admin API calls must carry. */
  async function handleOAuth(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // An outage (failNext) reaches the token endpoint too.
    const failure = faults.takeFailure();
    if (failure && failure.failure !== 'network') return sendJson(res, failure.failure, { errors: failureMessage(failure.failure) });
    if (failure) return void req.socket.destroy();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const shop = shopOf(req);
    const answer = oauth.answer(shop, Buffer.concat(chunks).toString('utf8'), req.headers['content-type']);
    if (answer.issued) store.registerShop(answer.issued.shop, answer.issued.accessToken);
    record({
      at: new Date().toISOString(),
      shop,
      apiVersion: '',
      status: answer.status,
      operation: answer.kind,
      requestedQueryCost: null,
      actualQueryCost: null,
      throttled: false,
      variables: null,
    });
    sendJson(res, answer.status, answer.body);
  }

  /**
   * What Shopify checks before it looks at a request, in its order: injected failures (a load balancer or an outage),
   * the API version, the shop, the access token. Answers and returns undefined when the request stops here.
   */
  function admit(
    req: IncomingMessage,
    apiVersion: string,
    entry: RequestLogEntry,
    answer: (status: number, body: unknown, headers?: Record<string, string>) => void,
  ): string | undefined {
    const failure = faults.takeFailure();
    if (failure) {
      if (failure.failure === 'network') {
        entry.status = 0;
        record(entry);
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

  async function handleGraphql(req: IncomingMessage, res: ServerResponse, apiVersion: string): Promise<void> {
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
      record(entry);
      sendJson(res, status, body, headers);
    };
    const refuse = (errors: { message: string }[]) => {
      entry.refused = errors.map((e) => e.message);
      answer(200, { errors });
    };

    const shop = admit(req, apiVersion, entry, answer);
    if (!shop) return;

    const raw = await readJson(req);
    const body = graphqlBodySchema.safeParse(raw);
    if (!body.success) return answer(400, { errors: { query: 'Required parameter missing or invalid' } });
    const variables = body.data.variables ?? {};
    entry.variables = variables;

    let document: DocumentNode;
    try {
      document = parse(body.data.query);
    } catch (error) {
      return answer(200, { errors: [formatError(error)] });
    }
    entry.document = body.data.query;
    // Shopify's own schema of the pinned version (admin-schema.ts): a document or variables it would refuse are refused
    // here in its words and shape, and nothing runs.
    const validationErrors = validate(schema, document);
    if (validationErrors.length > 0) return refuse(validationErrors.map(shopifyValidationError));
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
    if (faults.takeThrottle()) bucket.drain(0);
    if (!bucket.tryTake(cost)) {
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
    const context: ResolverContext = { shop, store };
    const result = await execute({
      schema,
      document,
      rootValue,
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

  async function handleControl(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const parts = url.pathname.split('/').filter(Boolean).slice(1).map(decodeURIComponent);
    const method = req.method ?? 'GET';
    const route = `${method} /${parts.map((p, i) => (parts[0] === 'shops' && (i === 1 || i === 3) ? ':' : p)).join('/')}`;
    const shop = parts[1] ?? '';
    const orderId = parts[3] ?? '';
    switch (route) {
      case 'GET /':
        return sendJson(res, 200, {
          shops: store.shopDomains(),
          faults: faults.describe(),
          bucket: { maximumAvailable, restoreRate },
          routes: [
            'POST /_stand-in/shops {shop, accessToken}',
            'GET  /_stand-in/shops/:shop/orders',
            'POST /_stand-in/shops/:shop/orders   (webhook body; ?replace=true)',
            'GET  /_stand-in/shops/:shop/orders/:id',
            'POST /_stand-in/shops/:shop/orders/:id/fulfill {lineItems?, trackingInfo?, notifyCustomer?}',
            'POST /_stand-in/shops/:shop/orders/:id/cancel',
            'POST /_stand-in/shops/:shop/orders/:id/hold {fulfillmentOrderId?, reason?, reasonNotes?, handle?}',
            'POST /_stand-in/shops/:shop/orders/:id/release-hold {fulfillmentOrderId?, holdIds?}',
            'POST /_stand-in/shops/:shop/orders/:id/schedule {fulfillmentOrderId?, fulfillAt}',
            'GET  /_stand-in/webhooks',
            'POST /_stand-in/webhooks {url?, secret?, apiVersion?, paused?}',
            'GET  /_stand-in/shops/:shop/throttle-status',
            'POST /_stand-in/throttle {next?, forced?, shop?, drainTo?}',
            'POST /_stand-in/fail {next, status: 429|5xx|"network", retryAfterSeconds?}',
            'GET  /_stand-in/requests',
            'POST /_stand-in/reset {shops?}',
          ],
        });
      case 'GET /shops':
        return sendJson(res, 200, { shops: store.shopDomains() });
      case 'POST /shops': {
        const body = parseBody(registerShopSchema, await readJson(req));
        store.registerShop(body.shop, body.accessToken);
        return sendJson(res, 201, { shop: normalizeShop(body.shop) });
      }
      case 'GET /shops/:/orders':
        return sendJson(res, 200, { orders: api.listOrders(shop) });
      case 'POST /shops/:/orders': {
        try {
          const seeded = api.seedOrder(shop, await readJson(req), { replace: url.searchParams.get('replace') === 'true' });
          return sendJson(res, seeded.created ? 201 : 200, seeded);
        } catch (error) {
          if (error instanceof SeedError) throw new HttpError(400, { error: error.message });
          throw error;
        }
      }
      case 'GET /shops/:/orders/:': {
        const order = api.getOrder(shop, orderId);
        if (!order) throw new HttpError(404, { error: `no order ${orderGid(orderId)} in ${shop}` });
        return sendJson(res, 200, { order });
      }
      case 'POST /shops/:/orders/:/fulfill': {
        const body = parseBody(manualFulfillmentSchema, await readJson(req));
        const result = api.fulfillByHand(shop, orderId, body);
        return result.ok ? sendJson(res, 201, { fulfillment: result.value }) : sendJson(res, 422, { userErrors: result.userErrors });
      }
      case 'POST /shops/:/orders/:/cancel': {
        const result = api.cancelOrder(shop, orderId);
        return result.ok ? sendJson(res, 200, { order: result.value }) : sendJson(res, 422, { userErrors: result.userErrors });
      }
      case 'POST /shops/:/orders/:/hold':
      case 'POST /shops/:/orders/:/release-hold':
      case 'POST /shops/:/orders/:/schedule': {
        const raw = await readJson(req, true);
        const result = route.endsWith('/hold')
          ? api.placeHold(shop, orderId, parseBody(holdSchema, raw) as HoldInput)
          : route.endsWith('/release-hold')
            ? api.releaseHold(shop, orderId, parseBody(releaseSchema, raw))
            : api.scheduleFulfillmentOrder(shop, orderId, parseBody(scheduleSchema, raw));
        return result.ok ? sendJson(res, 200, { order: result.value }) : sendJson(res, 422, { userErrors: result.userErrors });
      }
      case 'GET /webhooks':
        return sendJson(res, 200, { webhooks: api.sentWebhooks() });
      case 'POST /webhooks': {
        const body = parseBody(webhooksSchema, await readJson(req, true));
        if (body.url !== undefined || body.secret !== undefined) {
          if (!body.url || !body.secret) throw new HttpError(400, { error: 'url and secret go together' });
          api.configureWebhooks({ url: body.url, secret: body.secret, apiVersion: body.apiVersion }, { paused: body.paused });
        } else if (body.paused !== undefined) api.pauseWebhooks(body.paused);
        return sendJson(res, 200, { configured: true });
      }
      case 'GET /shops/:/throttle-status':
        return sendJson(res, 200, { throttleStatus: api.throttleStatus(shop) });
      case 'POST /throttle': {
        const body = parseBody(throttleSchema, await readJson(req));
        if (body.next !== undefined) faults.throttleNext(body.next);
        if (body.forced !== undefined) faults.setForcedThrottle(body.forced);
        if (body.drainTo !== undefined) {
          if (!body.shop) throw new HttpError(400, { error: 'drainTo needs a shop' });
          api.drainBucket(body.shop, body.drainTo);
        }
        return sendJson(res, 200, { faults: faults.describe() });
      }
      case 'POST /fail': {
        const body = parseBody(failSchema, await readJson(req));
        faults.failNext(body.next, body.status, body.retryAfterSeconds !== undefined ? { retryAfterSeconds: body.retryAfterSeconds } : {});
        return sendJson(res, 200, { faults: faults.describe() });
      }
      case 'GET /requests':
        return sendJson(res, 200, { requests: api.requests() });
      case 'POST /reset': {
        const body = parseBody(resetSchema, await readJson(req, true));
        api.reset(body);
        return sendJson(res, 200, { reset: true });
      }
      default:
        throw new HttpError(404, { error: `no stand-in route ${method} ${url.pathname}` });
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    ...api,
    origin: `http://${host}:${address.port}`,
    port: address.port,
    close: async () => {
      holds.close();
      await webhooks.settled();
      await closeServer(server);
    },
  };
}

function shopOf(req: IncomingMessage): string | null {
  const named = req.headers[SHOP_DOMAIN_HEADER];
  if (typeof named === 'string' && named.trim() !== '') return normalizeShop(named);
  // Calls that reach the stand-in under the shop's own name (a hosts-file entry, a proxy) carry it in Host.
  const host = req.headers.host?.replace(/:\d+$/, '');
  if (host && /[a-z]/i.test(host) && host !== 'localhost') return normalizeShop(host);
  return null;
}

/** Accepts a gid, or the numeric tail of an Order gid (handy in a URL). */
function orderGid(id: string): string {
  return /^\d+$/.test(id) ? `gid://shopify/Order/${id}` : id;
}

function fulfillByHand(store: StandInStore, shop: string, orderId: string, input: ManualFulfillmentInput): Result<FulfillmentRecord> {
  const order = store.findOrder(shop, orderId);
  if (!order) return { ok: false, userErrors: [{ field: ['id'], message: `Order ${orderId} does not exist.` }] };
  const open = order.fulfillmentOrders.filter((fo) => fo.status === 'OPEN' || fo.status === 'IN_PROGRESS');
  const groups = new Map<string, { id: string; quantity: number }[]>();
  const add = (foId: string, id: string, quantity: number) => {
    const list = groups.get(foId) ?? [];
    list.push({ id, quantity });
    groups.set(foId, list);
  };
  if (!input.lineItems) {
    for (const fo of open) for (const l of fo.lineItems) if (l.remainingQuantity > 0) add(fo.id, l.id, l.remainingQuantity);
  } else {
    for (const wanted of input.lineItems) {
      const lineItem = order.lineItems.find((li) => (wanted.id ? li.id === wanted.id : li.sku === wanted.sku));
      if (!lineItem) {
        return { ok: false, userErrors: [{ field: ['lineItems'], message: `Order ${order.id} has no line item ${wanted.id ?? wanted.sku}.` }] };
      }
      let left = wanted.quantity;
      for (const fo of open) {
        for (const l of fo.lineItems) {
          if (l.lineItemId !== lineItem.id || l.remainingQuantity === 0) continue;
          const take = left === undefined ? l.remainingQuantity : Math.min(left, l.remainingQuantity);
          if (take > 0) add(fo.id, l.id, take);
          if (left !== undefined) left -= take;
        }
      }
      if (left !== undefined && left > 0) {
        return {
          ok: false,
          userErrors: [{ field: ['lineItems'], message: `Only ${wanted.quantity! - left} of ${lineItem.id} remain to be fulfilled.` }],
        };
      }
    }
  }
  const fulfillment: FulfillmentInput = {
    lineItemsByFulfillmentOrder: [...groups].map(([fulfillmentOrderId, items]) => ({ fulfillmentOrderId, fulfillmentOrderLineItems: items })),
    trackingInfo: input.trackingInfo ?? null,
    notifyCustomer: input.notifyCustomer ?? false,
  };
  return store.createFulfillment(shop, fulfillment, 'merchant');
}

function failureMessage(status: number): string {
  if (status === 429) return 'Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.';
  if (status === 503) return 'Service Unavailable';
  if (status >= 500) return 'Internal Server Error';
  return 'Error';
}

function formatError(error: unknown): GraphQLFormattedError {
  if (error instanceof GraphQLError) return error.toJSON();
  return { message: error instanceof Error ? error.message : String(error) };
}

function parseBody<T>(schema: z.ZodType<T>, raw: unknown): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new HttpError(400, { error: parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ') });
  }
  return parsed.data;
}

async function readJson(req: IncomingMessage, emptyIsObject = false): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, { error: 'body too large' });
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') {
    if (emptyIsObject) return {};
    throw new HttpError(400, { error: 'a JSON body is required' });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, { error: 'the body is not valid JSON' });
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}

export type { InjectedFailure, ThrottleStatus };
