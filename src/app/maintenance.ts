import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { PostgresOrderStore } from '../storage/order-store.js';
import type { PrintAccountsPort } from '../shops/print-accounts.js';
import { type OrderJobView, reconcileSilentOrders, resumeStuckSubmissions } from '../bridge/reconcile.js';
import { recoverLostOrders } from '../bridge/recover-lost-orders.js';
import type { Config } from '../config.js';
import type { OrderStatus } from '../orders/status.js';
import type { Metrics } from '../metrics.js';
import { enqueuePrintEvent, enqueueReexamine, enqueueWebhook, type Queues, retryFailedJob } from '../queue/queues.js';
import { QueueScheduler } from '../queue/scheduler.js';
import type { ShopSessions } from '../shopify/sessions.js';
import type { ShopifyAdminClients } from '../adapters/shopify-effects.js';

/** The scheduled housekeeping jobs of the maintenance queue (BullMQ job schedulers). */
export const MAINTENANCE_JOBS = {
  silentOrders: 'reconcile-silent-orders',
  lostOrders: 'recover-lost-orders',
  retention: 'retention',
  fulfillmentRequests: 'read-fulfillment-requests',
} as const;

/** The printer is done with an order in these: after RETENTION_DAYS its full Shopify body is cut. */
export const RETAINED_BODY_FINISHED: readonly OrderStatus[] = ['shipped', 'cancelled', 'not-printed'];

/** How often the retention sweep runs. */
const RETENTION_EVERY_MS = 3_600_000;

export interface MaintenanceDeps {
  config: Pick<Config, 'RETENTION_DAYS' | 'RECONCILE_SILENT_MINUTES' | 'RECONCILE_LOOKBACK_HOURS' | 'RECONCILE_LOST_MIN_AGE_MINUTES' | 'RECONCILE_EVERY_MINUTES' | 'SHOPIFY_API_VERSION'>;
  store: PostgresOrderStore;
  queues: Queues;
  printAccounts: Pick<PrintAccountsPort, 'forOrder'>;
  adminClients: ShopifyAdminClients;
  sessions: ShopSessions;
  redis: Redis;
  clock: () => Date;
  logger: Logger;
  metrics?: Metrics;
  /** The stores in fulfillment-service mode: their pending requests are read on the schedule too (a lost callback). */
  serviceShops?: () => Promise<{ shop: string }[]>;
}

/** What a maintenance job runs, by job name. */
export function maintenanceRunner(deps: MaintenanceDeps): (name: string) => Promise<unknown> {
  const { config, logger } = deps;
  return async (name) => {
    switch (name) {
      case MAINTENANCE_JOBS.silentOrders: {
        const silentForMs = config.RECONCILE_SILENT_MINUTES * 60_000;
        const resumed = await resumeStuckSubmissions(
          {
            store: deps.store,
            submitJobs: () => submitJobsByOrder(deps.queues),
            submit: (shop, orderId) => new QueueScheduler(deps.queues).submit(shop, orderId, 0, deps.clock().getTime()),
            clock: deps.clock,
            logger,
          },
          { stuckForMs: silentForMs },
        );
        // Orders waiting for a store connection or a mapping are released by those events; this catches a lost one.
        await enqueueReexamine(deps.queues.orders, '*', 'periodic check', false);
        const checked = await reconcileSilentOrders(
          { store: deps.store, printAccounts: deps.printAccounts, enqueueEvent: (job) => enqueuePrintEvent(deps.queues.events, job), clock: deps.clock, logger },
          { silentForMs },
        );
        deps.metrics?.reconciled.inc({ outcome: 'checked' }, checked.checked);
        deps.metrics?.reconciled.inc({ outcome: 'events' }, checked.events);
        deps.metrics?.reconciled.inc({ outcome: 'resumed' }, resumed.stuck);
        return { ...checked, resumed };
      }
      case MAINTENANCE_JOBS.lostOrders: {
        const outcome = await recoverLostOrders(
          {
            store: deps.store,
            installedShops: () => deps.sessions.installedShops(),
            recentOrders: async (shop, since) => (await deps.adminClients.forShop(shop)).listRecentOrders(since),
            fetchOrderBody: async (shop, orderId) => (await deps.adminClients.forShop(shop)).getOrderAsWebhookBody(orderId),
            enqueueWebhook: (job) => enqueueWebhook(deps.queues.webhooks, (shop, id, body) => deps.store.webhookBodies().keep(shop, id, body), job),
            clock: deps.clock,
            logger,
          },
          { lookbackMs: config.RECONCILE_LOOKBACK_HOURS * 3_600_000, minAgeMs: config.RECONCILE_LOST_MIN_AGE_MINUTES * 60_000 },
        );
        deps.metrics?.reconciled.inc({ outcome: 'recovered' }, outcome.recovered.length);
        return outcome;
      }
      case MAINTENANCE_JOBS.fulfillmentRequests: {
        // A callback Shopify sent while the app was down, or that was lost, delays an order by this period, not for ever.
        const shops = (await deps.serviceShops?.()) ?? [];
        const scheduler = new QueueScheduler(deps.queues);
        for (const { shop } of shops) await scheduler.takeFulfillmentRequests(shop, 'schedule');
        return { shops: shops.length };
      }
      case MAINTENANCE_JOBS.retention: {
        const bodiesReduced = await deps.store.reduceFinishedBodies(config.RETENTION_DAYS, RETAINED_BODY_FINISHED);
        const dataRequestsDeleted = await deps.store.dataRequests().deleteExpired();
        if (bodiesReduced || dataRequestsDeleted) logger.info({ bodiesReduced, dataRequestsDeleted, retentionDays: config.RETENTION_DAYS }, 'retention: personal data past its time removed');
        return { bodiesReduced, dataRequestsDeleted };
      }
      default:
        logger.warn({ job: name }, 'maintenance job of an unknown kind ignored (written by another version of the app?)');
        return { kind: 'unknown-job', name };
    }
  };
}

async function submitJobsByOrder(queues: Queues): Promise<Map<string, OrderJobView[]>> {
  const byOrder = new Map<string, OrderJobView[]>();
  for (const state of ['waiting', 'active', 'delayed', 'prioritized', 'failed'] as const) {
    for (const job of await queues.orders.getJobs([state])) {
      if (!job || job.data.kind !== 'submit') continue;
      const key = `${job.data.shop}|${job.data.orderId}`;
      const list = byOrder.get(key) ?? [];
      list.push({ state, retry: () => retryFailedJob(job) });
      byOrder.set(key, list);
    }
  }
  return byOrder;
}

/**
 * Registers (or updates) the schedules. Upserting the same scheduler id is idempotent, so every worker that starts
 * does it and there is still one schedule in Redis; a check switched off by its setting has its schedule removed.
 */
export async function scheduleMaintenance(queues: Queues, config: MaintenanceDeps['config']): Promise<void> {
  const every = config.RECONCILE_EVERY_MINUTES * 60_000;
  const wanted: [string, boolean][] = [
    [MAINTENANCE_JOBS.silentOrders, config.RECONCILE_SILENT_MINUTES > 0],
    [MAINTENANCE_JOBS.lostOrders, config.RECONCILE_LOOKBACK_HOURS > 0],
    [MAINTENANCE_JOBS.fulfillmentRequests, true],
  ];
  for (const [name, on] of wanted) {
    if (on) await queues.maintenance.upsertJobScheduler(name, { every }, { name });
    else await queues.maintenance.removeJobScheduler(name);
  }
  // Retention always runs: it is what keeps personal data from outliving its purpose.
  await queues.maintenance.upsertJobScheduler(MAINTENANCE_JOBS.retention, { every: RETENTION_EVERY_MS }, { name: MAINTENANCE_JOBS.retention });
}
