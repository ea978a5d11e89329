import '@shopify/shopify-api/adapters/node';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiVersion, LogSeverity, Session, shopifyApi } from '@shopify/shopify-api';
import type { Redis } from 'ioredis';
import type { OrderLink, ShipmentLineItem } from '../../src/orders/model.js';
import type { Database } from '../../src/db/database.js';
import { PostgresOrderStore } from '../../src/storage/order-store.js';
import type { ShopifyFulfillmentPort, TrackingLookup } from '../../src/bridge/ports.js';
import { parseAccounts } from '../../src/dev/emulator/accounts.js';
import { basicAuthHeader, postbackTriggers } from '../../src/print-service/postback-triggers.js';
import { startEmulator, type RunningEmulator } from '../../src/dev/emulator/server.js';
import { parseTriggers } from '../../src/dev/emulator/triggers.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import { PrintServiceClient } from '../../src/print-service/client.js';
import { createQueues, enqueuePrintEvent, type Queues } from '../../src/queue/queues.js';
import { QueueScheduler } from '../../src/queue/scheduler.js';
import { startPrintEventWorker, startStatusSyncWorker, type Workers } from '../../src/queue/workers.js';
import { startAdminStandIn, type AdminStandIn } from '../../src/dev/admin-stand-in/index.js';
import { createShopifyApiTransport, JOB_INLINE_WAIT_MS, ShopifyAdminApi, ShopifyPacer, StatusMetafieldBatches, type PacingWait } from '../../src/shopify/admin-api.js';
import { adminApiFulfillmentPort } from '../../src/adapters/fulfillment-port.js';
import { createWebApp } from '../../src/web/app.js';
import { createPostbackRouter } from '../../src/web/postbacks.js';
import { statusByOrderUpdate } from './status-by-order-update.js';
import { waitForQueuesIdle } from './queues-idle.js';

/**
 * Postbacks end to end without the app's runtime: the emulator with the documented triggers posts to the postback
 * route, which queues in real Redis; an events worker applies each event through the real ShopifyAdminApi (the
 * library's GraphqlClient) to the Admin API stand-in.
 */

export const SHOP = 'postbacks-e2e.myshopify.com';
export const ACCESS_TOKEN = 'shpat_postbacks_e2e';
export const POSTBACK_TOKENS = ['old-postback-token', 'postback-token'];
export const BASIC_AUTH = 'printer:pb-s3cret';
const ACCOUNT = { name: 'pb-brand', token: 'pb-token', secret: 'pb-secret', accountId: 'abcdefabcdefabcdefabcdef' };

/** Stands for the mapping's `tracking` table (src/mapping/tracking.ts in the app). */
export const TRACKING_TABLE: Record<string, { company: string; url: string }> = {
  royalmail: { company: 'Royal Mail', url: 'https://www.royalmail.com/track-your-item#/tracking-results/{n}' },
  dhl: { company: 'DHL Express', url: 'https://www.dhl.com/track?AWB={n}' },
};
export const trackingLookup: TrackingLookup = (_shop, code, number) => {
  const entry = TRACKING_TABLE[code.toLowerCase()];
  return entry ? { company: entry.company, url: entry.url.replace('{n}', encodeURIComponent(number)) } : { company: code };
};

export interface HarnessOptions {
  redis: Redis;
  prefix: string;
  database: Database;
  bucket?: { maximumAvailable?: number; restoreRate?: number };
  concurrency?: number;
  logger?: Logger;
  /** Stage delays of the emulator in ms. */
  stageMs?: number;
  backoff?: (attemptsMade: number, error?: Error) => number;
  /**
   * How long a status sync waits before it shows an event in Shopify (the app's SYNC_DELAY_MS by default); `inline`
   * shows it in the event's own job instead.
   */
  syncDelayMs?: number | 'inline';
  /** The wait of a sync of a received or partially shipped order (the app's SETTLING_SYNC_DELAY_MS by default). */
  settlingDelayMs?: number;
  /** Calls the stand-in's log keeps (its default 1,000); a benchmark counting every call's cost needs them all. */
  requestLogSize?: number;
  /**
   * How the status is written: the app's (`tagsAdd`, `tagsRemove`, and the metafield in a shared `metafieldsSet`; the default), or one
   * `orderUpdate` replacing the tag list (issue 27: measured, not kept; test/helpers/status-by-order-update.ts).
   */
  statusWrite?: 'app' | 'order-update';
  /** How long a status metafield waits for others to share its request (StatusMetafieldBatches' default). */
  statusMetafieldWindowMs?: number;
}

export interface TestOrder {
  orderId: string;
  sourceOrderId: string;
  printOrderId: string;
  lines: { a: string; b: string };
}

export interface PostbackHarness {
  standIn: AdminStandIn;
  emulator: RunningEmulator;
  store: PostgresOrderStore;
  queues: Queues;
  postbackUrl: string;
  waits: PacingWait[];
  worker: Workers;
  fulfillment: ShopifyFulfillmentPort;
  /** POSTs a body to the postback route as the print service's trigger would (token and basic auth). */
  post(body: string): Promise<Response>;
  /** Resolves when the events queue has nothing waiting, delayed or running. */
  drained(timeoutMs?: number): Promise<void>;
  /** Seeds a Shopify order (A × 3, B × 1), records its link with two shipments (A × 2; A × 1 + B × 1) as the submit use case does, and creates it at the emulator. */
  createOrder(n: number, options?: { create?: boolean; beforeCreate?: (order: TestOrder) => void }): Promise<TestOrder>;
  waitForLink(orderId: string, done: (link: OrderLink) => boolean, timeoutMs?: number): Promise<OrderLink>;
  close(): Promise<void>;
}

export async function startPostbackHarness(options: HarnessOptions): Promise<PostbackHarness> {
  const logger = options.logger ?? silentLogger;
  const standIn = await startAdminStandIn({ accessTokens: { [SHOP]: ACCESS_TOKEN }, bucket: options.bucket, requestLogSize: options.requestLogSize });
  const shopify = shopifyApi({
    apiKey: 'pb-key',
    apiSecretKey: 'pb-secret',
    hostName: 'print-bridge.test',
    apiVersion: ApiVersion.January26,
    isEmbeddedApp: false,
    logger: { level: LogSeverity.Error },
  });
  const waits: PacingWait[] = [];
  // As the app's (shopify-effects.ts): a long wait for the bucket is spent outside the worker slot.
  const pacer = new ShopifyPacer({ unavailableBaseDelayMs: 10, maxInlineWaitMs: JOB_INLINE_WAIT_MS, onWait: (w) => waits.push(w) });
  const session = new Session({ id: `offline_${SHOP}`, shop: SHOP, state: 'test', isOnline: false, accessToken: ACCESS_TOKEN });
  // As the app's (ShopifyAdminClients): the status metafields written together, unless the orderUpdate variant is measured.
  const statusMetafields = options.statusWrite === 'order-update' ? undefined : new StatusMetafieldBatches({ windowMs: options.statusMetafieldWindowMs });
  const api = new ShopifyAdminApi(createShopifyApiTransport({ shopify, session, adminApiOrigin: standIn.origin }), { pacer, statusMetafields });

  const store = new PostgresOrderStore({ database: options.database, redis: options.redis, prefix: options.prefix });
  const queues = createQueues(options.redis, options.prefix);
  const web = createWebApp({
    logger,
    readiness: [],
    webhooks: { verify: async () => ({ valid: false, reason: 'missing_hmac' }), claim: async () => undefined, enqueue: async () => undefined },
    mount: (app) =>
      app.use(
        createPostbackRouter({
          tokens: POSTBACK_TOKENS,
          basicAuth: BASIC_AUTH,
          enqueue: (job) => enqueuePrintEvent(queues.events, job),
          keepUnreadable: (entry) => store.keepUnreadablePostback(entry),
          logger,
        }),
      ),
  });
  const server: Server = web.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const postbackUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/postbacks/${POSTBACK_TOKENS[1]}`;

  const appPort = adminApiFulfillmentPort(() => api);
  const fulfillment = options.statusWrite === 'order-update' ? statusByOrderUpdate(appPort, () => api) : appPort;
  // As the app's workers: the status an event leaves is shown in Shopify by a sync job a moment later.
  const later = options.syncDelayMs !== 'inline';
  const scheduler = new QueueScheduler(queues, { syncDelayMs: typeof options.syncDelayMs === 'number' ? options.syncDelayMs : undefined, settlingDelayMs: options.settlingDelayMs });
  const worker = startPrintEventWorker(
    {
      store,
      logger,
      clock: () => new Date(),
      shopify: fulfillment,
      tracking: trackingLookup,
      ...(later ? { showStatusLater: (shop: string, orderId: string, show: { settling: boolean }) => scheduler.syncShopify(shop, orderId, show) } : {}),
    },
    { connection: options.redis, prefix: options.prefix, concurrency: options.concurrency ?? 8, logger, backoff: options.backoff ?? ((attempts) => 50 * attempts) },
  );
  const syncs = startStatusSyncWorker(
    { store, shopify: fulfillment, logger },
    { connection: options.redis, prefix: options.prefix, concurrency: options.concurrency ?? 8, logger, backoff: options.backoff ?? ((attempts) => 50 * attempts) },
  );

  const stageMs = options.stageMs ?? 5;
  const emulator = await startEmulator({
    port: 0,
    accounts: parseAccounts(
      [{ ...ACCOUNT, carriers: { standard: { code: 'royalmail', service: 'tracked48' }, express: { code: 'dhl', service: 'express-worldwide' } } }],
      'harness accounts',
    ),
    triggers: parseTriggers(postbackTriggers(postbackUrl, { authorization: basicAuthHeader(BASIC_AUTH) }), 'demo triggers'),
    delays: { receivedMs: stageMs, printReadyMs: stageMs, shipMs: stageMs },
    delivery: { maxAttempts: 5, baseDelayMs: 20, maxDelayMs: 200, timeoutMs: 5000 },
    logger: silentLogger,
  });
  const printService = new PrintServiceClient({ baseUrl: emulator.baseUrl, token: ACCOUNT.token, secret: ACCOUNT.secret });

  async function createOrder(n: number, createOptions: { create?: boolean; beforeCreate?: (order: TestOrder) => void } = {}): Promise<TestOrder> {
    const base = 9_007_199_254_800_000n + BigInt(n) * 10n;
    const orderId = `gid://shopify/Order/${base}`;
    const a = `gid://shopify/LineItem/${base + 1n}`;
    const b = `gid://shopify/LineItem/${base + 2n}`;
    standIn.seedOrder(SHOP, {
      admin_graphql_api_id: orderId,
      name: `#${1000 + n}`,
      created_at: '2026-11-21T09:00:00Z',
      updated_at: '2026-11-21T09:00:00Z',
      tags: 'vip',
      line_items: [
        { admin_graphql_api_id: a, name: 'Book A5', sku: 'BOOK-A5', quantity: 3 },
        { admin_graphql_api_id: b, name: 'Poster A2', sku: 'POSTER-A2', quantity: 1 },
      ],
    });
    const sourceOrderId = `pb-${options.prefix.split(':')[2]}-${n}`;
    const lineItems: ShipmentLineItem[][] = [
      [{ lineItemId: a, quantity: 2, sku: 'BOOK-A5' }],
      [
        { lineItemId: a, quantity: 1, sku: 'BOOK-A5' },
        { lineItemId: b, quantity: 1, sku: 'POSTER-A2' },
      ],
    ];
    await store.update(SHOP, orderId, () => ({
      link: {
        ...store.blank(SHOP, orderId),
        orderName: `#${1000 + n}`,
        status: 'submitting',
        sourceOrderId,
        submitAttempts: 1,
        shipments: lineItems.map((l, index) => ({ index, lineItems: l, status: 'pending' as const })),
      },
    }));
    let printOrderId = '';
    createOptions.beforeCreate?.({ orderId, sourceOrderId, printOrderId, lines: { a, b } });
    if (createOptions.create !== false) {
      const ack = await printService.create(printOrder(sourceOrderId));
      printOrderId = ack._id;
      const { link } = await store.update(SHOP, orderId, (current) =>
        current ? { link: { ...current, printOrderId, ...(current.status === 'submitting' ? { status: 'submitted' as const } : {}) } } : undefined,
      );
      await store.indexPrintOrderId(link!);
    }
    return { orderId, sourceOrderId, printOrderId, lines: { a, b } };
  }

  async function waitForLink(orderId: string, done: (link: OrderLink) => boolean, timeoutMs = 15_000): Promise<OrderLink> {
    const deadline = Date.now() + timeoutMs;
    let link: OrderLink | undefined;
    while (Date.now() < deadline) {
      link = await store.get(SHOP, orderId);
      if (link && done(link)) return link;
      await sleep(25);
    }
    throw new Error(`order ${orderId} did not get there in ${timeoutMs} ms; last: ${JSON.stringify(link)}`);
  }

  const post = (body: string) =>
    fetch(postbackUrl, { method: 'POST', body, headers: { 'content-type': 'application/json', authorization: basicAuthHeader(BASIC_AUTH) } });

  // An event job queues its sync before it finishes, so the events queue is read before the Shopify queue.
  const drained = (timeoutMs = 15_000) => waitForQueuesIdle(queues, ['events', 'shopify'], { timeoutMs, what: 'the events and Shopify queues to drain' });

  return {
    standIn,
    emulator,
    fulfillment,
    post,
    drained,
    store,
    queues,
    postbackUrl,
    waits,
    worker,
    createOrder,
    waitForLink,
    async close() {
      await emulator.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await worker.close();
      await syncs.close();
      await queues.close();
      await printService.close();
      await standIn.close();
    },
  };
}

function printOrder(sourceOrderId: string) {
  const address = (i: number) => ({ name: 'Ada Lovelace', address1: `${i} Mill Lane`, town: 'Leeds', postcode: 'LS1 1AA', isoCountry: 'GB' });
  return {
    destination: { name: 'any-printer' },
    orderData: {
      sourceOrderId,
      customerName: 'Ada Lovelace',
      items: [0, 1].map((i) => ({
        sourceItemId: `${sourceOrderId}-item-${i}`,
        sku: 'A5-BOOK',
        quantity: 1,
        shipmentIndex: i,
        components: [{ code: 'cover', path: `https://files.example.test/${sourceOrderId}/cover.pdf`, fetch: true }],
      })),
      shipments: [0, 1].map((i) => ({
        shipTo: address(i + 1),
        returnAddress: address(99),
        carrier: { alias: i === 0 ? 'standard' : 'express' },
      })),
    },
  };
}
