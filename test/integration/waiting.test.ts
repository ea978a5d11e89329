import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Session } from '@shopify/shopify-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobId } from '../../src/queue/queues.js';
import { ADMIN_TOKEN, AdminClient, csrfOf, orderTail } from '../admin/helpers.js';
import { emulatorOrders, type Harness, orderBody, SHOP, SHOPIFY_SECRET, startHarness, testMapping, waitFor, waitForIdle } from '../helpers/harness.js';
import { runBin } from '../helpers/run-cli.js';
import { signedWebhookHeaders } from '../helpers/shopify-webhooks.js';

/**
 * Every order ends at the printer or on the problems page with a reason and an action that works (issue 13), and
 * orders of a store the app cannot act for never reach the printer (issue 12 item 2) — through the running app.
 */

const sourceId = (shop: string, body: { order_number: number }) => `${shop.replace('.myshopify.com', '')}-${body.order_number}`;

function sendFor(h: Harness, shop: string, topic: string, body: unknown): Promise<Response> {
  const raw = JSON.stringify(body);
  return fetch(`${h.runtime.url}/webhooks`, {
    method: 'POST',
    body: raw,
    headers: signedWebhookHeaders(SHOPIFY_SECRET, raw, { topic, shop, webhookId: randomUUID() }),
  });
}

/** Every job queued so far has run: whatever the app was going to send to the printer, it has sent. */
function settle(h: Harness): Promise<void> {
  return waitForIdle(h, { what: 'every queued job done' });
}

describe('orders of a store that is not connected', () => {
  let h: Harness;
  let admin: AdminClient;
  const NEW_SHOP = 'never-installed.myshopify.com';
  const NEW_TOKEN = 'shpat_new_store_token';

  beforeAll(async () => {
    h = await startHarness({ env: { ADMIN_TOKEN } });
    h.standIn.registerShop(NEW_SHOP, NEW_TOKEN);
    admin = await AdminClient.login(h.runtime.url!);
  });
  afterAll(() => h.close());

  it('keeps an order of a never-installed store from the printer, shows why, and sends it once when the store is connected', async () => {
    const body = orderBody([{ sku: 'PRINT-A5' }]);
    h.standIn.seedOrder(NEW_SHOP, body);
    expect((await sendFor(h, NEW_SHOP, 'orders/create', body)).status).toBe(200);
    expect((await sendFor(h, NEW_SHOP, 'orders/paid', body)).status).toBe(200);
    const waiting = await waitFor(async () => {
      const l = await h.runtime.store.get(NEW_SHOP, body.admin_graphql_api_id);
      return l?.status === 'waiting' && l;
    }, { what: 'the order to wait for its store' });
    expect(waiting.problems.map((p) => p.kind)).toEqual(['store-not-connected']);
    await settle(h);
    expect(emulatorOrders(h.emulator, sourceId(NEW_SHOP, body))).toHaveLength(0);

    // Visible with its reason and what to do, on the problems page and the order page.
    const problems = await admin.page('/admin/problems');
    expect(problems).toContain(body.name);
    expect(problems).toContain('Store not connected');
    expect(problems).toContain(`href="/auth?shop=${NEW_SHOP}"`);
    // The Connect link starts Shopify's OAuth for that store.
    const connect = await fetch(`${h.runtime.url}/auth?shop=${NEW_SHOP}`, {
      redirect: 'manual',
      // The library answers 410 to what looks like a bot; a merchant's browser is not one.
      headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36' },
    });
    expect(connect.status).toBe(302);
    expect(connect.headers.get('location')).toContain(`https://${NEW_SHOP}/admin/oauth/authorize`);
    const orderPath = `/admin/orders/${NEW_SHOP}/${orderTail(body.admin_graphql_api_id)}`;
    const orderPage = await admin.page(orderPath);
    expect(orderPage).toContain('nothing is sent to the printer');
    expect(await admin.page('/admin')).toContain('store not connected');

    // Retry while still not connected is refused with the reason, and sends nothing.
    const retry = await admin.post(`${orderPath}/retry`, { _csrf: csrfOf(orderPage), version: String(waiting.version) });
    expect(retry.status).toBe(303);
    expect(await admin.page(retry.headers.get('location')!)).toContain('Connect the store');
    expect(emulatorOrders(h.emulator, sourceId(NEW_SHOP, body))).toHaveLength(0);

    // `shops add` (or the OAuth callback) stores a session: the order goes out by itself, exactly once, even when
    // the store is connected a second time.
    await h.runtime.sessions.addCustomAppToken(NEW_SHOP, NEW_TOKEN, h.config.SHOPIFY_SCOPES);
    await h.runtime.sessions.addCustomAppToken(NEW_SHOP, NEW_TOKEN, h.config.SHOPIFY_SCOPES);
    const sent = await waitFor(async () => {
      const l = await h.runtime.store.get(NEW_SHOP, body.admin_graphql_api_id);
      return l?.status === 'submitted' && l;
    }, { what: 'the released order at the printer' });
    expect(sent.problems).toEqual([]);
    await settle(h);
    expect(emulatorOrders(h.emulator, sourceId(NEW_SHOP, body))).toHaveLength(1);
    await waitFor(() => h.standIn.getOrder(NEW_SHOP, body.admin_graphql_api_id)?.tags.includes('print-bridge:submitted'), { what: 'the submitted tag' });
    expect(await admin.page('/admin/problems')).not.toContain(body.name);
  });

  it('sends it once `print-bridge shops add` (another process) registers the store', async () => {
    const CLI_SHOP = 'custom-app-store.myshopify.com';
    const CLI_TOKEN = 'shpat_custom_app_store';
    h.standIn.registerShop(CLI_SHOP, CLI_TOKEN);
    const body = orderBody([{ sku: 'PRINT-A3' }]);
    h.standIn.seedOrder(CLI_SHOP, body);
    await sendFor(h, CLI_SHOP, 'orders/paid', body);
    await waitFor(async () => (await h.runtime.store.get(CLI_SHOP, body.admin_graphql_api_id))?.status === 'waiting', { what: 'the order to wait' });

    const result = await runBin(['shops', 'add', CLI_SHOP, '--token', CLI_TOKEN], {
      REDIS_URL: h.config.REDIS_URL,
      REDIS_PREFIX: h.prefix,
      DATABASE_URL: h.config.DATABASE_URL!,
      DATABASE_SCHEMA: h.schema,
      APP_URL: 'http://127.0.0.1',
      SHOPIFY_API_KEY: 'test-key',
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      ENCRYPTION_KEY: h.config.ENCRYPTION_KEY!.join(','),
      SHOPIFY_ADMIN_API_ORIGIN: h.standIn.origin,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    await waitFor(async () => (await h.runtime.store.get(CLI_SHOP, body.admin_graphql_api_id))?.status === 'submitted', { what: 'the order sent after shops add' });
    await settle(h);
    expect(emulatorOrders(h.emulator, sourceId(CLI_SHOP, body))).toHaveLength(1);
  });

  it('holds back the orders of an uninstalled store until it is installed again', async () => {
    const uninstall = { id: 1, name: 'Acme', domain: SHOP, myshopify_domain: SHOP };
    // Shopify revokes the app's token, then sends the webhook.
    h.standIn.uninstallApp(SHOP);
    expect((await h.sendWebhook('app/uninstalled', uninstall, 'uninstall-waiting')).status).toBe(200);
    // The uninstall drops the store's pending jobs while it deletes the session: the whole job is waited for, or the
    // order's webhook job below could be queued before the drop reaches the webhooks queue (and be dropped).
    await waitFor(async () => (await h.runtime.queues.webhooks.getJob(jobId('wh', 'uninstall-waiting')))?.finishedOn, { what: 'the uninstall job done' });
    expect(await h.runtime.sessions.accessToken(SHOP)).toBeUndefined();

    const body = orderBody([{ sku: 'PRINT-A4' }]);
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);
    await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status === 'waiting', { what: 'the order to wait' });
    await settle(h);
    expect(emulatorOrders(h.emulator, sourceId(SHOP, body))).toHaveLength(0);

    // Installed again through OAuth: Shopify issues a token, and the callback stores the offline session as below.
    h.standIn.registerShop(SHOP, 'shpat_test_token');
    await h.runtime.sessions.storeSession(
      new Session({ id: `offline_${SHOP}`, shop: SHOP, state: 'oauth-state', isOnline: false, accessToken: 'shpat_test_token', scope: h.config.SHOPIFY_SCOPES.join(',') }),
    );
    await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status === 'submitted', { what: 'the order sent after reinstall' });
    expect(emulatorOrders(h.emulator, sourceId(SHOP, body))).toHaveLength(1);
  });
});

describe('an order that arrives before its store has a mapping', () => {
  let h: Harness;
  let admin: AdminClient;

  beforeAll(async () => {
    // The only file serves another store.
    h = await startHarness({ env: { ADMIN_TOKEN }, mapping: testMapping().replace('shops: ["*"]', 'shops: ["someone-else.myshopify.com"]') });
    admin = await AdminClient.login(h.runtime.url!);
  });
  afterAll(() => h.close());

  it('waits on the problems page, and goes out by itself, once, when a mapping serving the store appears', async () => {
    const body = orderBody([{ sku: 'PRINT-A5' }]);
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/create', body);
    await h.sendWebhook('orders/paid', body);
    const waiting = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return l?.status === 'waiting' && l.topics?.['orders/paid'] && l;
    }, { what: 'the order to wait for a mapping' });
    expect(waiting.problems.map((p) => p.kind)).toEqual(['no-mapping']);
    const problems = await admin.page('/admin/problems');
    expect(problems).toContain(body.name);
    expect(problems).toContain('No mapping serves this store yet');
    await waitFor(() => h.standIn.getOrder(SHOP, body.admin_graphql_api_id)?.tags.includes('print-bridge:needs-mapping'), { what: 'the needs-mapping tag' });
    // The same sync shows the wait as print-bridge's own hold, recorded on the order: the page is read after it.
    const held = await waitFor(async () => {
      const link = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return link?.appHold && link;
    }, { what: "print-bridge's hold recorded" });

    // Retry says what it waits for, and does not send it.
    const orderPath = `/admin/orders/${SHOP}/${orderTail(body.admin_graphql_api_id)}`;
    const page = await admin.page(orderPath);
    const retry = await admin.post(`${orderPath}/retry`, { _csrf: csrfOf(page), version: String(held.version) });
    expect(await admin.page(retry.headers.get('location')!)).toContain('Add a mapping file that serves');

    writeFileSync(join(h.mappingsDir, 'acme.yaml'), testMapping().replace('shops: ["*"]', `shops: ["${SHOP}"]`));
    const sent = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return l?.status === 'submitted' && l;
    }, { what: 'the order sent once a mapping serves its store', timeoutMs: 20_000 });
    expect(sent.problems).toEqual([]);
    await settle(h);
    expect(emulatorOrders(h.emulator, sourceId(SHOP, body))).toHaveLength(1);
    await waitFor(() => {
      const tags = h.standIn.getOrder(SHOP, body.admin_graphql_api_id)?.tags ?? [];
      return tags.includes('print-bridge:submitted') && !tags.includes('print-bridge:needs-mapping');
    }, { what: 'the tags to follow' });
    expect(await admin.page('/admin/problems')).not.toContain(body.name);
  });
});

describe('orders with nothing to print', () => {
  let h: Harness;
  let admin: AdminClient;

  beforeAll(async () => {
    h = await startHarness({ env: { ADMIN_TOKEN } });
    admin = await AdminClient.login(h.runtime.url!);
  });
  afterAll(() => h.close());

  it('records a gift-card-only order as not printed, with why, and never as held for mapping', async () => {
    const body = orderBody([{ sku: null, title: 'Gift card' }]);
    body.line_items[0]!.gift_card = true;
    body.line_items[0]!.requires_shipping = false;
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);
    const link = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return l?.status === 'not-printed' && l;
    }, { what: 'the order recorded as not printed' });
    expect(link.notPrintedReason).toContain('gift card');
    expect(link.problems).toEqual([]);
    const page = await admin.page(`/admin/orders/${SHOP}/${orderTail(body.admin_graphql_api_id)}`);
    expect(page).toContain('id="not-printed-reason"');
    expect(page).toContain('gift card');
    expect(await admin.page('/admin/problems')).not.toContain(body.name);
    await waitFor(() => h.standIn.getOrder(SHOP, body.admin_graphql_api_id)?.tags.includes('print-bridge:not-printed'), { what: 'the not-printed tag' });
    expect(h.standIn.getOrder(SHOP, body.admin_graphql_api_id)?.tags).not.toContain('print-bridge:needs-mapping');
    expect(emulatorOrders(h.emulator, sourceId(SHOP, body))).toHaveLength(0);
  });

  it('does not print again an order Shopify already has fulfilled', async () => {
    const body = orderBody([{ sku: 'PRINT-A5' }, { sku: 'PRINT-A4' }]);
    for (const line of body.line_items) Object.assign(line, { fulfillable_quantity: 0, fulfillment_status: 'fulfilled' });
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);
    const link = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return l?.status === 'not-printed' && l;
    }, { what: 'the fulfilled order recorded as not printed' });
    expect(link.notPrintedReason).toContain('already fulfilled in Shopify');
    await settle(h);
    expect(emulatorOrders(h.emulator, sourceId(SHOP, body))).toHaveLength(0);
  });
});
