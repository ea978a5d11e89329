import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, SHOP, SHOPIFY_SECRET, startHarness } from '../helpers/harness.js';
import { ADMIN_TOKEN, AdminClient, csrfOf, embeddedMerchant } from './helpers.js';

/**
 * The Settings page's "Shopify's holds and risk", against the running app: the policy in force and where it comes
 * from, a merchant's choice saved through the page's form (stored for the viewer's store, its words as the banner), the
 * operator's reset to the mapping's setting, and the refusals (no CSRF token, another store, "only" with nothing ticked)
 * that change nothing.
 */
const RIVAL = 'rival-store.myshopify.com';
const decode = (text: string) => text.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code))).replace(/&amp;/g, '&');

describe("Shopify's holds and risk on the Settings page", () => {
  let h: Harness;
  let admin: AdminClient;
  const merchant = embeddedMerchant(() => h.runtime.url!, SHOP, SHOPIFY_SECRET);
  const merchantPost = (fields: [string, string][]) => merchant.post('/admin/settings/hold-policy', fields);
  const merchantPage = async (location?: string) => decode(await merchant.page(location));
  const now = (page: string) => /<span id="hold-policy-now" data-source="(\w+)">([^<]*)<\/span>/.exec(page)?.slice(1, 3);
  const flashOf = (page: string) => /id="flash"[^>]*>([\s\S]*?)<\/(?:s-banner|div)>/.exec(page)?.[1];
  const stored = async (shop = SHOP) => (await h.runtime.shopSettings.get(shop)).holdPolicy;

  beforeAll(async () => {
    h = await startHarness({ env: { ADMIN_TOKEN } });
    admin = await AdminClient.login(h.runtime.url!);
  }, 60_000);
  afterAll(() => h?.close());

  it('shows the policy in force, the default here, with every choice in words', async () => {
    const page = await merchantPage();
    expect(page).toContain("Shopify's holds and risk");
    expect(now(page)).toEqual(['default', 'Orders wait for every hold Shopify places on them, and while Shopify recommends cancelling them.']);
    expect(page).toMatch(/<s-choice-list name="holds" label="Holds"><s-choice value="all" selected>Wait for every hold \(default\)/);
    expect(page).toContain('<s-choice value="AWAITING_PAYMENT">Awaiting payment<s-text slot="details">The payment has not cleared yet');
    expect(page).toMatch(/<s-choice value="HIGH_RISK_OF_FRAUD" selected>High risk of fraud/);
    expect(page).toMatch(/<s-choice value="investigate">Also wait while Shopify recommends investigating/);
    // Nothing chosen here: nothing to reset.
    expect(page).not.toContain("Use the mapping's setting");
    // The operator's page: plain radio buttons and checkboxes.
    const operator = decode(await admin.page(`/admin/settings?shop=${SHOP}`));
    expect(now(operator)?.[0]).toBe('default');
    expect(operator).toMatch(/<input type="radio" name="holds" value="all" checked> <span>Wait for every hold \(default\)/);
    expect(operator).toMatch(/<input type="checkbox" name="reasons" value="INCORRECT_ADDRESS" checked>/);
  });

  it('refuses a post without the CSRF token, one naming another store, and "only" with nothing ticked', async () => {
    expect((await admin.post('/admin/settings/hold-policy', { shop: SHOP, holds: 'none', risk: 'none' })).status).toBe(403);
    expect((await merchantPost([['shop', RIVAL], ['holds', 'none'], ['risk', 'none']])).status).toBe(404);
    const nothingTicked = await merchantPost([['holds', 'only'], ['risk', 'cancel']]);
    expect(nothingTicked.status).toBe(200);
    const { location } = (await nothingTicked.json()) as { location: string };
    expect(flashOf(await merchantPage(location))).toContain('Nothing was changed. Tick at least one hold to wait for');
    expect((await merchantPost([['holds', 'all'], ['risk', 'sometimes']])).status).toBe(400);
    expect(await stored()).toBeUndefined();
    expect(await stored(RIVAL)).toBeUndefined();
  });

  it("refuses the other Settings forms that name another store, changing nothing of the merchant's own", async () => {
    // The switch of print-bridge's own holds, test/live mode and a new postback address are the viewer's store's too.
    expect((await merchant.post('/admin/settings/app-holds', [['shop', RIVAL], ['on', 'no']])).status).toBe(404);
    expect((await h.runtime.shopSettings.get(SHOP)).appHolds ?? true).toBe(true);
    expect((await merchant.post('/admin/settings/mode', [['shop', RIVAL], ['mode', 'test']])).status).toBe(404);
    expect((await merchant.post('/admin/settings/postback/rotate', [['shop', RIVAL], ['confirm', 'yes']])).status).toBe(404);
  });

  it("saves the merchant's choice for their store and shows it as chosen here", async () => {
    const response = await merchantPost([['holds', 'only'], ['reasons', 'INCORRECT_ADDRESS'], ['reasons', 'HIGH_RISK_OF_FRAUD'], ['risk', 'investigate']]);
    expect(response.status).toBe(200);
    const { location } = (await response.json()) as { location: string };
    const page = await merchantPage(location);
    expect(flashOf(page)).toContain('Saved. Orders wait only for these holds: high risk of fraud, incorrect address, and while Shopify recommends cancelling or investigating them. Orders waiting only for what no longer keeps them back go to the printer now.');
    expect(now(page)?.[0]).toBe('store');
    expect(page).toMatch(/<s-choice value="only" selected>/);
    expect(page).toMatch(/<s-choice value="AWAITING_PAYMENT">/);
    expect(page).toMatch(/<s-choice value="investigate" selected>/);
    expect(page).toContain("Use the mapping's setting");
    expect(await stored()).toEqual({ waitForHolds: ['HIGH_RISK_OF_FRAUD', 'INCORRECT_ADDRESS'], waitForRisk: 'investigate' });
  });

  it("goes back to the mapping's setting (operator, for the store)", async () => {
    const csrf = csrfOf(await admin.page(`/admin/settings?shop=${SHOP}`));
    const response = await admin.post('/admin/settings/hold-policy', { shop: SHOP, clear: 'yes', _csrf: csrf });
    expect(response.status).toBe(303);
    const page = decode(await admin.page(response.headers.get('location')!));
    expect(flashOf(page)).toContain("The mapping's setting applies again (the default). Orders wait for every hold Shopify places on them, and while Shopify recommends cancelling them.");
    expect(now(page)?.[0]).toBe('default');
    expect(await stored()).toBeUndefined();
  });
});
