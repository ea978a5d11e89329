import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAccounts } from '../../src/dev/emulator/accounts.js';
import { signSessionToken } from '../../src/dev/admin-stand-in/index.js';
import { CHROMIUM, embeddedPage } from '../helpers/embedded-page.js';
import { emulatorOrders, type Harness, orderBody, SHOP, SHOPIFY_SECRET, startHarness, waitFor, waitForIdle } from '../helpers/harness.js';

/**
 * Issue 16 in a browser, inside the Shopify admin as a merchant sees it: the Settings page (connect the store's own
 * print account, a refused secret said in plain words), the go-live checklist (test mode, a validated test order, Go
 * live), and the mapping editor (a typo shown at its line and column as you type, the preview of a real order, save
 * and rollback changing what the next order uses). Screenshots in test-results/.
 */
const SHOTS = join(process.cwd(), 'test-results');
const ACCOUNTS = parseAccounts([
  { name: 'demo-brand', token: 'demo-token', secret: 'demo-secret', accountId: 'a0000000000000000000000a' },
  { name: 'merchant-brand', token: 'merchant-token', secret: 'merchant-secret-42', accountId: 'c3333333333333333333333c' },
]);

describe.skipIf(!existsSync(CHROMIUM))("a merchant's own set-up in the browser", () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  const host = Buffer.from(`admin.shopify.com/store/${SHOP.split('.')[0]}`).toString('base64url');
  const open = (path: string) => page.goto(`${h.runtime.url}${path}${path.includes('?') ? '&' : '?'}embedded=1&shop=${SHOP}&host=${host}&id_token=${signSessionToken({ apiKey: 'test-key', apiSecret: SHOPIFY_SECRET }, SHOP)}`);
  // A success is App Bridge's toast (the banner only without the script).
  const toast = (text: string) => page.locator('[data-admin="toast"]', { hasText: text });
  const sendOrder = async (sku: string) => {
    const body = orderBody([{ sku }]);
    h.standIn.seedOrder(SHOP, body);
    expect((await h.sendWebhook('orders/paid', body)).status).toBe(200);
    return body;
  };
  const printedSku = async (body: ReturnType<typeof orderBody>) => {
    const link = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return l?.printOrderId && l;
    }, { timeoutMs: 20_000, what: `order ${body.name} created at the printer` });
    const [created] = emulatorOrders(h.emulator, link.sourceOrderId!);
    return { account: created!.account.name, sku: (created!.record.orderData as { items: { sku: string }[] }).items[0]!.sku };
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness({ emulator: { manual: true, accounts: ACCOUNTS } });
    ({ browser, page } = await embeddedPage({ appUrl: h.runtime.url!, shop: SHOP, apiSecret: SHOPIFY_SECRET }));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('connects the store\'s own account, keeps it in test mode until the checklist is done, and goes live', async () => {
    await open('/admin/settings');
    await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
    expect(await page.locator('#checklist').innerText()).toContain("uses the print account of the people who run this app");

    const fill = async (secret: string) => {
      await page.getByLabel('Base URL').fill(h.emulator.baseUrl);
      await page.getByLabel('Orders URL (if different)').fill(h.emulator.ordersUrl);
      await page.getByLabel('Access token').fill('merchant-token');
      await page.getByLabel('Secret key').fill(secret);
      await page.getByLabel('Source account name').fill('merchant-brand');
      await page.getByRole('button', { name: 'Save and test' }).click();
    };
    await fill('a-wrong-secret');
    await page.locator('#account-refused').waitFor();
    expect(await page.locator('#account-refused').innerText()).toMatch(/Nothing was saved\.[\s\S]*signature did not match.*secret key is wrong/);
    await page.screenshot({ path: join(SHOTS, 'settings-refused.png'), fullPage: true });

    await fill('merchant-secret-42');
    await toast('Saved.').waitFor();
    expect(await page.locator('#account-check').innerText()).toMatch(/Connection works/);
    const items = () => page.locator('#checklist s-list-item').evaluateAll((lis) => lis.map((li) => `${li.querySelector('strong')?.textContent}: ${li.getAttribute('data-done')}`));
    expect(await items()).toEqual([
      'Print account connected and tested: true',
      'Postback address set up at the print service: true',
      'Mapping valid: true',
      'One test order validated by the print service: false',
    ]);
    expect(await page.locator('#postback-url').innerText()).toMatch(/\/postbacks\/pb_[\w-]+$/);
    expect(await page.getByRole('button', { name: 'Go live' }).count()).toBe(0);
    // The secret is never shown again.
    expect(await page.content()).not.toContain('merchant-secret-42');
    await page.screenshot({ path: join(SHOTS, 'settings-test-mode.png'), fullPage: true });

    // An order in test mode: checked by the print service, created nowhere.
    const tested = await sendOrder('PRINT-T1');
    await waitFor(async () => (await h.runtime.store.get(SHOP, tested.admin_graphql_api_id))?.testRun?.valid === true, { what: 'the validated test order' });
    // Every job of the order has run (the test run is recorded before its job ends): nothing more can be created.
    await waitForIdle(h, { what: 'every job of the test order done' });
    expect(h.emulator.store.all()).toEqual([]);
    // The order page shows what would have been sent, and the way to go live.
    await open(`/admin/orders/${SHOP}/${tested.admin_graphql_api_id.split('/').pop()}`);
    await page.locator('#test-run').waitFor();
    expect(await page.locator('#test-run').innerText()).toMatch(/found it valid[\s\S]*1 × SKU PRINT-T1/);
    expect(await page.locator('main').innerText()).toContain('Test mode: checked by the print service, not created');
    await page.screenshot({ path: join(SHOTS, 'order-test-mode.png'), fullPage: true });

    await open('/admin/settings');
    await page.getByRole('button', { name: 'Go live' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'settings-checklist-done.png'), fullPage: true });
    // Inside the admin the confirm box is App Bridge's modal, which says what going live does.
    await page.getByRole('button', { name: 'Go live' }).click();
    await page.locator('[data-admin="modal"]', { hasText: 'every paid order is created at your print service' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'settings-go-live-modal.png'), fullPage: true });
    await page.locator('[data-admin="modal"]').getByRole('button', { name: 'Go live' }).click();
    await toast('Your store is live').waitFor();
    // The test order goes out now, once, on the merchant's own account.
    expect(await printedSku(tested)).toEqual({ account: 'merchant-brand', sku: 'PRINT-T1' });
    // Once: counted when every job going live queued has run, not right after the first create.
    await waitForIdle(h, { what: 'every job of going live done' });
    expect(emulatorOrders(h.emulator, (await h.runtime.store.get(SHOP, tested.admin_graphql_api_id))!.sourceOrderId!)).toHaveLength(1);
  }, 60_000);

  it('edits the mapping: a typo at its line and column, a preview of a real order, save and rollback', async () => {
    await open('/admin/mappings/editor');
    await page.getByRole('heading', { name: 'Mapping editor', exact: true }).waitFor();
    await page.locator('.cm-editor').waitFor();
    const setText = (text: string) =>
      page.evaluate((value) => {
        const view = (globalThis as unknown as { mappingEditor: { state: { doc: { length: number } }; dispatch(tr: unknown): void } }).mappingEditor;
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: value } });
      }, text);
    const original = await page.locator('#mapping-yaml').inputValue();
    expect(original).toContain('products:');

    // A typo: the problem shows at its line and column as you type.
    const typoLine = original.split('\n').findIndex((l) => l.startsWith('unmapped:')) + 1;
    await setText(original.replace('unmapped: hold', 'unmapped: hodl'));
    await page.locator('#mapping-problems .problem').first().waitFor();
    expect(await page.locator('#mapping-problems').innerText()).toMatch(new RegExp(`line ${typoLine}, column \\d+: .*unmapped`));
    await page.locator('.cm-lint-marker-error').first().waitFor();
    await page.screenshot({ path: join(SHOTS, 'editor-typo.png'), fullPage: true });

    // Fixed, with a new SKU prefix: the preview shows what the store's latest real order would become.
    const v1 = original.replace('sku: "{{ line.sku }}"', 'sku: "ED1-{{ line.sku }}"');
    await setText(v1);
    await waitFor(async () => (await page.locator('#mapping-problems').getAttribute('data-count')) === '0', { what: 'the problems to clear' });
    await page.locator('#preview-button').click();
    await page.locator('#draft-preview .preview-order').first().waitFor();
    const preview = await page.locator('#draft-preview').innerText();
    expect(preview).toContain('"sku": "ED1-PRINT-T1"');
    await page.screenshot({ path: join(SHOTS, 'editor-preview.png'), fullPage: true });

    await page.getByLabel('Note for this version (what changed, why)').fill('ED1 prefix');
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await toast('Saved as version 1').waitFor();
    expect(await page.locator('#versions').innerText()).toMatch(/1\s+current/);
    expect((await printedSku(await sendOrder('PRINT-E1'))).sku).toBe('ED1-PRINT-E1');

    await page.locator('.cm-editor').waitFor();
    await setText(v1.replace('ED1-', 'ED2-'));
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.locator('[data-version="2"]').waitFor();
    expect((await printedSku(await sendOrder('PRINT-E2'))).sku).toBe('ED2-PRINT-E2');

    // The diff of version 2 against 1, then back to version 1.
    await page.locator('[data-version="2"]').getByRole('link', { name: 'Changes' }).click();
    await page.locator('#diff').waitFor();
    const diff = await page.locator('#diff').innerText();
    expect(diff).toContain('- ');
    expect(diff).toMatch(/\+ .*ED2-/);
    await page.screenshot({ path: join(SHOTS, 'editor-diff.png'), fullPage: true });
    await page.getByRole('link', { name: 'Back to the editor' }).click();
    // The editor loaded, its deferred embedded script run (the rollback is sent by it, with a token): the button alone
    // is there while the page is still parsed.
    await page.waitForURL((url) => url.pathname === '/admin/mappings/editor');
    await page.getByRole('button', { name: 'Use version 1 again' }).click();
    await toast('Version 1 is your mapping again').waitFor();
    expect(await page.locator('[data-version="1"]').innerText()).toContain('current');
    expect((await printedSku(await sendOrder('PRINT-E3'))).sku).toBe('ED1-PRINT-E3');
    await page.screenshot({ path: join(SHOTS, 'editor-versions.png'), fullPage: true });
  }, 60_000);
});
