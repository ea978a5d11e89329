import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SHOPIFY_API_VERSION } from '../../src/config.js';
import { type Harness, orderBody, SHOP, SHOPIFY_SECRET, startHarness, waitFor, waitForIdle } from '../helpers/harness.js';
import { signedWebhookHeaders } from '../helpers/shopify-webhooks.js';

/** Issue 15: webhooks de-duplicated on X-Shopify-Event-Id as well, and app/scopes_update acted on. */
describe('install-time webhooks', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  const send = (topic: string, body: unknown, options: { webhookId?: string; eventId?: string } = {}) => {
    const raw = JSON.stringify(body);
    return fetch(`${h.runtime.url}/webhooks`, {
      method: 'POST',
      body: raw,
      headers: signedWebhookHeaders(SHOPIFY_SECRET, raw, { topic, shop: SHOP, apiVersion: DEFAULT_SHOPIFY_API_VERSION, ...options }),
    });
  };

  it('takes an event delivered again under a new webhook id once, and tells apart two topics of one event id', async () => {
    const body = orderBody([{ sku: 'PRINT-EVENT' }]);
    const eventId = randomUUID();
    const first = await send('orders/paid', body, { eventId });
    expect(await first.json()).toMatchObject({ outcome: 'queued' });
    await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id)) !== undefined);
    const again = await send('orders/paid', body, { eventId, webhookId: randomUUID() });
    expect(await again.json()).toMatchObject({ outcome: 'duplicate' });
    const otherTopic = await send('orders/create', body, { eventId });
    expect(await otherTopic.json()).toMatchObject({ outcome: 'queued' });
  });

  it('records the scopes Shopify grants on app/scopes_update, so that the next visit asks for a token again', async () => {
    expect(await h.runtime.sessions.needsToken(SHOP)).toBe(false);
    const refused = await send('app/scopes_update', { id: 1, previous: [], updated_at: new Date().toISOString() });
    expect(refused.status).toBe(401);
    // The body names no store: another store's body re-sent with this store's domain must not rewrite its session, so
    // the scopes are read from Shopify with the store's own token (security review). Its body claims nothing changed.
    const other = await send('app/scopes_update', { id: 1, previous: [], current: ['read_products'], updated_at: new Date().toISOString() });
    expect(other.status).toBe(200);
    await waitForIdle(h, { what: "the other store's body handled" });
    expect((await h.runtime.sessions.storage.loadSession(`offline_${SHOP}`))?.scope).toBe(h.config.SHOPIFY_SCOPES.join(','));
    expect(await h.runtime.sessions.needsToken(SHOP)).toBe(false);
    // The merchant really revokes a scope; Shopify says so to the app's token.
    h.standIn.setGrantedScopes(SHOP, ['read_orders']);
    const answer = await send('app/scopes_update', { id: 1, previous: h.config.SHOPIFY_SCOPES, current: ['read_orders'], updated_at: new Date().toISOString() });
    expect(answer.status).toBe(200);
    await waitFor(async () => (await h.runtime.sessions.storage.loadSession(`offline_${SHOP}`))?.scope === 'read_orders', { what: 'the stored scopes' });
    expect(await h.runtime.sessions.needsToken(SHOP)).toBe(true);
    // The token itself is untouched: orders keep flowing until the merchant opens the app again.
    expect(await h.runtime.sessions.accessToken(SHOP)).toBe('shpat_test_token');
  });
});
