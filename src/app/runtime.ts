import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { PostgresOrderStore } from '../storage/order-store.js';
import type { Database } from '../db/database.js';
import { describeDatabase, openAppDatabase } from '../db/open.js';
import { pingDatabase } from '../db/database.js';
import type { BridgeDeps } from '../bridge/ports.js';
import { type Config, printApiSettings } from '../config.js';
import { MappingRegistry } from '../mapping/registry.js';
import { Metrics } from '../metrics.js';
import { ORDER_STATUSES } from '../orders/status.js';
import { formatFileProblem } from '../mapping/errors.js';
import { PrintServiceClient } from '../print-service/client.js';
import { PrintAccounts } from '../shops/print-accounts.js';
import { ShopSettingsStore } from '../shops/settings-store.js';
import { StoreMappingSync } from '../shops/mapping-sync.js';
import type { SetupDeps } from '../shops/setup.js';
import { accountClientOptions, shopSetupDeps } from './shop-setup.js';
import { cachingLookup, systemLookup, type HostLookup } from '../net/host-lookup.js';
import { artworkHostProblems } from '../mapping/artwork-hosts.js';
import { createQueues, enqueuePrintEvent, enqueueReexamine, enqueueWebhook, type Queues } from '../queue/queues.js';
import { QueueScheduler } from '../queue/scheduler.js';
import { startWorkers, type Workers } from '../queue/workers.js';
import { createRedis, waitForRedis } from '../redis.js';
import { checkRedisDurability, redisDurabilityCheck } from '../redis-durability.js';
import { configureAdminApiOrigin } from '../shopify/admin/routing.js';
import { mountAuthRoutes } from '../shopify/auth-routes.js';
import { ShopSessions } from '../shopify/sessions.js';
import { shopifyApiFromConfig } from '../shopify/shopify-api.js';
import { parseJsonLossless } from '../shopify/json.js';
import { hmacWebhookVerifier } from '../shopify/webhook-hmac.js';
import { createWebApp } from '../web/app.js';
import { LivenessMonitor } from '../web/liveness.js';
import { createAdminRouter } from '../admin/router.js';
import { RedisLoginGuard } from '../admin/login-guard.js';
import { queueFailedJobs } from '../admin/failed-jobs.js';
import { registryAdminMappings } from '../admin/mappings.js';
import { createPostbackRouter } from '../web/postbacks.js';
import { adminApiFulfillmentPort } from '../adapters/fulfillment-port.js';
import { registryTrackingLookup } from '../mapping/tracking-lookup.js';
import { maintenanceRunner, scheduleMaintenance } from './maintenance.js';
import { registryMappingPort } from '../adapters/mapping-port.js';
import { MappingRenderPool } from '../mapping/render-pool.js';
import { releaseWaitingOrders, sessionConnections } from './waiting.js';
import { printEventConfirmer } from '../bridge/confirm-print-event.js';
import { adminApiEffects, ShopifyAdminClients } from '../adapters/shopify-effects.js';

export interface RuntimeOptions {
  config: Config;
  roles: { web: boolean; worker: boolean };
  logger: Logger;
  /** Tests and the demo: how long a killed worker's job stays locked before another takes it. */
  lockDurationMs?: number;
  /** Listen on this port instead of PORT (0: any free port). */
  port?: number;
  host?: string;
  /** A database already open (the demo shares one); otherwise the configured one is opened, migrated and closed. */
  database?: Database;
  /**
   * How host names are resolved for merchants' print accounts and artwork hosts (src/net/host-lookup.ts); the system
   * resolver unless tests or the demo answer for their own names.
   */
  lookup?: HostLookup;
}

export interface Runtime {
  /** The web role's address, when it runs. */
  url?: string;
  /** `GET /metrics` on METRICS_PORT, when set. */
  metricsUrl?: string;
  server?: Server;
  database: Database;
  store: PostgresOrderStore;
  queues: Queues;
  registry: MappingRegistry;
  sessions: ShopSessions;
  /** Stores' own print set-up (accounts, mode, postback tokens, mapping versions). */
  shopSettings: ShopSettingsStore;
  printAccounts: PrintAccounts;
  mappingSync: StoreMappingSync;
  /** The set-up use cases as the app's pages call them (src/shops/setup.ts). */
  setup: SetupDeps;
  deps: BridgeDeps;
  metrics: Metrics;
  workers?: Workers;
  /** Stops taking requests and jobs, lets running jobs finish, closes Redis. */
  close(): Promise<void>;
}

/**
 * The composition root: builds every dependency from the configuration once and hands the use cases what they need.
 * `start` runs both roles in one process; `web` and `worker` run one each, against the same Redis.
 */
export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { config, logger } = options;
  const prefix = config.REDIS_PREFIX;

  // Request paths fail fast (503 and Shopify retries); workers wait out a Redis restart.
  const requestRedis = createRedis(config.REDIS_URL, 'request');
  const workerRedis: Redis | undefined = options.roles.worker ? createRedis(config.REDIS_URL, 'worker') : undefined;
  await waitForRedis(requestRedis, 10_000).catch((error: Error) => {
    requestRedis.disconnect();
    workerRedis?.disconnect();
    throw new Error(`Redis at ${config.REDIS_URL} is not reachable: ${error.message}`);
  });

  if (!config.ENCRYPTION_KEY?.length) {
    logger.error('ENCRYPTION_KEY is not set: no store can be connected (OAuth and shops add refuse to store an access token in clear); make one with: openssl rand -base64 32');
  }

  // Checked at start as well as in /readyz: an operator reading the start-up log learns it before the first order.
  const durability = await checkRedisDurability(requestRedis).catch((error: Error) => ({ durable: false, reasons: [`INFO failed: ${error.message}`] }));
  if (!durability.durable) {
    if (config.REDIS_ALLOW_VOLATILE) logger.warn({ reasons: durability.reasons }, 'Redis may lose acknowledged jobs on a crash; accepted because REDIS_ALLOW_VOLATILE=true');
    else logger.error({ reasons: durability.reasons }, 'Redis may lose acknowledged jobs on a crash: /readyz fails until it is fixed (or REDIS_ALLOW_VOLATILE=true for a demo)');
  }

  let database: Database;
  try {
    database = options.database ?? (await openAppDatabase(config));
  } catch (error) {
    requestRedis.disconnect();
    workerRedis?.disconnect();
    throw error;
  }
  const ownsDatabase = options.database === undefined;
  logger.info({ database: describeDatabase(config) }, 'database ready');

  const adminOrigin = configureAdminApiOrigin(config);
  if (adminOrigin) logger.warn({ adminOrigin }, 'Admin API calls go to SHOPIFY_ADMIN_API_ORIGIN (development and tests only)');
  const shopify = shopifyApiFromConfig(config);
  const sessions = new ShopSessions(shopify, database, config.ENCRYPTION_KEY ?? []);

  const registry = new MappingRegistry({
    dir: config.MAPPINGS_DIR,
    logger: logger.child({ component: 'mappings' }),
    mapOptions: { artwork: { hosts: config.ARTWORK_HOSTS } },
  });
  // Stores' templates render here, never on this thread (DESIGN section 9): web and worker roles share the threads.
  const renderPool = new MappingRenderPool({
    threads: config.MAPPING_RENDER_THREADS,
    maxMemoryMb: config.MAPPING_RENDER_MEMORY_MB,
    onEvent: (event) => logger.error({ detail: event.detail }, 'a mapping render thread failed; the orders it had are retried'),
  });
  const problems = registry.start();
  for (const problem of problems) logger.error({ problem: formatFileProblem(problem) }, 'mapping file problem');
  if (!registry.ready()) logger.error({ dir: config.MAPPINGS_DIR }, 'no usable mapping file: orders will be held until one loads');

  const metrics = new Metrics();
  const clientHooks = {
    connectTimeoutMs: config.PRINT_API_CONNECT_TIMEOUT_MS,
    responseTimeoutMs: config.PRINT_API_TIMEOUT_MS,
    onRetry: ({ operation, attempt, delayMs, error }: { operation: string; attempt: number; delayMs: number; error: Error }) =>
      logger.warn({ operation, attempt, delayMs, err: error }, 'print service call retried'),
    onCall: ({ operation, status, durationMs }: { operation: string; status: string; durationMs: number }) => {
      metrics.printCalls.inc({ operation, status });
      metrics.printLatency.observe({ operation }, durationMs / 1000);
    },
  };
  // The operator's account (PRINT_API_*) serves every store without one of its own.
  const printService = new PrintServiceClient({ ...printApiSettings(config), ...clientHooks });
  const shopSettings = new ShopSettingsStore(database, config.ENCRYPTION_KEY ?? []);
  const printAccounts = new PrintAccounts({
    settings: shopSettings,
    envClient: printService,
    // A merchant's account reaches public addresses only, on every connection; the operator's is trusted.
    createClient: (account) =>
      new PrintServiceClient({ ...accountClientOptions(account, account.setBy !== 'operator' && !config.PRINT_ACCOUNT_PRIVATE_HOSTS, options.lookup), ...clientHooks }),
  });
  const adminClients = new ShopifyAdminClients(shopify, sessions, adminOrigin, metrics);
  // Stores' own mapping versions (saved in the app or pushed): served by this process's registry, kept current.
  const mappingSync = new StoreMappingSync({ settings: shopSettings, registry, logger: logger.child({ component: 'mappings' }) });
  await mappingSync.start().catch((error: Error) => logger.error({ err: error }, "could not read the stores' mapping versions at start; retrying every 2 s"));

  const workerSide = workerRedis ?? requestRedis;
  const store = new PostgresOrderStore({ database, redis: workerSide, prefix });
  const queues = createQueues(workerSide, prefix);
  // One lookup, with a deadline and a short memory, for every artwork host of every order this process sends.
  const artworkLookup = cachingLookup(options.lookup ?? systemLookup);
  const deps: BridgeDeps = {
    store,
    mapping: registryMappingPort(registry, renderPool),
    artworkHosts: {
      problems: async (order, itemSubjects) =>
        config.ARTWORK_RESOLVE ? artworkHostProblems(order, artworkLookup, { itemSubjects, allowPrivate: config.ARTWORK_PRIVATE_ADDRESSES }) : [],
    },
    printAccounts,
    shopSettings,
    shopify: adminApiEffects(adminClients),
    scheduler: new QueueScheduler(queues),
    sessions,
    connections: sessionConnections(sessions),
    logger,
    clock: () => new Date(),
  };
  releaseWaitingOrders({ registry, sessions, queue: queues.orders, logger });
  const setup = shopSetupDeps({
    config,
    settings: shopSettings,
    orders: queues.orders,
    registry,
    refreshMappings: () => mappingSync.refresh(),
    invalidate: (shop) => printAccounts.invalidate(shop),
    lookup: options.lookup,
  });

  metrics.onScrape(async () => {
    const counts = await store.countByStatus(ORDER_STATUSES);
    for (const [status, count] of Object.entries(counts)) metrics.ordersByStatus.set({ status }, count);
  });
  metrics.onScrape(async () => {
    for (const queue of [queues.webhooks, queues.orders, queues.events, queues.shopify, queues.maintenance]) {
      const counts = await queue.getJobCounts('waiting', 'delayed', 'active', 'failed');
      for (const [state, count] of Object.entries(counts)) metrics.queueDepth.set({ queue: queue.name, state }, count);
      const [oldest] = await queue.getJobs(['waiting'], 0, 0, true);
      metrics.oldestWaiting.set({ queue: queue.name }, oldest ? Math.max(0, (Date.now() - oldest.timestamp) / 1000) : 0);
    }
  });

  let workers: Workers | undefined;
  let closing: Promise<void> | undefined;
  const liveness = new LivenessMonitor({
    maxStallMs: 10_000,
    workers: () => workers?.workers.map((w) => ({ name: w.name, isRunning: () => w.isRunning() })) ?? [],
    stopping: () => closing !== undefined,
  });

  let server: Server | undefined;
  let url: string | undefined;
  let requestQueues: Queues | undefined;
  if (options.roles.web) {
    const requestStore = new PostgresOrderStore({ database, redis: requestRedis, prefix });
    requestQueues = createQueues(requestRedis, prefix);
    const webQueues = requestQueues;
    const intakeQueue = requestQueues.webhooks;
    const app = createWebApp({
      logger,
      metrics,
      metricsToken: config.METRICS_TOKEN,
      trustProxy: config.TRUST_PROXY,
      liveness: () => liveness.check(),
      webhooks: {
        verify: hmacWebhookVerifier(config.SHOPIFY_API_SECRET!),
        claim: (keys) => requestStore.claimWebhook(keys),
        enqueue: (job) => enqueueWebhook(intakeQueue, (shop, id, body) => requestStore.webhookBodies().keep(shop, id, body), job),
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
      mount: (express) => {
        mountAuthRoutes(express, { shopify, sessions, logger });
        const sessionSecrets = [config.ADMIN_TOKEN, config.SHOPIFY_API_SECRET].filter((s): s is string => Boolean(s));
        if (sessionSecrets.length > 0) {
          const failedJobs = queueFailedJobs([webQueues.webhooks, webQueues.orders, webQueues.shopify, webQueues.events], async (data) => {
            // A webhook the worker could not read is shown with the order its body names (issue 13 item 3).
            const webhook = await webhookJobOrder(data, (shop, id) => requestStore.webhookBodies().get(shop, id));
            if (webhook) return webhook;
            const event = (data as { event?: { printOrderId?: unknown; sourceOrderId?: unknown } } | undefined)?.event;
            const link =
              (typeof event?.printOrderId === 'string' ? await requestStore.findByPrintOrderId(event.printOrderId) : undefined) ??
              (typeof event?.sourceOrderId === 'string' ? await requestStore.findBySourceOrderId(event.sourceOrderId, (data as { shop?: string } | undefined)?.shop) : undefined);
            return link ? { shop: link.shop, orderId: link.orderId } : undefined;
          });
          const adminLogger = logger.child({ component: 'admin' });
          express.use(
            createAdminRouter({
              store: requestStore,
              actions: {
                store: requestStore,
                mapping: deps.mapping,
                printAccounts,
                scheduler: new QueueScheduler(webQueues),
                connections: deps.connections,
                failedJobs,
                logger: adminLogger,
                clock: deps.clock,
              },
              failedJobs,
              mappings: registryAdminMappings(registry, renderPool),
              queues: [webQueues.webhooks, webQueues.orders, webQueues.events, webQueues.shopify, webQueues.maintenance],
              adminToken: config.ADMIN_TOKEN,
              loginGuard: new RedisLoginGuard(requestRedis, prefix, deps.clock),
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
      },
    });
    server = app.listen(options.port ?? config.PORT, options.host ?? '0.0.0.0');
    try {
      await new Promise<void>((resolve, reject) => {
        server!.once('listening', resolve);
        server!.once('error', reject);
      });
    } catch (error) {
      // Nothing else holds the process open then: a port in use must end `start` with its message, not hang it.
      registry.close();
      liveness.close();
      await Promise.allSettled([queues.close(), requestQueues.close(), printService.close(), printAccounts.close(), renderPool.close()]);
      if (ownsDatabase) await database.close().catch(() => undefined);
      requestRedis.disconnect();
      workerRedis?.disconnect();
      const code = (error as NodeJS.ErrnoException).code;
      throw new Error(code === 'EADDRINUSE' ? `port ${options.port ?? config.PORT} is already in use (set PORT to another one)` : (error as Error).message);
    }
    const address = server.address() as AddressInfo;
    url = `http://${options.host ?? '127.0.0.1'}:${address.port}`;
    logger.info({ url }, 'web: listening');
  }

  // METRICS_PORT: Prometheus scrapes a private address, no token needed; nothing else is served there.
  let metricsServer: Server | undefined;
  if (config.METRICS_PORT !== undefined) {
    metricsServer = createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"ok":false,"error":"not found"}');
        return;
      }
      metrics.render().then(
        ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
        () => res.writeHead(500).end(),
      );
    });
    metricsServer.listen(config.METRICS_PORT, config.METRICS_HOST);
    await new Promise<void>((resolve, reject) => {
      metricsServer!.once('listening', resolve);
      metricsServer!.once('error', reject);
    });
    logger.info({ host: config.METRICS_HOST, port: config.METRICS_PORT }, 'metrics: listening');
  }

  if (options.roles.worker && workerRedis) {
    workers = startWorkers(deps, {
      connection: workerRedis,
      prefix,
      concurrency: config.WORKER_CONCURRENCY,
      lockDurationMs: options.lockDurationMs ?? config.JOB_LOCK_MS,
      logger,
      metrics,
      printEvents: {
        shopify: adminApiFulfillmentPort((shop) => adminClients.forShop(shop)),
        tracking: registryTrackingLookup(registry),
        notifyCustomer: config.SHOPIFY_NOTIFY_CUSTOMER,
        holdRecheckMs: config.SHOPIFY_HOLD_RECHECK_SECONDS * 1000,
        // Read at the account the order was sent with.
        confirm: config.PRINT_CONFIRM_EVENTS ? printEventConfirmer(async (order, sourceOrderId) => (await printAccounts.forOrder(order.shop, order.printAccount)).getBySourceId(sourceOrderId)) : undefined,
      },
      printServiceRateLimit: config.PRINT_API_RATE_LIMIT,
      maintenance: maintenanceRunner({ config, store, queues, printAccounts, adminClients, sessions, redis: workerRedis, clock: deps.clock, logger, metrics }),
    });
    await scheduleMaintenance(queues, config);
    // Mappings may have been added, or stores connected, while no worker ran.
    await enqueueReexamine(queues.orders, '*', 'worker started');
    logger.info({ concurrency: config.WORKER_CONCURRENCY }, 'worker: taking jobs');
  }

  return {
    url,
    metricsUrl: metricsServer ? `http://${config.METRICS_HOST}:${(metricsServer.address() as AddressInfo).port}/metrics` : undefined,
    server,
    database,
    store,
    queues,
    registry,
    sessions,
    shopSettings,
    printAccounts,
    mappingSync,
    setup,
    deps,
    metrics,
    workers,
    close() {
      closing ??= (async () => {
        metricsServer?.close();
        if (server) {
          server.closeIdleConnections();
          await new Promise<void>((resolve) => server!.close(() => resolve()));
        }
        await workers?.close();
        mappingSync.close();
        registry.close();
        liveness.close();
        await Promise.allSettled([queues.close(), requestQueues?.close(), printService.close(), printAccounts.close(), renderPool.close()]);
        if (ownsDatabase) await database.close().catch(() => undefined);
        requestRedis.disconnect();
        workerRedis?.disconnect();
      })();
      return closing;
    },
  };
}

/** Readiness detail for the mappings: how many files serve, and the first problems as `FILE:LINE:COL message`. */
function describeMappings(registry: MappingRegistry): string {
  const problems = registry.problems();
  const shown = problems.slice(0, 3).map(formatFileProblem);
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
