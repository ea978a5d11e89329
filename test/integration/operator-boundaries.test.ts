import { sql } from 'drizzle-orm';
import { Session } from '@shopify/shopify-api';
import { Redis } from 'ioredis';
import { ShopSessions } from '../../src/shopify/sessions.js';
import { createShopifyApi } from '../../src/shopify/shopify-api.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { judgeDurability, parseInfo } from '../../src/redis-durability.js';
import { freePort } from '../helpers/private-redis.js';
import { startPrivateRedis } from '../helpers/private-redis.js';
import { startRuntime, type Runtime } from '../../src/app/runtime.js';
import { silentLogger } from '../../src/logger.js';
import { ADMIN_TOKEN, AdminClient } from '../admin/helpers.js';
import { HARNESS_METRICS_TOKEN, startHarness, type Harness } from '../helpers/harness.js';

/**
 * Issue 12 items 7 and 13 against the running app: a Redis that would lose acknowledged jobs makes /readyz fail with
 * the reason; /metrics is served on the public port only with its bearer token; short operator tokens are refused at start.
 */

type Readiness = { ok: boolean; checks: { name: string; ok: boolean; detail?: string }[] };

async function readiness(h: Harness): Promise<{ status: number; body: Readiness }> {
  const res = await fetch(`${h.runtime.url}/readyz`);
  return { status: res.status, body: (await res.json()) as Readiness };
}

describe('Redis durability (issue 12 item 7)', () => {
  let redis: Awaited<ReturnType<typeof startPrivateRedis>>;
  let h: Harness;
  let admin: Redis;
  beforeAll(async () => {
    redis = await startPrivateRedis({ appendonly: false });
    admin = new Redis(redis.url);
    h = await startHarness({ env: { REDIS_URL: redis.url, REDIS_ALLOW_VOLATILE: 'false' } });
  });
  afterAll(async () => {
    await h?.close();
    admin?.disconnect();
    await redis?.stop();
  });

  it('fails /readyz with the reason while Redis has no AOF and no replica, and passes once AOF is on', async () => {
    const before = await readiness(h);
    expect(before.status).toBe(503);
    const check = before.body.checks.find((c) => c.name === 'redis-durability')!;
    expect(check.ok).toBe(false);
    expect(check.detail).toMatch(/appendonly/);

    await admin.config('SET', 'appendonly', 'yes');
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    const evicting = await readiness(h);
    expect(evicting.status).toBe(503);
    expect(evicting.body.checks.find((c) => c.name === 'redis-durability')!.detail).toMatch(/maxmemory-policy is allkeys-lru/);

    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    const after = await readiness(h);
    expect(after.body.checks.find((c) => c.name === 'redis-durability')).toMatchObject({ ok: true });
  });

  it('accepts a primary whose writes a replica must acknowledge, and says why each set-up is refused', () => {
    const replicated = parseInfo('# Replication\r\nrole:master\r\nconnected_slaves:1\r\nmin_slaves_good_slaves:1\r\n# Memory\r\nmaxmemory_policy:noeviction\r\n');
    expect(judgeDurability(replicated)).toEqual({ durable: true, reasons: [] });
    const volatile = judgeDurability(parseInfo('aof_enabled:0\nmaxmemory_policy:volatile-lru\n'));
    expect(volatile.durable).toBe(false);
    expect(volatile.reasons).toHaveLength(2);
  });
});

describe('REDIS_ALLOW_VOLATILE, metrics and operator tokens (issue 12 items 7 and 13)', () => {
  let h: Harness;
  let metricsPort: number;
  beforeAll(async () => {
    metricsPort = await freePort();
    h = await startHarness({ env: { METRICS_PORT: String(metricsPort) } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('passes /readyz on a volatile Redis when REDIS_ALLOW_VOLATILE=true, saying so', async () => {
    const { status, body } = await readiness(h);
    expect(status).toBe(200);
    expect(body.checks.find((c) => c.name === 'redis-durability')!.detail).toMatch(/^REDIS_ALLOW_VOLATILE=true: /);
  });

  it('serves /metrics on the public port only with the bearer token', async () => {
    expect((await fetch(`${h.runtime.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${h.runtime.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-wrong-token-wrong-token' } })).status).toBe(401);
    const right = await fetch(`${h.runtime.url}/metrics`, { headers: { authorization: `Bearer ${HARNESS_METRICS_TOKEN}` } });
    expect(right.status).toBe(200);
    expect(await right.text()).toContain('print_bridge_');
  });

  it('serves /metrics without a token on METRICS_PORT, bound to 127.0.0.1, and nothing else there', async () => {
    expect(h.runtime.metricsUrl).toBe(`http://127.0.0.1:${metricsPort}/metrics`);
    const res = await fetch(h.runtime.metricsUrl!);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('print_bridge_');
    expect((await fetch(`http://127.0.0.1:${metricsPort}/admin`)).status).toBe(404);
  });

  it('does not serve /metrics on the public port at all without METRICS_TOKEN, and says what to set', async () => {
    const bare = await startHarness({ env: { METRICS_TOKEN: '' } });
    try {
      const answer = await fetch(`${bare.runtime.url}/metrics`);
      expect(answer.status).toBe(404);
      expect(await answer.text()).toContain('METRICS_TOKEN');
    } finally {
      await bare.close();
    }
  });

  it('refuses ADMIN_TOKEN, METRICS_TOKEN and POSTBACK_TOKEN entries shorter than 32 characters, with the reason', () => {
    const long = 'x'.repeat(32);
    expect(() => loadConfig({ env: { ADMIN_TOKEN: 'short' }, dotenvPath: false })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { ADMIN_TOKEN: 'short' }, dotenvPath: false })).toThrow(/ADMIN_TOKEN: must be at least 32 characters/);
    expect(() => loadConfig({ env: { POSTBACK_TOKEN: `${long},short` }, dotenvPath: false })).toThrow(/POSTBACK_TOKEN.*at least 32 characters/);
    expect(() => loadConfig({ env: { METRICS_TOKEN: 'short' }, dotenvPath: false })).toThrow(/METRICS_TOKEN/);
    const ok = loadConfig({ env: { ADMIN_TOKEN: long, POSTBACK_TOKEN: `${long},${long}y` }, dotenvPath: false });
    expect(ok.POSTBACK_TOKEN).toHaveLength(2);
  });
});

describe('operator login throttle and logout (issue 12 item 8)', () => {
  let h: Harness;
  let second: Runtime;
  beforeAll(async () => {
    h = await startHarness({ env: { ADMIN_TOKEN } });
    // A second web process on the same Redis and prefix, as behind a load balancer.
    second = await startRuntime({ config: h.config, roles: { web: true, worker: false }, logger: silentLogger, port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await second?.close();
    await h?.close();
  });

  const attempt = (base: string, token: string, forwardedFor: string) =>
    fetch(`${base}/admin/login`, { method: 'POST', body: new URLSearchParams({ token }), headers: { 'x-forwarded-for': forwardedFor }, redirect: 'manual' });

  it('does not believe X-Forwarded-For by default, and counts failures across web processes', async () => {
    // Ten wrong guesses, each claiming another address, spread over two processes.
    for (let i = 0; i < 10; i++) {
      const base = i % 2 === 0 ? h.runtime.url! : second.url!;
      expect((await attempt(base, `guess-${i}`, `198.51.100.${i}`)).status).toBe(401);
    }
    const blocked = await attempt(second.url!, ADMIN_TOKEN, '198.51.100.200');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(blocked.headers.get('set-cookie')).toBeNull();
  });

  it('serves the queue dashboard with nothing from another origin (no Google Fonts), under a same-origin CSP', async () => {
    const fresh = await startHarness({ env: { ADMIN_TOKEN } });
    try {
      const client = await AdminClient.login(fresh.runtime.url!);
      const res = await client.get('/admin/queues');
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain('print-bridge queues');
      expect(html).not.toMatch(/googleapis|gstatic/);
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    } finally {
      await fresh.close();
    }
  });

  it('ends the operator session on logout, for every copy of the cookie and every process', async () => {
    const other = await startHarness({ env: { ADMIN_TOKEN } });
    try {
      const client = await AdminClient.login(other.runtime.url!);
      expect((await client.get('/admin')).status).toBe(200);
      const csrf = await client.csrf();
      const stolen = client.cookie;
      expect((await client.post('/admin/logout', { _csrf: csrf })).status).toBe(303);
      const replay = await fetch(`${other.runtime.url}/admin`, { headers: { cookie: stolen, accept: 'text/html' }, redirect: 'manual' });
      expect(replay.status).toBe(303);
      expect(replay.headers.get('location')).toBe('/admin/login');
    } finally {
      await other.close();
    }
  });
});

describe('access tokens at rest (issue 12 item 11)', () => {
  let h: Harness;
  let raw: Redis;
  beforeAll(async () => {
    h = await startHarness();
    raw = new Redis(h.config.REDIS_URL);
  });
  afterAll(async () => {
    raw?.disconnect();
    await h?.close();
  });

  async function storedValues(): Promise<string> {
    // Everything the app keeps about sessions, in Redis (nothing now) and in the database.
    const keys = await raw.keys(`${h.prefix}shopify-session*`);
    const values = await Promise.all(keys.map(async (k) => ((await raw.type(k)) === 'string' ? raw.get(k) : JSON.stringify(await raw.hgetall(k)))));
    const rows = await h.runtime.database.rows(sql`SELECT * FROM shopify_sessions`);
    return [...values, JSON.stringify(rows)].join('\n');
  }

  it('keeps no access token in clear in Redis, and reads it back with the key', async () => {
    await h.runtime.sessions.addCustomAppToken('at-rest.myshopify.com', 'shpat_at_rest_secret_value', ['read_orders']);
    const text = await storedValues();
    expect(text).toContain('at-rest.myshopify.com');
    expect(text).not.toContain('shpat_at_rest_secret_value');
    expect(await h.runtime.sessions.accessToken('at-rest.myshopify.com')).toBe('shpat_at_rest_secret_value');
  });

  it('cannot be read with another key, and refuses to store a token without a key', async () => {
    const shopify = createShopifyApi({ apiKey: 'k', apiSecret: 's', appUrl: 'https://x.example.com', scopes: [], apiVersion: '2026-01' });
    const wrongKey = new ShopSessions(shopify, h.runtime.database, [Buffer.alloc(32, 9).toString('base64')]);
    const noKey = new ShopSessions(shopify, h.runtime.database);
    await expect(wrongKey.accessToken('at-rest.myshopify.com')).rejects.toThrow(/not in ENCRYPTION_KEY/);
    await expect(noKey.addCustomAppToken('clear.myshopify.com', 'shpat_clear', ['read_orders'])).rejects.toThrow(/ENCRYPTION_KEY is not set/);
  });

  it('encrypts a token an earlier version stored in clear when it is next read', async () => {
    const shopify = createShopifyApi({ apiKey: 'k', apiSecret: 's', appUrl: 'https://x.example.com', scopes: [], apiVersion: '2026-01' });
    const legacy = new ShopSessions(shopify, h.runtime.database);
    await legacy.storage.storeSession(new Session({ id: shopify.session.getOfflineId('legacy.myshopify.com'), shop: 'legacy.myshopify.com', state: '', isOnline: false, accessToken: 'shpat_legacy_clear' }));
    expect(await storedValues()).toContain('shpat_legacy_clear');
    expect(await h.runtime.sessions.accessToken('legacy.myshopify.com')).toBe('shpat_legacy_clear');
    expect(await storedValues()).not.toContain('shpat_legacy_clear');
  });
});
