import { Session } from '@shopify/shopify-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShopifyAdminClients } from '../../src/adapters/shopify-effects.js';
import { signSessionToken } from '../../src/dev/admin-stand-in/index.js';
import { shopifyApiFromConfig } from '../../src/shopify/shopify-api.js';
import { TEST_DATABASE_URL } from '../helpers/database.js';
import { HARNESS_ENCRYPTION_KEY, type Harness, SHOP, SHOP_TOKEN, SHOPIFY_SECRET, startHarness, waitFor } from '../helpers/harness.js';
import { runCliInProcess } from '../helpers/run-cli.js';

/**
 * Issue 23: expiring offline tokens on every path. Shopify refuses non-expiring offline tokens of public apps from
 * 1 January 2027. The redirect install asks for an expiring token; a non-expiring one stored by an earlier version is
 * replaced on the store's next embedded open, and `print-bridge shops migrate-tokens` exchanges the rest with
 * Shopify's token exchange of the old token. A custom app's token (`shops add`) is never touched.
 */
const app = { apiKey: 'test-key', apiSecret: SHOPIFY_SECRET };
const browser = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Safari/537.36' };

describe('expiring offline tokens', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  const stored = (shop: string) => h.runtime.sessions.storage.loadSession(`offline_${shop}`);

  /** A store installed by an earlier version: a non-expiring offline token from OAuth, accepted by Shopify. */
  async function legacyInstall(shop: string, token: string): Promise<void> {
    h.standIn.registerShop(shop, token);
    await h.runtime.sessions.storeSession(
      new Session({ id: `offline_${shop}`, shop, state: `oauth-state-${shop}`, isOnline: false, accessToken: token, scope: h.config.SHOPIFY_SCOPES.join(',') }),
    );
    expect(await h.runtime.sessions.tokenKind(shop)).toBe('non-expiring');
  }

  function cli(args: string[]) {
    return runCliInProcess(['shops', 'migrate-tokens', ...args], {
      DATABASE_URL: TEST_DATABASE_URL,
      DATABASE_SCHEMA: h.schema,
      ENCRYPTION_KEY: HARNESS_ENCRYPTION_KEY,
      SHOPIFY_API_KEY: 'test-key',
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      SHOPIFY_ADMIN_API_ORIGIN: h.standIn.origin,
      APP_URL: 'http://127.0.0.1',
      LOG_LEVEL: 'silent',
    });
  }

  it('/auth/callback stores an expiring token with its refresh token and expiry', async () => {
    const shop = 'redirect-install.myshopify.com';
    const begin = await fetch(`${h.runtime.url}/auth?shop=${shop}`, { redirect: 'manual', headers: browser });
    expect(begin.status).toBe(302);
    const cookies = begin.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    // The merchant approves at Shopify, which sends the browser back to the app with a signed one-time code.
    const back = new URL(h.standIn.approveInstall(begin.headers.get('location')!));
    expect(back.pathname).toBe('/auth/callback');
    const callback = await fetch(`${h.runtime.url}${back.pathname}${back.search}`, { redirect: 'manual', headers: { ...browser, cookie: cookies } });
    expect(callback.status).toBe(302);

    const oauthCalls = h.standIn.requests().filter((r) => r.shop === shop);
    expect(oauthCalls.map((r) => [r.operation, r.status])).toEqual([['oauth authorization-code', 200]]);
    const session = (await stored(shop))!;
    expect(session.expires).toBeInstanceOf(Date);
    expect(session.expires!.getTime() - Date.now()).toBeGreaterThan(55 * 60_000);
    expect(session.expires!.getTime() - Date.now()).toBeLessThanOrEqual(60 * 60_000);
    expect(session.refreshTokenExpires).toBeInstanceOf(Date);
    // Both tokens encrypted at rest.
    expect(session.accessToken).toMatch(/^v1\./);
    expect(session.refreshToken).toMatch(/^v1\./);
    expect(await h.runtime.sessions.tokenKind(shop)).toBe('expiring');
    const token = await h.runtime.sessions.accessToken(shop);
    expect(token).toBe(h.standIn.accessTokenOf(shop));
    expect(h.standIn.isExpiringToken(token!)).toBe(true);

    // The code works once: the same callback again installs nothing.
    const replay = await fetch(`${h.runtime.url}${back.pathname}${back.search}`, { redirect: 'manual', headers: { ...browser, cookie: cookies } });
    expect(replay.status).toBe(400);
    expect(await h.runtime.sessions.accessToken(shop)).toBe(token);
  });

  it('replaces a stored non-expiring token on the next embedded open, and leaves a custom app token alone', async () => {
    const shop = 'legacy-embedded.myshopify.com';
    await legacyInstall(shop, 'shpat_legacy_embedded');
    const exchanges = h.standIn.tokenExchanges();
    const host = Buffer.from('admin.shopify.com/store/legacy-embedded').toString('base64url');

    const home = await fetch(`${h.runtime.url}/?embedded=1&shop=${shop}&host=${host}&id_token=${signSessionToken(app, shop)}`);
    expect(home.status).toBe(200);
    expect(h.standIn.tokenExchanges()).toBe(exchanges + 1);
    const session = (await stored(shop))!;
    expect(session.expires).toBeInstanceOf(Date);
    expect(session.refreshToken).toMatch(/^v1\./);
    const token = await h.runtime.sessions.accessToken(shop);
    expect(token).not.toBe('shpat_legacy_embedded');
    expect(token).toBe(h.standIn.accessTokenOf(shop));
    expect(h.standIn.isExpiringToken(token!)).toBe(true);

    // The next open finds an expiring token: no second exchange.
    await fetch(`${h.runtime.url}/admin`, { headers: { authorization: `Bearer ${signSessionToken(app, shop)}` } });
    expect(h.standIn.tokenExchanges()).toBe(exchanges + 1);

    // A custom app's store opened embedded keeps its token.
    const custom = await fetch(`${h.runtime.url}/admin`, { headers: { authorization: `Bearer ${signSessionToken(app, SHOP)}` } });
    expect(custom.status).toBe(200);
    expect(h.standIn.tokenExchanges()).toBe(exchanges + 1);
    expect(await h.runtime.sessions.tokenKind(SHOP)).toBe('custom-app');
    expect(await h.runtime.sessions.accessToken(SHOP)).toBe(SHOP_TOKEN);
  });

  it('shops migrate-tokens exchanges every non-expiring OAuth token, leaves the custom app token, and a second run does nothing', async () => {
    const legacy = ['legacy-one.myshopify.com', 'legacy-two.myshopify.com'];
    await legacyInstall(legacy[0]!, 'shpat_legacy_one');
    await legacyInstall(legacy[1]!, 'shpat_legacy_two');
    const migrationsBefore = h.standIn.tokenMigrations();

    const dry = await cli(['--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('legacy-one.myshopify.com: non-expiring token; would be exchanged for an expiring one (--dry-run: nothing sent to Shopify).');
    expect(dry.stdout).toContain('2 non-expiring tokens to exchange');
    expect(h.standIn.tokenMigrations()).toBe(migrationsBefore);
    expect(await h.runtime.sessions.tokenKind(legacy[0]!)).toBe('non-expiring');

    const run = await cli([]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/legacy-one\.myshopify\.com: non-expiring token exchanged for an expiring one \(valid until \S+, then refreshed by the app; refresh token valid until \S+\); the old token no longer works\./);
    expect(run.stdout).toContain('legacy-two.myshopify.com: non-expiring token exchanged for an expiring one');
    expect(run.stdout).toContain(`${SHOP}: custom app token (shops add), left as it is`);
    // The stores of the tests above are expiring already.
    expect(run.stdout).toContain('redirect-install.myshopify.com: already an expiring token with a refresh token; nothing to do.');
    expect(run.stdout).toContain('2 non-expiring tokens exchanged for expiring ones, 2 already expiring, 1 custom app token left as it is.');
    expect(h.standIn.tokenMigrations()).toBe(migrationsBefore + 2);

    for (const [shop, old] of [[legacy[0]!, 'shpat_legacy_one'], [legacy[1]!, 'shpat_legacy_two']] as const) {
      // The running app reads the new token (its session cache lasts two seconds), and Shopify takes only that one.
      const token = await waitFor(async () => {
        const now = await h.runtime.sessions.accessToken(shop);
        return now !== old && now;
      }, { what: `the migrated token of ${shop}` });
      expect(token).toBe(h.standIn.accessTokenOf(shop));
      expect(h.standIn.isExpiringToken(token)).toBe(true);
      const session = (await stored(shop))!;
      expect(session.refreshToken).toMatch(/^v1\./);
      expect(session.expires).toBeInstanceOf(Date);
    }
    // A process that still had the old token (its session cache) is refused by Shopify once, reads the stored token
    // again and goes on with the new one.
    const stale = new ShopifyAdminClients(shopifyApiFromConfig(h.config), {
      accessToken: (shop: string, options?: { fresh?: boolean }) => (options?.fresh ? h.runtime.sessions.accessToken(shop, options) : Promise.resolve('shpat_legacy_one')),
    }, h.standIn.origin);
    await (await stale.forShop(legacy[0]!)).checkAccess();
    const checks = h.standIn.requests().filter((r) => r.shop === legacy[0] && !r.operation?.startsWith('oauth'));
    expect(checks.map((r) => r.status)).toEqual([401, 200]);

    // The custom app's token: never sent to Shopify's token endpoint, still the one stored.
    expect(h.standIn.requests().filter((r) => r.shop === SHOP && r.operation?.startsWith('oauth'))).toEqual([]);
    expect(await h.runtime.sessions.accessToken(SHOP)).toBe(SHOP_TOKEN);
    expect(await h.runtime.sessions.tokenKind(SHOP)).toBe('custom-app');

    const again = await cli([]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Nothing to do: no store has a non-expiring token from OAuth or token exchange (4 already expiring, 1 custom app token left as it is).');
    expect(again.stdout).not.toContain('exchanged for an expiring one');
    expect(h.standIn.tokenMigrations()).toBe(migrationsBefore + 2);
  }, 60_000);

  it('says which store only its merchant can reconnect when Shopify refuses the old token, and fails', async () => {
    const shop = 'revoked.myshopify.com';
    await legacyInstall(shop, 'shpat_revoked');
    // Shopify no longer takes the token (revoked); the stand-in knows another one for the store.
    h.standIn.registerShop(shop, 'shpat_someone_else');

    const run = await cli([]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${shop}: Shopify refused to exchange the non-expiring token`);
    expect(run.stdout).toContain("The merchant must open print-bridge in the store's Shopify admin (or install it again) to reconnect the store.");
    expect(run.stdout).toContain('1 refused by Shopify (the merchant must open the app)');
    expect(run.stderr).toContain(`1 store still has a non-expiring token: ${shop}`);
    expect(await h.runtime.sessions.tokenKind(shop)).toBe('non-expiring');
  }, 30_000);
});
