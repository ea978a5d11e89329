import { type Browser, chromium, type Page } from 'playwright-core';
import { signSessionToken } from '../../src/dev/admin-stand-in/index.js';
import { appBridgeStandIn, POLARIS_STAND_IN } from '../../src/dev/embedded-preview/index.js';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

/** Where the App Bridge stand-in asks for a session token in these tests: answered by the test's route below. */
const TEST_TOKEN_URL = 'https://cdn.shopify.com/shopifycloud/test-token';

/**
 * A page in headless Chromium as the Shopify admin's iframe: Shopify's CDN scripts answered with the stand-ins of
 * src/dev/embedded-preview (the ones the demo's preview serves), a fresh session token for `shop` signed with
 * `apiSecret` on each `shopify.idToken()`, and every other outside request refused.
 */
export async function embeddedPage(options: { appUrl: string; shop: string; apiSecret: string; apiKey?: string; timeoutMs?: number }): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(options.timeoutMs ?? 10_000);
  await page.route('https://cdn.shopify.com/shopifycloud/app-bridge.js', (route) => route.fulfill({ contentType: 'text/javascript', body: appBridgeStandIn({ tokenUrl: TEST_TOKEN_URL }) }));
  await page.route('https://cdn.shopify.com/shopifycloud/polaris.js', (route) => route.fulfill({ contentType: 'text/javascript', body: POLARIS_STAND_IN }));
  await page.route(TEST_TOKEN_URL, (route) =>
    route.fulfill({ contentType: 'text/plain', headers: { 'access-control-allow-origin': '*' }, body: signSessionToken({ apiKey: options.apiKey ?? 'test-key', apiSecret: options.apiSecret }, options.shop) }),
  );
  await page.route((url) => !url.href.startsWith(options.appUrl) && !url.href.startsWith('https://cdn.shopify.com/shopifycloud/'), (route) => route.abort());
  return { browser, page };
}
