import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueueScheduler } from '../../src/queue/scheduler.js';
import { submitJobId } from '../../src/queue/queues.js';
import { chooseFulfillmentMode, type FulfillmentModeDeps } from '../../src/shops/fulfillment-mode.js';
import { type Harness, emulatorOrders, orderBody, SHOP, startHarness, waitFor, waitForIdle } from '../helpers/harness.js';

/**
 * Fulfillment-service mode against the Admin stand-in, which pages a fulfillment order's lines as Shopify does
 * (`first` at most 250, `pageInfo`): a large cart's request is read whole, one order that cannot be read never keeps a
 * store's other requests from being taken, and going back to merchant-managed does what its message says of the
 * requests still unanswered (findings of the fulfillment-service attack run).
 */
let h: Harness;
let modeDeps: FulfillmentModeDeps;
let locationId: string;

const BIG_CART = Array.from({ length: 35 }, (_, i) => `PRINT-L${String(i + 1).padStart(2, '0')}`);

beforeAll(async () => {
  // Reads follow each other at once here: these tests are about what one read takes, not how often it runs.
  h = await startHarness({ env: { FULFILLMENT_READ_INTERVAL_MS: '0' } });
  modeDeps = { ...h.runtime.fulfillmentMode, appUrl: h.runtime.url! };
  h.standIn.setAutomaticFulfillmentRequests(false);
  const chosen = await chooseFulfillmentMode(modeDeps, SHOP, 'service');
  locationId = chosen.service!.locationId;
  h.standIn.stockFulfillmentService(SHOP, chosen.service!.id, ['PRINT-POSTER', 'PRINT-BOOK', ...BIG_CART]);
});
afterAll(() => h?.close());

function ours(orderId: string) {
  return h.standIn.getOrder(SHOP, orderId)!.fulfillmentOrders.find((fo) => fo.assignedLocation.id === locationId)!;
}

async function paidOrder(lines: { sku: string }[], overrides: Record<string, unknown> = {}) {
  const body = orderBody(lines, overrides);
  expect((await h.sendWebhook('orders/paid', body)).status).toBe(200);
  await waitFor(async () => (await events(body.admin_graphql_api_id)).includes('waiting for a fulfillment request'), { what: 'the order waiting for a request' });
  return body;
}

/** The merchant's "Request fulfillment" whose ping is lost: the request waits for print-bridge's next read. */
async function requestSilently(orderId: string): Promise<void> {
  h.standIn.dropNextFulfillmentPings(1);
  expect(h.standIn.requestFulfillment(SHOP, { fulfillmentOrderId: ours(orderId).id }).ok).toBe(true);
  await h.standIn.fulfillmentPingsSettled();
}

/** One read of every pending request (the schedule's, run now). */
async function readRequests(): Promise<void> {
  await h.runtime.queues.maintenance.add('read-fulfillment-requests', {}, {});
}

async function events(orderId: string): Promise<string[]> {
  return (await h.runtime.store.history(SHOP, orderId)).map((e) => e.event);
}

describe('fulfillment-service reads (attack run: fulfillment-service mode)', () => {
  it('a fulfillment order of more than 30 lines is read page by page and taken with the store\'s other requests', { timeout: 60_000 }, async () => {
    const big = await paidOrder(BIG_CART.map((sku) => ({ sku })));
    const small = await paidOrder([{ sku: 'PRINT-BOOK' }]);
    expect(ours(big.admin_graphql_api_id).lineItems).toHaveLength(35);
    await requestSilently(big.admin_graphql_api_id);
    await requestSilently(small.admin_graphql_api_id);
    await readRequests();

    for (const body of [big, small]) {
      await waitFor(() => ours(body.admin_graphql_api_id).requestStatus === 'ACCEPTED', { timeoutMs: 30_000, what: `${body.name} accepted` });
    }
    // The lines past the first page were read by the fulfillment order's id, in pages as Shopify gives them.
    expect(h.standIn.requests().some((r) => r.document?.includes('PrintBridgeFulfillmentOrderLines') && r.status === 200 && !r.refused)).toBe(true);
    const link = (await h.runtime.store.get(SHOP, big.admin_graphql_api_id))!;
    const printed = emulatorOrders(h.emulator, link.sourceOrderId!)[0]!;
    expect((printed.record.orderData.items as { sku: string }[]).map((i) => i.sku).sort()).toEqual([...BIG_CART].sort());
  });

  it('an order that cannot be read is rejected naming it, and does not stop the store\'s other requests', { timeout: 60_000 }, async () => {
    // Shopify answers an error for this order alone (its currency is one the Admin API cannot show): no webhook came,
    // so print-bridge must read it. Its fulfillment order is first in the read.
    const unreadable = orderBody([{ sku: 'PRINT-POSTER' }], { currency: 'EURO' });
    h.standIn.seedOrder(SHOP, unreadable);
    const fine = await paidOrder([{ sku: 'PRINT-POSTER' }]);
    await requestSilently(unreadable.admin_graphql_api_id);
    await requestSilently(fine.admin_graphql_api_id);
    await readRequests();

    await waitFor(() => ours(fine.admin_graphql_api_id).requestStatus === 'ACCEPTED', { timeoutMs: 30_000, what: 'the readable order accepted' });
    const rejected = await waitFor(() => ours(unreadable.admin_graphql_api_id).requestStatus === 'REJECTED' && ours(unreadable.admin_graphql_api_id), { what: 'the unreadable one rejected' });
    const answer = rejected.serviceResponses.at(-1)!;
    expect(answer.kind).toBe('FULFILLMENT_REJECTED');
    expect(answer.message).toContain(unreadable.name);
    expect(answer.message).toMatch(/could not read.*Nothing of it was printed/);
  });

  it('switching back to merchant-managed leaves an unanswered request\'s order to the merchant, as the message says, and sends the one that only waited', { timeout: 60_000 }, async () => {
    const requested = await paidOrder([{ sku: 'PRINT-POSTER' }]);
    const waiting = await paidOrder([{ sku: 'PRINT-BOOK' }]);
    await requestSilently(requested.admin_graphql_api_id);

    const outcome = await chooseFulfillmentMode(modeDeps, SHOP, 'merchant');
    expect(outcome.message).toContain(`stay at that location as the merchant's to fulfil; print-bridge does not print them: ${requested.name}.`);
    expect(outcome.message).not.toContain(waiting.name);
    // A submit job of that order queued before the switch (a hold window's) runs after it.
    const stale = 7_000_001;
    await new QueueScheduler(h.runtime.queues).submit(SHOP, requested.admin_graphql_api_id, 0, stale);

    const sent = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, waiting.admin_graphql_api_id);
      // Past `submitting`: the printer may hold the order a moment before the app has recorded its answer.
      return l?.sourceOrderId && l.status !== 'submitting' && emulatorOrders(h.emulator, l.sourceOrderId).length === 1 && l;
    }, { timeoutMs: 30_000, what: 'the order that only waited, sent' });
    expect(sent.status).toBe('submitted');
    await waitFor(async () => (await h.runtime.queues.orders.getJob(submitJobId(SHOP, requested.admin_graphql_api_id, stale)))?.finishedOn, { what: 'the stale submit job done' });
    await waitForIdle(h);

    const left = (await h.runtime.store.get(SHOP, requested.admin_graphql_api_id))!;
    expect(left.status).toBe('not-printed');
    expect(left.submitAttempts).toBe(0);
    expect(left.sourceOrderId).toBeUndefined();
    expect(left.notPrintedReason).toMatch(/merchant to fulfil.*does not print it/);
    expect(await events(requested.admin_graphql_api_id)).toContain('left to the merchant');
    expect(h.emulator.store.all().filter((o) => JSON.stringify(o.record).includes(requested.name))).toEqual([]);
  });
});
