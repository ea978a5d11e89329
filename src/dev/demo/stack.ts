import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRuntime, type Runtime } from '../../app/runtime.js';
import { loadConfig, type Config } from '../../config.js';
import { postbackTriggers } from '../../print-service/postback-triggers.js';
import { parseAccounts, parseTriggers, startEmulator, type AccountInput, type RunningEmulator } from '../emulator/index.js';
import { createLogger, type Logger } from '../../logger.js';
import { createRedis, deleteByPrefix, waitForRedis } from '../../redis.js';
import { startAdminStandIn, type AdminStandIn } from '../admin-stand-in/index.js';
import { startEmbeddedPreview, type EmbeddedPreview } from '../embedded-preview/index.js';
import { chooseFulfillmentMode } from '../../shops/fulfillment-mode.js';
import { demoMappingYaml, demoPrinterAccounts, DEMO_ACCOUNT, DEMO_PRINTED_PRODUCT_SKUS } from './mapping.js';
import { DEMO_LATE_SHOP, DEMO_SERVICE_SHOP, DEMO_SHOP } from './orders.js';
import { freePort, portIsFree, resolveRedis, type ResolvedRedis } from '../../local-redis.js';
import { systemLookup, type HostLookup } from '../../net/host-lookup.js';

/**
 * Everything the demo runs on one machine, each on a free local port: a Redis (the given one or a private
 * redis-server), the print-service emulator with the demo account and the triggers of docs/triggers.md, the Shopify
 * Admin stand-in with the demo store, and the app (web and worker) configured with generated secrets and the demo's
 * own mapping directory. Nothing is read from `.env`.
 */

export interface DemoStackOptions {
  /** Redis to use when it answers; otherwise a private redis-server is started. */
  redisUrl: string;
  /** Emulator speed: divides its stage delays (500 / 2000 / 3000 ms). */
  speed: number;
  holdSeconds: number;
  /** App web port; 0 or undefined: any free port. */
  port?: number;
  /** Print-service accounts of the emulator; default: the demo account set up for the demo's print SKUs. */
  printerAccounts?: AccountInput[];
  /** Level of the app's and the emulator's logs, written to `logFile`. */
  logLevel?: 'info' | 'debug' | 'warn';
  redisServerCommand?: string;
  /** The operator token of the admin pages; default a random one, printed with --keep-running. */
  adminToken?: string;
}

export interface DemoStack {
  config: Config;
  redis: ResolvedRedis;
  emulator: RunningEmulator;
  standIn: AdminStandIn;
  runtime: Runtime;
  appUrl: string;
  /**
   * The embedded pages as the demo store's merchant sees them in the Shopify admin (embedded-preview/): its session
   * tokens signed here, App Bridge and Polaris stand-ins served here.
   */
  preview: EmbeddedPreview;
  /** Temporary directory with the mapping file; removed by `close`. */
  workDir: string;
  mappingsDir: string;
  /** The app's and the emulator's logs (pino JSON lines); kept after `close`. */
  logFile: string;
  shop: string;
  /** The access token the demo store's custom app uses (registered in the stand-in and the app's sessions). */
  shopToken: string;
  /** The store in fulfillment-service mode: print-bridge's service and the location stocking the printed products. */
  service: { shop: string; serviceId: string; locationId: string; stockedSkus: readonly string[] };
  /** What a merchant does at their print service: one trigger per event for `account`'s orders, posting to `url`. */
  addPrintServiceTriggers(account: string, url: string): void;
  /** Signed as Shopify signs it, for the demo store or another (`shop`). */
  sendWebhook(topic: string, body: unknown, shop?: string): Promise<{ status: number; webhookId: string }>;
  /** Stops the app, the emulator, the stand-in and a private Redis, and deletes the run's keys and files. */
  close(): Promise<void>;
}

/** A setting the demo cannot start with; reported as one line. */
export class DemoSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DemoSetupError';
  }
}

const secret = (bytes = 24) => randomBytes(bytes).toString('hex');

/**
 * The demo's artwork lives on made-up hosts under print-bridge.example (a reserved name that never resolves), and its
 * printer, the local emulator, only pretends to fetch it: they resolve to the emulator's own address, so the
 * submission's artwork host check runs as in production (ARTWORK_PRIVATE_ADDRESSES accepts the local answer). Any
 * other name goes to the system resolver.
 */
const demoLookup: HostLookup = async (host) =>
  host === 'print-bridge.example' || host.endsWith('.print-bridge.example') ? [{ address: '127.0.0.1', family: 4 }] : systemLookup(host);

export async function startDemoStack(options: DemoStackOptions): Promise<DemoStack> {
  const cleanups: (() => Promise<void> | void)[] = [];
  const runCleanups = async () => {
    for (const cleanup of cleanups.reverse()) await Promise.resolve().then(cleanup).catch(() => undefined);
    cleanups.length = 0;
  };
  // Checked before anything starts: a web server that cannot listen would leave the rest half-started.
  if (options.port && options.port > 0 && !(await portIsFree(options.port))) {
    throw new DemoSetupError(`port ${options.port} is in use; choose another --port, or leave it out for a free one`);
  }
  try {
    const workDir = mkdtempSync(join(tmpdir(), 'print-bridge-demo-'));
    const mappingsDir = join(workDir, 'mappings');
    // Beside the work directory, not in it: the logs stay for reading after the run has cleaned up.
    const logFile = `${workDir}.log`;
    cleanups.push(() => rmSync(workDir, { recursive: true, force: true }));
    mkdirSync(mappingsDir);
    writeFileSync(join(mappingsDir, 'demo.yaml'), demoMappingYaml({ holdMinutes: options.holdSeconds / 60 }));
    writeFileSync(join(mappingsDir, 'service.yaml'), demoMappingYaml({ holdMinutes: options.holdSeconds / 60, shop: DEMO_SERVICE_SHOP }));

    const logStream: WriteStream = createWriteStream(logFile, { flags: 'a' });
    cleanups.push(() => new Promise<void>((resolve) => logStream.end(() => resolve())));
    const logger: Logger = createLogger({ level: options.logLevel ?? 'info', name: 'print-bridge-demo', destination: logStream });

    const redis = await resolveRedis(options.redisUrl, { redisServerCommand: options.redisServerCommand });
    cleanups.push(() => redis.stop());
    const prefix = `print-bridge-demo:${secret(4)}:`;
    cleanups.push(async () => {
      const client = createRedis(redis.url, 'request');
      try {
        await waitForRedis(client, 5_000);
        await deleteByPrefix(client, prefix);
      } finally {
        client.disconnect();
      }
    });

    const emulator = await startEmulator({
      port: 0,
      speed: options.speed,
      accounts: parseAccounts(options.printerAccounts ?? demoPrinterAccounts()),
      // The app answers postbacks within milliseconds; a retry after a hiccup should not stall the demo.
      delivery: { baseDelayMs: 250, maxAttempts: 8 },
      logger: logger.child({ component: 'emulator' }),
    });
    cleanups.push(() => emulator.close());

    const shopToken = `shpat_${secret(16)}`;
    const lateShopToken = `shpat_${secret(16)}`;
    const serviceShopToken = `shpat_${secret(16)}`;
    // A Shopify Plus store's query-cost limits (20,000 points, 1,000 a second): on a standard plan's 2,000 and 100,
    // a burst of orders shipping at once is paced over tens of seconds, as it would be in Shopify, and the demo drags.
    const standIn = await startAdminStandIn({
      port: 0,
      accessTokens: { [DEMO_SHOP]: shopToken, [DEMO_LATE_SHOP]: lateShopToken, [DEMO_SERVICE_SHOP]: serviceShopToken },
      bucket: { maximumAvailable: 20_000, restoreRate: 1_000 },
    });
    cleanups.push(() => standIn.close());

    const port = options.port && options.port > 0 ? options.port : await freePort();
    const appUrl = `http://127.0.0.1:${port}`;
    const postbackToken = secret();
    const config = loadConfig({
      dotenvPath: false,
      env: {
        PORT: String(port),
        APP_URL: appUrl,
        REDIS_URL: redis.url,
        REDIS_PREFIX: prefix,
        // The embedded database, in memory: the demo needs no database server and leaves no files behind.
        DATA_DIR: 'memory://',
        SHOPIFY_API_KEY: `demo-${secret(8)}`,
        SHOPIFY_API_SECRET: `shpss_${secret(16)}`,
        // The demo makes its own key: its store tokens are encrypted at rest like any install's.
        ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        SHOPIFY_ADMIN_API_ORIGIN: standIn.origin,
        PRINT_API_BASE_URL: emulator.baseUrl,
        PRINT_API_ORDERS_URL: emulator.ordersUrl,
        PRINT_API_TOKEN: DEMO_ACCOUNT.token,
        PRINT_API_SECRET: DEMO_ACCOUNT.secret,
        PRINT_SOURCE_ACCOUNT: DEMO_ACCOUNT.name,
        POSTBACK_TOKEN: postbackToken,
        // The demo's Redis keeps nothing on disk: fine for a demo, refused in production (docs/operations.md).
        REDIS_ALLOW_VOLATILE: 'true',
        // The second store's own print account is the demo's local emulator.
        PRINT_ACCOUNT_PRIVATE_HOSTS: 'true',
        // The demo's artwork hosts are its own made-up names, "served" by the local emulator (demoLookup).
        ARTWORK_PRIVATE_ADDRESSES: 'true',
        ADMIN_TOKEN: options.adminToken ?? secret(16),
        // `GET /metrics` on the app's port, with this bearer token (printed by --keep-running).
        METRICS_TOKEN: secret(24),
        MAPPINGS_DIR: mappingsDir,
        // Nothing goes silent in a run of seconds; the reconciliation would only add a scheduler to clean up.
        RECONCILE_SILENT_MINUTES: '0',
        RECONCILE_LOOKBACK_HOURS: '0',
        LOG_LEVEL: options.logLevel ?? 'info',
      },
    });

    const runtime = await startRuntime({ config, roles: { web: true, worker: true }, logger, port, host: '127.0.0.1', lookup: demoLookup });
    // The emulator first, so no postback arrives at an app that is shutting down.
    cleanups.push(async () => {
      await emulator.close();
      await runtime.close();
    });
    // As `print-bridge shops add DOMAIN --token TOKEN` does: the demo store uses a custom app's token, not OAuth.
    await runtime.sessions.addCustomAppToken(DEMO_SHOP, shopToken, config.SHOPIFY_SCOPES);
    // The late-mapping scenario's store: connected, but no mapping file serves it until the scenario writes one.
    await runtime.sessions.addCustomAppToken(DEMO_LATE_SHOP, lateShopToken, config.SHOPIFY_SCOPES);
    await runtime.sessions.addCustomAppToken(DEMO_SERVICE_SHOP, serviceShopToken, config.SHOPIFY_SCOPES);
    // The operator's account posts to the operator-wide address; a merchant's own account gets its own triggers.
    const triggers = postbackTriggers(`${appUrl}/postbacks/${postbackToken}`).map((t) => ({ ...t, account: DEMO_ACCOUNT.name }));
    emulator.deliveries.setTriggers(parseTriggers(triggers));
    // Managed install: the stand-in exchanges the app's session tokens as Shopify does.
    standIn.configureApp({ apiKey: config.SHOPIFY_API_KEY!, apiSecret: config.SHOPIFY_API_SECRET!, scopes: config.SHOPIFY_SCOPES.join(',') });
    // Stopped before the app (cleanups run in reverse), so no page load reaches an app that is shutting down.
    const preview = await startEmbeddedPreview({ appUrl, shop: DEMO_SHOP, apiKey: config.SHOPIFY_API_KEY!, apiSecret: config.SHOPIFY_API_SECRET! });
    cleanups.push(() => preview.close());

    const webhookSecret = config.SHOPIFY_API_SECRET as string;
    // Shopify's fulfillment-order webhooks (a hold placed or released) reach the app as Shopify would send them.
    standIn.configureWebhooks({ url: `${appUrl}/webhooks`, secret: webhookSecret, apiVersion: config.SHOPIFY_API_VERSION });
    // As `print-bridge shops fulfillment DOMAIN service` does: the app registers its fulfillment service (and location)
    // in the store; the merchant then assigns the printed products to that location. Shopify's requests and their
    // callback pings (signed with the app's secret, set above) follow by themselves as orders come in.
    const chosen = await chooseFulfillmentMode({ ...runtime.fulfillmentMode, appUrl }, DEMO_SERVICE_SHOP, 'service');
    if (!chosen.service) throw new Error(`the demo could not put ${DEMO_SERVICE_SHOP} in fulfillment-service mode: ${chosen.message}`);
    const stocked = standIn.stockFulfillmentService(DEMO_SERVICE_SHOP, chosen.service.id, [...DEMO_PRINTED_PRODUCT_SKUS]);
    if (!stocked.ok) throw new Error(`the stand-in refused to stock print-bridge's location: ${stocked.userErrors.map((e) => e.message).join('; ')}`);
    const service = { shop: DEMO_SERVICE_SHOP, serviceId: chosen.service.id, locationId: chosen.service.locationId, stockedSkus: DEMO_PRINTED_PRODUCT_SKUS };
    return {
      config,
      redis,
      emulator,
      standIn,
      runtime,
      appUrl,
      preview,
      workDir,
      mappingsDir,
      logFile,
      shop: DEMO_SHOP,
      shopToken,
      service,
      addPrintServiceTriggers(account, url) {
        triggers.push(...postbackTriggers(url).map((t) => ({ ...t, account })));
        emulator.deliveries.setTriggers(parseTriggers(triggers));
      },
      async sendWebhook(topic, body, shop = DEMO_SHOP) {
        const raw = JSON.stringify(body);
        const webhookId = randomUUID();
        const response = await fetch(`${appUrl}/webhooks`, {
          method: 'POST',
          body: raw,
          headers: signedWebhookHeaders(webhookSecret, raw, { topic, shop, webhookId, apiVersion: config.SHOPIFY_API_VERSION }),
        });
        await response.arrayBuffer();
        return { status: response.status, webhookId };
      },
      close: runCleanups,
    };
  } catch (error) {
    await runCleanups();
    throw error;
  }
}

/** The headers Shopify sends with a webhook: HMAC-SHA256 of the raw body with the app's secret, base64. */
export function signedWebhookHeaders(
  secretKey: string,
  body: string,
  options: { topic: string; shop: string; webhookId: string; apiVersion: string },
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-shopify-topic': options.topic,
    'x-shopify-shop-domain': options.shop,
    'x-shopify-webhook-id': options.webhookId,
    'x-shopify-event-id': randomUUID(),
    'x-shopify-api-version': options.apiVersion,
    'x-shopify-triggered-at': new Date().toISOString(),
    'x-shopify-hmac-sha256': createHmac('sha256', secretKey).update(body, 'utf8').digest('base64'),
  };
}
