import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PostgresOrderStore } from '../../src/storage/order-store.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { basicAuthHeader } from '../../src/print-service/postback-triggers.js';
import { silentLogger } from '../../src/logger.js';
import { createQueues, enqueuePrintEvent, type Queues } from '../../src/queue/queues.js';
import { createRedis } from '../../src/redis.js';
import { createWebApp } from '../../src/web/app.js';
import { createPostbackRouter } from '../../src/web/postbacks.js';
import { startPrivateRedis } from '../helpers/private-redis.js';
import { deleteByPrefix } from '../helpers/redis.js';
import { testBackends } from '../helpers/backends.js';
import { lazyTestDatabase } from '../helpers/database.js';

const SHIPPED = '{"event":"Shipment Shipped","sourceOrderId":"acme-1","shipmentIndex":0,"trackingNumber":"T1","timestamp":"2026-11-21T10:00:00.000Z"}';

function app(store: PostgresOrderStore, queues: Queues, options: { tokens: string[]; basicAuth?: string }) {
  return createWebApp({
    logger: silentLogger,
    readiness: [],
    webhooks: { verify: async () => ({ valid: false, reason: 'missing_hmac' }), claim: async () => undefined, enqueue: async () => undefined },
    mount: (express) =>
      express.use(
        createPostbackRouter({
          tokens: options.tokens,
          basicAuth: options.basicAuth,
          enqueue: (job) => enqueuePrintEvent(queues.events, job),
          keepUnreadable: (entry) => store.keepUnreadablePostback(entry),
          logger: silentLogger,
        }),
      ),
  });
}

async function listen(express: ReturnType<typeof createWebApp>): Promise<{ url: string; server: Server }> {
  const server = express.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function post(url: string, token: string, body: string, headers: Record<string, string> = {}) {
  return fetch(`${url}/postbacks/${encodeURIComponent(token)}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
}

describe('POST /postbacks/:token', () => {
  const { redis, prefix, database, cleanup } = testBackends('postback-route');
  const store = new PostgresOrderStore({ database, redis, prefix });
  let queues: Queues;
  let plain: { url: string; server: Server };
  let guarded: { url: string; server: Server };
  beforeAll(async () => {
    queues = createQueues(redis, prefix);
    plain = await listen(app(store, queues, { tokens: ['old-token', 'new-token'] }));
    guarded = await listen(app(store, queues, { tokens: ['tok'], basicAuth: 'printer:s3cret:with-colon' }));
  });
  beforeEach(async () => {
    await deleteByPrefix(redis, prefix);
  });
  afterAll(async () => {
    plain.server.close();
    guarded.server.close();
    await queues.close();
    await cleanup();
  });

  async function queued() {
    return queues.events.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']);
  }

  it('queues an understood event and answers 202 with its kind', async () => {
    const res = await post(plain.url, 'new-token', SHIPPED);
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ ok: true, event: 'shipped' });
    const jobs = await queued();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.data.event).toEqual({ kind: 'shipped', sourceOrderId: 'acme-1', shipmentIndex: 0, trackingNumber: 'T1', errors: [], timestamp: '2026-11-21T10:00:00.000Z' });
  });

  it('accepts every token of the rotation list, and refuses others with 401 storing nothing', async () => {
    expect((await post(plain.url, 'old-token', SHIPPED)).status).toBe(202);
    expect((await post(plain.url, 'new-token', SHIPPED.replace('T1', 'T2'))).status).toBe(202);
    for (const token of ['old-toke', 'new-token ', 'NEW-TOKEN', 'x']) {
      expect((await post(plain.url, token, SHIPPED.replace('T1', 'T3'))).status).toBe(401);
      expect((await post(plain.url, token, 'garbage')).status).toBe(401);
    }
    expect(await queued()).toHaveLength(2);
    expect(await store.countUnreadablePostbacks()).toBe(0);
  });

  it('queues an identical postback delivered again once', async () => {
    for (let i = 0; i < 3; i++) expect((await post(plain.url, 'old-token', SHIPPED)).status).toBe(202);
    // Same meaning, other bytes.
    const reordered = '{ "TrackingNumber": "T1", "ShipmentIndex": "0", "SourceOrderId": "acme-1", "OrderStatus": "Shipped", "TimeStamp": "2026-11-21T10:00:00Z" }';
    expect((await post(plain.url, 'old-token', reordered)).status).toBe(202);
    expect(await queued()).toHaveLength(1);
  });

  it('asks for basic auth when it is configured', async () => {
    expect((await post(guarded.url, 'tok', SHIPPED)).status).toBe(401);
    const wrong = await post(guarded.url, 'tok', SHIPPED, { authorization: basicAuthHeader('printer:nope') });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toContain('Basic');
    expect((await post(guarded.url, 'wrong', SHIPPED, { authorization: basicAuthHeader('printer:s3cret:with-colon') })).status).toBe(401);
    expect((await post(guarded.url, 'tok', SHIPPED, { authorization: basicAuthHeader('printer:s3cret:with-colon') })).status).toBe(202);
    expect(await queued()).toHaveLength(1);
  });

  it('answers 400 to a body it cannot understand and keeps it, without credentials, for an operator', async () => {
    const bodies = ['<html>oops</html>', '{"sourceOrderId":"a","trackingNumber":"T"}', ''];
    for (const body of bodies) {
      const res = await post(guarded.url, 'tok', body, { authorization: basicAuthHeader('printer:s3cret:with-colon'), 'x-api-token': 'hidden', 'x-trace': 'abc' });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/^postback not understood: /);
    }
    const { total, entries } = await store.listUnreadablePostbacks();
    expect(total).toBe(3);
    expect(entries.map((e) => e.body)).toEqual([...bodies].reverse());
    expect(entries[1]!.error).toContain('no event, Event, status or OrderStatus field');
    expect(entries[0]!.error).toBe('empty body');
    expect(entries[2]!.headers).toMatchObject({ 'content-type': 'application/json', 'x-trace': 'abc' });
    expect(entries[2]!.headers).not.toHaveProperty('authorization');
    expect(entries[2]!.headers).not.toHaveProperty('x-api-token');
    expect(Date.parse(entries[2]!.receivedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(await queued()).toHaveLength(0);
    expect(await store.removeUnreadablePostback(entries[1]!.id)).toBe(true);
    expect(await store.countUnreadablePostbacks()).toBe(2);
  });
});

describe('POST /postbacks/:token when Redis is down', () => {
  it('answers 503, never a 2xx that loses the event, and takes it once Redis is back', async () => {
    const redisServer = await startPrivateRedis();
    const redis = createRedis(redisServer.url, 'request');
    const prefix = 'pbtest:postbacks-down:';
    const downDb = lazyTestDatabase('postbacks-down');
    const store = new PostgresOrderStore({ database: downDb.database, redis, prefix });
    const queues = createQueues(redis, prefix);
    const { url, server } = await listen(app(store, queues, { tokens: ['tok'] }));
    try {
      expect((await post(url, 'tok', SHIPPED)).status).toBe(202);
      await redisServer.stop();
      const started = Date.now();
      const second = SHIPPED.replace('T1', 'T9');
      expect((await post(url, 'tok', second)).status).toBe(503);
      // A body that cannot be read is kept in the database, not Redis: it is refused (400) and kept all the same.
      expect((await post(url, 'tok', 'garbage')).status).toBe(400);
      expect((await store.listUnreadablePostbacks()).entries.map((e) => e.body)).toContain('garbage');
      expect(Date.now() - started).toBeLessThan(10_000);
      const restarted = await startPrivateRedis({ port: redisServer.port, dir: redisServer.dir });
      let status = 0;
      for (let i = 0; i < 50 && status !== 202; i++) {
        await sleep(100);
        status = (await post(url, 'tok', second)).status;
      }
      expect(status).toBe(202);
      const jobs = await queues.events.getJobs(['waiting']);
      expect(jobs.map((j) => j.data.event.trackingNumber)).toEqual(['T9']);
      await restarted.stop();
    } finally {
      server.close();
      await queues.close().catch(() => undefined);
      redis.disconnect();
      await downDb.cleanup();
    }
  });
});

describe('POSTBACK_BASIC_AUTH', () => {
  it('is optional and must be user:password', () => {
    expect(loadConfig({ env: {}, dotenvPath: false }).POSTBACK_BASIC_AUTH).toBeUndefined();
    expect(loadConfig({ env: { POSTBACK_BASIC_AUTH: 'printer:pa:ss' }, dotenvPath: false }).POSTBACK_BASIC_AUTH).toBe('printer:pa:ss');
    expect(() => loadConfig({ env: { POSTBACK_BASIC_AUTH: 'no-colon' }, dotenvPath: false })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { POSTBACK_BASIC_AUTH: 'no-colon' }, dotenvPath: false })).toThrow(/POSTBACK_BASIC_AUTH: must be user:password \(got "\[hidden\]"\)/);
  });
});
