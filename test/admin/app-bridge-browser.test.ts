import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAccounts } from '../../src/dev/emulator/accounts.js';
import { signSessionToken } from '../../src/dev/admin-stand-in/index.js';
import { CHROMIUM, embeddedPage } from '../helpers/embedded-page.js';
import { type Harness, orderBody, SHOP, SHOPIFY_SECRET, startHarness, waitFor } from '../helpers/harness.js';

/**
 * Issue 26 in a browser, inside the Shopify admin (the App Bridge and Polaris stand-ins of src/dev/embedded-preview): a
 * destructive action asks in an App Bridge modal first ("Keep" does nothing), a refused "Save and test" keeps what
 * the merchant typed, a success is a toast, and the save bar of Settings and of the mapping editor asks before the
 * merchant leaves with unsaved changes. Screenshots in test-results/.
 */
const SHOTS = join(process.cwd(), 'test-results');
const ACCOUNTS = parseAccounts([
  { name: 'demo-brand', token: 'demo-token', secret: 'demo-secret', accountId: 'a0000000000000000000000a' },
  { name: 'merchant-brand', token: 'merchant-token', secret: 'merchant-secret-42', accountId: 'c3333333333333333333333c' },
]);

describe.skipIf(!existsSync(CHROMIUM))('App Bridge modals, save bars and toasts', () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  const posts: string[] = [];
  const order = orderBody([{ sku: 'PRINT-MODAL' }]);
  const host = Buffer.from(`admin.shopify.com/store/${SHOP.split('.')[0]}`).toString('base64url');
  const open = (path: string) => page.goto(`${h.runtime.url}${path}?embedded=1&shop=${SHOP}&host=${host}&id_token=${signSessionToken({ apiKey: 'test-key', apiSecret: SHOPIFY_SECRET }, SHOP)}`);
  const modal = () => page.locator('[data-admin="modal"]');
  const saveBar = () => page.getByRole('region', { name: 'Unsaved changes' });
  const toast = (text: string | RegExp) => page.locator('[data-admin="toast"]', { hasText: text });
  const nav = () => page.getByRole('navigation', { name: 'App navigation' });

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness({ emulator: { manual: true, accounts: ACCOUNTS } });
    h.standIn.seedOrder(SHOP, order);
    await h.sendWebhook('orders/paid', order);
    await waitFor(async () => (await h.runtime.store.get(SHOP, order.admin_graphql_api_id))?.status === 'submitted', { what: 'the submitted order', timeoutMs: 20_000 });
    ({ browser, page } = await embeddedPage({ appUrl: h.runtime.url!, shop: SHOP, apiSecret: SHOPIFY_SECRET }));
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().startsWith(h.runtime.url!)) posts.push(new URL(r.url()).pathname);
    });
    // Every form submission of every page, counted before the embedded script's own handler sees it: a modal's "Keep"
    // that sent its form would dispatch a submit event within the click (the POST follows later, after a token).
    await page.addInitScript(`window.__submits = 0; document.addEventListener('submit', () => { window.__submits += 1; }, true);`);
  }, 60_000);
  const submits = async () => Number(await page.evaluate('window.__submits'));
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('Cancel order asks in a modal: Keep does nothing, confirming cancels', async () => {
    await open(`/admin/orders/${SHOP}/${order.admin_graphql_api_id.split('/').pop()}`);
    await page.getByRole('heading', { name: `Order ${order.name}` }).waitFor();
    // The modal draws nothing in the page until asked.
    expect(await page.locator('main').innerText()).not.toContain('This cannot be undone');
    await page.getByRole('button', { name: 'Cancel order' }).click();
    await modal().waitFor();
    // The counter saw the submission that asked (the modal shows instead of a POST).
    const submitted = await submits();
    expect(submitted).toBeGreaterThan(0);
    expect(await modal().getAttribute('aria-label')).toBe(`Cancel order ${order.name}`);
    expect(await modal().innerText()).toMatch(/asks the print service to cancel this order[\s\S]*cannot be undone/);
    await page.screenshot({ path: join(SHOTS, 'app-bridge-cancel-modal.png'), fullPage: true });

    await modal().getByRole('button', { name: 'Keep' }).click();
    // The embedded script handles "Keep" within the click, the modal's removal included: once it is gone, a form it
    // sent would have been submitted already. None was, so no POST can follow.
    await modal().waitFor({ state: 'detached' });
    expect(await submits()).toBe(submitted);
    expect(posts.filter((p) => p.endsWith('/cancel'))).toEqual([]);
    const kept = (await h.runtime.store.get(SHOP, order.admin_graphql_api_id))!;
    expect(kept.status).toBe('submitted');
    expect(kept.cancelRequested).toBeUndefined();

    await page.getByRole('button', { name: 'Cancel order' }).click();
    await modal().getByRole('button', { name: 'Cancel order' }).click();
    await waitFor(async () => Boolean((await h.runtime.store.get(SHOP, order.admin_graphql_api_id))?.cancelRequested), { what: 'the cancellation' });
    expect(posts.filter((p) => p.endsWith('/cancel'))).toHaveLength(1);
    await page.waitForURL((url) => url.searchParams.has('flash'));
    await page.screenshot({ path: join(SHOTS, 'app-bridge-cancelled.png'), fullPage: true });
  }, 30_000);

  it('a refused "Save and test" keeps what was typed; a success is a toast; a new postback address asks first', async () => {
    await open('/admin/settings');
    await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
    const values = { 'Base URL': h.emulator.baseUrl, 'Orders URL (if different)': h.emulator.ordersUrl, 'Source account name': 'merchant-brand', 'Destination (printer) account, optional': 'my-printer' };
    for (const [label, value] of Object.entries(values)) await page.getByLabel(label, { exact: true }).fill(value);
    await page.getByLabel('Access token').fill('merchant-token');
    await page.getByLabel('Secret key').fill('a-wrong-secret');
    // Editing shows the save bar; its Discard empties the form again.
    await saveBar().waitFor();
    await saveBar().getByRole('button', { name: 'Discard' }).click();
    await saveBar().waitFor({ state: 'detached' });
    expect(await page.getByLabel('Base URL', { exact: true }).inputValue()).toBe('');

    for (const [label, value] of Object.entries(values)) await page.getByLabel(label, { exact: true }).fill(value);
    await page.getByLabel('Access token').fill('merchant-token');
    await page.getByLabel('Secret key').fill('a-wrong-secret');
    await saveBar().getByRole('button', { name: 'Save' }).click();
    await page.locator('#account-refused').waitFor();
    expect(await page.locator('#account-refused').innerText()).toMatch(/Nothing was saved\.[\s\S]*secret key is wrong[\s\S]*enter the access token and secret key again/);
    for (const [label, value] of Object.entries(values)) expect(await page.getByLabel(label, { exact: true }).inputValue()).toBe(value);
    expect(await page.getByLabel('Secret key').inputValue()).toBe('');
    // What is in the form is not stored: the save bar still shows.
    await saveBar().waitFor();
    await page.screenshot({ path: join(SHOTS, 'app-bridge-settings-refused.png'), fullPage: true });

    await page.getByLabel('Access token').fill('merchant-token');
    await page.getByLabel('Secret key').fill('merchant-secret-42');
    await page.getByRole('button', { name: 'Save and test' }).click();
    await toast(/^Saved\./).waitFor();
    // The success is the toast, not a banner; the page has no save bar left.
    expect(await page.locator('#flash').count()).toBe(0);
    expect(await saveBar().count()).toBe(0);
    expect(await page.evaluate('window.__toasts')).toEqual([expect.objectContaining({ message: expect.stringMatching(/^Saved\./), isError: false })]);
    await page.screenshot({ path: join(SHOTS, 'app-bridge-settings-toast.png'), fullPage: true });

    // A new postback address: no box to tick, a modal says what happens; Cancel does nothing.
    const before = await page.locator('#postback-url').innerText();
    expect(await page.locator('#postback').getByRole('checkbox').isVisible()).toBe(false);
    await page.getByRole('button', { name: 'New address' }).click();
    await modal().waitFor();
    const asked = await submits();
    expect(asked).toBeGreaterThan(0);
    expect(await modal().innerText()).toContain('keeps working for 24 hours only');
    await page.screenshot({ path: join(SHOTS, 'app-bridge-rotate-modal.png'), fullPage: true });
    await modal().getByRole('button', { name: 'Cancel' }).click();
    // As "Keep" above: handled within the click; no form submitted, so no POST can follow.
    await modal().waitFor({ state: 'detached' });
    expect(await submits()).toBe(asked);
    expect(posts.filter((p) => p.endsWith('/postback/rotate'))).toEqual([]);
    await page.getByRole('button', { name: 'New address' }).click();
    await modal().getByRole('button', { name: 'Issue a new address' }).click();
    await toast('New postback address issued').waitFor();
    expect(await page.locator('#postback-url').innerText()).not.toBe(before);
  }, 60_000);

  it('leaving the mapping editor with unsaved changes asks first', async () => {
    await open('/admin/mappings/editor');
    await page.getByRole('heading', { name: 'Mapping editor', exact: true }).waitFor();
    await page.locator('.cm-editor').waitFor();
    const original = await page.locator('#mapping-yaml').inputValue();
    expect(await saveBar().count()).toBe(0);
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n# a change not saved yet');
    await saveBar().waitFor();

    // The admin's navigation asks; Stay keeps the page and the text.
    await nav().getByRole('link', { name: 'Orders' }).click();
    const leave = page.getByRole('dialog', { name: 'Leave page with unsaved changes?' });
    await leave.waitFor();
    await page.screenshot({ path: join(SHOTS, 'app-bridge-editor-leave.png'), fullPage: true });
    await leave.getByRole('button', { name: 'Stay' }).click();
    await leave.waitFor({ state: 'detached' });
    expect(new URL(page.url()).pathname).toBe('/admin/mappings/editor');
    expect(await page.locator('#mapping-yaml').inputValue()).toContain('# a change not saved yet');

    // Discard: the text as loaded, no save bar, and leaving asks nothing.
    await saveBar().getByRole('button', { name: 'Discard' }).click();
    await saveBar().waitFor({ state: 'detached' });
    await waitFor(async () => (await page.locator('#mapping-yaml').inputValue()) === original, { what: 'the discarded text' });
    // The editor takes the reset text on its next turn (web/editor/main.ts): wait for it, then check it.
    await page.waitForFunction(`!document.querySelector('.cm-content')?.textContent?.includes('a change not saved yet')`);
    expect(await page.locator('.cm-content').innerText()).not.toContain('a change not saved yet');

    // Saved through the save bar: a version and a toast.
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n# saved');
    await saveBar().getByRole('button', { name: 'Save' }).click();
    await toast(/^Saved as version 1/).waitFor();
    expect(await saveBar().count()).toBe(0);

    // A link of the page asks too; Leave page leaves.
    await page.locator('.cm-content').click();
    await page.keyboard.type('# another');
    await saveBar().waitFor();
    await page.locator('[data-version="1"]').getByRole('link', { name: 'Changes' }).click();
    await leave.waitFor();
    await leave.getByRole('button', { name: 'Leave page' }).click();
    await page.locator('#diff').waitFor();
    await nav().getByRole('link', { name: 'Orders' }).click();
    await page.getByRole('heading', { name: 'Orders', exact: true }).waitFor();
  }, 60_000);
});
