import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrintServicePort } from '../../src/bridge/ports.js';
import type { PrintAccount } from '../../src/shops/model.js';
import { PrintAccountGoneError, PrintAccounts } from '../../src/shops/print-accounts.js';
import { POSTBACK_OVERLAP_MS, ShopSettingsStore } from '../../src/shops/settings-store.js';
import { lazyTestDatabase } from '../helpers/database.js';

/** The store of each shop's own set-up, on PostgreSQL: secrets at rest, postback token rotation, mapping versions. */
const { database, cleanup } = lazyTestDatabase('shop-settings');
const KEY = Buffer.alloc(32, 9).toString('base64');
let now = new Date('2026-11-24T10:00:00Z');
const settings = new ShopSettingsStore(database, [KEY], () => now);
const account = (secret: string): PrintAccount => ({ baseUrl: 'https://print.example', token: `token-${secret}`, secret, sourceAccount: 'brand', connectedAt: now.toISOString() });

beforeAll(() => database.migrate());
afterAll(() => cleanup());

describe('ShopSettingsStore', () => {
  it('keeps the token and the secret encrypted, shows neither, and starts a store with a new account in test mode', async () => {
    const setup = await settings.setPrintAccount('a.myshopify.com', account('s3cret-a'), { ok: true, message: 'ok', at: now.toISOString() });
    expect(setup.mode).toBe('test');
    expect(JSON.stringify(setup)).not.toMatch(/s3cret-a|token-s3cret/);
    const [row] = await database.rows<{ print_account: unknown }>(sql`SELECT print_account FROM shop_settings WHERE shop = 'a.myshopify.com'`);
    expect(JSON.stringify(row!.print_account)).not.toMatch(/s3cret-a|token-s3cret/);
    expect((await settings.printAccountOf('a.myshopify.com'))?.account).toMatchObject({ secret: 's3cret-a', token: 'token-s3cret-a' });
    // Live stays live when the account is replaced; removing it puts the store back on the operator's, live.
    await settings.setMode('a.myshopify.com', 'live');
    expect((await settings.setPrintAccount('a.myshopify.com', account('other'), undefined)).mode).toBe('live');
    expect((await settings.removePrintAccount('a.myshopify.com')).printAccount).toBeUndefined();
    // Without the key, nothing can be read or stored.
    await expect(new ShopSettingsStore(database, []).setPrintAccount('b.myshopify.com', account('x'), undefined)).rejects.toThrow(/ENCRYPTION_KEY/);
  });

  it('rotates a postback token with 24 hours of overlap, then refuses the old one', async () => {
    const shop = 'rot.myshopify.com';
    const first = await settings.postbackToken(shop);
    expect((await settings.postbackToken(shop)).token).toBe(first.token);
    const second = await settings.postbackToken(shop, { rotate: true });
    expect(second.previousValidUntil).toBe(new Date(now.getTime() + POSTBACK_OVERLAP_MS).toISOString());
    expect(await settings.shopOfPostbackToken(first.token)).toBe(shop);
    expect(await settings.shopOfPostbackToken(second.token)).toBe(shop);
    now = new Date(now.getTime() + POSTBACK_OVERLAP_MS + 1_000);
    expect(await settings.shopOfPostbackToken(first.token)).toBeUndefined();
    expect(await settings.shopOfPostbackToken(second.token)).toBe(shop);
    expect(await settings.shopOfPostbackToken('pb_not-a-token-0000000000')).toBeUndefined();
    // Stored as a hash and encrypted, never in clear.
    const rows = await database.rows<{ token_hash: string; token: string }>(sql`SELECT token_hash, token FROM postback_tokens WHERE shop = ${shop}`);
    expect(rows.every((r) => r.token !== second.token && r.token_hash !== second.token)).toBe(true);
  });

  it('numbers mapping versions per store, one writer at a time, and points at the current one', async () => {
    const shop = 'maps.myshopify.com';
    const versions = await Promise.all([1, 2, 3, 4].map((n) => settings.pushMapping(shop, `# v${n}`, 'operator', `n${n}`)));
    expect([...versions].sort()).toEqual([1, 2, 3, 4]);
    expect((await settings.mappingVersions(shop)).map((v) => v.version)).toEqual([4, 3, 2, 1]);
    expect(await settings.useMappingVersion(shop, 2)).toBe(true);
    expect(await settings.useMappingVersion(shop, 9)).toBe(false);
    expect((await settings.mappingPointers()).get(shop)).toBe(2);
    await settings.redactShop(shop);
    expect(await settings.mappingVersions(shop)).toEqual([]);
  });

  it("serves a merchant's own version only while the store is on its own print account (issue 22 item 5)", async () => {
    const shop = 'own-map.myshopify.com';
    // However it got there (a save racing an account change, data from before the editor checked), a merchant's
    // version in force on the operator's account is not served: the files are.
    await settings.pushMapping(shop, '# merchant', `${shop} user 1`, undefined);
    expect((await settings.mappingPointers()).has(shop)).toBe(false);
    await settings.setPrintAccount(shop, account('own'), undefined);
    expect((await settings.mappingPointers()).get(shop)).toBe(1);
    await settings.removePrintAccount(shop);
    expect((await settings.mappingPointers()).has(shop)).toBe(false);
    // A version the operator stored serves the store on either account.
    await settings.pushMapping(shop, '# operator', 'operator', undefined);
    expect((await settings.mappingPointers()).get(shop)).toBe(2);
  });
});

describe("the store's choice of Shopify's holds and risk", () => {
  it('round-trips through the database, parsed at the boundary; cleared is not chosen; the revision moves', async () => {
    const shop = 'policy.myshopify.com';
    expect((await settings.get(shop)).holdPolicy).toBeUndefined();
    // Reasons in Shopify's order, each once, whatever order they came in.
    const chosen = await settings.setHoldPolicy(shop, { waitForHolds: ['INCORRECT_ADDRESS', 'HIGH_RISK_OF_FRAUD', 'INCORRECT_ADDRESS'], waitForRisk: 'investigate' });
    expect(chosen.holdPolicy).toEqual({ waitForHolds: ['HIGH_RISK_OF_FRAUD', 'INCORRECT_ADDRESS'], waitForRisk: 'investigate' });
    expect((await settings.get(shop)).holdPolicy).toEqual(chosen.holdPolicy);
    const none = await settings.setHoldPolicy(shop, { waitForHolds: 'none', waitForRisk: 'none' });
    expect(none.revision).toBeGreaterThan(chosen.revision);
    expect((await settings.list()).find((s) => s.shop === shop)?.holdPolicy).toEqual({ waitForHolds: 'none', waitForRisk: 'none' });
    expect((await settings.setHoldPolicy(shop, undefined)).holdPolicy).toBeUndefined();
    const [row] = await database.rows<{ hold_policy: unknown }>(sql`SELECT hold_policy FROM shop_settings WHERE shop = ${shop}`);
    expect(row!.hold_policy).toBeNull();
    // Nothing that is not a policy is stored, and a stored value that does not parse counts as not chosen.
    await expect(settings.setHoldPolicy(shop, { waitForHolds: ['NOT_A_REASON' as never], waitForRisk: 'cancel' })).rejects.toThrow();
    await database.rows(sql`UPDATE shop_settings SET hold_policy = '{"waitForHolds":"some","waitForRisk":"cancel"}'::jsonb WHERE shop = ${shop}`);
    expect((await settings.get(shop)).holdPolicy).toBeUndefined();
  });

  it("reaches the store's print set-up, after invalidate in this process and fresh from another", async () => {
    const shop = 'policy-setup.myshopify.com';
    const accounts = new PrintAccounts({ settings, envClient: {} as PrintServicePort, createClient: () => ({ close: async () => undefined }) as never, refreshMs: 60_000 });
    expect((await accounts.setupOf(shop)).holdPolicy).toBeUndefined();
    await settings.setHoldPolicy(shop, { waitForHolds: 'none', waitForRisk: 'cancel' });
    expect((await accounts.setupOf(shop)).holdPolicy).toBeUndefined();
    expect((await accounts.setupOf(shop, { fresh: true })).holdPolicy).toEqual({ waitForHolds: 'none', waitForRisk: 'cancel' });
    await settings.setHoldPolicy(shop, undefined);
    accounts.invalidate(shop);
    expect((await accounts.setupOf(shop)).holdPolicy).toBeUndefined();
  });
});

describe('PrintAccounts', () => {
  it("uses one client per account, the operator's for stores without one, and the account an order went out with", async () => {
    const made: PrintAccount[] = [];
    const env = { name: 'env' } as unknown as PrintServicePort;
    const accounts = new PrintAccounts({
      settings,
      envClient: env,
      createClient: (a) => {
        made.push(a);
        return { name: a.secret, close: async () => undefined } as unknown as PrintServicePort & { close(): Promise<void> };
      },
      refreshMs: 60_000,
    });
    await settings.setPrintAccount('one.myshopify.com', account('shared'), undefined);
    await settings.setPrintAccount('two.myshopify.com', account('shared'), undefined);
    const one = await accounts.setupOf('one.myshopify.com');
    const two = await accounts.setupOf('two.myshopify.com');
    expect(one.account === 'own' && two.account === 'own' && one.service === two.service).toBe(true);
    expect(made).toHaveLength(1);
    expect((await accounts.setupOf('plain.myshopify.com')).account).toBe('env');
    expect(await accounts.forOrder('one.myshopify.com', 'env')).toBe(env);
    expect(await accounts.forOrder('one.myshopify.com', undefined)).toBe(env);

    // A change is seen at once in this process after invalidate (else after refreshMs).
    await settings.setPrintAccount('one.myshopify.com', account('changed'), undefined);
    expect(((await accounts.forOrder('one.myshopify.com', 'own')) as unknown as { name: string }).name).toBe('shared');
    accounts.invalidate('one.myshopify.com');
    expect(((await accounts.forOrder('one.myshopify.com', 'own')) as unknown as { name: string }).name).toBe('changed');
    await settings.removePrintAccount('one.myshopify.com');
    accounts.invalidate('one.myshopify.com');
    await expect(accounts.forOrder('one.myshopify.com', 'own')).rejects.toBeInstanceOf(PrintAccountGoneError);
  });
});
