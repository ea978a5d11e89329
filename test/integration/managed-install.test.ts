import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postbackTriggers } from '../../src/print-service/postback-triggers.js';
import { parseTriggers } from '../../src/dev/emulator/triggers.js';
import { signSessionToken } from '../../src/dev/admin-stand-in/index.js';
import { type Harness, orderBody, SHOPIFY_SECRET, startHarness, waitFor } from '../helpers/harness.js';
import { signedWebhookHeaders } from '../helpers/shopify-webhooks.js';

/**
 * Issue 15: Shopify installs the app itself (managed install) and the app has no token until it asks. The first
 * embedded request carries a session token; the app verifies it, exchanges it for an expiring offline token at the
 * Admin API (the stand-in checks the exchange as Shopify does), and every Shopify write after that uses that token.
 */
const NEW_SHOP = 'fresh-install.myshopify.com';
const app = { apiKey: 'test-key', apiSecret: SHOPIFY_SECRET };

describe('managed install and token exchange', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ emulator: { manual: false, delays: { receivedMs: 20, printReadyMs: 40, shipMs: 60 } } });
    h.emulator.deliveries.setTriggers(parseTriggers(postbackTriggers(`${h.runtime.url}/postbacks/postback-test-token-0123456789abcdef`)));
  });
  afterAll(() => h.close());

  it('exchanges the first session token of a store it has never seen, and fulfils its orders with that token', async () => {
    expect(h.standIn.accessTokenOf(NEW_SHOP)).toBeUndefined();
    expect(await h.runtime.sessions.accessToken(NEW_SHOP)).toBeUndefined();

    // Shopify opens the app: application_url with the session token, shop and host.
    const host = Buffer.from(`admin.shopify.com/store/fresh-install`).toString('base64url');
    const home = await fetch(`${h.runtime.url}/?embedded=1&shop=${NEW_SHOP}&host=${host}&id_token=${signSessionToken(app, NEW_SHOP)}`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('Orders');
    expect(h.standIn.tokenExchanges()).toBe(1);
    const exchanged = h.standIn.accessTokenOf(NEW_SHOP)!;
    expect(exchanged).toMatch(/^shpat_/);
    expect(await h.runtime.sessions.accessToken(NEW_SHOP)).toBe(exchanged);
    const stored = await h.runtime.sessions.storage.loadSession(`offline_${NEW_SHOP}`);
    expect(stored?.expires).toBeInstanceOf(Date);
    expect(stored?.refreshToken).toMatch(/^v1\./);
    expect(stored?.accessToken).toMatch(/^v1\./);

    // A later visit, and App Bridge's bearer requests, use the stored token: no second exchange.
    const again = await fetch(`${h.runtime.url}/admin`, { headers: { authorization: `Bearer ${signSessionToken(app, NEW_SHOP)}` } });
    expect(again.status).toBe(200);
    expect(h.standIn.tokenExchanges()).toBe(1);

    // The whole loop for the new store: orders/paid → print order → shipped postback → fulfillment with tracking.
    const body = orderBody([{ sku: 'PRINT-INSTALL', quantity: 1 }]);
    h.standIn.seedOrder(NEW_SHOP, body);
    const raw = JSON.stringify(body);
    const sent = await fetch(`${h.runtime.url}/webhooks`, { method: 'POST', body: raw, headers: signedWebhookHeaders(SHOPIFY_SECRET, raw, { topic: 'orders/paid', shop: NEW_SHOP }) });
    expect(sent.status).toBe(200);
    const order = await waitFor(() => {
      const o = h.standIn.getOrder(NEW_SHOP, body.admin_graphql_api_id);
      return o && o.fulfillments.length === 1 && o;
    }, { timeoutMs: 30_000, what: 'the fulfillment of the new store' });
    expect(order.fulfillments[0]!.trackingInfo[0]!.number).toMatch(/^EM\d{9}GB$/);
    const calls = h.standIn.requests().filter((r) => r.shop === NEW_SHOP);
    expect(calls.map((c) => c.operation)).toContain('mutation fulfillmentCreate');
    // Every Admin call for the store was accepted: the stand-in takes only the exchanged token.
    expect(calls.filter((c) => c.status !== 200)).toEqual([]);
  });

  it('refuses a session token signed with another secret: no exchange, no session', async () => {
    const forged = signSessionToken({ apiKey: 'test-key', apiSecret: 'not-the-secret' }, 'forged.myshopify.com');
    const page = await fetch(`${h.runtime.url}/?embedded=1&shop=forged.myshopify.com&id_token=${forged}`, { redirect: 'manual' });
    expect(page.status).not.toBe(200);
    expect(h.standIn.accessTokenOf('forged.myshopify.com')).toBeUndefined();
    expect(await h.runtime.sessions.accessToken('forged.myshopify.com')).toBeUndefined();
  });

  it('refreshes an expiring token shortly before it runs out, and keeps working with the new one', async () => {
    const shop = 'refreshing.myshopify.com';
    await fetch(`${h.runtime.url}/admin?id_token=${signSessionToken(app, shop)}`);
    const first = h.standIn.accessTokenOf(shop)!;
    const session = (await h.runtime.sessions.storage.loadSession(`offline_${shop}`))!;
    // As if the hour had nearly passed.
    session.expires = new Date(Date.now() + 60_000);
    await h.runtime.sessions.storage.storeSession(session);
    const [a, b] = await Promise.all([h.runtime.sessions.accessToken(shop), h.runtime.sessions.accessToken(shop)]);
    expect(a).toBe(b);
    expect(a).not.toBe(first);
    expect(h.standIn.accessTokenOf(shop)).toBe(a);
    expect(h.standIn.requests().filter((r) => r.shop === shop && r.operation === 'oauth refresh')).toHaveLength(1);
    expect(await h.runtime.sessions.accessToken(shop)).toBe(a);
  });
});
