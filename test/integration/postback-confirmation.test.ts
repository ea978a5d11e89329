import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postbackTriggers } from '../../src/print-service/postback-triggers.js';
import { parseTriggers } from '../../src/dev/emulator/triggers.js';
import { orderBody, SHOP, startHarness, waitFor, type Harness } from '../helpers/harness.js';
import { ADMIN_TOKEN, AdminClient } from '../admin/helpers.js';

/**
 * Issue 12 item 3 against the running app: whoever holds a postback token could rewrite any order's tracking (Shopify
 * e-mails the customer) or cancel it. Shipped and cancelled postbacks are confirmed with the print service first; a
 * claim it contradicts changes nothing in Shopify and is recorded as a problem. Issue 22: "Order Errored" likewise (it
 * moved a live order to error with the sender's text).
 */

const TOKEN = 'postback-test-token-0123456789abcdef';

let h: Harness;
let admin: AdminClient;
beforeAll(async () => {
  h = await startHarness({ env: { ADMIN_TOKEN } });
  admin = await AdminClient.login(h.runtime.url!);
});
afterAll(async () => {
  await h?.close();
});

async function submitted() {
  const body = orderBody([{ sku: 'PRINT-A5' }]);
  h.standIn.seedOrder(SHOP, body);
  await h.sendWebhook('orders/paid', body);
  return waitFor(async () => {
    const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
    return l?.status === 'submitted' && l;
  }, { what: 'the order submitted' });
}

function post(body: unknown) {
  return fetch(`${h.runtime.url}/postbacks/${TOKEN}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
}

describe('shipped and cancelled postbacks are confirmed with the print service', () => {
  it('a forged "shipped" with made-up tracking fulfils nothing and is recorded as a problem', async () => {
    const link = await submitted();
    expect((await post({ event: 'Shipment Shipped', sourceOrderId: link.sourceOrderId, shipmentIndex: 0, trackingNumber: 'FAKE123456GB', carrier: 'royalmail' })).status).toBe(202);
    const after = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, link.orderId);
      return l?.problems.some((p) => p.kind === 'unconfirmed-postback') && l;
    }, { what: 'the unconfirmed postback recorded' });
    expect(after.status).toBe('submitted');
    expect(after.problems.find((p) => p.kind === 'unconfirmed-postback')!.message).toMatch(/not confirmed by the print service.*does not report shipment 0/);
    expect(h.standIn.getOrder(SHOP, link.orderId)!.fulfillments).toEqual([]);
    expect(after.shipments.every((s) => s.status === 'pending')).toBe(true);
  });

  it('a forged "cancelled" cancels nothing in Shopify', async () => {
    const link = await submitted();
    expect((await post({ event: 'Order Cancelled', sourceOrderId: link.sourceOrderId })).status).toBe(202);
    const after = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, link.orderId);
      return l?.problems.some((p) => p.kind === 'unconfirmed-postback') && l;
    }, { what: 'the unconfirmed cancellation recorded' });
    expect(after.status).toBe('submitted');
    expect(after.cancelRequested).toBeUndefined();
    expect(h.standIn.getOrder(SHOP, link.orderId)!.tags).not.toContain('print-bridge:cancelled');
  });

  it('a shipped postback the print service confirms is carried out', async () => {
    const link = await submitted();
    // The printer really ships it (the emulator's hooks), then the postback says so.
    const record = h.emulator.store.all().find((o) => o.sourceOrderId === link.sourceOrderId)!;
    await fetch(`${h.emulator.baseUrl}/_emulator/orders/${record.record._id}/advance`, { method: 'POST', body: JSON.stringify({ to: 'shipped' }), headers: { 'content-type': 'application/json' } });
    const shipped = h.emulator.store.all().find((o) => o.sourceOrderId === link.sourceOrderId)!;
    const tracking = (shipped.record.orderData.shipments as { trackingNumber?: string }[])[0]?.trackingNumber;
    expect(tracking).toBeTruthy();
    expect((await post({ event: 'Shipment Shipped', sourceOrderId: link.sourceOrderId, shipmentIndex: 0, trackingNumber: tracking, carrier: 'royalmail' })).status).toBe(202);
    await waitFor(() => (h.standIn.getOrder(SHOP, link.orderId)?.fulfillments.length ?? 0) === 1, { what: 'the fulfillment' });
  });
});

function emulatorRecord(sourceOrderId: string | undefined) {
  return h.emulator.store.all().find((o) => o.sourceOrderId === sourceOrderId)!;
}

async function advance(sourceOrderId: string | undefined, to: string): Promise<void> {
  const res = await fetch(`${h.emulator.baseUrl}/_emulator/orders/${emulatorRecord(sourceOrderId).record._id}/advance`, {
    method: 'POST',
    body: JSON.stringify({ to }),
    headers: { 'content-type': 'application/json' },
  });
  expect(res.status).toBe(200);
}

describe('errored postbacks are confirmed with the print service (issue 22)', () => {
  it('a forged "Order Errored" for an order the print service shows as fine changes no status and shows the unconfirmed claim', async () => {
    const link = await submitted();
    await advance(link.sourceOrderId, 'received');
    const forged = { event: 'Order Errored', sourceOrderId: link.sourceOrderId, errors: ['cover: HTTP 404 (forged by a token holder)'] };
    expect((await post(forged)).status).toBe(202);
    const after = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, link.orderId);
      return l?.problems.some((p) => p.kind === 'unconfirmed-postback') && l;
    }, { what: 'the unconfirmed errored postback recorded' });
    expect(after.status).toBe('submitted');
    expect(after.problems.map((p) => p.kind)).toEqual(['unconfirmed-postback']);
    const problem = after.problems[0]!;
    expect(problem.subject).toBe('print error');
    expect(problem.message).toMatch(/"errored" postback was not confirmed by the print service and changed nothing: the print service reports .* as received, not errored\. It claimed: cover: HTTP 404 \(forged by a token holder\)/);
    const history = await h.runtime.store.history(SHOP, link.orderId);
    expect(history.find((e) => e.event === 'print service: errored not confirmed (ignored)')?.detail).toMatch(/forged by a token holder.*not errored/);
    expect(history.some((e) => e.status === 'error')).toBe(false);
    expect(h.standIn.getOrder(SHOP, link.orderId)!.tags).not.toContain('print-bridge:error');
    // The problems page lists it under its own heading, with the claim (the order is live: no status section has it).
    const page = await admin.page('/admin/problems');
    const section = page.slice(page.indexOf('Postbacks the print service did not confirm'), page.indexOf('Failed jobs'));
    expect(section).toContain(link.orderName!);
    expect(section).toContain('forged by a token holder');
  });

  it('a forged "Order Submission Error" for a live order changes no status either', async () => {
    const link = await submitted();
    await advance(link.sourceOrderId, 'received');
    expect((await post({ event: 'Order Submission Error', sourceOrderId: link.sourceOrderId, errors: ['sku unknown (forged)'] })).status).toBe(202);
    const after = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, link.orderId);
      return l?.problems.some((p) => p.kind === 'unconfirmed-postback') && l;
    }, { what: 'the unconfirmed submission error recorded' });
    expect(after.status).toBe('submitted');
    expect(after.problems[0]!.message).toMatch(/not confirmed by the print service and changed nothing: the print service reports .* as received, not submissionerror/);
    expect(h.standIn.getOrder(SHOP, link.orderId)!.tags).not.toContain('print-bridge:error');
  });

  it("an order the print service really errored (the emulator's file failure) moves to error with the service's own errors", async () => {
    const link = await submitted();
    // The emulator's own trigger delivers the event, as a real service would once the order is errored there.
    h.emulator.deliveries.setTriggers(parseTriggers(postbackTriggers(`${h.runtime.url}/postbacks/${TOKEN}`).filter((t) => t.event === 'Order Errored')));
    try {
      await advance(link.sourceOrderId, 'errored');
      const after = await waitFor(async () => {
        const l = await h.runtime.store.get(SHOP, link.orderId);
        return l?.status === 'error' && l;
      }, { what: 'the confirmed errored postback applied' });
      expect(emulatorRecord(link.sourceOrderId).record.status).toBe('errored');
      expect(after.problems).toEqual([expect.objectContaining({ kind: 'print-error', message: 'forced through /_emulator' })]);
      await waitFor(() => h.standIn.getOrder(SHOP, link.orderId)?.tags.includes('print-bridge:error'), { what: 'the error tag in Shopify' });
    } finally {
      h.emulator.deliveries.setTriggers([]);
    }
  });

  it("a confirmed errored order gets the service's errors, not the text the postback carried", async () => {
    const link = await submitted();
    await advance(link.sourceOrderId, 'errored');
    expect((await post({ event: 'Order Errored', sourceOrderId: link.sourceOrderId, errors: ['call +1 555 0100 to fix your order'] })).status).toBe(202);
    const after = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, link.orderId);
      return l?.status === 'error' && l;
    }, { what: 'the confirmed errored postback applied' });
    expect(after.problems.map((p) => p.message)).toEqual(['forced through /_emulator']);
  });

  // Last in the file: it stops the emulator.
  it('with the print service unreachable the errored postback is retried, never applied', async () => {
    const link = await submitted();
    await h.emulator.close();
    expect((await post({ event: 'Order Errored', sourceOrderId: link.sourceOrderId, errors: ['cover: HTTP 404'] })).status).toBe(202);
    const job = await waitFor(async () => {
      const jobs = await h.runtime.queues.events.getJobs(['delayed', 'waiting', 'active', 'failed']);
      const mine = jobs.find((j) => j.data.event.sourceOrderId === link.sourceOrderId && j.data.event.kind === 'errored');
      return mine && mine.attemptsMade >= 1 && (await mine.getState()) === 'delayed' && mine;
    }, { what: 'the errored event job waiting for its retry' });
    expect(job.failedReason).toBeTruthy();
    const after = await h.runtime.store.get(SHOP, link.orderId);
    expect(after!.status).toBe('submitted');
    expect(after!.problems).toEqual([]);
    expect((await h.runtime.store.history(SHOP, link.orderId)).some((e) => /errored/.test(e.event))).toBe(false);
  });
});
