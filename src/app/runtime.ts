import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { PostgresOrderStore } from '../storage/order-store.js';
import type { Database } from '../db/database.js';
import type { BridgeDeps } from '../bridge/ports.js';
import type { Config } from '../config.js';
import type { MappingRegistry } from '../mapping/registry.js';
import type { Metrics } from '../metrics.js';
import type { PrintAccounts } from '../shops/print-accounts.js';
import type { ShopSettingsStore } from '../shops/settings-store.js';
import type { StoreMappingSync } from '../shops/mapping-sync.js';
import type { SetupDeps } from '../shops/setup.js';
import type { FulfillmentModeDeps } from '../shops/fulfillment-mode.js';
import type { HostLookup } from '../net/host-lookup.js';
import { enqueueReexamine, type Queues } from '../queue/queues.js';
import { startWorkers, type Workers } from '../queue/workers.js';
import type { ShopSessions } from '../shopify/sessions.js';
import { LivenessMonitor } from '../web/liveness.js';
import { adminApiFulfillmentPort } from '../adapters/fulfillment-port.js';
import { registryTrackingLookup } from '../mapping/tracking-lookup.js';
import { maintenanceRunner, scheduleMaintenance } from './maintenance.js';
import { printEventConfirmer } from '../bridge/confirm-print-event.js';
import { buildDependencies, type AppDependencies } from './dependencies.js';
import { startWebSide, type WebSide } from './web-side.js';

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
  /** The fulfillment-mode choice (src/shops/fulfillment-mode.ts). */
  fulfillmentMode: FulfillmentModeDeps;
  deps: BridgeDeps;
  metrics: Metrics;
  workers?: Workers;
  /** Stops taking requests and jobs, lets running jobs finish, closes Redis. */
  close(): Promise<void>;
}

/**
 * The composition root: builds every dependency from the configuration once (dependencies.ts) and hands the use cases
 * what they need; then the web side (web-side.ts), the metrics port and the workers. `start` runs both roles in one
 * process; `web` and `worker` run one each, against the same Redis.
 */
export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { config, logger } = options;
  const built = await buildDependencies(options);
  const { database, store, queues, registry, sessions, shopSettings, printAccounts, mappingSync, setup, deps, metrics, fulfillmentMode } = built;

  let workers: Workers | undefined;
  let closing: Promise<void> | undefined;
  const liveness = new LivenessMonitor({
    maxStallMs: 10_000,
    workers: () => workers?.workers.map((w) => ({ name: w.name, isRunning: () => w.isRunning() })) ?? [],
    stopping: () => closing !== undefined,
  });

  let web: WebSide | undefined;
  if (options.roles.web) {
    try {
      web = await startWebSide(built, options, liveness);
    } catch (error) {
      // Nothing else holds the process open then: a port in use must end `start` with its message, not hang it.
      liveness.close();
      await built.close();
      throw error;
    }
  }
  const metricsServer = config.METRICS_PORT !== undefined ? await serveMetrics(metrics, config, logger) : undefined;
  if (options.roles.worker) workers = await startWorkerSide(built, options);

  return {
    url: web?.url,
    metricsUrl: metricsServer ? `http://${config.METRICS_HOST}:${(metricsServer.address() as AddressInfo).port}/metrics` : undefined,
    server: web?.server,
    database,
    store,
    queues,
    registry,
    sessions,
    shopSettings,
    printAccounts,
    mappingSync,
    setup,
    fulfillmentMode,
    deps,
    metrics,
    workers,
    close() {
      closing ??= (async () => {
        metricsServer?.close();
        await web?.stopListening();
        await workers?.close();
        liveness.close();
        await web?.closeQueues().catch(() => undefined);
        await built.close();
      })();
      return closing;
    },
  };
}

/** METRICS_PORT: Prometheus scrapes a private address, no token needed; nothing else is served there. */
async function serveMetrics(metrics: Metrics, config: Config, logger: Logger): Promise<Server> {
  const metricsServer = createServer((req, res) => {
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
    metricsServer.once('listening', resolve);
    metricsServer.once('error', reject);
  });
  logger.info({ host: config.METRICS_HOST, port: config.METRICS_PORT }, 'metrics: listening');
  return metricsServer;
}

/** The worker role: the queues' workers on the worker Redis connection, the maintenance schedule, a first look at waiting orders. */
async function startWorkerSide(built: AppDependencies, options: RuntimeOptions): Promise<Workers | undefined> {
  const { config, logger } = options;
  const { workerRedis, deps, metrics, store, queues, printAccounts, adminClients, sessions, registry } = built;
  const prefix = config.REDIS_PREFIX;
  if (!workerRedis) return undefined;
  const workers = startWorkers(deps, {
    connection: workerRedis,
    prefix,
    concurrency: config.WORKER_CONCURRENCY,
    lockDurationMs: options.lockDurationMs ?? config.JOB_LOCK_MS,
    logger,
    metrics,
    printEvents: {
      shopify: adminApiFulfillmentPort((shop) => adminClients.forShop(shop)),
      tracking: registryTrackingLookup(registry, built.renderPool),
      notifyCustomer: config.SHOPIFY_NOTIFY_CUSTOMER,
      holdRecheckMs: config.SHOPIFY_HOLD_RECHECK_SECONDS * 1000,
      // Read at the account the order was sent with.
      confirm: config.PRINT_CONFIRM_EVENTS ? printEventConfirmer(async (order, sourceOrderId) => (await printAccounts.forOrder(order.shop, order.printAccount)).getBySourceId(sourceOrderId)) : undefined,
    },
    printServiceRateLimit: config.PRINT_API_RATE_LIMIT,
    fulfillmentReadIntervalMs: config.FULFILLMENT_READ_INTERVAL_MS,
    maintenance: maintenanceRunner({ config, store, queues, printAccounts, adminClients, sessions, redis: workerRedis, clock: deps.clock, logger, metrics, serviceShops: () => built.fulfillmentServices.serviceShops() }),
  });
  await scheduleMaintenance(queues, config);
  // Mappings may have been added, or stores connected, while no worker ran.
  await enqueueReexamine(queues.orders, '*', 'worker started');
  logger.info({ concurrency: config.WORKER_CONCURRENCY }, 'worker: taking jobs');
  return workers;
}
