import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { startRuntime, type Runtime } from '../../src/app/runtime.js';
import { loadConfig, type Config } from '../../src/config.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/dev/emulator/index.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import { SeedError, startAdminStandIn, type AdminStandIn } from '../../src/dev/admin-stand-in/index.js';
import { deleteByPrefix, TEST_REDIS_URL } from './redis.js';
import { dropSchema, TEST_DATABASE_URL, testSchemaName } from './database.js';
import { signedWebhookHeaders } from './shopify-webhooks.js';
import type { HostLookup } from '../../src/net/host-lookup.js';
import { waitForQueuesIdle, type PipelineQueue } from './queues-idle.js';

export const SHOP = 'acme-print-test.myshopify.com';
export const SHOP_TOKEN = 'shpat_test_token';
export const SHOPIFY_SECRET = 'shpss_harness_secret';
/** ENCRYPTION_KEY of the harness's app (32 bytes, base64). */
export const HARNESS_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');
/** The bearer token `GET /metrics` needs in the harness's app. */
export const HARNESS_METRICS_TOKEN = 'metrics-token-for-tests-0123456789abcdef';
export const metricsHeaders = { authorization: `Bearer ${HARNESS_METRICS_TOKEN}` };

/** A mapping for integration tests: every SKU prints as itself with one artwork URL, grouped by vendor. */
export function testMapping(extra: { holdMinutes?: number; validate?: boolean; unmapped?: 'hold' | 'skip'; waitForHolds?: string; waitForRisk?: string } = {}): string {
  return `shops: ["*"]
destination: demo-printer
submit:
  on: orders/paid
  holdMinutes: ${extra.holdMinutes ?? 0}
  validate: ${extra.validate ?? true}
${extra.waitForHolds ? `  wait_for_holds: ${extra.waitForHolds}\n` : ''}${extra.waitForRisk ? `  wait_for_risk: ${extra.waitForRisk}\n` : ''}shipments:
  carrier: { alias: standard }
  returnAddress: { name: "Acme Returns", address1: "1 Mill Lane", town: "Leeds", postcode: "LS1 1AA", isoCountry: GB }
products:
  - match: { sku: "PRINT-*" }
    sku: "{{ line.sku }}"
    shipment: "{{ line.vendor | default: 'main' }}"
    components:
      - code: cover
        path: "https://files.example.com/{{ line.sku }}.pdf"
unmapped: ${extra.unmapped ?? 'hold'}
tracking:
  royalmail: { company: "Royal Mail", url: "https://track.example.com/{{ trackingNumber }}" }
`;
}

/** A public address (example.com's) that names without an answer of their own resolve to. */
export const PUBLIC_ADDRESS = '93.184.216.34';

/**
 * A stand-in resolver, as the tests have no internet: each name in `answers` resolves to its addresses (an empty
 * list: the name does not exist), any other name to PUBLIC_ADDRESS.
 */
export function answering(answers: Record<string, readonly string[]>): HostLookup {
  return async (host) => {
    const addresses = answers[host] ?? [PUBLIC_ADDRESS];
    if (addresses.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

export interface Harness {
  emulator: RunningEmulator;
  standIn: AdminStandIn;
  runtime: Runtime;
  config: Config;
  prefix: string;
  /** The PostgreSQL schema of this harness's app. */
  schema: string;
  mappingsDir: string;
  sendWebhook(topic: string, body: unknown, webhookId?: string): Promise<Response>;
  close(): Promise<void>;
}

export async function startHarness(
  options: {
    emulator?: EmulatorOptions;
    mapping?: string;
    roles?: { web: boolean; worker: boolean };
    lockDurationMs?: number;
    logger?: Logger;
    /** Further environment variables for the app's configuration (e.g. ADMIN_TOKEN). */
    env?: Record<string, string>;
    /** How the app resolves host names (artwork hosts, merchants' accounts); `answering({})` by default. */
    lookup?: HostLookup;
  } = {},
): Promise<Harness> {
  const prefix = `pbtest:harness:${randomBytes(4).toString('hex')}:`;
  const schema = testSchemaName('harness');
  const mappingsDir = mkdtempSync(join(tmpdir(), 'pb-mappings-'));
  writeFileSync(join(mappingsDir, 'default.yaml'), options.mapping ?? testMapping());
  const emulator = await startEmulator({ port: 0, manual: true, ...options.emulator });
  const standIn = await startAdminStandIn({ port: 0 });
  standIn.registerShop(SHOP, SHOP_TOKEN);
  const config = loadConfig({
    dotenvPath: false,
    env: {
      APP_URL: 'http://127.0.0.1',
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: schema,
      SHOPIFY_API_KEY: 'test-key',
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      ENCRYPTION_KEY: HARNESS_ENCRYPTION_KEY,
      SHOPIFY_ADMIN_API_ORIGIN: standIn.origin,
      PRINT_API_BASE_URL: emulator.baseUrl,
      PRINT_API_ORDERS_URL: emulator.ordersUrl,
      PRINT_API_TOKEN: 'demo-token',
      PRINT_API_SECRET: 'demo-secret',
      PRINT_SOURCE_ACCOUNT: 'demo-brand',
      POSTBACK_TOKEN: 'postback-test-token-0123456789abcdef',
      // The test Redis keeps nothing on disk (as CI's); the durability check has tests of its own.
      REDIS_ALLOW_VOLATILE: 'true',
      // The stores' own accounts in the tests are the local emulator.
      PRINT_ACCOUNT_PRIVATE_HOSTS: 'true',
      METRICS_TOKEN: HARNESS_METRICS_TOKEN,
      MAPPINGS_DIR: mappingsDir,
      LOG_LEVEL: 'silent',
      ...options.env,
    },
  });
  // Managed install: the stand-in exchanges session tokens signed with the app's secret (oauth.ts).
  standIn.configureApp({ apiKey: config.SHOPIFY_API_KEY!, apiSecret: config.SHOPIFY_API_SECRET!, scopes: config.SHOPIFY_SCOPES.join(',') });
  const runtime = await startRuntime({
    config,
    roles: options.roles ?? { web: true, worker: true },
    logger: options.logger ?? silentLogger,
    port: 0,
    host: '127.0.0.1',
    lockDurationMs: options.lockDurationMs,
    lookup: options.lookup ?? answering({}),
  });
  await runtime.sessions.addCustomAppToken(SHOP, SHOP_TOKEN, config.SHOPIFY_SCOPES);
  return {
    emulator,
    standIn,
    runtime,
    config,
    prefix,
    schema,
    mappingsDir,
    sendWebhook(topic, body, webhookId = randomUUID()) {
      // Shopify sends an order's webhook because the store has the order: the stand-in has it too (the app asks it
      // before printing). A test of a replayed body posts without this.
      if (topic.startsWith('orders/') && body && typeof body === 'object' && 'admin_graphql_api_id' in body) {
        try {
          standIn.seedOrder(SHOP, body);
        } catch (error) {
          if (!(error instanceof SeedError)) throw error; // A body no store could have (a test of unreadable bodies).
        }
      }
      const raw = typeof body === 'string' ? body : JSON.stringify(body);
      return fetch(`${runtime.url}/webhooks`, {
        method: 'POST',
        body: raw,
        headers: signedWebhookHeaders(SHOPIFY_SECRET, raw, { topic, shop: SHOP, webhookId }),
      });
    },
    async close() {
      await runtime.close();
      await emulator.close();
      await standIn.close();
      const redis = new Redis(TEST_REDIS_URL);
      await deleteByPrefix(redis, prefix);
      redis.disconnect();
      await dropSchema(schema);
    },
  };
}

/** Polls until `check` returns a value other than undefined/false, or fails with what it last saw. */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<Exclude<T, false | undefined | null | 0 | ''>> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await check();
    if (last) return last as Exclude<T, false | undefined | null | 0 | ''>;
    await sleep(options.intervalMs ?? 50);
  }
  throw new Error(`timed out waiting for ${options.what ?? 'a condition'} (last: ${JSON.stringify(last)})`);
}

/**
 * Waits until the app's pipeline has no work left: the webhooks, orders, events and Shopify queues drained
 * (waitForQueuesIdle, read in the order work flows). The maintenance queue is left out: its schedule always holds a
 * delayed job. What a test checks "did not happen" after this had its chance to happen. `queues` narrows the wait to
 * the queues whose work the test's check is about (in flow order).
 */
export async function waitForIdle(h: Pick<Harness, 'runtime'>, options: { timeoutMs?: number; what?: string; queues?: PipelineQueue[] } = {}): Promise<void> {
  await waitForQueuesIdle(h.runtime.queues, options.queues ?? ['webhooks', 'orders', 'events', 'shopify'], {
    timeoutMs: options.timeoutMs,
    what: options.what ?? 'the webhooks, orders, events and Shopify queues to drain',
  });
}

let counter = 0;
/** A Shopify orders/paid webhook body (REST JSON) written for these tests; ids above 2^53 where Shopify has them. */
export function orderBody(lines: { sku: string | null; quantity?: number; vendor?: string; title?: string }[] = [{ sku: 'PRINT-A5' }], overrides: Record<string, unknown> = {}) {
  counter += 1;
  const n = 1000 + counter;
  const orderId = `99000000000000${n}`;
  return {
    id: Number(orderId),
    admin_graphql_api_id: `gid://shopify/Order/${orderId}`,
    name: `#${n}`,
    order_number: n,
    email: 'zoe@example.com',
    created_at: '2026-11-21T10:00:00-05:00',
    updated_at: '2026-11-21T10:00:00-05:00',
    cancelled_at: null,
    financial_status: 'paid',
    currency: 'EUR',
    shipping_address: {
      name: 'Zoë Ünal', first_name: 'Zoë', last_name: 'Ünal', address1: 'ul. Piotrkowska 1', address2: null,
      city: 'Łódź', zip: '90-001', province: 'Łódzkie', country: 'Poland', country_code: 'PL', phone: '+48 42 000 00 00', company: null,
    },
    shipping_lines: [{ code: 'Standard', title: 'Standard' }],
    line_items: lines.map((line, i) => ({
      id: Number(`77000000000${n}${i}`),
      admin_graphql_api_id: `gid://shopify/LineItem/77000000000${n}${i}`,
      sku: line.sku,
      title: line.title ?? `Print ${line.sku ?? 'unknown'}`,
      vendor: line.vendor ?? 'Acme',
      quantity: line.quantity ?? 1,
      current_quantity: line.quantity ?? 1,
      requires_shipping: true,
      gift_card: false,
      price: '10.00',
      properties: [],
      variant_id: null,
      product_id: null,
    })),
    ...overrides,
  };
}

/** The emulator's orders with this sourceOrderId (every account). */
export function emulatorOrders(emulator: RunningEmulator, sourceOrderId: string) {
  return emulator.store.all().filter((o) => o.sourceOrderId === sourceOrderId);
}

/** Moves the emulator's order (by sourceOrderId) on to `to` (received, print-ready, shipped, ...), as its manual mode does. */
export async function advanceAtEmulator(emulator: RunningEmulator, sourceOrderId: string, to: string): Promise<void> {
  const record = emulatorOrders(emulator, sourceOrderId)[0];
  if (!record) throw new Error(`the emulator has no order ${sourceOrderId}`);
  const res = await fetch(`${emulator.baseUrl}/_emulator/orders/${record.record._id}/advance`, {
    method: 'POST',
    body: JSON.stringify({ to }),
    headers: { 'content-type': 'application/json' },
  });
  if (res.status !== 200) throw new Error(`advancing ${sourceOrderId} to ${to} answered ${res.status}: ${await res.text()}`);
}
