import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINTENANCE_JOBS } from '../../src/app/maintenance.js';
import { type Harness, orderBody, SHOP, startHarness, waitFor, waitForIdle, metricsHeaders } from '../helpers/harness.js';

/**
 * The reconciliation jobs through the real app: postbacks that never came (the emulator has no triggers here) and an
 * order whose webhooks never came (only the Shopify stand-in knows it).
 */
describe('reconciliation', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { RECONCILE_SILENT_MINUTES: '0', RECONCILE_LOST_MIN_AGE_MINUTES: '0' } });
  });
  afterAll(() => h.close());

  async function runMaintenance(name: string): Promise<unknown> {
    const job = await h.runtime.queues.maintenance.add(name, {});
    return waitFor(async () => {
      const state = await job.getState();
      if (state === 'failed') throw new Error(`maintenance job failed: ${(await h.runtime.queues.maintenance.getJob(job.id!))?.failedReason}`);
      return state === 'completed' && ((await h.runtime.queues.maintenance.getJob(job.id!))?.returnvalue ?? true);
    }, { what: `${name} to complete` });
  }

  it('brings a silent order up to date from the print service, fulfilment included, and only once', async () => {
    const body = orderBody([{ sku: 'PRINT-A4', quantity: 2 }]);
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);
    const submitted = await waitFor(async () => {
      const link = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return link?.status === 'submitted' && link.printOrderId && link;
    }, { what: 'the order submitted' });

    // The printer ships it, but no postback ever arrives.
    const printOrder = h.emulator.store.get(submitted.printOrderId!)!;
    await h.emulator.processor.advance(printOrder, 'shipped');
    expect((await h.runtime.store.get(SHOP, body.admin_graphql_api_id))!.status).toBe('submitted');

    const outcome = (await runMaintenance(MAINTENANCE_JOBS.silentOrders)) as { checked: number; events: number };
    expect(outcome.checked).toBeGreaterThanOrEqual(1);
    const shipped = await waitFor(async () => {
      const link = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return link?.status === 'shipped' && link;
    }, { what: 'the order shipped after reconciliation' });
    const tracking = shipped.shipments[0]!.trackingNumber;
    expect(tracking).toBe((printOrder.record.orderData.shipments as { trackingNumber?: string }[])[0]!.trackingNumber);
    const order = await waitFor(() => {
      const o = h.standIn.getOrder(SHOP, body.admin_graphql_api_id);
      return o && o.fulfillments.length === 1 && o;
    }, { what: 'a fulfillment in Shopify' });
    expect(order.fulfillments[0]!.trackingInfo[0]!.number).toBe(tracking);
    const history = await h.runtime.store.history(SHOP, body.admin_graphql_api_id);
    expect(history.map((e) => e.event)).toContain('checked with the print service');

    // A second run finds nothing new to do: still one fulfillment.
    await runMaintenance(MAINTENANCE_JOBS.silentOrders);
    await waitForIdle(h, { what: 'every job the second run queued done' });
    expect(h.standIn.getOrder(SHOP, body.admin_graphql_api_id)!.fulfillments).toHaveLength(1);
  });

  it('finds an order whose webhooks were lost and submits it exactly once', async () => {
    // After the app first handled one of the shop's orders (the first test's): recovery never reaches back further.
    const createdAt = new Date().toISOString();
    const lost = orderBody([{ sku: 'PRINT-LOST', quantity: 1 }], { created_at: createdAt, updated_at: createdAt });
    h.standIn.seedOrder(SHOP, lost);
    const young = orderBody([{ sku: 'PRINT-CANCELLED' }], { created_at: createdAt, updated_at: createdAt, cancelled_at: createdAt });
    h.standIn.seedOrder(SHOP, young);
    expect(await h.runtime.store.get(SHOP, lost.admin_graphql_api_id)).toBeUndefined();

    const first = (await runMaintenance(MAINTENANCE_JOBS.lostOrders)) as { recovered: { orderId: string; topics: string[] }[] };
    expect(first.recovered.map((r) => r.orderId)).toEqual([lost.admin_graphql_api_id]);
    expect(first.recovered[0]!.topics).toEqual(['orders/create', 'orders/paid']);

    const link = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, lost.admin_graphql_api_id);
      return l?.status === 'submitted' && l;
    }, { what: 'the lost order submitted' });
    // The mapped content is the real order's: its SKU and quantity reached the printer.
    const atPrinter = h.emulator.store.all().filter((o) => o.sourceOrderId === link.sourceOrderId);
    expect(atPrinter).toHaveLength(1);
    expect((atPrinter[0]!.record.orderData.items as { sku: string; quantity: number }[]).map((i) => [i.sku, i.quantity])).toEqual([['PRINT-LOST', 1]]);
    const metrics = await (await fetch(`${h.runtime.url}/metrics`, { headers: metricsHeaders })).text();
    expect(metrics).toMatch(/print_bridge_reconciled_total\{outcome="recovered"\} [1-9]/);
    // A cancelled order is not resurrected.
    expect(await h.runtime.store.get(SHOP, young.admin_graphql_api_id)).toBeUndefined();

    // The next run knows the order now; a late webhook for it changes nothing either.
    const second = (await runMaintenance(MAINTENANCE_JOBS.lostOrders)) as { recovered: unknown[] };
    expect(second.recovered).toEqual([]);
    await h.sendWebhook('orders/paid', lost);
    await waitForIdle(h, { what: 'every job of the late webhook done' });
    expect(h.emulator.store.all().filter((o) => o.sourceOrderId === link.sourceOrderId)).toHaveLength(1);
  });

  it('resumes an order whose submission was left with no job to finish it', async () => {
    const body = orderBody([{ sku: 'PRINT-STUCK', quantity: 1 }]);
    h.standIn.seedOrder(SHOP, body);
    const orderId = body.admin_graphql_api_id;
    // What a submit job that failed for good leaves behind: the order pending past its hold window, no job.
    await h.runtime.store.saveOrderBody(SHOP, orderId, body.updated_at, JSON.stringify(body));
    const past = new Date(Date.now() - 60_000).toISOString();
    await h.runtime.store.update(SHOP, orderId, () => ({
      link: { ...h.runtime.store.blank(SHOP, orderId), orderName: body.name, submitAfter: past, statusAt: past },
    }));

    const outcome = (await runMaintenance(MAINTENANCE_JOBS.silentOrders)) as { resumed: { stuck: number; rescheduled: number } };
    expect(outcome.resumed).toMatchObject({ stuck: 1, rescheduled: 1 });
    const link = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, orderId);
      return l?.status === 'submitted' && l;
    }, { what: 'the stuck order submitted' });
    expect(h.emulator.store.all().filter((o) => o.sourceOrderId === link.sourceOrderId)).toHaveLength(1);
    expect((await h.runtime.store.history(SHOP, orderId)).map((e) => e.event)).toContain('submission resumed');
  });
});
