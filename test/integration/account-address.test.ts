import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectPrintAccount, testPrintAccount } from '../../src/shops/setup.js';
import { answering, SHOP, startHarness, type Harness } from '../helpers/harness.js';

/**
 * Issue 22 (a) against the running app: a merchant's print account on a public-looking name whose DNS answer is an
 * IPv6 address carrying a loopback IPv4 (NAT64, 6to4, IPv4-compatible) or a site-local one. The app's connections
 * for merchants' accounts refuse them after resolution (src/shops/account-address.ts over src/net/public-address.ts),
 * and the merchant reads why. The harness's resolver answers for these names (the tests have no internet).
 */
const ANSWERS = {
  'print.nat64-loopback.com': ['64:ff9b::7f00:1'],
  'print.6to4-loopback.com': ['2002:7f00:1::'],
  'print.compatible-loopback.com': ['::127.0.0.1'],
  'print.site-local.com': ['fec0::1'],
};

describe("a merchant's print account whose name resolves to a non-public IPv6 address", () => {
  let h: Harness;
  beforeAll(async () => {
    // As in production: merchants' accounts must reach public addresses only.
    h = await startHarness({ env: { PRINT_ACCOUNT_PRIVATE_HOSTS: 'false' }, lookup: answering(ANSWERS) });
  });
  afterAll(() => h?.close());

  const account = (host: string) => ({ baseUrl: `https://${host}/api`, ordersUrl: undefined, token: 'token', secret: 'secret', sourceAccount: 'brand', destination: undefined });

  it.each([
    ['print.nat64-loopback.com', '64:ff9b::7f00:1 is 127.0.0.1 (NAT64), a loopback address'],
    ['print.6to4-loopback.com', '2002:7f00:1:: is 127.0.0.1 (6to4), a loopback address'],
    ['print.compatible-loopback.com', '::127.0.0.1 is 127.0.0.1 (IPv4-compatible), a loopback address'],
    ['print.site-local.com', 'fec0::1 is a site-local address'],
  ])('refuses to connect %s, saying which address and why, and stores nothing', async (host, reason) => {
    const outcome = await connectPrintAccount(h.runtime.setup, SHOP, account(host));
    expect(outcome.kind).toBe('refused');
    const message = outcome.kind === 'refused' ? outcome.check.message : '';
    expect(message).toContain(`${host} resolves to ${reason}`);
    expect(message).toMatch(/may not reach \(only public internet addresses are allowed\)/);
    expect((await h.runtime.shopSettings.get(SHOP)).printAccount).toBeUndefined();
  });

  it('refuses the same on "Test connection" of an account stored without a check', async () => {
    const saved = await connectPrintAccount(h.runtime.setup, SHOP, account('print.site-local.com'), { test: false });
    expect(saved.kind).toBe('saved');
    const check = await testPrintAccount(h.runtime.setup, SHOP);
    expect(check?.ok).toBe(false);
    expect(check?.message).toContain('fec0::1 is a site-local address');
  });
});
