import { type Job, Queue, UnrecoverableError, Worker, type WorkerOptions as WorkerSettings } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';
import { amendShipping } from '../bridge/amend-shipping.js';
import { applyPrintEvent, shopOfPrintEvent, type ApplyPrintEventDeps } from '../bridge/apply-print-event.js';
import { answerFulfillmentRequests, takeFulfillmentRequests } from '../bridge/fulfillment-requests.js';
import { fulfilWaitingShipments } from '../bridge/fulfil-shipment.js';
import type { ScheduleHoldRecheck } from '../bridge/fulfillment-holds.js';
import { onFulfillmentOrderChanged } from '../bridge/fulfillment-order-changed.js';
import { cancelPrintOrder } from '../bridge/cancel-print-order.js';
import { handleQueuedWebhook } from '../bridge/webhooks/index.js';
import type { ConfirmPrintEvent } from '../bridge/confirm-print-event.js';
import type { BridgeDeps, ShopifyFulfillmentPort, StatusShowing, TrackingLookup } from '../bridge/ports.js';
import { submitShopifyOrder } from '../bridge/submit-shopify-order.js';
import { reexamineWaitingOrders } from '../bridge/waiting-orders.js';
import { syncOrderToShopify } from '../bridge/shopify-sync.js';
import { resyncAppHoldsOfShop } from '../bridge/app-holds-switch.js';
import { announceFlowEvents, sendFlowTrigger } from '../flow/announce.js';
import {
  bullPrefix,
  DEFAULT_JOB_OPTIONS,
  jobId,
  orderJobSchema,
  printEventJobSchema,
  QUEUE_NAMES,
  shopifyJobSchema,
  type ShopifyJob,
  webhookJobSchema,
} from './queues.js';
import { StoreFairness } from './fairness.js';
import { StoreReadInterval } from './read-interval.js';
import { backoffDelay, BACKOFF_TYPE, MAX_STALLED_COUNT, runWithRetrySemantics } from './retry.js';

export interface WorkerOptions {
  connection: Redis;
  prefix: string;
  concurrency?: number;
  /** How long a job's lock lasts; a worker killed mid-job gives its jobs back after about this long. */
  lockDurationMs?: number;
  logger: Logger;
  /** What the events worker needs beyond BridgeDeps; without it no events worker runs in this process. */
  printEvents?: PrintEventWorkerDeps;
  /** Tests: the wait before a retry (default: backoffDelay of retry.ts). */
  backoff?: (attemptsMade: number, error?: Error) => number;
  metrics?: Metrics;
  /** Most print-service jobs started per second across every worker (BullMQ's queue-wide limiter). */
  printServiceRateLimit?: number;
  /**
   * Jobs of one store running at once on the events and Shopify queues, across every worker (default: half of
   * `concurrency`, at least 1): one store's backlog never takes every slot (queue/fairness.ts).
   */
  shopConcurrency?: number;
  /** Housekeeping jobs (the reconciliation); without it no maintenance worker runs in this process. */
  maintenance?: (jobName: string) => Promise<unknown>;
  /** FULFILLMENT_READ_INTERVAL_MS: the least time between two reads of one store's fulfillment requests (read-interval.ts). */
  fulfillmentReadIntervalMs?: number;
}

export interface PrintEventWorkerDeps {
  shopify: ShopifyFulfillmentPort;
  tracking: TrackingLookup;
  /** Shopify's shipping e-mail on each fulfillment (default true). */
  notifyCustomer?: boolean;
  /** First re-check of a shipment whose fulfillment order Shopify holds (default 15 min). */
  holdRecheckMs?: number;
  /** PRINT_CONFIRM_EVENTS: confirm shipped, cancelled and errored postbacks with the print service first. */
  confirm?: ConfirmPrintEvent;
  /** The order's status shown in Shopify by a sync job (ApplyPrintEventDeps.showStatusLater); startStatusSyncWorker runs them. */
  showStatusLater?: ApplyPrintEventDeps['showStatusLater'];
}

/**
 * Attempts an event for an order the store does not know is retried (its submission may not have recorded the ids
 * yet); after this many it is dropped with a warning, since the print account may also carry other apps' orders.
 */
export const UNKNOWN_ORDER_ATTEMPTS = 5;

export interface Workers {
  workers: Worker[];
  /** Stops taking jobs, lets running ones finish, then closes. */
  close(): Promise<void>;
}

/** What every worker of the app shares: lock and stall handling, and the retry waits of retry.ts. */
function commonSettings(options: Pick<WorkerOptions, 'connection' | 'prefix' | 'concurrency' | 'lockDurationMs' | 'backoff'>) {
  const lockDuration = options.lockDurationMs ?? 30_000;
  return {
    connection: options.connection,
    prefix: bullPrefix(options.prefix),
    concurrency: options.concurrency ?? 8,
    lockDuration,
    stalledInterval: Math.min(lockDuration, 30_000),
    maxStalledCount: MAX_STALLED_COUNT,
    settings: {
      backoffStrategy: (attemptsMade: number, type?: string, error?: Error) =>
        options.backoff ? options.backoff(attemptsMade, error) : type === BACKOFF_TYPE ? backoffDelay(attemptsMade, error) : backoffDelay(attemptsMade),
    },
  };
}

/** Job processors: thin, they parse the job and call a use case; retry semantics come from the error's class. */
export function startWorkers(deps: BridgeDeps, options: WorkerOptions): Workers {
  const common = commonSettings(options);

  const webhooks = new Worker(
    QUEUE_NAMES.webhooks,
    async (job: Job) => {
      const data = webhookJobSchema.parse(job.data);
      return runWithRetrySemantics(() =>
        handleQueuedWebhook({ ...deps, logger: deps.logger.child({ jobId: job.id, topic: data.topic, shop: data.shop }) }, data),
      );
    },
    common,
  );

  const orders = new Worker(
    QUEUE_NAMES.orders,
    async (job: Job) => {
      const data = orderJobSchema.parse(job.data);
      const scoped = { ...deps, logger: deps.logger.child({ jobId: job.id, kind: data.kind, shop: data.shop, orderId: 'orderId' in data ? data.orderId : undefined }) };
      return runWithRetrySemantics(async () => {
        switch (data.kind) {
          case 'reexamine':
            return reexamineWaitingOrders(scoped, { shop: data.shop, cause: data.cause, remap: data.remap });
          case 'submit':
            return submitShopifyOrder(scoped, data.shop, data.orderId);
          case 'cancel':
            return cancelPrintOrder(scoped, data.shop, data.orderId);
          case 'amend-shipping':
            return amendShipping(scoped, data.shop, data.orderId);
        }
      });
    },
    options.printServiceRateLimit ? { ...common, limiter: { max: options.printServiceRateLimit, duration: 1_000 } } : common,
  );

  const holdQueue = options.printEvents ? holdRecheckQueue(common) : undefined;
  const fair = (queue: string) =>
    new StoreFairness({
      redis: options.connection,
      prefix: options.prefix,
      queue,
      cap: options.shopConcurrency ?? Math.max(1, Math.floor(common.concurrency / 2)),
      leaseMs: common.lockDuration,
    });
  const shopifyFairness = fair(QUEUE_NAMES.shopify);
  const appHoldDeps = deps.appHolds ? { store: deps.store, appHolds: deps.appHolds, clock: deps.clock, logger: deps.logger } : undefined;
  const readInterval = new StoreReadInterval(options.connection, options.prefix, options.fulfillmentReadIntervalMs ?? 0);
  const applyDeps: ApplyPrintEventDeps | undefined = options.printEvents
    ? {
        store: deps.store,
        logger: deps.logger,
        clock: deps.clock,
        fulfillmentRequests: deps.fulfillmentRequests,
        ...options.printEvents,
        scheduleHoldRecheck: holdQueue?.schedule,
        showStatusLater: (shop, orderId, show) => deps.scheduler.syncShopify(shop, orderId, show),
        submitAgain: (shop, orderId) => deps.scheduler.submit(shop, orderId, 0, deps.clock().getTime()),
      }
    : undefined;

  // Shopify's rate limit paces this queue (ShopifyPacer waits or throws a retryable throttle). Submissions make one
  // Admin API read (is the order the store's?), paced the same way; every other Shopify call runs here.
  const shopify = new Worker(
    QUEUE_NAMES.shopify,
    async (job: Job, token?: string) => {
      const data = shopifyJobSchema.parse(job.data);
      // Before the fairness place is taken: a read that must wait for its store's turn holds no slot meanwhile.
      if (data.kind === 'fulfillment-requests') await readInterval.turn(job, token, data.shop);
      return shopifyFairness.run(job, token, data.shop, () => runWithRetrySemantics(async () => {
        switch (data.kind) {
          case 'sync': {
            const synced = await syncOrderToShopify({ ...deps, holds: appHoldDeps }, data.shop, data.orderId);
            // Where the order's status is shown is where its events are announced to Flow: one place, idempotent.
            if (deps.flowTriggers) await announceFlowEvents({ ...deps, flowTriggers: deps.flowTriggers }, data.shop, data.orderId);
            return synced;
          }
          case 'app-holds':
            return resyncAppHoldsOfShop(deps, data.shop);
          case 'flow-trigger':
            if (!deps.flowTriggers) return { kind: 'not-in-use', handle: data.handle };
            return sendFlowTrigger({ ...deps, flowTriggers: deps.flowTriggers, logger: deps.logger.child({ jobId: job.id, kind: data.kind, shop: data.shop }) }, data);
          case 'note':
            await deps.shopify.appendNote(data.shop, data.orderId, data.line);
            return { kind: 'noted' };
          case 'fulfillment-requests':
            return takeFulfillmentRequests({ ...deps, logger: deps.logger.child({ jobId: job.id, kind: data.kind, shop: data.shop, cause: data.cause }) }, data.shop);
          case 'answer-requests':
            return answerFulfillmentRequests(deps, data.shop, data.orderId);
          case 'fulfil-held':
          case 'fulfillment-order': {
            // Left for a worker process that applies print events (it has the fulfillment port).
            if (!applyDeps) throw Object.assign(new Error(`no print event dependencies in this process for ${data.kind}`), { retryable: true });
            const scoped = { ...applyDeps, logger: applyDeps.logger.child({ jobId: job.id, kind: data.kind, shop: data.shop }) };
            if (data.kind === 'fulfil-held') return fulfilWaitingShipments(scoped, data.shop, data.orderId);
            const { kind: _kind, shop, ...change } = data;
            return onFulfillmentOrderChanged(scoped, shop, change);
          }
        }
      }));
    },
    { ...common, concurrency: Math.max(1, Math.min(common.concurrency, 8)) },
  );

  const all: Worker[] = [webhooks, orders, shopify];
  const maintenanceJob = options.maintenance;
  if (maintenanceJob) {
    all.push(new Worker(QUEUE_NAMES.maintenance, (job: Job) => runWithRetrySemantics(() => maintenanceJob(job.name)), { ...common, concurrency: 1 }));
  }
  if (applyDeps) {
    all.push(createPrintEventWorker(applyDeps, common, fair(QUEUE_NAMES.events)));
  } else {
    options.logger.warn('no print event dependencies given: postbacks are queued but not applied by this process');
  }

  for (const worker of all) {
    worker.on('failed', (job, error) => {
      const data = job?.data as { shop?: string; orderId?: string; topic?: string } | undefined;
      const final = job ? job.attemptsMade >= (job.opts.attempts ?? 1) || error.name === 'UnrecoverableError' : true;
      options.logger[final ? 'error' : 'warn'](
        { queue: worker.name, jobId: job?.id, shop: data?.shop, orderId: data?.orderId, topic: data?.topic, attemptsMade: job?.attemptsMade, err: error },
        final ? 'job failed for good' : 'job failed; it will be retried',
      );
    });
    worker.on('error', (error) => options.logger.error({ queue: worker.name, err: error }, 'worker error'));
    const metrics = options.metrics;
    if (metrics) {
      const observe = (job: Job | undefined, outcome: string) => {
        if (!job) return;
        metrics.jobs.inc({ queue: worker.name, name: job.name, outcome });
        if (job.processedOn && job.finishedOn) metrics.jobDuration.observe({ queue: worker.name, name: job.name }, (job.finishedOn - job.processedOn) / 1000);
      };
      worker.on('completed', (job) => observe(job, 'completed'));
      worker.on('failed', (job, error) => {
        const final = !job || job.attemptsMade >= (job.opts.attempts ?? 1) || error.name === 'UnrecoverableError';
        observe(job, final ? 'failed' : 'retrying');
      });
    }
  }

  return {
    workers: all,
    async close() {
      await Promise.all(all.map((w) => w.close()));
      await holdQueue?.close();
    },
  };
}

/**
 * Re-checks of held shipments are delayed jobs on the Shopify queue. Their id names the order and the check number,
 * so the re-checks scheduled by two jobs that found the same wait are one job.
 */
function holdRecheckQueue(common: Pick<WorkerSettings, 'connection' | 'prefix'>): { schedule: ScheduleHoldRecheck; close(): Promise<void> } {
  const queue = new Queue<ShopifyJob>(QUEUE_NAMES.shopify, { connection: common.connection, prefix: common.prefix, defaultJobOptions: DEFAULT_JOB_OPTIONS });
  queue.on('error', () => undefined);
  return {
    schedule: async (shop, orderId, delayMs, check) => {
      await queue.add('fulfil-held', { kind: 'fulfil-held', shop, orderId, check }, { jobId: jobId('held', shop, orderId, String(check)), delay: Math.max(0, Math.round(delayMs)) });
    },
    close: () => queue.close(),
  };
}

type CommonWorkerSettings = WorkerSettings;

function createPrintEventWorker(deps: ApplyPrintEventDeps, common: CommonWorkerSettings, fairness?: StoreFairness): Worker {
  return new Worker(
    QUEUE_NAMES.events,
    async (job: Job, token?: string) => {
      const data = printEventJobSchema.parse(job.data);
      const logger = deps.logger.child({ jobId: job.id, event: data.event.kind, sourceOrderId: data.event.sourceOrderId, printOrderId: data.event.printOrderId });
      const apply = () => runWithRetrySemantics(() => applyPrintEvent({ ...deps, logger }, data.event, data.shop));
      // Every event writes to the store in Shopify (fulfillments, tags, the status metafield): each takes the store's turn.
      const outcome = fairness ? await fairness.run(job, token, await shopOfPrintEvent(deps.store, data.event, data.shop), apply) : await apply();
      if (outcome.kind === 'unknown-order') {
        if (job.attemptsMade + 1 < UNKNOWN_ORDER_ATTEMPTS) {
          throw Object.assign(new Error(`no order known for ${outcome.reference} yet`), { retryable: true });
        }
        logger.warn({ reference: outcome.reference }, 'print event for an order this app does not know; dropped');
      }
      return outcome;
    },
    common,
  );
}

/**
 * The events worker alone, for a process (or a test) that applies postbacks without the other queues. Same retry
 * semantics and logging as startWorkers.
 */
export function startPrintEventWorker(
  deps: Pick<BridgeDeps, 'store' | 'logger' | 'clock'> & PrintEventWorkerDeps,
  options: Omit<WorkerOptions, 'printEvents'>,
): Workers {
  const common = commonSettings(options);
  const fairness = new StoreFairness({
    redis: options.connection,
    prefix: options.prefix,
    queue: QUEUE_NAMES.events,
    cap: options.shopConcurrency ?? Math.max(1, Math.floor(common.concurrency / 2)),
    leaseMs: common.lockDuration,
  });
  const worker = createPrintEventWorker(deps, common, fairness);
  worker.on('failed', (job, error) => {
    const final = job ? job.attemptsMade >= (job.opts.attempts ?? 1) || error.name === 'UnrecoverableError' : true;
    options.logger[final ? 'error' : 'warn'](
      { queue: worker.name, jobId: job?.id, attemptsMade: job?.attemptsMade, err: error },
      final ? 'job failed for good' : 'job failed; it will be retried',
    );
  });
  worker.on('error', (error) => options.logger.error({ queue: worker.name, err: error }, 'worker error'));
  return { workers: [worker], close: () => worker.close() };
}

/**
 * The Shopify queue's status syncs alone, beside startPrintEventWorker in a process (or a test) without the other
 * queues: what `showStatusLater` schedules is shown in Shopify the way the app's workers do it.
 */
export function startStatusSyncWorker(
  deps: { store: BridgeDeps['store']; shopify: StatusShowing; logger: BridgeDeps['logger'] },
  options: Pick<WorkerOptions, 'connection' | 'prefix' | 'concurrency' | 'lockDurationMs' | 'logger' | 'backoff'>,
): Workers {
  const worker = new Worker(
    QUEUE_NAMES.shopify,
    async (job: Job) => {
      const data = shopifyJobSchema.parse(job.data);
      if (data.kind !== 'sync') throw new UnrecoverableError(`a ${data.kind} job needs the app's workers (startWorkers)`);
      return runWithRetrySemantics(() => syncOrderToShopify(deps, data.shop, data.orderId));
    },
    commonSettings(options),
  );
  worker.on('error', (error) => options.logger.error({ queue: worker.name, err: error }, 'worker error'));
  return { workers: [worker], close: () => worker.close() };
}
