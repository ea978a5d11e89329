import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SHOPIFY_API_VERSION } from '../../src/config.js';
import { type Harness, orderBody, SHOP, SHOPIFY_SECRET, startHarness, waitFor } from '../helpers/harness.js';
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

  it('records the scopes app/scopes_update reports, so that the next visit asks for a token again', async () => {
    expect(await h.runtime.sessions.needsToken(SHOP)).toBe(false);
    const refused = await send('app/scopes_update', { id: 1, previous: [], updated_at: new Date().toISOString() });
    expect(refused.status).toBe(401);
    const answer = await send('app/scopes_update', { id: 1, previous: h.config.SHOPIFY_SCOPES, current: ['read_orders'], updated_at: new Date().toISOString() });
    expect(answer.status).toBe(200);
    await waitFor(async () => (await h.runtime.sessions.storage.loadSession(`offline_${SHOP}`))?.scope === 'read_orders', { what: 'the stored scopes' });
    expect(await h.runtime.sessions.needsToken(SHOP)).toBe(true);
    // The token itself is untouched: orders keep flowing until the merchant opens the app again.
    expect(await h.runtime.sessions.accessToken(SHOP)).toBe('shpat_test_token');
  });
});
