import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ShopSessions } from '../../src/shopify/sessions.js';
import { createShopifyApi } from '../../src/shopify/shopify-api.js';
import { testMapping } from '../helpers/harness.js';
import { freePort } from '../helpers/private-redis.js';
import { deleteByPrefix, TEST_REDIS_URL } from '../helpers/redis.js';
import { testBackends } from '../helpers/backends.js';
import { TEST_DATABASE_URL } from '../helpers/database.js';
import { startAdminStandIn } from '../../src/dev/admin-stand-in/index.js';
import { BIN, runBin, runCliInProcess } from '../helpers/run-cli.js';

const { redis, prefix, database, schema, cleanup } = testBackends('app-commands');
afterAll(async () => {
  await deleteByPrefix(redis, prefix);
  await cleanup();
});

const mappingsDir = mkdtempSync(join(tmpdir(), 'pb-cmd-mappings-'));
writeFileSync(join(mappingsDir, 'default.yaml'), testMapping());

function appEnv(port: number): Record<string, string> {
  return {
    PORT: String(port),
    APP_URL: `https://print-bridge.example.com`,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_SCHEMA: schema,
    SHOPIFY_API_KEY: 'cmd-key',
    SHOPIFY_API_SECRET: 'cmd-secret',
    ENCRYPTION_KEY: CMD_KEY,
    PRINT_API_BASE_URL: 'http://127.0.0.1:9',
    PRINT_API_TOKEN: 't',
    PRINT_API_SECRET: 's',
    PRINT_SOURCE_ACCOUNT: 'demo-brand',
    POSTBACK_TOKEN: 'pb-token-0123456789abcdef0123456789',
    REDIS_ALLOW_VOLATILE: 'true',
    MAPPINGS_DIR: mappingsDir,
    LOG_LEVEL: 'silent',
  };
}

const CMD_KEY = Buffer.alloc(32, 3).toString('base64');

describe('print-bridge shops add', () => {
  it("stores a custom app's token as the store's offline session", async () => {
    const result = await runCliInProcess(['shops', 'add', 'cmd-store', '--token', 'shpat_custom_123', '--no-check'], appEnv(3999));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Registered cmd-store.myshopify.com');
    const shopify = createShopifyApi({ apiKey: 'k', apiSecret: 'cmd-secret', appUrl: 'https://x.example.com', scopes: [], apiVersion: '2026-01' });
    const sessions = new ShopSessions(shopify, database, [CMD_KEY]);
    expect(await sessions.accessToken('cmd-store.myshopify.com')).toBe('shpat_custom_123');
    expect(await sessions.deleteShopSessions('cmd-store.myshopify.com')).toBe(1);
    expect(await sessions.accessToken('cmd-store.myshopify.com')).toBeUndefined();
  });

  it('refuses something that is not a store domain', async () => {
    for (const domain of ['https://evil.example.com/x', 'a|b.myshopify.com', '*']) {
      const result = await runCliInProcess(['shops', 'add', domain, '--token', 't', '--no-check'], appEnv(3999));
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('is not a store domain');
    }
  });

  it('checks the token with Shopify first: a wrong one is refused with Shopify\'s answer and the working one stays', async () => {
    const standIn = await startAdminStandIn({ port: 0 });
    try {
      standIn.registerShop('checked-store.myshopify.com', 'shpat_right');
      const env = { ...appEnv(3999), SHOPIFY_ADMIN_API_ORIGIN: standIn.origin };
      const right = await runCliInProcess(['shops', 'add', 'checked-store', '--token', 'shpat_right'], env);
      expect(right.stderr).toBe('');
      expect(right.code).toBe(0);
      const wrong = await runCliInProcess(['shops', 'add', 'checked-store', '--token', 'shpat_wrong'], env);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain('Shopify refused the token for checked-store.myshopify.com; nothing was stored');
      expect(wrong.stderr).toMatch(/Invalid API key or access token|401/);
      // Shopify not answering is not a refusal: the message says to try again (contract review).
      standIn.failNext(50, 503, { shop: 'checked-store.myshopify.com' });
      const unreachable = await runCliInProcess(['shops', 'add', 'checked-store', '--token', 'shpat_other'], env);
      expect(unreachable.code).toBe(1);
      expect(unreachable.stderr).toContain('Could not reach Shopify to check the token for checked-store.myshopify.com; nothing was stored. Try again');
      expect(unreachable.stderr).not.toContain('refused');
      // A store Shopify does not know (a mistyped domain): no "try again" (review).
      standIn.failNext(1, 404, { shop: 'typo-store.myshopify.com' });
      const typo = await runCliInProcess(['shops', 'add', 'typo-store', '--token', 'shpat_x'], env);
      expect(typo.code).toBe(1);
      expect(typo.stderr).toContain("Shopify did not accept the check of typo-store.myshopify.com (is the store's domain right?)");
      expect(typo.stderr).not.toContain('Try again');
      const shopify = createShopifyApi({ apiKey: 'k', apiSecret: 'cmd-secret', appUrl: 'https://x.example.com', scopes: [], apiVersion: '2026-01' });
      const sessions = new ShopSessions(shopify, database, [CMD_KEY]);
        expect(await sessions.accessToken('checked-store.myshopify.com')).toBe('shpat_right');
      } finally {
      await standIn.close();
    }
  });
});

describe('print-bridge start', () => {
  it('lists every missing variable at once', async () => {
    const result = await runCliInProcess(['start'], { REDIS_URL: TEST_REDIS_URL });
    expect(result.code).toBe(1);
    for (const key of ['APP_URL', 'SHOPIFY_API_KEY', 'SHOPIFY_API_SECRET', 'PRINT_API_BASE_URL', 'POSTBACK_TOKEN']) {
      expect(result.stderr).toContain(`${key}: required but not set`);
    }
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  // The real process: that it ends, rather than being kept alive by what the start-up had opened.
  it('ends with a clear message when its port is taken, instead of hanging', async () => {
    const port = await freePort();
    const taken = createServer().listen(port, '0.0.0.0');
    await new Promise((resolve) => taken.once('listening', resolve));
    try {
      const result = await runBin(['start'], appEnv(port), { timeoutMs: 20_000 });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`port ${port} is already in use`);
    } finally {
      taken.close();
    }
  }, 30_000);

  it('serves health, readiness and OAuth, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    // Logging at info only to know when it listens ("web: listening"), instead of polling /healthz.
    const child = spawn(process.execPath, [BIN, 'start'], { env: { PATH: process.env.PATH ?? '', ...appEnv(port), LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const listening = new Promise<void>((resolve) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (stdout.includes('"msg":"web: listening"')) resolve();
      });
      child.once('exit', () => resolve());
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const base = `http://127.0.0.1:${port}`;
    try {
      await listening;
      const health = await fetch(`${base}/healthz`).catch(() => undefined);
      expect(health?.status, stderr).toBe(200);

      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { checks: { name: string; ok: boolean }[] }).checks).toEqual([
        expect.objectContaining({ name: 'redis', ok: true }),
        expect.objectContaining({ name: 'redis-durability', ok: true }),
        expect.objectContaining({ name: 'database', ok: true }),
        expect.objectContaining({ name: 'mappings', ok: true }),
      ]);

      // The library answers bots with 410; a merchant's browser is what installs the app.
      const browser = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Safari/537.36' };
      const auth = await fetch(`${base}/auth?shop=cmd-store.myshopify.com`, { redirect: 'manual', headers: browser });
      expect(auth.status).toBe(302);
      const location = new URL(auth.headers.get('location') ?? '');
      expect(location.origin).toBe('https://cmd-store.myshopify.com');
      expect(location.pathname).toBe('/admin/oauth/authorize');
      expect(location.searchParams.get('client_id')).toBe('cmd-key');
      expect(location.searchParams.get('redirect_uri')).toBe('https://print-bridge.example.com/auth/callback');
      expect((await fetch(`${base}/auth`)).status).toBe(400);
      expect(auth.headers.get('set-cookie')).toContain('shopify_app_state');
      expect((await fetch(`${base}/auth/callback?shop=cmd-store.myshopify.com&code=x&state=forged`, { headers: browser })).status).toBe(400);
      expect((await fetch(`${base}/nowhere`)).status).toBe(404);

      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 30_000);
});
