import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postbackTriggers } from '../../src/print-service/postback-triggers.js';
import { parseTriggers } from '../../src/dev/emulator/triggers.js';
import { setAppHolds } from '../../src/shops/setup.js';
import { type Harness, orderBody, SHOP, SHOP_TOKEN, SHOPIFY_SECRET, startHarness, testMapping, waitFor, waitForIdle } from '../helpers/harness.js';

/**
 * print-bridge's own waits shown in Shopify as a fulfillment hold of the app's (handle `print-bridge`), against the
 * running app, the Admin stand-in and the print emulator: placed while the app keeps an order back (the mapping's
 * hold window, a mapping problem), released when the order goes to the printer or the problem is fixed, never touching
 * the merchant's or another app's holds; the store's switch; and a shipment whose fulfillment order carries only the
 * app's own hold is fulfilled, the hold released first.
 */

/** A long hold window: the test ends it by submitting the order itself, never by waiting for the clock. */
const MAPPING = testMapping({ holdMinutes: 60 });

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ mapping: MAPPING });
  h.emulator.deliveries.setTriggers(parseTriggers(postbackTriggers(`${h.runtime.url}/postbacks/postback-test-token-0123456789abcdef`)));
  h.standIn.configureWebhooks({ url: `${h.runtime.url}/webhooks`, secret: SHOPIFY_SECRET });
});
afterAll(() => h.close());

const fulfillmentOrder = (orderId: string) => h.standIn.getOrder(SHOP, orderId)!.fulfillmentOrders[0]!;
const ownHolds = (orderId: string) => fulfillmentOrder(orderId).fulfillmentHolds.filter((hold) => hold.heldByRequestingApp && hold.handle === 'print-bridge');

async function ownHoldPlaced(orderId: string, notes: RegExp) {
  return waitFor(() => ownHolds(orderId).find((hold) => notes.test(hold.reasonNotes ?? '')), { timeoutMs: 20_000, what: `print-bridge's hold matching ${notes}` });
}

async function noOwnHold(orderId: string) {
  await waitFor(() => ownHolds(orderId).length === 0, { timeoutMs: 20_000, what: "print-bridge's hold released" });
}

/** Ends the hold window now, as the submit job at its end would. */
async function submitNow(orderId: string) {
  await h.runtime.deps.scheduler.submit(SHOP, orderId, 0, 1);
  return waitFor(async () => {
    const link = await h.runtime.store.get(SHOP, orderId);
    return link?.status === 'submitted' && link;
  }, { timeoutMs: 20_000, what: 'the order submitted' });
}

/** The app's release calls in the stand-in's request log, with the hold ids each named. */
function releaseCalls(): string[][] {
  return h.standIn
    .requests()
    .filter((r) => r.operation?.includes('fulfillmentOrderReleaseHold'))
    .map((r) => (r.variables as { holdIds?: string[] }).holdIds ?? ['(none named)']);
}

async function advance(sourceOrderId: string, to: string): Promise<void> {
  const record = h.emulator.store.all().find((o) => o.sourceOrderId === sourceOrderId)!;
  const res = await fetch(`${h.emulator.baseUrl}/_emulator/orders/${record.record._id}/advance`, { method: 'POST', body: JSON.stringify({ to }), headers: { 'content-type': 'application/json' } });
  expect(res.status).toBe(200);
}

describe("print-bridge's own hold in Shopify", () => {
  it('is placed in the hold window with the end in store time, released after submission, and never touches the holds of others', async () => {
    const body = orderBody([{ sku: 'PRINT-WINDOW' }]);
    await h.sendWebhook('orders/paid', body);
    const orderId = body.admin_graphql_api_id;
    const hold = await ownHoldPlaced(orderId, /^Print Bridge: edit window until \d{2}:\d{2} \(store time\)$/);
    expect(hold).toMatchObject({ reason: 'OTHER', heldByApp: 'Print Bridge' });
    expect(fulfillmentOrder(orderId).status).toBe('ON_HOLD');
    // Store time: the order's created_at carries the store's offset (-05:00).
    const until = new Date(Date.parse((await h.runtime.store.get(SHOP, orderId))!.submitAfter!) - 5 * 3600_000).toISOString().slice(11, 16);
    expect(hold.reasonNotes).toBe(`Print Bridge: edit window until ${until} (store time)`);

    await submitNow(orderId);
    await noOwnHold(orderId);
    expect(fulfillmentOrder(orderId).status).toBe('OPEN');
    expect(releaseCalls().at(-1)).toEqual([hold.id]);

    // The merchant's hold and another app's (with the same handle) come after the submission: a later sync of the
    // order releases nothing of theirs.
    expect(h.standIn.placeHold(SHOP, orderId, { reason: 'AWAITING_PAYMENT' }).ok).toBe(true);
    expect(h.standIn.placeHold(SHOP, orderId, { reason: 'HIGH_RISK_OF_FRAUD', handle: 'print-bridge', app: 'Fraud Guard' }).ok).toBe(true);
    const before = releaseCalls().length;
    await h.runtime.deps.scheduler.syncShopify(SHOP, orderId);
    await waitForIdle(h, { queues: ['shopify'] });
    expect(releaseCalls().length).toBe(before);
    expect(fulfillmentOrder(orderId).fulfillmentHolds.map((x) => x.heldByApp)).toEqual([null, 'Fraud Guard']);
    const ownIds = new Set([hold.id]);
    for (const named of releaseCalls()) for (const id of named) expect(ownIds.has(id)).toBe(true);
    h.standIn.releaseHold(SHOP, orderId);
  });

  it('names the line of a mapping problem, and is released once the mapping is fixed and the order sent', async () => {
    const body = orderBody([{ sku: 'PRINT-OK' }, { sku: 'MUG-1', title: 'Mug' }]);
    await h.sendWebhook('orders/paid', body);
    const orderId = body.admin_graphql_api_id;
    // Into its hold window first; the window is ended now, and mapping the order finds the problem.
    await ownHoldPlaced(orderId, /edit window/);
    await h.runtime.deps.scheduler.submit(SHOP, orderId, 0, 1);
    const hold = await ownHoldPlaced(orderId, /^Print Bridge: line 2 \(SKU MUG-1\): /);
    expect((await h.runtime.store.get(SHOP, orderId))!.status).toBe('held');
    // One hold of the app's: the edit window's was replaced, not added to.
    expect(ownHolds(orderId)).toHaveLength(1);

    writeFileSync(join(h.mappingsDir, 'default.yaml'), MAPPING.replace('  - match: { sku: "PRINT-*" }', '  - match: { sku: "MUG-*" }\n    sku: "{{ line.sku }}"\n    components:\n      - code: cover\n        path: "https://files.example.com/{{ line.sku }}.pdf"\n  - match: { sku: "PRINT-*" }'));
    await waitFor(async () => (await h.runtime.store.get(SHOP, orderId))?.status === 'submitted', { timeoutMs: 30_000, what: 'the order sent once the mapping was fixed' });
    await noOwnHold(orderId);
    expect(releaseCalls().some((ids) => ids.includes(hold.id))).toBe(true);
    writeFileSync(join(h.mappingsDir, 'default.yaml'), MAPPING);
  });

  it('places none while the store turned it off, and releases those placed when it is turned off', async () => {
    const first = orderBody([{ sku: 'PRINT-SWITCH' }]);
    await h.sendWebhook('orders/paid', first);
    await ownHoldPlaced(first.admin_graphql_api_id, /edit window/);

    await setAppHolds(h.runtime.setup, SHOP, false);
    await noOwnHold(first.admin_graphql_api_id);
    const second = orderBody([{ sku: 'PRINT-SWITCH-OFF' }]);
    await h.sendWebhook('orders/paid', second);
    await waitFor(async () => (await h.runtime.store.get(SHOP, second.admin_graphql_api_id))?.submitAfter, { what: 'the second order in its hold window' });
    await waitForIdle(h, { queues: ['webhooks', 'shopify'] });
    expect(fulfillmentOrder(second.admin_graphql_api_id).fulfillmentHolds).toEqual([]);

    await setAppHolds(h.runtime.setup, SHOP, true);
    await ownHoldPlaced(second.admin_graphql_api_id, /edit window/);
  });

  it('fulfils a shipment whose fulfillment order carries only its own hold, releasing that hold first', async () => {
    const body = orderBody([{ sku: 'PRINT-OWN-HOLD' }]);
    await h.sendWebhook('orders/paid', body);
    const orderId = body.admin_graphql_api_id;
    await ownHoldPlaced(orderId, /edit window/);
    const link = await submitNow(orderId);
    await noOwnHold(orderId);
    // The app's own hold on the order again (a sync of an older link landing late would leave one like it).
    const placed = await fetch(`${h.standIn.origin}/admin/api/2026-10/graphql.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-access-token': SHOP_TOKEN, 'x-shopify-shop-domain': SHOP },
      body: JSON.stringify({
        query: 'mutation($id: ID!) { fulfillmentOrderHold(id: $id, fulfillmentHold: { reason: OTHER, handle: "print-bridge", reasonNotes: "Print Bridge: stale" }) { fulfillmentHold { id } userErrors { message } } }',
        variables: { id: fulfillmentOrder(orderId).id },
      }),
    });
    const ownId = ((await placed.json()) as { data: { fulfillmentOrderHold: { fulfillmentHold: { id: string } } } }).data.fulfillmentOrderHold.fulfillmentHold.id;
    expect(fulfillmentOrder(orderId).status).toBe('ON_HOLD');

    await advance(link.sourceOrderId!, 'shipped');
    const order = await waitFor(() => {
      const o = h.standIn.getOrder(SHOP, orderId);
      return o && o.fulfillments.length === 1 && o;
    }, { timeoutMs: 30_000, what: 'the fulfillment of the shipment' });
    expect(order.fulfillmentOrders[0]!.fulfillmentHolds).toEqual([]);
    expect(releaseCalls()).toContainEqual([ownId]);
    const shipped = await waitFor(async () => (await h.runtime.store.get(SHOP, orderId))?.shipments[0]?.fulfillmentId && (await h.runtime.store.get(SHOP, orderId)));
    expect(shipped!.shipments[0]!.waitingForRelease).toBeUndefined();
  });
});
