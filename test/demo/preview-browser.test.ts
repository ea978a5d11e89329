import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemo, type DemoResult } from '../../src/dev/demo/run-demo.js';
import { demoScenarios } from '../../src/dev/demo/scenarios.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/embedded-page.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';

/**
 * The demo's local preview of the embedded pages (issue 26; docs/demo.md), as a reviewer uses it: `demo --keep-running`
 * prints its address, a browser opens it and is the demo store's merchant inside the Shopify admin. Nothing is routed
 * by the test: the preview itself serves the App Bridge and Polaris stand-ins and signs the session tokens, and every
 * request to anywhere else (Shopify's CDN included) is refused so a page that still reached for it would fail here.
 */
const hasChromium = existsSync(CHROMIUM);
const SHOTS = join(process.cwd(), 'test-results');
const scenarios = demoScenarios().filter((s) => s.name === 'several SKUs' || s.name === 'unmapped item');
const shipped = scenarios.find((s) => s.name === 'several SKUs')!.order;

describe.skipIf(!hasChromium)('the demo’s preview of the embedded pages', () => {
  let result: DemoResult;
  let printed = '';
  let browser: Browser;
  let page: Page;
  const loads: URL[] = [];
  const refused: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    result = await runDemo({
      out: { write: (s: string) => void (printed += s), isTTY: false },
      redisUrl: TEST_REDIS_URL,
      speed: 10,
      holdSeconds: 1,
      staggerMs: 50,
      timeoutSeconds: 40,
      keepRunning: true,
      scenarios,
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(10_000);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await result?.stack?.close();
  });

  /** The address the demo printed for the embedded app. */
  function printedUrl(): string {
    const url = /^ {2}embedded app +(http:\/\/127\.0\.0\.1:\d+\/) /m.exec(printed)?.[1];
    if (!url) throw new Error(`no embedded app address in the demo's output:\n${printed}`);
    return url;
  }

  it('opens at the printed address as the demo store’s merchant: its orders, an order through an s-link, the other pages', async () => {
    expect(result.exitCode, printed).toBe(0);
    const url = printedUrl();
    const origin = new URL(url).origin;
    await page.route((u) => u.origin !== origin, (route) => {
      refused.push(route.request().url());
      return route.abort();
    });
    page.on('request', (request) => {
      if (request.resourceType() === 'document') loads.push(new URL(request.url()));
    });

    await page.goto(url);
    const nav = page.getByRole('navigation', { name: 'App navigation' });
    await page.getByRole('heading', { name: 'Orders', exact: true }).waitFor();
    // The stand-ins came from the preview, and the page was reached the way the admin opens an app: a session token
    // got by App Bridge (the bounce page) for the demo store.
    expect(await page.evaluate('window.__cdn')).toEqual(['app-bridge', 'polaris']);
    expect(loads.some((u) => u.pathname === '/auth/session-token' && u.searchParams.get('shop') === result.stack!.shop)).toBe(true);
    expect(new URL(page.url()).searchParams.get('id_token')).toBeTruthy();
    await page.getByRole('link', { name: shipped.name, exact: true }).waitFor();
    await page.getByRole('link', { name: '#1004', exact: true }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'demo-preview-orders.png'), fullPage: true });

    // The order in the list is a Polaris link: followed with a fresh token, it opens the order's page.
    const orderLink = page.locator('s-link', { hasText: shipped.name });
    expect(await orderLink.count()).toBe(1);
    await orderLink.click();
    await page.getByRole('heading', { name: `Order ${shipped.name}` }).waitFor();
    expect(new URL(page.url()).searchParams.get('id_token')).toBeTruthy();
    expect(await page.locator('main').innerText()).toMatch(/shipped/);
    await page.screenshot({ path: join(SHOTS, 'demo-preview-order.png'), fullPage: true });

    // The admin's navigation (no token: the bounce gets one) to the editor and Settings.
    await nav.getByRole('link', { name: 'Edit mapping' }).click();
    await page.getByRole('heading', { name: 'Mapping editor', exact: true }).waitFor();
    await nav.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'demo-preview-settings.png'), fullPage: true });

    // A form sent with App Bridge's bearer token through the preview (the app checks its origin): the mapping preview.
    await nav.getByRole('link', { name: 'Mappings' }).click();
    await page.getByRole('heading', { name: 'Mappings', exact: true }).waitFor();
    await page.getByLabel('Shopify order id').fill(shipped.admin_graphql_api_id);
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.locator('#preview-result').waitFor();
    expect(await page.locator('#preview-result').innerText()).toContain('PST-A2-');

    // At phone width, the orders list.
    await page.setViewportSize({ width: 390, height: 844 });
    await nav.getByRole('link', { name: 'Orders' }).click();
    await page.getByRole('heading', { name: 'Orders', exact: true }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'demo-preview-orders-phone.png'), fullPage: true });
    expect(refused).toEqual([]);
  });

  it('lives in the demo only: the app itself serves no preview route and its pages keep Shopify’s CDN scripts', async () => {
    const stack = result.stack!;
    // The app is the runtime `print-bridge start` runs (web and worker); the preview is a server of the demo's own.
    for (const path of ['/_preview/app-bridge.js', '/_preview/polaris.js', '/_preview/session-token']) {
      expect((await fetch(`${stack.appUrl}${path}`)).status, path).toBe(404);
      expect((await fetch(`${stack.preview.origin}${path}`)).status, path).toBe(200);
    }
    const bounce = await (await fetch(`${stack.appUrl}/auth/session-token?embedded=1&shop=${stack.shop}`)).text();
    expect(bounce).toContain('<script src="https://cdn.shopify.com/shopifycloud/app-bridge.js">');
    const previewed = await (await fetch(`${stack.preview.origin}/auth/session-token?embedded=1&shop=${stack.shop}`)).text();
    expect(previewed).toContain('<script src="/_preview/app-bridge.js">');
    expect(previewed).not.toContain('cdn.shopify.com');
  });
});
