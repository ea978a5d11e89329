import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';
import type { PrintIdScope } from '../bridge/ports.js';
import type { OperatorActionDeps } from '../bridge/operator-actions.js';
import { RedisFlowActionRuns } from '../flow/action-runs.js';
import { flowSignatureCheck } from '../flow/flow-requests.js';
import type { Express } from 'express';
import { PostgresOrderStore } from '../storage/order-store.js';
import { pingDatabase } from '../db/database.js';
import type { MappingRegistry } from '../mapping/registry.js';
import { formatFileProblem } from '../mapping/errors.js';
import { addWebhookJob, createQueues, enqueuePrintEvent, type Queues } from '../queue/queues.js';
import { QueueScheduler } from '../queue/scheduler.js';
import { redisDurabilityCheck } from '../redis-durability.js';
import { mountAuthRoutes } from '../shopify/auth-routes.js';
import { parseJsonLossless } from '../shopify/json.js';
import { hmacWebhookVerifier } from '../shopify/webhook-hmac.js';
import { fulfillmentCallbackVerifier } from '../shopify/fulfillment-callback.js';
import { acceptsFulfillmentPings } from '../shops/fulfillment-mode.js';
import { createWebApp } from '../web/app.js';
import type { LivenessMonitor } from '../web/liveness.js';
import { createAdminRouter } from '../admin/router.js';
import { RedisLoginGuard } from '../admin/login-guard.js';
import { queueFailedJobs, type AdminFailedJobs } from '../admin/failed-jobs.js';
import { registryAdminMappings } from '../admin/mappings.js';
import { registryCarrierNames } from '../mapping/tracking-lookup.js';
import { createPostbackRouter } from '../web/postbacks.js';
import type { AppDependencies } from './dependencies.js';
import type { RuntimeOptions } from './runtime.js';

/**
 * The web role: webhooks, postbacks, OAuth and the admin pages, on the request Redis connection (requests fail fast
 * on it: 503 and Shopify retries), with a store and queues of its own on that connection.
 */
export interface WebSide {
  server: Server;
  url: string;
  /** Takes no new requests; those under way finish. */
  stopListening(): Promise<void>;
  /** After the workers stopped: the web side's queue connections. */
  closeQueues(): Promise<void>;
}

export async function startWebSide(built: AppDependencies, options: RuntimeOptions, liveness: LivenessMonitor): Promise<WebSide> {
  const { config, logger } = options;
  const { requestRedis, database, registry, metrics } = built;
  const prefix = config.REDIS_PREFIX;
  const requestStore = new PostgresOrderStore({ database, redis: requestRedis, prefix });
  const webQueues = createQueues(requestRedis, prefix);
  const intakeQueue = webQueues.webhooks;
  const actions = webOperatorActions(built, requestStore, webQueues, logger);
  const app = createWebApp({
    logger,
    metrics,
    metricsToken: config.METRICS_TOKEN,
    trustProxy: config.TRUST_PROXY,
    liveness: () => liveness.check(),
    webhooks: {
      verify: hmacWebhookVerifier(config.SHOPIFY_API_SECRET!),
      // The body is kept with the claim (one round trip), so the job that follows carries its reference only.
      claim: (keys, body) => requestStore.claimWebhook(keys, body),
      enqueue: (job) => addWebhookJob(intakeQueue, job),
    },
    readiness: [
      { name: 'redis', check: async () => ({ ok: (await requestRedis.ping()) === 'PONG' }) },
      { name: 'redis-durability', check: redisDurabilityCheck(requestRedis, config.REDIS_ALLOW_VOLATILE) },
      { name: 'database', check: async () => ({ ok: await pingDatabase(database) }) },
      {
        name: 'mappings',
        check: async () => ({ ok: registry.ready(), detail: describeMappings(registry) }),
      },
    ],
    fulfillmentCallbacks: {
      verify: fulfillmentCallbackVerifier(config.SHOPIFY_API_SECRET!),
      acceptsPings: (shop) => acceptsFulfillmentPings({ services: built.fulfillmentServices, installed: async (s) => (await built.sessions.tokenKind(s)) !== undefined }, shop),
      enqueue: (shop, kind) => new QueueScheduler(webQueues).takeFulfillmentRequests(shop, kind === 'CANCELLATION_REQUEST' ? 'cancellation callback' : 'fulfillment callback'),
    },
    flow: {
      signature: flowSignatureCheck(config.SHOPIFY_API_SECRET!),
      actions: { actions: { ...actions, logger: logger.child({ component: 'flow' }) }, runs: new RedisFlowActionRuns(requestRedis, prefix) },
      triggers: built.flowTriggers,
      logger,
    },
    mount: (express) => mountRoutes(express, built, options, requestStore, actions, webQueues),
  });
  const server = app.listen(options.port ?? config.PORT, options.host ?? '0.0.0.0');
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  } catch (error) {
    await webQueues.close().catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(code === 'EADDRINUSE' ? `port ${options.port ?? config.PORT} is already in use (set PORT to another one)` : (error as Error).message);
  }
  const address = server.address() as AddressInfo;
  const url = `http://${options.host ?? '127.0.0.1'}:${address.port}`;
  logger.info({ url }, 'web: listening');
  return {
    server,
    url,
    async stopListening() {
      server.closeIdleConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    closeQueues: () => webQueues.close(),
  };
}

type WebOperatorActions = OperatorActionDeps & { failedJobs: AdminFailedJobs };

/**
 * What an order's actions need on the web side (the admin pages' buttons and Shopify Flow's actions): the request
 * path's store and queues, and the order's failed jobs.
 */
function webOperatorActions(built: AppDependencies, requestStore: PostgresOrderStore, webQueues: Queues, logger: RuntimeOptions['logger']): WebOperatorActions {
  const failedJobs = queueFailedJobs([webQueues.webhooks, webQueues.orders, webQueues.shopify, webQueues.events], async (data) => {
    // A webhook the worker could not read is shown with the order its body names.
    const webhook = await webhookJobOrder(data, (shop, id) => requestStore.webhookBodies().get(shop, id));
    if (webhook) return webhook;
    const event = (data as { event?: { printOrderId?: unknown; sourceOrderId?: unknown } } | undefined)?.event;
    const link =
      (typeof event?.printOrderId === 'string' ? await requestStore.findByPrintOrderId(event.printOrderId, printIdScope(data)) : undefined) ??
      (typeof event?.sourceOrderId === 'string' ? await requestStore.findBySourceOrderId(event.sourceOrderId, (data as { shop?: string } | undefined)?.shop) : undefined);
    return link ? { shop: link.shop, orderId: link.orderId } : undefined;
  });
  return {
    store: requestStore,
    mapping: built.deps.mapping,
    printAccounts: built.printAccounts,
    scheduler: new QueueScheduler(webQueues),
    connections: built.deps.connections,
    failedJobs,
    logger,
    clock: built.deps.clock,
  };
}

/** The routes beside the webhooks: OAuth, the admin pages (operator and embedded), the postbacks. */
function mountRoutes(express: Express, built: AppDependencies, options: RuntimeOptions, requestStore: PostgresOrderStore, actions: WebOperatorActions, webQueues: Queues): void {
  const { config, logger } = options;
  const { requestRedis, registry, renderPool, shopify, sessions, shopSettings, adminClients, metrics, setup } = built;
  const prefix = config.REDIS_PREFIX;
  mountAuthRoutes(express, { shopify, sessions, logger });
  const sessionSecrets = [config.ADMIN_TOKEN, config.SHOPIFY_API_SECRET].filter((s): s is string => Boolean(s));
  if (sessionSecrets.length > 0) {
    const adminLogger = logger.child({ component: 'admin' });
    express.use(
      createAdminRouter({
        store: requestStore,
        actions: { ...actions, logger: adminLogger },
        failedJobs: actions.failedJobs,
        mappings: registryAdminMappings(registry, renderPool),
        carriers: registryCarrierNames(registry),
        queues: [webQueues.webhooks, webQueues.orders, webQueues.events, webQueues.shopify, webQueues.maintenance],
        adminToken: config.ADMIN_TOKEN,
        loginGuard: new RedisLoginGuard(requestRedis, prefix, built.deps.clock),
        embedded:
          config.SHOPIFY_API_KEY && config.SHOPIFY_API_SECRET
            ? {
                apiKey: config.SHOPIFY_API_KEY,
                decodeSessionToken: (token) => shopify.session.decodeSessionToken(token),
                ensureInstalled: async (shop, sessionToken) => {
                  const need = await sessions.tokenNeed(shop);
                  if (!need) return;
                  await sessions.exchangeSessionToken(shop, sessionToken);
                  await requestStore.markShopActive(shop);
                  if (need === 'non-expiring') logger.info({ shop }, 'non-expiring offline access token replaced by an expiring one (token exchange on the embedded open)');
                  else logger.info({ shop, reason: need }, 'app installed: offline access token obtained by token exchange');
                },
              }
            : undefined,
        shopSetup: {
          deps: setup,
          settings: shopSettings,
          fulfillmentMode: built.fulfillmentMode,
          editor: {
            registry,
            renderer: renderPool,
            latestOrders: async (shop, count) => {
              const api = await adminClients.forShop(shop);
              const bodies = [];
              for (const order of await api.latestOrders(count)) {
                const body = await api.getOrderAsWebhookBody(order.id);
                if (body) bodies.push({ name: order.name, orderId: order.id, body });
              }
              return bodies;
            },
          },
        },
        isShopConnected: async (shop) => (await sessions.accessToken(shop)) !== undefined,
        sessionSecrets,
        appUrl: config.APP_URL,
        logger: adminLogger,
      }),
    );
  } else {
    logger.warn('admin pages are off: neither ADMIN_TOKEN nor SHOPIFY_API_SECRET is configured');
  }
  express.use(
    createPostbackRouter({
      tokens: config.POSTBACK_TOKEN ?? [],
      shopOfToken: (token) => shopSettings.shopOfPostbackToken(token),
      basicAuth: config.POSTBACK_BASIC_AUTH,
      enqueue: (job) => enqueuePrintEvent(webQueues.events, job),
      keepUnreadable: (entry) => requestStore.keepUnreadablePostback(entry),
      logger,
      onReceived: (event, outcome) => metrics.postbacks.inc({ event, outcome }),
    }),
  );
}

/**
 * The mapping check's line in `/readyz`, which anyone can read: the first problems as `FILE:LINE:COL message` with the
 * file's own name (not the server's path) and no store named (a conflict names the stores two files claim). The whole
 * text is `print-bridge mappings check`'s.
 */
function describeMappings(registry: MappingRegistry): string {
  const problems = registry.problems();
  // Every file the registry knows, longest path first, each replaced by its own name wherever a message names it (a
  // conflict names the other file): exact, whatever characters the operator's paths hold.
  const paths = [...new Set([...problems.map((p) => p.file), ...registry.mappings().map((m) => m.file)])].filter((f) => f.includes('/'));
  paths.sort((a, b) => b.length - a.length);
  const withoutPaths = (text: string) => paths.reduce((t, path) => t.split(path).join(basename(path)), text);
  const shown = problems.slice(0, 3).map((p) => withoutPaths(formatFileProblem(p)).replace(/[a-z0-9][a-z0-9-]*\.myshopify\.com/gi, 'a store'));
  const more = problems.length > shown.length ? ` (+${problems.length - shown.length} more)` : '';
  return `${registry.mappings().length} file(s) in use, ${problems.length} problem(s)${shown.length ? `: ${shown.join('; ')}${more}` : ''}`;
}

/** The store and order a failed webhook job is about: its shop, and the order id its body names (exact, as text). */
async function webhookJobOrder(
  data: unknown,
  bodyOf: (shop: string, webhookId: string) => Promise<string | undefined>,
): Promise<{ shop: string; orderId: string } | undefined> {
  const job = data as { shop?: unknown; webhookId?: unknown; body?: unknown; topic?: unknown } | undefined;
  if (typeof job?.shop !== 'string' || typeof job.webhookId !== 'string' || typeof job.topic !== 'string' || !job.topic.startsWith('orders/')) return undefined;
  const raw = typeof job.body === 'string' ? job.body : await bodyOf(job.shop, job.webhookId);
  if (raw === undefined) return undefined;
  try {
    const body = parseJsonLossless(raw) as { id?: unknown; order?: { id?: unknown } };
    const id = body.id ?? body.order?.id;
    return typeof id === 'number' || (typeof id === 'string' && /^\d+$/.test(id)) ? { shop: job.shop, orderId: `gid://shopify/Order/${String(id)}` } : undefined;
  } catch {
    return undefined;
  }
}

/** A print-event job's token scope (its store, or the operator's account): a failed postback is shown on that scope's order. */
function printIdScope(data: unknown): PrintIdScope {
  const shop = (data as { shop?: unknown } | undefined)?.shop;
  return typeof shop === 'string' ? { shop } : 'env-account';
}
