import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LeakyBucket } from './cost.js';
import { handleControl } from './control-routes.js';
import { FaultPlan } from './faults.js';
import { FulfillmentPings } from './fulfillment-pings.js';
import { StandInFlow } from './flow.js';
import { StandInFulfillmentRequests } from './fulfillment-requests.js';
import { fulfillByHand } from './fulfillments.js';
import { handleGraphql, type GraphqlEndpoint } from './graphql-endpoint.js';
import { StandInHolds, StandInWebhooks } from './holds.js';
import { moveFulfillmentOrder } from './moves.js';
import { closeServer, failureMessage, HttpError, orderGid, sendJson, shopOf } from './http-io.js';
import { StandInOAuth } from './oauth.js';
import type { OrderSnapshot, Result } from './records.js';
import { RequestLog } from './request-log.js';
import { buildAdminSchema } from './resolvers.js';
import { seedOrder } from './seed.js';
import type { AdminStandIn, AdminStandInOptions } from './stand-in-api.js';
import { normalizeShop, StandInStore } from './store.js';

/**
 * A local Shopify Admin GraphQL API for tests and the demo: `POST /admin/api/<version>/graphql.json` per shop, with
 * access-token checks, query cost and a leaky bucket per shop, and a control surface under `/_stand-in/` to seed
 * orders, act as a merchant, and inject throttling and failures. See docs/shopify-stand-in.md.
 *
 * This file starts one: its state, its programmatic API (stand-in-api.ts), the routing of its HTTP calls to the
 * GraphQL endpoint (graphql-endpoint.ts), the OAuth endpoint (oauth.ts) and the control surface (control-routes.ts).
 */

export async function startAdminStandIn(options: AdminStandInOptions = {}): Promise<AdminStandIn> {
  const store = new StandInStore();
  const faults = new FaultPlan();
  const schema = buildAdminSchema();
  const maximumAvailable = options.bucket?.maximumAvailable ?? 2000;
  const restoreRate = options.bucket?.restoreRate ?? 100;
  const buckets = new Map<string, LeakyBucket>();
  const log = new RequestLog(options.requestLogSize ?? 1000);
  const allowedVersions =
    options.apiVersion !== undefined || options.apiVersions !== undefined
      ? [...(options.apiVersion !== undefined ? [options.apiVersion] : []), ...(options.apiVersions ?? [])]
      : undefined;
  for (const [shop, token] of Object.entries(options.accessTokens ?? {})) store.registerShop(shop, token);
  const webhooks = new StandInWebhooks(options.webhooks);
  const oauth = new StandInOAuth(options.app, () => Date.now(), (shop) => store.accessTokenFor(shop));
  const holds = new StandInHolds(store, (webhook) => webhooks.send(webhook));
  const pings = new FulfillmentPings(() => oauth.appSecret() ?? webhooks.secret());
  const requests = new StandInFulfillmentRequests(store, pings);
  const flow = new StandInFlow(() => oauth.appSecret() ?? webhooks.secret());
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

  const api: Omit<AdminStandIn, 'origin' | 'port' | 'close'> = {
    store,
    faults,
    registerShop: (shop, token) => store.registerShop(shop, token),
    configureApp: (app) => oauth.configure(app),
    accessTokenOf: (shop) => store.accessTokenFor(shop),
    uninstallApp: (shop) => {
      // The shop stays known (401, not 404): only the app's tokens stop working.
      store.registerShop(shop, `revoked-${randomUUID()}`);
      oauth.revokeShop(normalizeShop(shop));
      store.services.removeAll(shop);
    },
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
      if (created) requests.orderCreated(order);
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
    setRisk: (shop, orderId, recommendation) => {
      const order = store.findOrder(shop, orderGid(orderId));
      if (!order) return { ok: false, userErrors: [{ field: ['id'], message: 'Order does not exist' }] };
      order.risk = recommendation;
      return { ok: true, value: store.snapshot(order) };
    },
    releaseHold: (shop, orderId, input = {}) => snapshotResult(shop, orderGid(orderId), holds.release(shop, orderGid(orderId), input)),
    scheduleFulfillmentOrder: (shop, orderId, input) => snapshotResult(shop, orderGid(orderId), holds.schedule(shop, orderGid(orderId), input)),
    moveFulfillmentOrder: (shop, orderId, input) =>
      snapshotResult(shop, orderGid(orderId), moveFulfillmentOrder(store, (webhook) => webhooks.send(webhook), shop, orderGid(orderId), input)),
    openDueFulfillmentOrders: () => holds.openDue(),
    configureWebhooks: (target, webhookOptions) => webhooks.configure(target, webhookOptions),
    pauseWebhooks: (paused) => webhooks.pause(paused),
    sentWebhooks: () => webhooks.log(),
    webhooksSettled: () => webhooks.settled(),
    listFulfillmentServices: (shop) => structuredClone(store.services.list(shop)),
    stockFulfillmentService: (shop, serviceId, skus) => store.services.stock(shop, serviceId, skus),
    setAutomaticFulfillmentRequests: (on) => requests.setAutomatic(on),
    requestFulfillment: (shop, input) => snapshotResult(shop, store.findFulfillmentOrder(shop, input.fulfillmentOrderId)?.order.id ?? '', requests.requestFulfillment(shop, input)),
    requestCancellation: (shop, input) => snapshotResult(shop, store.findFulfillmentOrder(shop, input.fulfillmentOrderId)?.order.id ?? '', requests.requestCancellation(shop, input)),
    fulfillmentPings: () => pings.log(),
    dropNextFulfillmentPings: (n) => pings.dropNext(n),
    fulfillmentPingsSettled: () => pings.settled(),
    removeFulfillmentServices: (shop) => store.services.removeAll(shop),
    throttleNext: (n, scope) => faults.throttleNext(n, scope),
    setForcedThrottle: (on) => faults.setForcedThrottle(on),
    failNext: (n, failure, failOptions) => faults.failNext(n, failure, failOptions),
    drainBucket: (shop, level = 0) => bucketOf(shop).drain(level),
    throttleStatus: (shop) => bucketOf(shop).status(),
    requests: () => log.list(),
    flowTriggerCalls: (shop) => flow.triggerCalls(shop),
    sendFlowLifecycle: (input) => flow.sendLifecycle(input),
    sendFlowAction: (input) => flow.sendAction(input),
    reset: (resetOptions = {}) => {
      store.reset(resetOptions);
      flow.clear();
      holds.close();
      pings.clear();
      requests.setAutomatic(true);
      faults.clear();
      buckets.clear();
      log.clear();
    },
  };

  const endpoint: GraphqlEndpoint = { schema, store, faults, holds, allowedVersions, bucketOf, log, flow };

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
      return handleGraphql(endpoint, req, res, decodeURIComponent(graphqlPath[1]!));
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
    if (url.pathname === '/_stand-in' || url.pathname.startsWith('/_stand-in/')) return handleControl({ api, bucket: { maximumAvailable, restoreRate } }, req, res, url);
    throw new HttpError(404, { errors: 'Not Found' });
  }

  /** Code grant, token exchange, migration and refresh (oauth.ts); a token issued becomes the one the shop's Admin API calls must carry. */
  async function handleOAuth(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // An outage (failNext) reaches the token endpoint too.
    const shop = shopOf(req);
    const failure = faults.takeFailure(shop);
    if (failure && failure.failure !== 'network') return sendJson(res, failure.failure, { errors: failureMessage(failure.failure) });
    if (failure) return void req.socket.destroy();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const answer = oauth.answer(shop, Buffer.concat(chunks).toString('utf8'), req.headers['content-type']);
    if (answer.issued) store.registerShop(answer.issued.shop, answer.issued.accessToken);
    log.record({
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
      await pings.settled();
      await closeServer(server);
    },
  };
}
