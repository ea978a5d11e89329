import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The app's Prometheus metrics (`GET /metrics`). One registry per runtime so tests and several runtimes in one
 * process do not share counters. Gauges about Redis state (orders by status, queue depth, oldest waiting job) are
 * read when scraped, so every web process reports the same shared truth.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly webhooks = new Counter({
    name: 'print_bridge_webhooks_total',
    help: 'Shopify webhooks received at POST /webhooks, by topic and outcome (queued, duplicate, ignored, unauthorized, bad-body, unavailable)',
    labelNames: ['topic', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly postbacks = new Counter({
    name: 'print_bridge_postbacks_total',
    help: 'Print-service postbacks received, by event and outcome',
    labelNames: ['event', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly jobs = new Counter({
    name: 'print_bridge_jobs_total',
    help: 'Jobs finished, by queue, job name and outcome (completed, retrying, failed)',
    labelNames: ['queue', 'name', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly jobDuration = new Histogram({
    name: 'print_bridge_job_duration_seconds',
    help: 'Time a job took to run, by queue and job name',
    labelNames: ['queue', 'name'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly printCalls = new Counter({
    name: 'print_bridge_print_service_calls_total',
    help: 'Calls to the print service, by operation and HTTP status (or network, timeout)',
    labelNames: ['operation', 'status'] as const,
    registers: [this.registry],
  });

  readonly printLatency = new Histogram({
    name: 'print_bridge_print_service_call_duration_seconds',
    help: 'Latency of calls to the print service, by operation',
    labelNames: ['operation'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly shopifyCalls = new Counter({
    name: 'print_bridge_shopify_calls_total',
    help: 'Admin API calls, by operation and outcome (ok, throttled, user-error, unavailable, unauthorized, error)',
    labelNames: ['operation', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly shopifyThrottleWait = new Counter({
    name: 'print_bridge_shopify_throttle_wait_seconds_total',
    help: 'Time spent waiting for Shopify rate-limit buckets to refill',
    registers: [this.registry],
  });

  readonly reconciled = new Counter({
    name: 'print_bridge_reconciled_total',
    help: 'What the reconciliation jobs did: checked (a silent order asked about at the print service), events (what that found), resumed (a stuck submission given a job again), recovered (a Shopify order that had no webhook)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly ordersByStatus = new Gauge({
    name: 'print_bridge_orders',
    help: 'Orders known to the app, by status',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  readonly queueDepth = new Gauge({
    name: 'print_bridge_queue_jobs',
    help: 'Jobs in each queue, by state (waiting, delayed, active, failed)',
    labelNames: ['queue', 'state'] as const,
    registers: [this.registry],
  });

  readonly oldestWaiting = new Gauge({
    name: 'print_bridge_queue_oldest_waiting_seconds',
    help: 'Age of the oldest job waiting to run, by queue (0 when none waits)',
    labelNames: ['queue'] as const,
    registers: [this.registry],
  });

  private readonly collectors: (() => Promise<void>)[] = [];

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'print_bridge_' });
  }

  /** Adds work done at scrape time (reading Redis). */
  onScrape(collect: () => Promise<void>): void {
    this.collectors.push(collect);
  }

  async render(): Promise<{ contentType: string; body: string }> {
    await Promise.allSettled(this.collectors.map((c) => c()));
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
