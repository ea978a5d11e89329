import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postbackTriggers } from '../../src/print-service/postback-triggers.js';
import { parseTriggers } from '../../src/dev/emulator/triggers.js';
import { type Harness, orderBody, SHOP, SHOPIFY_SECRET, startHarness, testMapping, waitFor } from '../helpers/harness.js';
import { signedWebhookHeaders } from '../helpers/shopify-webhooks.js';
import { ADMIN_TOKEN, fixedMapping, orderTail } from './helpers.js';

/**
 * The admin pages in a real browser (Debian's chromium through playwright-core): an operator logs in, sees the
 * orders, opens one's history, fixes a held order's mapping, and watches it move on by itself. Screenshots
 * land in test-results/ for a person to look at.
 */
const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`admin browser test skipped: ${CHROMIUM} is missing (apt-get install chromium)`);
const SHOTS = join(process.cwd(), 'test-results');

describe.skipIf(!hasChromium)('admin pages in a browser', () => {
  let h: Harness;
  let browser: Browser;
  let page: Page;
  // One shipment per order: two shipments of one order contend for the order's lease in the events worker, and the
  // loser's retry backoff would add seconds to the run.
  const shipped = orderBody([{ sku: 'PRINT-BOOK', quantity: 2 }, { sku: 'PRINT-POSTER' }]);
  const card = orderBody([{ sku: 'PRINT-CARD', quantity: 3 }]);
  const held = orderBody([{ sku: 'MUG-WHITE', title: 'White mug' }, { sku: 'PRINT-A5' }]);
  // An order of a store the app holds no token for: it waits, and the page says how to connect the store.
  const UNCONNECTED = 'not-yet-connected.myshopify.com';
  const waiting = orderBody([{ sku: 'PRINT-A5' }]);

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    h = await startHarness({
      env: { ADMIN_TOKEN },
      mapping: testMapping({ validate: false }),
      emulator: { manual: false, delays: { receivedMs: 20, printReadyMs: 40, shipMs: 60 } },
    });
    h.emulator.deliveries.setTriggers(parseTriggers(postbackTriggers(`${h.runtime.url}/postbacks/postback-test-token-0123456789abcdef`)));
    for (const body of [shipped, card, held]) {
      h.standIn.seedOrder(SHOP, body);
      await h.sendWebhook('orders/paid', body);
    }
    const raw = JSON.stringify(waiting);
    await fetch(`${h.runtime.url}/webhooks`, {
      method: 'POST',
      body: raw,
      headers: signedWebhookHeaders(SHOPIFY_SECRET, raw, { topic: 'orders/paid', shop: UNCONNECTED, webhookId: randomUUID() }),
    });
    await fetch(`${h.runtime.url}/postbacks/postback-test-token-0123456789abcdef`, { method: 'POST', body: '{"event": "Shipment Shipped", "OrderId": <b>oops</b>' });
    // Shipped and fulfilled in Shopify, both shipments: no job of it is still running when the test ends.
    await waitFor(
      async () => {
        const link = await h.runtime.store.get(SHOP, shipped.admin_graphql_api_id);
        return link?.status === 'shipped' && link.shipments.every((s) => s.fulfillmentId || s.appliedAt);
      },
      { what: 'the shipped and fulfilled order', timeoutMs: 15_000 },
    );
    await waitFor(async () => (await h.runtime.store.get(SHOP, card.admin_graphql_api_id))?.shipments.every((s) => s.fulfillmentId), { what: 'the card order fulfilled', timeoutMs: 15_000 });
    await waitFor(async () => (await h.runtime.store.get(SHOP, held.admin_graphql_api_id))?.status === 'held', { what: 'the held order' });
    await waitFor(async () => (await h.runtime.store.get(UNCONNECTED, waiting.admin_graphql_api_id))?.status === 'waiting', { what: 'the waiting order' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(8_000);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('logs an operator in, shows the orders and an order history', async () => {
    await page.goto(`${h.runtime.url}/admin`);
    expect(new URL(page.url()).pathname).toBe('/admin/login');
    await page.fill('input[name=token]', 'wrong');
    await page.click('button[type=submit]');
    await page.getByText('That token is not right.').waitFor();
    await page.fill('input[name=token]', ADMIN_TOKEN);
    await page.click('button[type=submit]');
    await page.getByRole('heading', { name: 'Orders' }).waitFor();
    for (const body of [shipped, card, held]) await page.getByRole('link', { name: body.name, exact: true }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'admin-orders.png'), fullPage: true });

    await page.getByRole('link', { name: shipped.name, exact: true }).click();
    await page.getByRole('heading', { name: `Order ${shipped.name}` }).waitFor();
    const history = page.locator('.timeline li');
    expect(await history.count()).toBeGreaterThan(4);
    const text = await page.locator('main').innerText();
    expect(text).toMatch(/submitted/);
    expect(text).toMatch(/EM\d{9}GB/);
    await page.screenshot({ path: join(SHOTS, 'admin-order.png'), fullPage: true });
  });

  it('shows an order of a store that is not connected as waiting, with the reason, Retry and the way to connect it', async () => {
    await page.goto(`${h.runtime.url}/admin/problems`);
    const section = page.locator('.card', { has: page.getByRole('heading', { name: /^Waiting \(/ }) });
    await section.getByText('Store not connected').first().waitFor();
    expect(await section.innerText()).toContain(waiting.name);
    expect(await section.getByRole('link', { name: `Connect ${UNCONNECTED}` }).getAttribute('href')).toBe(`/auth?shop=${UNCONNECTED}`);
    await page.screenshot({ path: join(SHOTS, 'admin-problems-waiting.png'), fullPage: true });
    // Retry looks again now: still not connected, so it says what the order waits for.
    await section.getByRole('button', { name: 'Retry' }).first().click();
    // The answer's message (the waiting order's reason on the page says "Connect the store" too, before any answer).
    await page.locator('#flash', { hasText: 'Connect the store' }).waitFor();
    expect((await h.runtime.store.get(UNCONNECTED, waiting.admin_graphql_api_id))?.status).toBe('waiting');
  });

  it('fixes a held order: problem page, mapping preview, and it moves on by itself', async () => {
    await page.goto(`${h.runtime.url}/admin/problems`);
    await page.getByText('The mapping cannot turn this order into a print order').first().waitFor();
    expect(await page.locator('main').innerText()).toContain('MUG-WHITE');
    await page.screenshot({ path: join(SHOTS, 'admin-problem.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: join(SHOTS, 'admin-problem-phone.png'), fullPage: true });
    await page.goto(`${h.runtime.url}/admin`);
    await page.screenshot({ path: join(SHOTS, 'admin-orders-phone.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });

    writeFileSync(join(h.mappingsDir, 'default.yaml'), fixedMapping(false));
    await waitFor(() => h.runtime.registry.mapOrder(held, SHOP).ok, { what: 'the registry to load the fixed mapping', timeoutMs: 10_000 });

    // The preview shows what the order becomes now.
    await page.goto(`${h.runtime.url}/admin/mappings`);
    await page.fill('input[name=shop]', SHOP);
    await page.fill('input[name=orderId]', orderTail(held.admin_graphql_api_id));
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.locator('#preview-result').waitFor();
    expect(await page.locator('#preview-result').innerText()).toContain('"sku": "PRINT-A5"');
    await page.screenshot({ path: join(SHOTS, 'admin-mappings.png'), fullPage: true });

    // The fixed file releases the held order without anyone pressing anything.
    await page.goto(`${h.runtime.url}/admin/orders/${SHOP}/${orderTail(held.admin_graphql_api_id)}`);
    await waitFor(
      async () => {
        await page.reload();
        const badge = await page.locator('main .badge').first().innerText();
        return ['received', 'print-ready', 'partially-shipped', 'shipped'].includes(badge) && badge;
      },
      { what: 'the resubmitted order to move on', timeoutMs: 15_000, intervalMs: 200 },
    );
    expect(await page.locator('.timeline').innerText()).toContain('released for submission');
    await page.goto(`${h.runtime.url}/admin/problems`);
    expect(await page.locator('main').innerText()).not.toContain(held.name);
  });

  it('shows the queue dashboard to the operator', async () => {
    await page.goto(`${h.runtime.url}/admin/queues`);
    await page.getByText('orders').first().waitFor({ timeout: 10_000 });
    // The sidebar and, once the overview has loaded, its queue card both link to the queue.
    await page.getByRole('link', { name: 'orders', exact: true }).first().click();
    // The overview's queue cards say "completed" too: the queue's own page is the one at its address.
    await page.waitForURL((url) => url.pathname.endsWith('/queue/orders'));
    await page.getByText(/completed/i).first().waitFor({ timeout: 10_000 });
    await page.screenshot({ path: join(SHOTS, 'admin-queues.png') });
  });
});
