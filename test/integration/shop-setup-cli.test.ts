import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAccounts } from '../../src/dev/emulator/accounts.js';
import { type RunningEmulator, startEmulator } from '../../src/dev/emulator/server.js';
import { testMapping } from '../helpers/harness.js';
import { deleteByPrefix, TEST_REDIS_URL } from '../helpers/redis.js';
import { testBackends } from '../helpers/backends.js';
import { TEST_DATABASE_URL } from '../helpers/database.js';
import { runCliInProcess } from '../helpers/run-cli.js';

/**
 * The operator's commands for a store's own set-up (DESIGN section 3): print account (checked with one signed call),
 * postback URL with rotation, mode, the store list, and mapping versions (push, versions, rollback).
 */
const { redis, prefix, database, schema, cleanup } = testBackends('shop-setup-cli');
const dir = mkdtempSync(join(tmpdir(), 'pb-setup-cli-'));
const mappingsDir = join(dir, 'mappings');
const SHOP = 'cli-store.myshopify.com';
let emulator: RunningEmulator;

function env(): Record<string, string> {
  return {
    APP_URL: 'https://print-bridge.example.com',
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    DATABASE_URL: TEST_DATABASE_URL,
    DATABASE_SCHEMA: schema,
    SHOPIFY_API_KEY: 'cli-key',
    SHOPIFY_API_SECRET: 'cli-secret',
    ENCRYPTION_KEY: Buffer.alloc(32, 5).toString('base64'),
    PRINT_API_BASE_URL: emulator.baseUrl,
    PRINT_API_TOKEN: 'demo-token',
    PRINT_API_SECRET: 'demo-secret',
    PRINT_SOURCE_ACCOUNT: 'demo-brand',
    POSTBACK_TOKEN: 'pb-token-0123456789abcdef0123456789',
    MAPPINGS_DIR: mappingsDir,
    LOG_LEVEL: 'silent',
  };
}

beforeAll(async () => {
  mkdirSync(mappingsDir);
  writeFileSync(join(mappingsDir, 'default.yaml'), testMapping());
  emulator = await startEmulator({
    port: 0,
    manual: true,
    accounts: parseAccounts([{ name: 'cli-brand', token: 'cli-token', secret: 'cli-secret-0123', accountId: 'c0000000000000000000000c' }]),
  });
  await database.migrate();
});
afterAll(async () => {
  await emulator?.close();
  await deleteByPrefix(redis, prefix);
  await cleanup();
});

describe('print-bridge shops print-account, postback-url, mode and list', () => {
  it('checks the account first, stores it encrypted, starts the store in test mode, and goes live on command', async () => {
    const args = (secret: string) => ['shops', 'print-account', SHOP, '--base-url', emulator.baseUrl, '--token', 'cli-token', '--secret', secret, '--account', 'cli-brand'];
    const wrong = await runCliInProcess(args('wrong-secret'), env());
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/Nothing was stored for cli-store\.myshopify\.com: .*signature did not match/);

    const right = await runCliInProcess(args('cli-secret-0123'), env());
    expect(right.stderr).toBe('');
    expect(right.code).toBe(0);
    expect(right.stdout).toContain('now uses its own print-service account (cli-brand at');
    expect(right.stdout).toContain('Mode: test');
    const [row] = await database.rows<{ print_account: unknown; mode: string }>(sql`SELECT print_account, mode FROM shop_settings WHERE shop = ${SHOP}`);
    expect(row!.mode).toBe('test');
    expect(JSON.stringify(row!.print_account)).not.toMatch(/cli-secret-0123|cli-token/);

    expect((await runCliInProcess(['shops', 'mode', SHOP, 'maybe'], env())).code).toBe(1);
    const live = await runCliInProcess(['shops', 'mode', SHOP, 'live'], env());
    expect(live.code).toBe(0);
    expect(live.stdout).toContain('is in live mode');
    // The operator may go ahead; what is missing is said.
    expect(live.stderr).toMatch(/checklist is not done .*One test order validated/);

    const list = await runCliInProcess(['shops', 'list'], env());
    expect(list.code).toBe(0);
    const line = list.stdout.split('\n').find((l) => l.startsWith(SHOP))!;
    expect(line).toMatch(/own: cli-brand at http:\/\/127\.0\.0\.1:\d+\s+live\s+merchant\s+files\s+https:\/\/print-bridge\.example\.com\/postbacks\/pb_/);
    expect(list.stdout.split('\n')[0]).toMatch(/\bMODE\s+FULFILLMENT\s+MAPPING\b/);
  }, 60_000);

  it('prints the postback URL and triggers, the same each time, and a new one on --rotate with the old one kept for 24 h', async () => {
    const first = await runCliInProcess(['shops', 'postback-url', SHOP], env());
    expect(first.code).toBe(0);
    const url = /https:\/\/print-bridge\.example\.com\/postbacks\/pb_[\w-]+/.exec(first.stdout)![0];
    expect(first.stdout).toContain('Shipment Shipped');
    const rotated = await runCliInProcess(['shops', 'postback-url', SHOP, '--rotate', '--json'], env());
    expect(rotated.code).toBe(0);
    const triggers = JSON.parse(rotated.stdout) as { event: string; url: string; template: string }[];
    expect(triggers).toHaveLength(6);
    expect(triggers[0]!.url).not.toBe(url);
    const [tokens] = await database.rows<{ current: number; expiring: number }>(
      sql`SELECT count(*) FILTER (WHERE expires_at IS NULL)::int AS current, count(*) FILTER (WHERE expires_at > now() + interval '23 hours')::int AS expiring FROM postback_tokens WHERE shop = ${SHOP}`,
    );
    expect(tokens).toEqual({ current: 1, expiring: 1 });
  }, 30_000);
});

describe('print-bridge mappings push, versions and rollback', () => {
  it('stores checked versions, lists them, and rolls back; a file with problems is refused with FILE:LINE:COL', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, testMapping().replace('shops: ["*"]', 'shops: ["someone-else.myshopify.com"]'));
    const refused = await runCliInProcess(['mappings', 'push', bad, '--shop', SHOP], env());
    expect(refused.code).toBe(1);
    // Each problem a line of its own, starting with FILE:LINE:COL (no prefix before the first).
    expect(refused.stderr).toMatch(new RegExp(`^${bad.replace(/[.]/g, '\\.')}:1:\\d+ this mapping is cli-store\\.myshopify\\.com's own`, 'm'));
    expect(refused.stderr).toMatch(/problem\(s\) in .*; nothing was stored/);

    const first = join(dir, 'first.yaml');
    writeFileSync(first, testMapping().replace('shops: ["*"]', `shops: ["${SHOP}"]`));
    const second = join(dir, 'second.yaml');
    writeFileSync(second, testMapping({ holdMinutes: 15 }));
    expect((await runCliInProcess(['mappings', 'push', first, '--shop', SHOP, '--note', 'first try'], env())).stdout).toContain('Stored as version 1');
    expect((await runCliInProcess(['mappings', 'push', second, '--shop', SHOP], env())).stdout).toContain('Stored as version 2');
    const versions = await runCliInProcess(['mappings', 'versions', '--shop', SHOP], env());
    expect(versions.stdout).toMatch(/^2 \(current\)\s+\S+\s+operator\s*$/m);
    expect(versions.stdout).toMatch(/^1\s+\S+\s+operator\s+first try$/m);
    const back = await runCliInProcess(['mappings', 'rollback', '--shop', SHOP, '1'], env());
    expect(back.code).toBe(0);
    expect((await runCliInProcess(['mappings', 'versions', '--shop', SHOP], env())).stdout).toMatch(/^1 \(current\)/m);
    expect((await runCliInProcess(['mappings', 'rollback', '--shop', SHOP, '9'], env())).code).toBe(1);
  }, 60_000);
});

describe('print-bridge shops hold-policy', () => {
  it("prints the policy in force and where it comes from, sets the store's choice, and clears it", async () => {
    const shop = 'cli-policy.myshopify.com';
    const run = (...rest: string[]) => runCliInProcess(['shops', 'hold-policy', shop, ...rest], env());
    expect((await run()).stdout).toBe(`${shop}: Orders wait for every hold Shopify places on them, and while Shopify recommends cancelling them. (default)\n`);
    // The store's mapping says otherwise: it is in force, and named as the source.
    const own = join(dir, 'policy.yaml');
    writeFileSync(own, testMapping({ waitForHolds: '[HIGH_RISK_OF_FRAUD, INCORRECT_ADDRESS]', waitForRisk: 'investigate' }).replace('shops: ["*"]', `shops: ["${shop}"]`));
    expect((await runCliInProcess(['mappings', 'push', own, '--shop', shop], env())).code).toBe(0);
    expect((await run()).stdout).toContain('Orders wait only for these holds: high risk of fraud, incorrect address, and while Shopify recommends cancelling or investigating them. (from the mapping)');

    // Only the risk given: the holds stay as they are in force. Lets orders through, so the waiting ones are looked at.
    const risk = await run('--risk', 'cancel');
    expect(risk.code).toBe(0);
    expect(risk.stdout).toBe(`${shop}: Orders wait only for these holds: high risk of fraud, incorrect address, and while Shopify recommends cancelling them. (chosen here)\nOrders waiting only for what no longer keeps them back go to the printer now.\n`);
    const holds = await run('--holds', 'high_risk_of_fraud');
    expect(holds.stdout).toContain('Orders wait only for these holds: high risk of fraud, and while Shopify recommends cancelling them. (chosen here)');
    expect((await database.rows<{ hold_policy: unknown }>(sql`SELECT hold_policy FROM shop_settings WHERE shop = ${shop}`))[0]!.hold_policy).toEqual({ waitForHolds: ['HIGH_RISK_OF_FRAUD'], waitForRisk: 'cancel' });
    expect((await run('--holds', 'none', '--risk', 'none')).stdout).toContain("Orders never wait for Shopify's holds, and never for Shopify's risk recommendation. (chosen here)");

    // Refused, nothing changed.
    const wrongReason = await run('--holds', 'FRAUD');
    expect(wrongReason.code).toBe(1);
    expect(wrongReason.stderr).toContain("--holds: FRAUD is not one of Shopify's hold reasons");
    expect((await run('--risk', 'sometimes')).code).toBe(1);
    expect((await run('--clear', '--risk', 'none')).code).toBe(1);
    expect((await run()).stdout).toContain('(chosen here)');

    const cleared = await run('--clear');
    expect(cleared.stdout).toContain('(from the mapping)');
    expect(cleared.stdout).not.toContain('go to the printer now');
  }, 60_000);
});
