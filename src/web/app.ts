import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type Express, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.js';
import { acceptWebhook, type WebhookIntakeDeps } from '../shopify/webhook-intake.js';
import { receiveFulfillmentCallback, type FulfillmentCallbackDeps } from '../shopify/fulfillment-callback.js';
import { mountFlowRoutes, type FlowRouteDeps } from '../flow/routes.js';

export interface ReadinessCheck {
  name: string;
  check: () => Promise<{ ok: boolean; detail?: string }>;
}

export interface WebDeps {
  logger: Logger;
  metrics?: Metrics;
  webhooks: WebhookIntakeDeps;
  readiness: ReadinessCheck[];
  /** Whether the process is stuck (GET /healthz answers 503 and the orchestrator restarts it). */
  liveness?: () => { ok: boolean; problems: string[] };
  /**
   * Fulfillment-service mode: Shopify's pings of `POST /fulfillment_service/fulfillment_order_notification`. Answered
   * 2xx as soon as the read of the store's requests is queued (Shopify stops pinging an app that answers slowly), or
   * dropped when the store is not one print-bridge serves in that mode.
   */
  fulfillmentCallbacks?: FulfillmentCallbackDeps;
  /**
   * Shopify Flow: its action runs (`POST /flow/actions/:action`) and its triggers' lifecycle callbacks
   * (`POST /flow/lifecycle`), each signed with the app's secret; absent, neither route is served.
   */
  flow?: FlowRouteDeps;
  /** Further routers (OAuth, postbacks, admin) mounted by the composition root. */
  mount?: (app: Express) => void;
  /** METRICS_TOKEN: `GET /metrics` on this port needs it as a bearer token; without it /metrics is not served here. */
  metricsToken?: string;
  /** TRUST_PROXY: how many proxy hops' X-Forwarded-* headers are believed (0: none; the peer address is the client). */
  trustProxy?: number;
}

/** The web role: fast, stateless request handling that verifies, queues and answers. */
export function createWebApp(deps: WebDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // Believing X-Forwarded-For from anyone would let a client choose its own address (and so escape the login
  // throttle); only the hops the operator declares are trusted.
  app.set('trust proxy', deps.trustProxy ?? 0);

  app.post('/webhooks', express.raw({ type: () => true, limit: '5mb' }), async (req: Request, res: Response) => {
    const result = await acceptWebhook(deps.webhooks, Buffer.isBuffer(req.body) ? req.body : '', req.headers);
    deps.metrics?.webhooks.inc({ topic: 'topic' in result && result.topic ? result.topic : (req.get('x-shopify-topic') ?? 'unknown').slice(0, 40), outcome: result.outcome });
    if (result.status === 200) {
      res.status(200).json({ ok: true, outcome: result.outcome });
      return;
    }
    deps.logger[result.status === 503 ? 'error' : 'warn'](
      {
        route: 'webhooks',
        webhookId: req.get('x-shopify-webhook-id'),
        topic: req.get('x-shopify-topic'),
        shop: req.get('x-shopify-shop-domain'),
        outcome: result.outcome,
        reason: result.message,
      },
      'webhook refused',
    );
    res.status(result.status).json({ ok: false, error: result.message });
  });

  const callbacks = deps.fulfillmentCallbacks;
  if (callbacks) {
    app.post('/fulfillment_service/fulfillment_order_notification', express.raw({ type: () => true, limit: '64kb' }), async (req: Request, res: Response) => {
      const rawBody = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
      const result = await receiveFulfillmentCallback(callbacks, rawBody, req.headers);
      switch (result.outcome) {
        case 'refused':
          deps.logger.warn({ route: 'fulfillment_service', shop: req.get('x-shopify-shop-domain'), reason: result.reason }, 'fulfillment service callback refused; nothing done');
          res.status(result.status).json({ ok: false, error: result.reason });
          return;
        case 'not-queued':
          deps.logger.error({ route: 'fulfillment_service', shop: result.shop, err: result.error }, 'fulfillment service callback not queued; Shopify pings again and the schedule reads the requests');
          res.status(503).json({ ok: false, error: 'not queued; try again' });
          return;
        case 'ignored':
          // Debug only: a replayed ping for made-up stores must not fill the log either.
          deps.logger.debug({ route: 'fulfillment_service', shop: result.shop }, 'fulfillment service callback for a store not in fulfillment-service mode; dropped');
          res.status(200).json({ ok: true });
          return;
        case 'queued':
          res.status(200).json({ ok: true });
      }
    });
  }

  if (deps.flow) mountFlowRoutes(app, deps.flow);

  // Liveness: answering at all is most of the signal; a stalled event loop or a dead worker is the rest. Memory is
  // included for operators and the benchmarks.
  app.get('/healthz', (_req, res) => {
    const live = deps.liveness?.() ?? { ok: true, problems: [] };
    res
      .status(live.ok ? 200 : 503)
      .json({ ok: live.ok, problems: live.problems, pid: process.pid, uptimeSeconds: Math.round(process.uptime()), rss: process.memoryUsage().rss });
  });

  app.get('/readyz', async (_req, res) => {
    const results = await Promise.all(
      deps.readiness.map(async (r) => {
        try {
          return { name: r.name, ...(await withTimeout(r.check(), 2_000)) };
        } catch (error) {
          return { name: r.name, ok: false, detail: (error as Error).message };
        }
      }),
    );
    const ok = results.every((r) => r.ok);
    res.status(ok ? 200 : 503).json({ ok, checks: results });
  });

  if (deps.metrics) {
    // Metrics name shops and reveal volumes: on the public port they need METRICS_TOKEN as a bearer token. Without one
    // they are not served here, and the answer says what to set. (Serving loopback requests only was tried: a proxy on
    // the same host that adds no forwarding header makes every client local.) METRICS_PORT serves them on a private
    // address instead (operations.md).
    const metrics = deps.metrics;
    const expected = deps.metricsToken ? digest(deps.metricsToken) : undefined;
    app.get('/metrics', async (req, res) => {
      if (!expected) {
        res.status(404).json({ ok: false, error: 'metrics are not served on this port: set METRICS_TOKEN (then scrape with it as a bearer token), or METRICS_PORT for a private address' });
        return;
      }
      const given = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1] ?? '';
      if (!timingSafeEqual(digest(given), expected)) {
        res.set('www-authenticate', 'Bearer realm="print-bridge metrics"').status(401).json({ ok: false, error: 'metrics need the METRICS_TOKEN bearer token' });
        return;
      }
      const { contentType, body } = await metrics.render();
      res.type(contentType).send(body);
    });
  }

  deps.mount?.(app);

  // `application_url` is the site root (shopify.app.toml). Until the embedded home page lives here, the root sends
  // Shopify admin (and anyone else) to the admin pages, keeping the query string (shop, host, id_token).
  app.get('/', (req, res) => {
    const at = req.originalUrl.indexOf('?');
    res.redirect(302, `/admin${at >= 0 ? req.originalUrl.slice(at) : ''}`);
  });

  app.use((_req: Request, res: Response) => {
    res.status(404).json({ ok: false, error: 'not found' });
  });
  // Express 5 forwards rejected promises here; never leak a stack trace.
  app.use((error: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: unknown) => {
    const status = error.status && error.status >= 400 && error.status < 500 ? error.status : 500;
    if (status === 500) deps.logger.error({ err: error }, 'request failed');
    res.status(status).json({ ok: false, error: status === 500 ? 'internal error' : error.message });
  });
  return app;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref())]);
}
