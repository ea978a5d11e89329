import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PostgresOrderStore } from '../../src/storage/order-store.js';
import { silentLogger } from '../../src/logger.js';
import { createQueues, type Queues } from '../../src/queue/queues.js';
import { createRedis, waitForRedis } from '../../src/redis.js';
import { createShopifyApi } from '../../src/shopify/shopify-api.js';
import { hmacWebhookVerifier } from '../../src/shopify/webhook-hmac.js';
import { acceptWebhook, type WebhookIntakeDeps } from '../../src/shopify/webhook-intake.js';
import { libraryWebhookVerifier } from '../helpers/library-webhook-verifier.js';
import { createWebApp } from '../../src/web/app.js';
import { testBackends } from '../helpers/backends.js';
import { lazyTestDatabase } from '../helpers/database.js';
import { signedWebhookHeaders } from '../helpers/shopify-webhooks.js';
import { startPrivateRedis } from '../helpers/private-redis.js';

const SECRET = 'shpss_intake_test_secret';
const shopify = createShopifyApi({ apiKey: 'key', apiSecret: SECRET, appUrl: 'https://app.example.com', scopes: ['read_orders'], apiVersion: '2026-01' });
const verify = libraryWebhookVerifier(shopify);

async function listen(app: ReturnType<typeof createWebApp>): Promise<{ url: string; server: Server }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function post(url: string, body: string, headers: Record<string, string>) {
  return fetch(`${url}/webhooks`, { method: 'POST', body, headers });
}

describe('POST /webhooks', () => {
  const { redis, prefix, database, cleanup } = testBackends('intake');
  let queues: Queues;
  let url: string;
  let server: Server;
  beforeAll(async () => {
    const store = new PostgresOrderStore({ database, redis, prefix });
    queues = createQueues(redis, prefix);
    const app = createWebApp({
      logger: silentLogger,
      readiness: [],
      webhooks: {
        verify,
        claim: (keys) => store.claimWebhook(keys),
        enqueue: (job) => queues.webhooks.add(job.topic, job, { jobId: `wh|${job.webhookId}` }),
      },
    });
    ({ url, server } = await listen(app));
  });
  afterAll(async () => {
    server.close();
    await queues.close();
    await cleanup();
  });

  it('queues a signed webhook once, however often it is delivered', async () => {
    const body = '{"id":5512345678901234567,"admin_graphql_api_id":"gid://shopify/Order/5512345678901234567","line_items":[]}';
    const headers = signedWebhookHeaders(SECRET, body, { topic: 'orders/paid', webhookId: 'dup-1' });
    const answers: { outcome: string }[] = [];
    for (let i = 0; i < 3; i++) answers.push((await (await post(url, body, headers)).json()) as { outcome: string });
    expect(answers.map((a) => a.outcome)).toEqual(['queued', 'duplicate', 'duplicate']);
    const jobs = await queues.webhooks.getJobs(['waiting']);
    expect(jobs).toHaveLength(1);
    // The raw body is kept as sent, so the 19-digit id is still exact for the worker.
    expect(jobs[0]!.data).toMatchObject({ topic: 'orders/paid', shop: 'acme.myshopify.com', webhookId: 'dup-1', body });
  });

  it('refuses a bad or missing HMAC with 401 and queues nothing', async () => {
    const body = '{"id":1,"line_items":[]}';
    const headers = signedWebhookHeaders(SECRET, body, { topic: 'orders/paid' });
    expect((await post(url, body, { ...headers, 'x-shopify-hmac-sha256': 'AAAA' })).status).toBe(401);
    const { 'x-shopify-hmac-sha256': _omit, ...unsigned } = headers;
    expect((await post(url, body, unsigned)).status).toBe(401);
    expect((await post(url, '{"id":2}', headers)).status).toBe(401);
    expect(signedWebhookHeaders('another-secret', body, { topic: 'orders/paid' })['x-shopify-hmac-sha256']).not.toBe(headers['x-shopify-hmac-sha256']);
  });

  it('answers 400 for a signed body that is not JSON, and ignores unknown topics', async () => {
    const text = 'not json';
    expect((await post(url, text, signedWebhookHeaders(SECRET, text, { topic: 'orders/paid' }))).status).toBe(400);
    const body = '{"id":3,"line_items":[]}';
    const ignored = await post(url, body, signedWebhookHeaders(SECRET, body, { topic: 'products/update' }));
    expect(ignored.status).toBe(200);
    expect(((await ignored.json()) as { outcome: string }).outcome).toBe('ignored');
  });
});

describe('the atomic claim of a webhook id', () => {
  const { redis, prefix, database, cleanup } = testBackends('intake-claim');
  afterAll(cleanup);

  it('a delivery meeting another still being queued waits for it: taken in when that one fails, never a lost 200', async () => {
    const store = new PostgresOrderStore({ database, redis, prefix });
    const queued: string[] = [];
    let releaseFirst: () => void = () => undefined;
    const firstMayFail = new Promise<void>((resolve) => (releaseFirst = resolve));
    let calls = 0;
    let secondClaimPending = (): void => undefined;
    const secondWaits = new Promise<void>((resolve) => (secondClaimPending = resolve));
    let firstClaimed = (): void => undefined;
    const firstHasClaim = new Promise<void>((resolve) => (firstClaimed = resolve));
    const deps: WebhookIntakeDeps = {
      verify,
      claim: async (keys) => {
        const claim = await store.claimWebhook(keys);
        if (typeof claim === 'object') firstClaimed();
        if (claim === 'pending') secondClaimPending();
        return claim;
      },
      enqueue: async (job) => {
        calls += 1;
        if (calls === 1) {
          // The first delivery's enqueue fails, but only once the second delivery has met its claim.
          await firstMayFail;
          throw new Error('Redis refused the job');
        }
        queued.push(job.webhookId);
      },
    };
    const body = '{"id":7,"line_items":[]}';
    const headers = signedWebhookHeaders(SECRET, body, { topic: 'orders/paid', webhookId: 'pending-1' });
    const first = acceptWebhook(deps, body, headers);
    // The second delivery starts once the first holds the claim: started together, either could win it.
    await firstHasClaim;
    const second = acceptWebhook(deps, body, headers);
    await secondWaits;
    releaseFirst();
    expect(await first).toMatchObject({ status: 503 });
    expect(await second).toMatchObject({ status: 200, outcome: 'queued' });
    expect(queued).toEqual(['pending-1']);
  });

  it('is released when the enqueue fails (503), so Shopify\'s retry of the delivery is queued', async () => {
    const store = new PostgresOrderStore({ database, redis, prefix });
    const released: string[][] = [];
    const queued: string[] = [];
    let failNext = true;
    const deps: WebhookIntakeDeps = {
      verify,
      claim: async (keys) => {
        const claim = await store.claimWebhook(keys);
        return claim && claim !== 'pending' ? { confirm: claim.confirm, release: async () => (released.push(keys), claim.release()) } : claim;
      },
      enqueue: async (job) => {
        if (failNext) {
          failNext = false;
          throw new Error('Redis refused the job');
        }
        queued.push(job.webhookId);
      },
    };
    const body = '{"id":6,"line_items":[]}';
    const headers = signedWebhookHeaders(SECRET, body, { topic: 'orders/paid', webhookId: 'claim-1', eventId: 'claim-event-1' });

    const failed = await acceptWebhook(deps, body, headers);
    expect(failed).toMatchObject({ status: 503, outcome: 'unavailable' });
    expect(released).toEqual([['claim-1', 'event:orders/paid:claim-event-1']]);
    expect(await store.isWebhookSeen('claim-1')).toBe(false);
    expect(await store.isWebhookSeen('event:orders/paid:claim-event-1')).toBe(false);

    // Shopify delivers again: taken in this time, then a duplicate.
    expect(await acceptWebhook(deps, body, headers)).toMatchObject({ status: 200, outcome: 'queued' });
    expect(queued).toEqual(['claim-1']);
    await vi.waitFor(async () => expect(await redis.ttl(`${prefix}webhook:claim-1`)).toBeGreaterThan(7 * 24 * 3600));
    expect(await acceptWebhook(deps, body, headers)).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(released).toHaveLength(1);
  });

  it('refuses a signed body that is not UTF-8 (400), keeping and queueing nothing', async () => {
    const bytes = Buffer.concat([Buffer.from('{"id":7,"line_items":[],"note":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const headers = signedWebhookHeaders(SECRET, '', { topic: 'orders/paid' });
    headers['x-shopify-hmac-sha256'] = createHmac('sha256', SECRET).update(bytes).digest('base64');
    let claimed = false;
    const result = await acceptWebhook(
      {
        // The app's verifier, which checks the bytes as received (the library's helper here takes text).
        verify: hmacWebhookVerifier(SECRET),
        claim: async () => {
          claimed = true;
          return undefined;
        },
        enqueue: async () => undefined,
      },
      bytes,
      headers,
    );
    expect(result).toMatchObject({ status: 400, outcome: 'bad-body', message: 'the body is not UTF-8' });
    expect(claimed).toBe(false);
  });

  it('answers 503 and queues nothing when the claim itself cannot be taken', async () => {
    const body = '{"id":7,"line_items":[]}';
    let enqueued = false;
    const result = await acceptWebhook(
      {
        verify,
        claim: async () => {
          throw new Error('Connection is closed.');
        },
        enqueue: async () => {
          enqueued = true;
        },
      },
      body,
      signedWebhookHeaders(SECRET, body, { topic: 'orders/paid' }),
    );
    expect(result).toMatchObject({ status: 503, outcome: 'unavailable' });
    expect(enqueued).toBe(false);
  });
});

describe('POST /webhooks when Redis is down', () => {
  it('answers 503 (never a 2xx that loses the order) and recovers when Redis is back', async () => {
    const redisServer = await startPrivateRedis();
    const redis = createRedis(redisServer.url, 'request');
    // A request connection refuses commands until it is ready (no offline queue), as the runtime waits for at start.
    await waitForRedis(redis);
    const prefix = 'pbtest:intake-down:';
    const downDb = lazyTestDatabase('intake-down');
    const store = new PostgresOrderStore({ database: downDb.database, redis, prefix });
    const queues = createQueues(redis, prefix);
    const app = createWebApp({
      logger: silentLogger,
      readiness: [],
      webhooks: {
        verify,
        claim: (keys) => store.claimWebhook(keys),
        enqueue: (job) => queues.webhooks.add(job.topic, job, { jobId: `wh|${job.webhookId}` }),
      },
    });
    const { url, server } = await listen(app);
    try {
      const body = '{"id":4,"line_items":[]}';
      const headers = signedWebhookHeaders(SECRET, body, { topic: 'orders/paid', webhookId: 'down-1' });
      expect((await post(url, body, headers)).status).toBe(200);

      await redisServer.stop();
      const headers2 = signedWebhookHeaders(SECRET, body, { topic: 'orders/paid', webhookId: 'down-2' });
      const started = Date.now();
      expect((await post(url, body, headers2)).status).toBe(503);
      expect(Date.now() - started).toBeLessThan(5_000);

      const restarted = await startPrivateRedis({ port: redisServer.port, dir: redisServer.dir });
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        await sleep(100);
        status = (await post(url, body, headers2)).status;
      }
      expect(status).toBe(200);
      expect((await queues.webhooks.getJobs(['waiting'])).map((j) => j.data.webhookId)).toEqual(['down-2']);
      await restarted.stop();
    } finally {
      server.close();
      await queues.close().catch(() => undefined);
      redis.disconnect();
      await downDb.cleanup();
    }
  });
});
