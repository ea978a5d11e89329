import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderPath } from '../../src/admin/order-fragments.js';
import { postbackTriggers } from '../../src/print-service/postback-triggers.js';
import { parseTriggers } from '../../src/dev/emulator/triggers.js';
import { ADMIN_TOKEN, AdminClient, csrfOf } from '../admin/helpers.js';
import { advanceAtEmulator, emulatorOrders, type Harness, orderBody, SHOP, SHOPIFY_SECRET, startHarness, testMapping, waitFor, waitForIdle } from '../helpers/harness.js';

/**
 * Printing cannot be undone: an order whose fulfillment order Shopify holds (a fraud check, a payment to clear, an
 * address to fix) or whose risk Shopify recommends cancelling never reaches the printer until the hold is released or
 * the merchant sends it anyway. Against the running app, the Admin stand-in and the print-service emulator.
 */

const sourceOrderIdOf = (body: { order_number: number }) => `${SHOP.replace('.myshopify.com', '')}-${body.order_number}`;

async function start(mapping?: string): Promise<{ h: Harness; admin: AdminClient }> {
  const h = await startHarness({
    ...(mapping ? { mapping } : {}),
    // Re-reads after 1 s (then as long as the order has waited): the lost-webhook case needs no webhook at all.
    env: { ADMIN_TOKEN, SHOPIFY_HOLD_RECHECK_SECONDS: '1' },
  });
  h.emulator.deliveries.setTriggers(parseTriggers(postbackTriggers(`${h.runtime.url}/postbacks/postback-test-token-0123456789abcdef`)));
  h.standIn.configureWebhooks({ url: `${h.runtime.url}/webhooks`, secret: SHOPIFY_SECRET });
  return { h, admin: await AdminClient.login(h.runtime.url!) };
}

async function waitingFor(h: Harness, orderId: string, kind: string) {
  return waitFor(
    async () => {
      const link = await h.runtime.store.get(SHOP, orderId);
      return link?.status === 'waiting' && link.problems.some((p) => p.kind === kind) && link;
    },
    { timeoutMs: 20_000, what: `the order waiting (${kind})` },
  );
}

async function atPrinter(h: Harness, body: { admin_graphql_api_id: string; order_number: number }) {
  await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status === 'submitted', { timeoutMs: 20_000, what: 'the order at the printer' });
  return emulatorOrders(h.emulator, sourceOrderIdOf(body));
}

describe("Shopify's holds and risk keep an order from the printer", () => {
  let h: Harness;
  let admin: AdminClient;
  beforeAll(async () => ({ h, admin } = await start()));
  afterAll(() => h.close());

  it('a fraud hold placed before the order arrives: nothing at the printer until hold_released, then created once', async () => {
    const body = orderBody([{ sku: 'PRINT-FRAUD', quantity: 2 }]);
    h.standIn.seedOrder(SHOP, body);
    expect(h.standIn.placeHold(SHOP, body.admin_graphql_api_id, { reason: 'HIGH_RISK_OF_FRAUD', reasonNotes: 'flagged by the fraud app' }).ok).toBe(true);
    await h.sendWebhook('orders/paid', body);

    const waiting = await waitingFor(h, body.admin_graphql_api_id, 'shopify-hold');
    expect(waiting.problems.find((p) => p.kind === 'shopify-hold')!.message).toMatch(/^waiting for Shopify's hold: High risk of fraud \(flagged by the fraud app\)\./);
    expect(emulatorOrders(h.emulator, sourceOrderIdOf(body))).toHaveLength(0);
    const page = await admin.page(orderPath(waiting));
    expect(page).toContain('Held in Shopify: nothing is sent to the printer until the hold is released');

    expect(h.standIn.releaseHold(SHOP, body.admin_graphql_api_id).ok).toBe(true);
    expect(await atPrinter(h, body)).toHaveLength(1);
    const sent = (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))!;
    expect(sent.problems.filter((p) => p.kind === 'shopify-hold')).toEqual([]);
    // A late re-check after the order went out finds it sent: still one order at the printer.
    await h.runtime.deps.scheduler.submit(SHOP, body.admin_graphql_api_id, 0, Date.now());
    await waitForIdle(h, { what: 'the late re-check' });
    expect(emulatorOrders(h.emulator, sourceOrderIdOf(body))).toHaveLength(1);
  });

  it('the same with the release webhook lost: the scheduled re-read sends it', async () => {
    const body = orderBody([{ sku: 'PRINT-LOST-RELEASE' }]);
    h.standIn.seedOrder(SHOP, body);
    h.standIn.placeHold(SHOP, body.admin_graphql_api_id, { reason: 'AWAITING_PAYMENT', reasonNotes: 'bank transfer' });
    await h.sendWebhook('orders/paid', body);
    await waitingFor(h, body.admin_graphql_api_id, 'shopify-hold');
    h.standIn.pauseWebhooks(true);
    try {
      h.standIn.releaseHold(SHOP, body.admin_graphql_api_id);
      expect(await atPrinter(h, body)).toHaveLength(1);
      expect(h.standIn.sentWebhooks().filter((w) => w.topic === 'fulfillment_orders/hold_released').at(-1)?.status).toBeNull();
    } finally {
      h.standIn.pauseWebhooks(false);
    }
  });

  it("an order whose risk Shopify recommends cancelling waits until the merchant sends it anyway", async () => {
    const body = orderBody([{ sku: 'PRINT-RISKY' }]);
    h.standIn.seedOrder(SHOP, body);
    expect(h.standIn.setRisk(SHOP, body.admin_graphql_api_id, 'CANCEL').ok).toBe(true);
    await h.sendWebhook('orders/paid', body);
    const waiting = await waitingFor(h, body.admin_graphql_api_id, 'risk-recommendation');
    expect(waiting.problems[0]!.message).toMatch(/^Shopify recommends cancelling this order/);
    expect(emulatorOrders(h.emulator, sourceOrderIdOf(body))).toHaveLength(0);

    const page = await admin.page(orderPath(waiting));
    expect(page).toContain('Send to the printer now');
    const response = await admin.post(`${orderPath(waiting)}/send-now`, { _csrf: csrfOf(page), version: String(waiting.version) });
    expect(response.status).toBe(303);
    expect(await atPrinter(h, body)).toHaveLength(1);
    const sent = (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))!;
    expect(sent.sendAnyway?.by).toBeTruthy();
    expect((await h.runtime.store.history(SHOP, body.admin_graphql_api_id)).map((e) => e.event)).toContain('sent now');
  });

  it('an order cancelled while Shopify holds it is never printed', async () => {
    const body = orderBody([{ sku: 'PRINT-CANCELLED-WHILE-HELD' }]);
    h.standIn.seedOrder(SHOP, body);
    h.standIn.placeHold(SHOP, body.admin_graphql_api_id, { reason: 'INCORRECT_ADDRESS' });
    await h.sendWebhook('orders/paid', body);
    await waitingFor(h, body.admin_graphql_api_id, 'shopify-hold');
    await h.sendWebhook('orders/cancelled', { ...body, cancelled_at: '2026-11-21T11:00:00-05:00', updated_at: '2026-11-21T11:00:00-05:00' });
    await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status === 'cancelled', { what: 'the order cancelled' });
    h.standIn.releaseHold(SHOP, body.admin_graphql_api_id);
    // The release's webhook and a re-read both find it cancelled.
    await h.standIn.webhooksSettled();
    await h.runtime.deps.scheduler.submit(SHOP, body.admin_graphql_api_id, 0, Date.now());
    await waitFor(async () => (await h.runtime.store.history(SHOP, body.admin_graphql_api_id)).some((e) => e.event === 'Shopify released a fulfillment hold'), { what: 'the release noted' });
    await waitForIdle(h, { what: 'the re-read' });
    expect(emulatorOrders(h.emulator, sourceOrderIdOf(body))).toHaveLength(0);
    expect((await h.runtime.store.get(SHOP, body.admin_graphql_api_id))!.status).toBe('cancelled');
  });

  it('a hold placed after submission is shown on the order page with the choice to cancel at the printer', async () => {
    const body = orderBody([{ sku: 'PRINT-LATE-HOLD' }]);
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);
    expect(await atPrinter(h, body)).toHaveLength(1);
    h.standIn.placeHold(SHOP, body.admin_graphql_api_id, { reason: 'HIGH_RISK_OF_FRAUD', reasonNotes: 'chargeback history' });
    const flagged = await waitFor(
      async () => {
        const link = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
        return link?.problems.some((p) => p.kind === 'held-after-submission') && link;
      },
      { what: 'the late hold shown on the order' },
    );
    expect(flagged.problems.find((p) => p.kind === 'held-after-submission')!.message).toContain('high risk of fraud: chargeback history');
    const page = await admin.page(orderPath(flagged));
    expect(page).toContain('Held in Shopify after it went to the printer');
    expect(page).toContain('Cancel order');

    h.standIn.releaseHold(SHOP, body.admin_graphql_api_id);
    await waitFor(async () => !(await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.problems.some((p) => p.kind === 'held-after-submission'), { what: 'the problem gone with the release' });
    await advanceAtEmulator(h.emulator, sourceOrderIdOf(body), 'shipped');
    await waitFor(() => (h.standIn.getOrder(SHOP, body.admin_graphql_api_id)?.fulfillments.length ?? 0) === 1, { timeoutMs: 20_000, what: 'the fulfillment after the release' });
  });
});

describe("a store's policy lets named holds through", () => {
  let h: Harness;
  beforeAll(async () => ({ h } = await start(testMapping({ waitForHolds: '[HIGH_RISK_OF_FRAUD, INCORRECT_ADDRESS]', waitForRisk: 'investigate' }))));
  afterAll(() => h.close());

  it('a payment hold goes out for a store that prints on account; a fraud hold still waits', async () => {
    const onAccount = orderBody([{ sku: 'PRINT-ON-ACCOUNT' }]);
    h.standIn.seedOrder(SHOP, onAccount);
    h.standIn.placeHold(SHOP, onAccount.admin_graphql_api_id, { reason: 'AWAITING_PAYMENT', reasonNotes: 'net 30' });
    await h.sendWebhook('orders/paid', onAccount);
    expect(await atPrinter(h, onAccount)).toHaveLength(1);

    const fraud = orderBody([{ sku: 'PRINT-FRAUD-POLICY' }]);
    h.standIn.seedOrder(SHOP, fraud);
    h.standIn.placeHold(SHOP, fraud.admin_graphql_api_id, { reason: 'HIGH_RISK_OF_FRAUD' });
    await h.sendWebhook('orders/paid', fraud);
    await waitingFor(h, fraud.admin_graphql_api_id, 'shopify-hold');
    expect(emulatorOrders(h.emulator, sourceOrderIdOf(fraud))).toHaveLength(0);
  });

  it('INVESTIGATE waits where the store chose it', async () => {
    const body = orderBody([{ sku: 'PRINT-INVESTIGATE' }]);
    h.standIn.seedOrder(SHOP, body);
    h.standIn.setRisk(SHOP, body.admin_graphql_api_id, 'INVESTIGATE');
    await h.sendWebhook('orders/paid', body);
    const waiting = await waitingFor(h, body.admin_graphql_api_id, 'risk-recommendation');
    expect(waiting.problems[0]!.message).toMatch(/recommends investigating/);
    // Shopify's analysis comes back clean: the next re-read sends it.
    h.standIn.setRisk(SHOP, body.admin_graphql_api_id, 'ACCEPT');
    expect(await atPrinter(h, body)).toHaveLength(1);
  });
});
