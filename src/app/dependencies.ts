import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Shopify } from '@shopify/shopify-api';
import { PostgresOrderStore } from '../storage/order-store.js';
import { leaveRequestsToMerchant } from '../bridge/requests-left-to-merchant.js';
import type { Database } from '../db/database.js';
import { describeDatabase, openAppDatabase } from '../db/open.js';
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
import { cachingLookup, systemLookup } from '../net/host-lookup.js';
import { artworkHostProblems } from '../mapping/artwork-hosts.js';
import { createQueues, type Queues } from '../queue/queues.js';
import { QueueScheduler } from '../queue/scheduler.js';
import { createRedis, waitForRedis } from '../redis.js';
import { checkRedisDurability } from '../redis-durability.js';
import { configureAdminApiOrigin } from '../shopify/admin/routing.js';
import { ShopSessions } from '../shopify/sessions.js';
import { shopifyApiFromConfig } from '../shopify/shopify-api.js';
import { registryMappingPort } from '../adapters/mapping-port.js';
import { MappingRenderPool } from '../mapping/render-pool.js';
import { releaseWaitingOrders, sessionConnections } from './waiting.js';
import { adminApiAppHolds, adminApiEffects, ShopifyAdminClients } from '../adapters/shopify-effects.js';
import { adminApiFulfillmentRequests } from '../adapters/fulfillment-requests.js';
import { FulfillmentServiceStore } from '../shops/fulfillment-services.js';
import { PostgresFlowTriggers } from '../flow/trigger-repository.js';
import type { FulfillmentModeDeps } from '../shops/fulfillment-mode.js';
import type { RuntimeOptions } from './runtime.js';

/** Everything the web and worker sides share, built once from the configuration (startRuntime's first step). */
export interface AppDependencies {
  /** Request paths fail fast on it (503 and Shopify retries). */
  requestRedis: Redis;
  /** Workers wait out a Redis restart on it; present when the worker role runs. */
  workerRedis?: Redis;
  database: Database;
  shopify: Shopify;
  sessions: ShopSessions;
  registry: MappingRegistry;
  renderPool: MappingRenderPool;
  metrics: Metrics;
  printAccounts: PrintAccounts;
  shopSettings: ShopSettingsStore;
  adminClients: ShopifyAdminClients;
  mappingSync: StoreMappingSync;
  /** Each store's fulfillment mode and service (fulfillment-service mode). */
  fulfillmentServices: FulfillmentServiceStore;
  /** Which Shopify Flow triggers each store uses (Flow's lifecycle callbacks). */
  flowTriggers: PostgresFlowTriggers;
  /** The worker side's store and queues (on workerRedis when it runs). */
  store: PostgresOrderStore;
  queues: Queues;
  deps: BridgeDeps;
  setup: SetupDeps;
  /** The fulfillment-mode choice (`shops fulfillment`, the Settings page): src/shops/fulfillment-mode.ts. */
  fulfillmentMode: FulfillmentModeDeps;
  /** Closes what was built here (the web and worker sides close their own first). */
  close(): Promise<void>;
}

export async function buildDependencies(options: RuntimeOptions): Promise<AppDependencies> {
  const { config, logger } = options;
  const prefix = config.REDIS_PREFIX;

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
  await warnOfVolatileRedis(requestRedis, config, logger);

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

  const fulfillmentServices = new FulfillmentServiceStore(database);
  const flowTriggers = new PostgresFlowTriggers(database);
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
    // The store's switch (on unless turned off) and merchant-managed: a fulfillment service's orders are Shopify's requests.
    appHolds: adminApiAppHolds(adminClients, async (shop) => {
      const setup = await shopSettings.get(shop);
      return setup.appHolds !== false && setup.fulfillment === 'merchant';
    }),
    scheduler: new QueueScheduler(queues),
    sessions,
    connections: sessionConnections(sessions),
    flowTriggers: {
      enabledOf: (shop) => flowTriggers.enabledOf(shop),
      send: async (shop, handle, payload) => (await adminClients.forShop(shop)).flowTriggerReceive(handle, payload),
      forgetShop: (shop) => flowTriggers.forgetShop(shop),
    },
    fulfillmentRequests: adminApiFulfillmentRequests((shop) => adminClients.forShop(shop), fulfillmentServices, (shop) => printAccounts.invalidate(shop)),
    logger,
    clock: () => new Date(),
    // A rate limit on the print service is kept by the orders queue's limiter, which an inline submission would pass by.
    submitDueOrdersInline: config.PRINT_API_RATE_LIMIT === undefined,
    holdRecheckMs: config.SHOPIFY_HOLD_RECHECK_SECONDS * 1000,
  };
  releaseWaitingOrders({ registry, sessions, queue: queues.orders, logger });
  const setup = shopSetupDeps({
    config,
    settings: shopSettings,
    orders: queues.orders,
    shopifyJobs: queues.shopify,
    registry,
    refreshMappings: () => mappingSync.refresh(),
    invalidate: (shop) => printAccounts.invalidate(shop),
    lookup: options.lookup,
  });
  scrapeOrdersAndQueues(metrics, store, queues);

  return {
    requestRedis,
    workerRedis,
    database,
    shopify,
    sessions,
    registry,
    renderPool,
    metrics,
    printAccounts,
    shopSettings,
    adminClients,
    mappingSync,
    fulfillmentServices,
    flowTriggers,
    store,
    queues,
    deps,
    setup,
    fulfillmentMode: {
      services: fulfillmentServices,
      shopify: (shop) => adminClients.forShop(shop),
      appUrl: config.APP_URL ?? '',
      takeRequests: (shop) => deps.scheduler.takeFulfillmentRequests(shop, 'service mode chosen'),
      reexamine: (shop, cause) => deps.scheduler.reexamine(shop, cause),
      leaveToMerchant: (shop, open, locationId) => leaveRequestsToMerchant(deps, shop, open, locationId),
      invalidate: (shop) => printAccounts.invalidate(shop),
      clock: deps.clock,
    },
    async close() {
      mappingSync.close();
      registry.close();
      await Promise.allSettled([queues.close(), printService.close(), printAccounts.close(), renderPool.close()]);
      if (ownsDatabase) await database.close().catch(() => undefined);
      requestRedis.disconnect();
      workerRedis?.disconnect();
    },
  };
}

/** Checked at start as well as in /readyz: an operator reading the start-up log learns it before the first order. */
async function warnOfVolatileRedis(redis: Redis, config: Config, logger: Logger): Promise<void> {
  const durability = await checkRedisDurability(redis).catch((error: Error) => ({ durable: false, reasons: [`INFO failed: ${error.message}`] }));
  if (durability.durable) return;
  if (config.REDIS_ALLOW_VOLATILE) logger.warn({ reasons: durability.reasons }, 'Redis may lose acknowledged jobs on a crash; accepted because REDIS_ALLOW_VOLATILE=true');
  else logger.error({ reasons: durability.reasons }, 'Redis may lose acknowledged jobs on a crash: /readyz fails until it is fixed (or REDIS_ALLOW_VOLATILE=true for a demo)');
}

/** The orders by status and the queues' depths, read when /metrics is scraped. */
function scrapeOrdersAndQueues(metrics: Metrics, store: PostgresOrderStore, queues: Queues): void {
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
}
