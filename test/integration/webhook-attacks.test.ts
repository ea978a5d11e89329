import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkWebhookAgreement } from '../../src/shopify/webhook-agreement.js';
import { emulatorOrders, orderBody, SHOP, SHOPIFY_SECRET, startHarness, waitFor, waitForIdle, type Harness } from '../helpers/harness.js';
import { signedWebhookHeaders } from '../helpers/shopify-webhooks.js';

/**
 * Issue 12 item 1 against the running app: the HMAC covers the body only, so a correctly signed body re-sent with
 * another topic and another store's domain must change nothing (401).
 */

const VICTIM = 'victim-store.myshopify.com';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  h.standIn.registerShop(VICTIM, 'shpat_victim_token');
  await h.runtime.sessions.addCustomAppToken(VICTIM, 'shpat_victim_token', ['read_orders']);
});
afterAll(async () => {
  await h?.close();
});

function send(topic: string, shop: string, raw: string) {
  return fetch(`${h.runtime.url}/webhooks`, { method: 'POST', body: raw, headers: signedWebhookHeaders(SHOPIFY_SECRET, raw, { topic, shop }) });
}

describe('webhook headers must agree with the signed body', () => {
  it("a store's signed order body re-sent as shop/redact or app/uninstalled for another store changes nothing", async () => {
    // The victim has an order the app knows.
    const victimOrder = orderBody([{ sku: 'PRINT-A5' }]);
    expect((await send('orders/create', VICTIM, JSON.stringify(victimOrder))).status).toBe(200);
    await waitFor(async () => (await h.runtime.store.orderIdsOfShop(VICTIM)).length === 1, { what: 'the victim order recorded' });

    // The attacker holds a correctly signed body of its own store (A).
    const own = JSON.stringify(orderBody([{ sku: 'PRINT-A4' }]));
    expect((await send('shop/redact', VICTIM, own)).status).toBe(401);
    expect((await send('app/uninstalled', VICTIM, own)).status).toBe(401);
    expect((await send('customers/redact', VICTIM, own)).status).toBe(401);
    // A's own redaction body, re-addressed to the victim, names A: refused too.
    const redactA = JSON.stringify({ shop_id: 1, shop_domain: SHOP });
    expect((await send('shop/redact', VICTIM, redactA)).status).toBe(401);
    // A's uninstall body re-addressed.
    expect((await send('app/uninstalled', VICTIM, JSON.stringify({ id: 1, name: 'A', domain: SHOP, myshopify_domain: SHOP }))).status).toBe(401);
    // And a redaction body re-sent as an order topic.
    expect((await send('orders/paid', VICTIM, redactA)).status).toBe(401);

    // Anything the refused deliveries (or the victim's order) queued has run before the victim's state is read.
    await waitForIdle(h, { what: 'every queued job done' });
    expect(await h.runtime.store.orderIdsOfShop(VICTIM)).toHaveLength(1);
    expect(await h.runtime.sessions.accessToken(VICTIM)).toBe('shpat_victim_token');
  });

  it.each(['evil.com', 'a|b.myshopify.com', '*', 'ACME.myshopify.com', 'acme.myshopify.com.', 'acme.myshopify.com:443', 'acme.myshopify.com.evil.com', ''])(
    'refuses the shop header %j with 401',
    async (shop) => {
      const raw = JSON.stringify(orderBody([{ sku: 'PRINT-A5' }]));
      const res = await send('orders/paid', shop, raw);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      if (shop) expect(res.status).toBe(401);
    },
  );

  it('still accepts the genuine compliance and uninstall webhooks of a store', async () => {
    expect((await send('customers/data_request', VICTIM, JSON.stringify({ shop_id: 2, shop_domain: VICTIM, orders_requested: [], data_request: { id: 9 } }))).status).toBe(200);
    h.standIn.uninstallApp(VICTIM);
    expect((await send('app/uninstalled', VICTIM, JSON.stringify({ id: 2, name: 'Victim', domain: 'victim.example', myshopify_domain: VICTIM }))).status).toBe(200);
    await waitFor(async () => (await h.runtime.sessions.accessToken(VICTIM)) === undefined, { what: 'the genuine uninstall to remove the token' });
  });
});

describe("a store's own genuine bodies re-sent under another topic, or again later (security review)", () => {
  it('an open order re-sent as orders/cancelled cancels nothing until Shopify shows the order cancelled', async () => {
    const body = orderBody([{ sku: 'PRINT-A5' }]);
    h.standIn.seedOrder(SHOP, body);
    const raw = JSON.stringify(body);
    expect((await send('orders/paid', SHOP, raw)).status).toBe(200);
    const submitted = await waitFor(async () => {
      const link = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return link?.status === 'submitted' ? link : undefined;
    }, { what: 'the order at the printer' });
    // The same signed bytes (cancelled_at null), under the cancellation topic with a new webhook id.
    expect((await send('orders/cancelled', SHOP, raw)).status).toBe(200);
    await waitForIdle(h, { what: 'the replayed cancellation handled' });
    expect((await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status).toBe('submitted');
    expect(emulatorOrders(h.emulator, submitted.sourceOrderId!).map((o) => o.record.status)).not.toContain('cancelled');
    const history = (await h.runtime.store.history(SHOP, body.admin_graphql_api_id)).map((e) => e.event);
    expect(history).toContain('cancellation not confirmed by Shopify');

    // Once the merchant cancels it in Shopify, the same delivery cancels the print order.
    expect(h.standIn.cancelOrder(SHOP, body.admin_graphql_api_id).ok).toBe(true);
    expect((await send('orders/cancelled', SHOP, raw)).status).toBe(200);
    await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status === 'cancelled', { what: 'the confirmed cancellation' });
    expect(emulatorOrders(h.emulator, submitted.sourceOrderId!).map((o) => o.record.status)).toEqual(['cancelled']);
  });

  it("refuses a customer request's body, or the uninstall body, re-sent as shop/redact (401), and deletes nothing", async () => {
    const before = (await h.runtime.store.orderIdsOfShop(SHOP)).length;
    expect(before).toBeGreaterThan(0);
    const customer = { id: 7, email: 'buyer@example.com', phone: null };
    const dataRequest = JSON.stringify({ shop_id: 1, shop_domain: SHOP, orders_requested: [1], customer, data_request: { id: 9999 } });
    const customerRedact = JSON.stringify({ shop_id: 1, shop_domain: SHOP, customer, orders_to_redact: [1] });
    expect((await send('customers/data_request', SHOP, dataRequest)).status).toBe(200);
    expect((await send('shop/redact', SHOP, dataRequest)).status).toBe(401);
    expect((await send('shop/redact', SHOP, customerRedact)).status).toBe(401);
    expect((await send('customers/data_request', SHOP, customerRedact)).status).toBe(401);
    expect((await send('customers/redact', SHOP, dataRequest)).status).toBe(401);
    expect((await send('shop/redact', SHOP, JSON.stringify({ id: 1, name: 'A', domain: SHOP, myshopify_domain: SHOP, shop_domain: SHOP }))).status).toBe(401);
    await waitForIdle(h, { what: 'every queued job done' });
    expect((await h.runtime.store.orderIdsOfShop(SHOP)).length).toBe(before);
  });
});

describe('parallel deliveries of one webhook (issue 22)', () => {
  /** Sends `count` deliveries at once and waits until the webhooks queue has run every job they queued. */
  async function deliverAtOnce(raw: string, headers: (i: number) => Record<string, string>, count = 20) {
    const answers = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const res = await fetch(`${h.runtime.url}/webhooks`, { method: 'POST', body: raw, headers: headers(i) });
        return { status: res.status, outcome: ((await res.json()) as { outcome: string }).outcome };
      }),
    );
    await waitFor(async () => {
      const counts = await h.runtime.queues.webhooks.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      return Object.values(counts).every((n) => n === 0);
    }, { what: 'the webhooks queue drained' });
    return answers;
  }

  async function jobsOf(webhookIds: readonly string[]) {
    const jobs = await h.runtime.queues.webhooks.getJobs(['completed', 'failed', 'waiting', 'active', 'delayed']);
    return jobs.filter((j) => webhookIds.includes(j.data.webhookId));
  }

  it('20 parallel deliveries with one X-Shopify-Webhook-Id: all answered 2xx, exactly one queued and handled', async () => {
    const order = orderBody([{ sku: 'PRINT-A5' }]);
    const raw = JSON.stringify(order);
    const headers = signedWebhookHeaders(SHOPIFY_SECRET, raw, { topic: 'orders/create', shop: SHOP, webhookId: 'parallel-1', eventId: 'parallel-event-1' });
    const answers = await deliverAtOnce(raw, () => headers);

    expect(answers.every((a) => a.status >= 200 && a.status < 300), JSON.stringify(answers)).toBe(true);
    expect(answers.filter((a) => a.outcome === 'queued')).toHaveLength(1);
    expect(answers.filter((a) => a.outcome === 'duplicate')).toHaveLength(19);
    expect(await jobsOf(['parallel-1'])).toHaveLength(1);
    const history = await waitFor(async () => {
      const entries = await h.runtime.store.history(SHOP, order.admin_graphql_api_id);
      return entries.length > 0 && entries;
    }, { what: 'the order recorded' });
    expect(history.filter((e) => e.event === 'orders/create received')).toHaveLength(1);
  });

  it('20 parallel deliveries of one event under 20 webhook ids (one X-Shopify-Event-Id): exactly one queued', async () => {
    // The queue's job id (the webhook id) cannot catch these; only the claim of the event id can.
    const order = orderBody([{ sku: 'PRINT-A5' }]);
    const raw = JSON.stringify(order);
    const ids = Array.from({ length: 20 }, (_, i) => `parallel-2-${i}`);
    const answers = await deliverAtOnce(raw, (i) => signedWebhookHeaders(SHOPIFY_SECRET, raw, { topic: 'orders/create', shop: SHOP, webhookId: ids[i], eventId: 'parallel-event-2' }));

    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.outcome === 'queued')).toHaveLength(1);
    expect(await jobsOf(ids)).toHaveLength(1);
    const history = await waitFor(async () => {
      const entries = await h.runtime.store.history(SHOP, order.admin_graphql_api_id);
      return entries.length > 0 && entries;
    }, { what: 'the order recorded' });
    expect(history.filter((e) => e.event === 'orders/create received')).toHaveLength(1);
  });
});

describe('checkWebhookAgreement', () => {
  it('wants an order for order topics, the shop itself for uninstall, and shop_domain for compliance topics', () => {
    const order = { id: 5, admin_graphql_api_id: 'gid://shopify/Order/5', line_items: [] };
    expect(checkWebhookAgreement('orders/paid', SHOP, order)).toEqual({ ok: true });
    expect(checkWebhookAgreement('orders/paid', SHOP, { order })).toEqual({ ok: true });
    expect(checkWebhookAgreement('orders/paid', SHOP, { ...order, admin_graphql_api_id: 'gid://shopify/Customer/5' }).ok).toBe(false);
    expect(checkWebhookAgreement('orders/paid', SHOP, { ...order, shop_domain: SHOP }).ok).toBe(false);
    expect(checkWebhookAgreement('app/uninstalled', SHOP, { id: 1, domain: SHOP }).ok).toBe(true);
    expect(checkWebhookAgreement('app/uninstalled', SHOP, { id: 1, domain: 'shop.example', myshopify_domain: SHOP }).ok).toBe(true);
    expect(checkWebhookAgreement('app/uninstalled', SHOP, { id: 1, domain: SHOP, myshopify_domain: 'other.myshopify.com' }).ok).toBe(false);
    expect(checkWebhookAgreement('customers/redact', SHOP, { shop_domain: SHOP, orders_to_redact: [] }).ok).toBe(true);
    // Each compliance topic has its own body: none passes for another (the wipe of a live store, security review).
    const shopRedact = { shop_id: 1, shop_domain: SHOP };
    const customerRedact = { ...shopRedact, customer: { id: 1 }, orders_to_redact: [] };
    const dataRequest = { ...shopRedact, customer: { id: 1 }, orders_requested: [], data_request: { id: 2 } };
    expect(checkWebhookAgreement('shop/redact', SHOP, shopRedact).ok).toBe(true);
    expect(checkWebhookAgreement('customers/data_request', SHOP, dataRequest).ok).toBe(true);
    // A body with only the shop passes under the customer topics too: what it lacks deletes nothing.
    expect(checkWebhookAgreement('customers/redact', SHOP, shopRedact).ok).toBe(true);
    for (const [topic, body] of [
      ['shop/redact', customerRedact],
      ['shop/redact', dataRequest],
      ['shop/redact', { ...shopRedact, myshopify_domain: SHOP }],
      ['customers/redact', dataRequest],
      ['customers/data_request', customerRedact],
      ['app/uninstalled', { ...shopRedact, myshopify_domain: SHOP }],
    ] as const) {
      expect(checkWebhookAgreement(topic, SHOP, body).ok, `${topic} ${JSON.stringify(body)}`).toBe(false);
    }
    expect(checkWebhookAgreement('fulfillment_orders/hold_released', SHOP, { fulfillment_order: { id: 'gid://shopify/FulfillmentOrder/1', status: 'open' } }).ok).toBe(true);
    expect(checkWebhookAgreement('fulfillment_orders/hold_released', SHOP, order).ok).toBe(false);
  });

  it("takes Shopify's real fulfillment_orders/moved body (original_fulfillment_order, no fulfillment_order), and only that topic's", () => {
    const moved = {
      original_fulfillment_order: { id: 'gid://shopify/FulfillmentOrder/1', status: 'open', assigned_location_id: 'gid://shopify/Location/0' },
      moved_fulfillment_order: { id: 'gid://shopify/FulfillmentOrder/2', status: 'open', assigned_location_id: 'gid://shopify/Location/1' },
      destination_location_id: 'gid://shopify/Location/1',
    };
    expect(checkWebhookAgreement('fulfillment_orders/moved', SHOP, moved)).toEqual({ ok: true });
    // The other fulfillment-order topics name their fulfillment order `fulfillment_order`; a moved body is not theirs.
    expect(checkWebhookAgreement('fulfillment_orders/placed_on_hold', SHOP, moved).ok).toBe(false);
    expect(checkWebhookAgreement('fulfillment_orders/moved', SHOP, { ...moved, original_fulfillment_order: { id: 'gid://shopify/Order/1' } }).ok).toBe(false);
    expect(checkWebhookAgreement('fulfillment_orders/moved', SHOP, { ...moved, original_fulfillment_order: null }).ok).toBe(false);
  });
});
