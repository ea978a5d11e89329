import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { html } from '../../src/admin/html.js';
import { settingsPage } from '../../src/admin/settings-views.js';
import { type Harness, SHOP, SHOPIFY_SECRET, startHarness } from '../helpers/harness.js';
import { ADMIN_TOKEN, AdminClient, csrfOf, embeddedMerchant } from './helpers.js';

/**
 * The Settings page's "How printed items reach the printer" (fulfillment-service mode), against the running app and
 * the Admin stand-in: the store's mode in words, a change through the page's forms calling chooseFulfillmentMode on
 * the viewer's own store, its message as the banner, an Admin API refusal in words, and the refusals (no CSRF token,
 * another store, merchant mode without the confirmation) that change nothing.
 */
const RIVAL = 'rival-store.myshopify.com';

describe('the fulfillment mode on the Settings page', () => {
  let h: Harness;
  let admin: AdminClient;
  const merchant = embeddedMerchant(() => h.runtime.url!, SHOP, SHOPIFY_SECRET);
  const merchantPost = (fields: Record<string, string>) => merchant.post('/admin/settings/fulfillment', fields);
  const merchantPage = merchant.page;
  const currentMode = (page: string) => /<p id="fulfillment-now" data-mode="(\w+)"/.exec(page)?.[1];
  const flashOf = (page: string) => /id="flash"[^>]*>([\s\S]*?)<\/(?:s-banner|div)>/.exec(page)?.[1]?.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
  const stored = async (shop = SHOP) => (await h.runtime.shopSettings.get(shop)).fulfillment;

  beforeAll(async () => {
    h = await startHarness({ env: { ADMIN_TOKEN } });
    // Shopify pings APP_URL/fulfillment_service/...: here the app listens on a port of its own.
    h.runtime.fulfillmentMode.appUrl = h.runtime.url!;
    h.standIn.setAutomaticFulfillmentRequests(false);
    admin = await AdminClient.login(h.runtime.url!);
  }, 60_000);
  afterAll(() => h?.close());

  it("shows the store's mode in words, with both choices", async () => {
    const page = await merchantPage();
    expect(page).toContain('How printed items reach the printer');
    expect(currentMode(page)).toBe('merchant');
    expect(page).toContain('print-bridge fulfils my orders (default)');
    expect(page).toContain('print-bridge is a fulfillment service (Shopify sends it requests)');
    expect(page).toContain('docs/fulfillment.md');
    expect(page).toMatch(/data-mode="merchant" data-current="true"/);
    // The operator sees the same section for the store.
    expect(currentMode(await admin.page(`/admin/settings?shop=${SHOP}`))).toBe('merchant');
  });

  it('refuses a post without the CSRF token, or one naming another store, and changes nothing', async () => {
    const noCsrf = await admin.post('/admin/settings/fulfillment', { shop: SHOP, mode: 'service' });
    expect(noCsrf.status).toBe(403);
    const wrongCsrf = await admin.post('/admin/settings/fulfillment', { shop: SHOP, mode: 'service', _csrf: 'forged' });
    expect(wrongCsrf.status).toBe(403);
    // A merchant's form naming another store is refused, not turned into a change of either store.
    const other = await merchantPost({ shop: RIVAL, mode: 'service' });
    expect(other.status).toBe(404);
    // Without a session at all.
    const anonymous = await fetch(`${h.runtime.url}/admin/settings/fulfillment`, { method: 'POST', body: new URLSearchParams({ shop: SHOP, mode: 'service' }), redirect: 'manual' });
    expect([401, 303]).toContain(anonymous.status);
    expect(await stored()).toBe('merchant');
    expect(await stored(RIVAL)).toBe('merchant');
    expect(h.standIn.listFulfillmentServices(SHOP)).toEqual([]);
  });

  it("says in words when the store's Admin API refuses, and the page stays", async () => {
    h.standIn.failNext(1, 403, { shop: SHOP });
    const response = await merchantPost({ mode: 'service' });
    expect(response.status).toBe(200);
    const { location } = (await response.json()) as { location: string };
    const page = await merchantPage(location);
    expect(flashOf(page)).toMatch(/Nothing was changed: .*Admin API did not accept print-bridge's access/);
    expect(currentMode(page)).toBe('merchant');
    expect(await stored()).toBe('merchant');
    expect(h.standIn.listFulfillmentServices(SHOP)).toEqual([]);
  });

  it("switches the merchant's store to service mode: the use case's message, then the page in service mode", async () => {
    const response = await merchantPost({ mode: 'service' });
    expect(response.status).toBe(200);
    const { location } = (await response.json()) as { location: string };
    const page = await merchantPage(location);
    expect(flashOf(page)).toContain(`${SHOP} is in fulfillment-service mode: the "print-bridge" fulfillment service and its location`);
    expect(currentMode(page)).toBe('service');
    expect(page).toMatch(/data-mode="service" data-current="true"/);
    expect(await stored()).toBe('service');
    expect(h.standIn.listFulfillmentServices(SHOP)).toEqual([expect.objectContaining({ callbackUrl: `${h.runtime.url}/fulfillment_service` })]);
    // The way back asks for a confirmation.
    expect(page).toMatch(/name="mode" value="merchant"><s-checkbox name="confirm" value="yes" label="[^"]+" required>/);
  });

  it('goes back to merchant mode only once confirmed (operator, for the store)', async () => {
    const csrf = csrfOf(await admin.page(`/admin/settings?shop=${SHOP}`));
    const unconfirmed = await admin.post('/admin/settings/fulfillment', { shop: SHOP, mode: 'merchant', _csrf: csrf });
    expect(unconfirmed.status).toBe(303);
    expect(flashOf(await admin.page(unconfirmed.headers.get('location')!))).toContain('Tick the box to confirm');
    expect(await stored()).toBe('service');
    expect(h.standIn.listFulfillmentServices(SHOP)).toHaveLength(1);

    const confirmed = await admin.post('/admin/settings/fulfillment', { shop: SHOP, mode: 'merchant', confirm: 'yes', _csrf: csrf });
    expect(confirmed.status).toBe(303);
    const page = await admin.page(confirmed.headers.get('location')!);
    expect(flashOf(page)).toContain(`${SHOP} is merchant-managed again`);
    expect(currentMode(page)).toBe('merchant');
    expect(await stored()).toBe('merchant');
    expect(h.standIn.listFulfillmentServices(SHOP)).toEqual([]);
  });
});

describe('the Settings page without the fulfillment-mode dependency', () => {
  it('has no fulfillment section', () => {
    const ctx = { viewer: { kind: 'shop' as const, shop: SHOP }, link: (path: string) => path, formFields: html``, setup: true };
    const data = { shop: SHOP, setup: { shop: SHOP, mode: 'live' as const, fulfillment: 'merchant' as const, revision: 0 }, checklist: { items: [], ready: false }, postback: undefined, problems: 0 };
    expect(settingsPage(ctx, data).value).not.toContain('How printed items reach the printer');
    expect(settingsPage(ctx, { ...data, fulfillment: 'merchant' }).value).toContain('How printed items reach the printer');
  });
});
