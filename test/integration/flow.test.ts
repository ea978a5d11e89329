import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderBody, SHOP, startHarness, waitFor, waitForIdle, type Harness } from '../helpers/harness.js';

/**
 * Shopify Flow end to end: Flow's lifecycle callbacks and action runs as the stand-in sends them (signed with the
 * app's secret), the app's triggers as the stand-in receives them (checked against Shopify's schema).
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.close());

const OTHER_SHOP = 'another-flow-store.myshopify.com';

async function submittedOrder(): Promise<string> {
  const body = orderBody();
  expect((await h.sendWebhook('orders/paid', body)).status).toBe(200);
  await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status === 'submitted', { what: 'the order submitted' });
  return body.admin_graphql_api_id;
}

const lifecycle = (handle: string, enabled: boolean, timestamp?: string) =>
  h.standIn.sendFlowLifecycle({ appUrl: h.runtime.url!, shop: SHOP, handle, enabled, timestamp });
const triggersOf = (orderId: string) => h.standIn.flowTriggerCalls(SHOP).filter((c) => (c.payload as { order_id?: string }).order_id === orderId);
const history = async (orderId: string, event: string) => (await h.runtime.store.history(SHOP, orderId)).filter((e) => e.event === event);

describe('Flow triggers', () => {
  it('are sent only to stores that enabled them, with valid payloads, once per event; not after disabling', async () => {
    expect((await lifecycle('print-order-sent', true)).status).toBe(200);
    const first = await submittedOrder();
    const sent = await waitFor(() => triggersOf(first).find((c) => c.handle === 'print-order-sent'), { what: 'print-order-sent for the order' });
    expect(sent.userErrors).toEqual([]);
    expect(sent.payload).toEqual({ order_id: first });
    // print-status-changed is not in use in the store: nothing of it is sent.
    await waitForIdle(h);
    expect(triggersOf(first).map((c) => c.handle)).toEqual(['print-order-sent']);
    // Every document sent passed Shopify's schema (the stand-in refuses any other).
    expect(h.standIn.requests().filter((r) => r.document?.includes('flowTriggerReceive') && r.refused)).toEqual([]);

    expect((await lifecycle('print-order-sent', false)).status).toBe(200);
    const second = await submittedOrder();
    await waitForIdle(h);
    expect(triggersOf(second)).toEqual([]);
  });

  it('a late lifecycle callback older than the one recorded changes nothing', async () => {
    const now = Date.now();
    expect((await lifecycle('print-order-sent', true, new Date(now).toISOString())).status).toBe(200);
    const late = await lifecycle('print-order-sent', false, new Date(now - 60_000).toISOString());
    expect(late).toMatchObject({ status: 200, body: { outcome: 'older' } });
    const order = await submittedOrder();
    await waitFor(() => triggersOf(order).some((c) => c.handle === 'print-order-sent'), { what: 'the trigger still in use' });
    expect((await lifecycle('print-order-sent', false)).status).toBe(200);
  });

  it('refuses lifecycle callbacks and action runs not signed with the app’s secret', async () => {
    const answer = await h.standIn.sendFlowAction({ appUrl: h.runtime.url!, shop: SHOP, action: 'cancel', orderId: 'gid://shopify/Order/1', secret: 'not-the-secret' });
    expect(answer.status).toBe(401);
    const unsigned = await fetch(`${h.runtime.url}/flow/lifecycle`, {
      method: 'POST',
      body: JSON.stringify({ flow_trigger_definition_id: 'print-order-sent', has_enabled_flow: true, shopify_domain: SHOP, timestamp: new Date().toISOString() }),
      headers: { 'content-type': 'application/json' },
    });
    expect(unsigned.status).toBe(401);
  });
});

describe('Flow actions', () => {
  it('refuse a wrong secret, an altered body and a missing signature, with nothing done', async () => {
    const orderId = await submittedOrder();
    const before = await h.runtime.store.get(SHOP, orderId);
    const good = { appUrl: h.runtime.url!, shop: SHOP, action: 'cancel' as const, orderId };
    expect((await h.standIn.sendFlowAction({ ...good, secret: 'shpss_wrong' })).status).toBe(401);
    expect((await h.standIn.sendFlowAction({ ...good, secret: null })).status).toBe(401);
    // The body signed, then altered on the way (another order's id): the signature no longer matches it.
    const signed = await h.standIn.sendFlowAction({ ...good, orderId: 'gid://shopify/Order/1' });
    expect(signed.status).toBe(404);
    const { createHmac } = await import('node:crypto');
    const hmac = createHmac('sha256', h.config.SHOPIFY_API_SECRET!).update(signed.sent).digest('base64');
    const altered = await fetch(`${h.runtime.url}/flow/actions/cancel`, {
      method: 'POST',
      body: signed.sent.replace('gid://shopify/Order/1', orderId),
      headers: { 'content-type': 'application/json', 'x-shopify-hmac-sha256': hmac },
    });
    expect(altered.status).toBe(401);
    await waitForIdle(h);
    const after = await h.runtime.store.get(SHOP, orderId);
    expect(after?.cancelRequested).toBeUndefined();
    expect(after?.version).toBe(before?.version);
    expect(await history(orderId, 'cancellation requested by operator')).toEqual([]);
  });

  it('do their work once when Flow sends the same run again, with Shopify Flow in the history', async () => {
    const orderId = await submittedOrder();
    const run = { appUrl: h.runtime.url!, shop: SHOP, action: 'cancel' as const, orderId, actionRunId: 'run-cancel-1' };
    const first = await h.standIn.sendFlowAction(run);
    expect(first.status).toBe(200);
    const again = await h.standIn.sendFlowAction(run);
    expect(again).toMatchObject({ status: 200, body: first.body });
    // Another run of the same action on the same order: already requested, so done (200) and nothing more happens.
    expect((await h.standIn.sendFlowAction({ ...run, actionRunId: 'run-cancel-2' })).status).toBe(200);
    const requested = await history(orderId, 'cancellation requested by operator');
    expect(requested).toHaveLength(1);
    expect(requested[0]!.detail).toMatch(/^Shopify Flow: /);
    await waitFor(async () => (await h.runtime.store.get(SHOP, orderId))?.status === 'cancelled', { what: 'the order cancelled at the printer' });
  });

  it('answer 422 with the message when the order cannot do what the action asks', async () => {
    const orderId = await submittedOrder();
    const answer = await h.standIn.sendFlowAction({ appUrl: h.runtime.url!, shop: SHOP, action: 'resubmit', orderId });
    expect(answer.status).toBe(422);
    expect((answer.body as { message: string }).message).toMatch(/submitted/);
  });

  it('act only on the store the signed body names: another store’s order is not found and stays as it was', async () => {
    const orderId = await submittedOrder();
    const before = await h.runtime.store.get(SHOP, orderId);
    for (const action of ['cancel', 'send-now', 'resubmit', 'keep-as-sent'] as const) {
      const answer = await h.standIn.sendFlowAction({ appUrl: h.runtime.url!, shop: OTHER_SHOP, action, orderId });
      expect(answer.status, action).toBe(404);
    }
    await waitForIdle(h);
    const after = await h.runtime.store.get(SHOP, orderId);
    expect(after?.version).toBe(before?.version);
    expect(after?.cancelRequested).toBeUndefined();
  });
});
