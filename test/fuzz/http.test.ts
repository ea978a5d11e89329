import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import fc from 'fast-check';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresOrderStore } from '../../src/storage/order-store.js';
import { startEmulator, type RunningEmulator } from '../../src/dev/emulator/index.js';
import { silentLogger } from '../../src/logger.js';
import { signRequest } from '../../src/print-service/signing.js';
import { createQueues, enqueuePrintEvent, type Queues } from '../../src/queue/queues.js';
import { createShopifyApi } from '../../src/shopify/shopify-api.js';
import { libraryWebhookVerifier } from '../helpers/library-webhook-verifier.js';
import { createWebApp } from '../../src/web/app.js';
import { createPostbackRouter } from '../../src/web/postbacks.js';
import { testBackends } from '../helpers/backends.js';
import { signedWebhookHeaders } from '../helpers/shopify-webhooks.js';

/**
 * HTTP fuzzing: arbitrary methods, paths, headers and bodies against the app's webhook endpoint and the emulator.
 * Every answer must be a 4xx (or 2xx for what is acceptable) with a JSON body; never a 5xx, never a crash.
 */
const SECRET = 'fuzz-secret';
const header = fc.tuple(
  fc.constantFrom('x-shopify-topic', 'x-shopify-hmac-sha256', 'x-shopify-webhook-id', 'x-shopify-shop-domain', 'content-type', 'x-service-date', 'x-service-authorization', 'x-custom'),
  fc.string({ maxLength: 40 }).map((v) => v.replace(/[^\x20-\x7e]/g, '')),
);
const body = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.constant('{"id": 1, "admin_graphql_api_id": "gid://shopify/Order/1"'),
  fc.constant(''),
);

async function expectJsonNot5xx(res: Awaited<ReturnType<typeof request>>, what: string): Promise<void> {
  const text = await res.body.text();
  expect(res.statusCode, `${what} → ${res.statusCode} ${text}`).toBeLessThan(500);
  expect(() => JSON.parse(text), `${what} answered non-JSON: ${text.slice(0, 80)}`).not.toThrow();
}

/** JSON nested `depth` levels deep (objects and arrays mixed), the way a hostile body would be built. */
function deepJson(depth: number, leaf = '1'): string {
  let text = leaf;
  for (let i = 0; i < depth; i++) text = i % 2 === 0 ? `{"a":${text}}` : `[${text}]`;
  return text;
}

/** Deep and wide JSON bodies: the fuzzers above stop at a few levels; hostile bodies do not. */
const hostileJson = fc.oneof(
  fc.integer({ min: 30, max: 60_000 }).map((d) => `{"event":"shipped","sourceOrderId":"a","x":${deepJson(d)}}`),
  fc.integer({ min: 30, max: 60_000 }).map((d) => `{"event":"errored","sourceOrderId":"a","errorsClean":[${deepJson(d)}]}`),
  fc.integer({ min: 1, max: 60_000 }).map((d) => deepJson(d)),
  fc.integer({ min: 1_000, max: 40_000 }).map((n) => `{"event":"shipped","sourceOrderId":"a",${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`),
  fc.integer({ min: 1_000, max: 40_000 }).map((n) => `{"event":"errored","sourceOrderId":"a","errorsClean":[${Array.from({ length: n }, (_, i) => `"e${i}"`).join(',')}]}`),
);

describe('fuzz: POST /webhooks', () => {
  const { redis, prefix, database, cleanup } = testBackends('fuzz-webhooks');
  let server: Server;
  let url: string;
  let queues: Queues;
  beforeAll(async () => {
    const store = new PostgresOrderStore({ database, redis, prefix });
    queues = createQueues(redis, prefix);
    const shopify = createShopifyApi({ apiKey: 'k', apiSecret: SECRET, appUrl: 'https://app.example.com', scopes: [], apiVersion: '2026-01' });
    const app = createWebApp({
      logger: silentLogger,
      readiness: [],
      webhooks: {
        verify: libraryWebhookVerifier(shopify),
        claim: (keys) => store.claimWebhook(keys),
        enqueue: (job) => queues.webhooks.add(job.topic, job, { jobId: `wh|${job.webhookId.replace(/:/g, '_')}` }),
      },
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.close();
    await queues.close();
    await cleanup();
  });

  it('answers arbitrary requests with a 4xx or 2xx JSON body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(header, { maxLength: 6 }), body, fc.boolean(), async (headers, raw, sign) => {
        const h: Record<string, string> = Object.fromEntries(headers);
        const signed = sign
          ? { ...h, ...signedWebhookHeaders(SECRET, raw, { topic: h['x-shopify-topic'] || 'orders/paid', webhookId: h['x-shopify-webhook-id'] || undefined }) }
          : h;
        const res = await request(`${url}/webhooks`, { method: 'POST', headers: signed, body: raw });
        await expectJsonNot5xx(res, `POST /webhooks ${JSON.stringify(signed).slice(0, 120)}`);
      }),
      { numRuns: 150 },
    );
  });

  it('answers deep and wide signed bodies with a 4xx or 2xx JSON body', async () => {
    await fc.assert(
      fc.asyncProperty(hostileJson, fc.constantFrom('orders/paid', 'shop/redact', 'customers/data_request'), async (raw, topic) => {
        const res = await request(`${url}/webhooks`, { method: 'POST', headers: signedWebhookHeaders(SECRET, raw, { topic }), body: raw });
        await expectJsonNot5xx(res, `POST /webhooks ${topic} ${raw.length} bytes`);
      }),
      { numRuns: 25 },
    );
  });
});

describe('fuzz: POST /postbacks/:token', () => {
  const { redis, prefix, database, cleanup } = testBackends('fuzz-postbacks');
  let server: Server;
  let url: string;
  let queues: Queues;
  const store = new PostgresOrderStore({ database, redis, prefix });
  beforeAll(async () => {
    queues = createQueues(redis, prefix);
    const app = createWebApp({
      logger: silentLogger,
      readiness: [],
      webhooks: { verify: async () => ({ valid: false, reason: 'missing_hmac' }), claim: async () => undefined, enqueue: async () => undefined },
      mount: (express) => {
        express.use(
          createPostbackRouter({
            tokens: ['fuzz-token'],
            basicAuth: 'trigger:pass',
            enqueue: (job) => enqueuePrintEvent(queues.events, job),
            keepUnreadable: (entry) => store.keepUnreadablePostback(entry),
            logger: silentLogger,
          }),
        );
      },
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.close();
    await queues.close();
    await cleanup();
  });

  const postbackBody = fc.oneof(
    body,
    fc
      .record({
        event: fc.constantFrom('Shipment Shipped', 'shipped', 'ORDER PRINT READY', 'Order Submission Error', 'x'),
        sourceOrderId: fc.string({ maxLength: 20 }),
        ShipmentIndex: fc.oneof(fc.integer(), fc.string({ maxLength: 3 })),
        TrackingNumber: fc.string({ maxLength: 12 }),
        Carrier: fc.oneof(fc.string({ maxLength: 8 }), fc.record({ code: fc.string({ maxLength: 8 }), service: fc.string({ maxLength: 8 }) })),
        errorsClean: fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }),
      }, { requiredKeys: [] })
      .map((v) => JSON.stringify(v)),
  );

  it('answers arbitrary requests with a 4xx or 2xx JSON body', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('fuzz-token', 'wrong', '%2e%2e', 'fuzz-token%00'),
        fc.option(fc.constantFrom('trigger:pass', 'trigger:wrong', ':'), { nil: undefined }),
        fc.array(header, { maxLength: 4 }),
        postbackBody,
        async (token, auth, headers, raw) => {
          const h: Record<string, string> = Object.fromEntries(headers);
          if (auth) h.authorization = `Basic ${Buffer.from(auth).toString('base64')}`;
          const res = await request(`${url}/postbacks/${token}`, { method: 'POST', headers: h, body: raw });
          await expectJsonNot5xx(res, `POST /postbacks/${token} ${raw.slice(0, 80)}`);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('answers deep and wide bodies with 400 or 202 (never a 5xx), and keeps what it cannot read', async () => {
    const auth = { authorization: `Basic ${Buffer.from('trigger:pass').toString('base64')}` };
    await fc.assert(
      fc.asyncProperty(hostileJson, async (raw) => {
        const res = await request(`${url}/postbacks/fuzz-token`, { method: 'POST', headers: auth, body: raw });
        const status = res.statusCode;
        await expectJsonNot5xx(res, `POST /postbacks deep/wide ${raw.length} bytes`);
        expect([202, 400, 413]).toContain(status);
      }),
      { numRuns: 25 },
    );
    // The 50,000-deep body of the security review: 400, and kept for the operator.
    const before = await store.countUnreadablePostbacks();
    const res = await request(`${url}/postbacks/fuzz-token`, { method: 'POST', headers: auth, body: `{"event":"shipped","sourceOrderId":"a","x":${deepJson(50_000)}}` });
    expect(res.statusCode).toBe(400);
    expect(((await res.body.json()) as { error: string }).error).toMatch(/nested deeper than/);
    expect(await store.countUnreadablePostbacks()).toBe(before + 1);
  });

  it('refuses an unknown token without reading the body (no 413 for a body over the limit)', async () => {
    const huge = 'x'.repeat(3 * 1024 * 1024);
    const res = await request(`${url}/postbacks/not-a-token`, { method: 'POST', body: huge });
    expect(res.statusCode).toBe(401);
    await res.body.text();
    const known = await request(`${url}/postbacks/fuzz-token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('trigger:pass').toString('base64')}` },
      body: huge,
    });
    expect(known.statusCode).toBe(413);
    expect(await known.body.json()).toMatchObject({ ok: false });
  });
});

describe('fuzz: the emulator', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, manual: true });
  });
  afterAll(() => emu.close());

  const segment = fc.oneof(
    fc.constantFrom('api', 'order', 'validate', 'bysourceid', 'shipment', 'shipping', 'cancel', 'demo-brand', '0', '-1', 'abc', '_emulator', 'orders', 'advance', 'a'.repeat(24), '0123456789abcdef01234567'),
    fc.string({ maxLength: 12 }).map(encodeURIComponent),
  );
  const path = fc.array(segment, { minLength: 1, maxLength: 6 }).chain((parts) =>
    fc.constantFrom('', '?page=0', '?pagesize=abc', '?page=2&pagesize=1000', '?x=%ZZ').map((q) => `/${parts.join('/')}${q}`),
  );

  it('answers arbitrary signed and unsigned requests with JSON, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'), path, body, fc.array(header, { maxLength: 3 }), fc.boolean(), async (method, p, raw, headers, sign) => {
        const url = `${emu.baseUrl}${p}`;
        const signed = sign ? signRequest({ method, url, token: 'demo-token', secret: 'demo-secret' }) : {};
        const res = await request(url, {
          method: method as 'GET',
          headers: { ...Object.fromEntries(headers), ...signed },
          body: method === 'GET' ? undefined : raw,
        });
        await expectJsonNot5xx(res, `${method} ${p}`);
      }),
      { numRuns: 300 },
    );
  });
});
