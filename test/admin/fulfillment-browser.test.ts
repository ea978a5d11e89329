import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSessionToken } from '../../src/dev/admin-stand-in/index.js';
import { CHROMIUM, embeddedPage } from '../helpers/embedded-page.js';
import { type Harness, SHOP, SHOPIFY_SECRET, startHarness } from '../helpers/harness.js';

/**
 * The fulfillment mode in a browser, inside the Shopify admin as a merchant sees it: the Settings page's "How printed
 * items reach the printer", a switch to fulfillment-service mode (the stand-in gets the service), and the way back,
 * which asks for the confirmation first. Screenshots in test-results/.
 */
const SHOTS = join(process.cwd(), 'test-results');

describe.skipIf(!existsSync(CHROMIUM))('the fulfillment mode on the Settings page, in the browser', () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  const host = Buffer.from(`admin.shopify.com/store/${SHOP.split('.')[0]}`).toString('base64url');
  const open = (path: string) => page.goto(`${h.runtime.url}${path}?embedded=1&shop=${SHOP}&host=${host}&id_token=${signSessionToken({ apiKey: 'test-key', apiSecret: SHOPIFY_SECRET }, SHOP)}`);
  const section = () => page.locator('#fulfillment');

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness();
    h.runtime.fulfillmentMode.appUrl = h.runtime.url!;
    h.standIn.setAutomaticFulfillmentRequests(false);
    ({ browser, page } = await embeddedPage({ appUrl: h.runtime.url!, shop: SHOP, apiSecret: SHOPIFY_SECRET }));
    // Every form submission of every page, counted before the embedded script's own handler sees it: a modal's "Cancel"
    // that sent its form would dispatch a submit event within the click (the POST follows later, after a token).
    await page.addInitScript(`window.__submits = 0; document.addEventListener('submit', () => { window.__submits += 1; }, true);`);
  }, 60_000);
  const submits = async () => Number(await page.evaluate('window.__submits'));
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('switches to fulfillment-service mode and back, the way back only once confirmed', async () => {
    await open('/admin/settings');
    await section().getByRole('heading', { name: 'How printed items reach the printer' }).waitFor();
    expect(await page.locator('#fulfillment-now').innerText()).toContain('print-bridge fulfils your orders');
    await page.screenshot({ path: join(SHOTS, 'settings-fulfillment-merchant.png'), fullPage: true });

    await section().getByRole('button', { name: 'Make print-bridge my fulfillment service' }).click();
    await page.locator('[data-admin="toast"]', { hasText: 'is in fulfillment-service mode' }).waitFor();
    expect(await page.locator('#fulfillment-now').innerText()).toContain('print-bridge is your fulfillment service');
    expect(h.standIn.listFulfillmentServices(SHOP)).toHaveLength(1);
    expect((await h.runtime.shopSettings.get(SHOP)).fulfillment).toBe('service');
    await page.screenshot({ path: join(SHOTS, 'settings-fulfillment-service.png'), fullPage: true });

    // Inside the admin an App Bridge modal says what going back does (the confirm box is for pages without the script);
    // Cancel sends nothing.
    const back = section().getByRole('button', { name: 'Let print-bridge fulfil my orders' });
    expect(await section().getByRole('checkbox').isVisible()).toBe(false);
    const modal = page.locator('[data-admin="modal"]');
    await back.click();
    await modal.waitFor();
    // The counter saw the submission that asked (the modal shows instead of a POST).
    const asked = await submits();
    expect(asked).toBeGreaterThan(0);
    await modal.getByRole('button', { name: 'Cancel' }).click();
    // The embedded script handles "Cancel" within the click, the modal's removal included: once it is gone, a form it
    // sent would have been submitted already. None was, so nothing can reach the app after this read.
    await modal.waitFor({ state: 'detached' });
    expect(await submits()).toBe(asked);
    expect((await h.runtime.shopSettings.get(SHOP)).fulfillment).toBe('service');

    await back.click();
    expect(await modal.innerText()).toContain('fulfillment requests not yet answered stay for you to fulfil');
    await page.screenshot({ path: join(SHOTS, 'settings-fulfillment-modal.png'), fullPage: true });
    await modal.getByRole('button', { name: 'Remove the fulfillment service' }).click();
    await page.locator('[data-admin="toast"]', { hasText: 'is merchant-managed again' }).waitFor();
    expect(await page.locator('#fulfillment-now').innerText()).toContain('print-bridge fulfils your orders');
    expect(h.standIn.listFulfillmentServices(SHOP)).toEqual([]);
  }, 60_000);
});
