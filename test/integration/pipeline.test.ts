import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitJobId } from '../../src/queue/queues.js';
import { emulatorOrders, type Harness, orderBody, SHOP, startHarness, testMapping, waitFor, waitForIdle, metricsHeaders } from '../helpers/harness.js';

/**
 * The path from a Shopify webhook to an acknowledged print order, through the real app: Express intake, BullMQ on
 * Redis, the mapping engine, the signed client, the emulator, and the Admin API stand-in.
 */
describe('order pipeline', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  const sourceId = (body: { order_number: number }) => `${SHOP.replace('.myshopify.com', '')}-${body.order_number}`;

  it('turns a signed orders/paid webhook into exactly one order at the printer, with the mapped content', async () => {
    const body = orderBody([{ sku: 'PRINT-A5', quantity: 2 }, { sku: 'PRINT-POSTER', vendor: 'Posters' }]);
    h.standIn.seedOrder(SHOP, body);
    const response = await h.sendWebhook('orders/paid', body);
    expect(response.status).toBe(200);

    const [printed] = await waitFor(() => emulatorOrders(h.emulator, sourceId(body)).length === 1 && emulatorOrders(h.emulator, sourceId(body)), { what: 'the print order' });
    const data = printed!.record.orderData as {
      items: { sku: string; quantity: number; sourceItemId: string; shipmentIndex: number; components: { path: string }[] }[];
      shipments: { shipTo: { name: string; town: string; isoCountry: string } }[];
    };
    expect(printed!.record.destination).toMatchObject({ name: 'demo-printer' });
    expect(data.items.map((i) => [i.sku, i.quantity, i.shipmentIndex, i.components[0]!.path])).toEqual([
      ['PRINT-A5', 2, 0, 'https://files.example.com/PRINT-A5.pdf'],
      ['PRINT-POSTER', 1, 1, 'https://files.example.com/PRINT-POSTER.pdf'],
    ]);
    expect(data.items[0]!.sourceItemId).toBe(body.line_items[0]!.admin_graphql_api_id.split('/').pop());
    expect(data.shipments.map((s) => s.shipTo)).toEqual([
      expect.objectContaining({ name: 'Zoë Ünal', town: 'Łódź', isoCountry: 'PL' }),
      expect.objectContaining({ name: 'Zoë Ünal', town: 'Łódź', isoCountry: 'PL' }),
    ]);

    const link = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return l?.status === 'submitted' && l;
    });
    expect(link).toMatchObject({ sourceOrderId: sourceId(body), printOrderId: printed!.record._id });
    expect(link.shipments.map((s) => s.lineItems.map((l) => [l.lineItemId, l.quantity]))).toEqual([
      [[body.line_items[0]!.admin_graphql_api_id, 2]],
      [[body.line_items[1]!.admin_graphql_api_id, 1]],
    ]);
    await waitFor(() => h.standIn.getOrder(SHOP, body.admin_graphql_api_id)?.tags.includes('print-bridge:submitted'), { what: 'the submitted tag' });
  });

  it('gives one order for the same webhook three times and for two webhook ids of one order', async () => {
    const body = orderBody([{ sku: 'PRINT-CARD' }]);
    h.standIn.seedOrder(SHOP, body);
    const id = randomUUID();
    const answers = await Promise.all([h.sendWebhook('orders/paid', body, id), h.sendWebhook('orders/paid', body, id), h.sendWebhook('orders/paid', body, id)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect((await h.sendWebhook('orders/paid', body)).status).toBe(200);
    await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status === 'submitted');
    // Every job the four deliveries queued has run (a stray second submission would have reached the printer by then).
    await waitForIdle(h, { what: 'every job of the four deliveries done' });
    expect(emulatorOrders(h.emulator, sourceId(body))).toHaveLength(1);
  });

  it('holds an order whose line items no rule maps, with a readable reason, and tags it in Shopify', async () => {
    const body = orderBody([{ sku: 'PRINT-A5' }, { sku: 'MUG-11OZ', title: 'Mug' }]);
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);
    const link = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return l?.status === 'held' && l;
    }, { what: 'a held order' });
    expect(link.problems).toHaveLength(1);
    expect(link.problems[0]!.subject).toContain('SKU MUG-11OZ, "Mug"');
    expect(link.problems[0]!.message).toContain('no rule of products, stockItems or ignore matches it');
    await waitFor(() => h.standIn.getOrder(SHOP, body.admin_graphql_api_id)?.tags.includes('print-bridge:needs-mapping'), { what: 'the needs-mapping tag' });
    expect(emulatorOrders(h.emulator, sourceId(body))).toHaveLength(0);
  });

  it('cancels at the printer when Shopify cancels after submission', async () => {
    const body = orderBody([{ sku: 'PRINT-A4' }]);
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);
    await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status === 'submitted');
    await h.sendWebhook('orders/cancelled', { ...body, cancelled_at: '2026-11-21T11:00:00-05:00', updated_at: '2026-11-21T11:00:00-05:00' });
    await waitFor(() => emulatorOrders(h.emulator, sourceId(body))[0]?.record.status === 'cancelled', { what: 'the print order cancelled' });
    await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status === 'cancelled');
    await waitFor(() => h.standIn.getOrder(SHOP, body.admin_graphql_api_id)?.tags.includes('print-bridge:cancelled'));
  });

  it('sends an address changed after submission to the print shipment', async () => {
    const body = orderBody([{ sku: 'PRINT-A3' }]);
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);
    await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status === 'submitted');
    const moved = {
      ...body,
      updated_at: '2026-11-21T12:00:00-05:00',
      shipping_address: { ...body.shipping_address, address1: 'ul. Floriańska 3', city: 'Kraków', zip: '31-019' },
    };
    // An older version arriving late must not undo it.
    await h.sendWebhook('orders/updated', moved);
    await h.sendWebhook('orders/updated', { ...body, updated_at: '2026-11-21T11:00:00-05:00' });
    await waitFor(() => {
      const shipments = emulatorOrders(h.emulator, sourceId(body))[0]?.record.orderData.shipments as { shipTo: { town: string; address1: string } }[] | undefined;
      return shipments?.[0]?.shipTo.town === 'Kraków' && shipments[0].shipTo.address1 === 'ul. Floriańska 3';
    }, { what: 'the new address at the printer' });
    // The printer has the address as soon as it answered the amendment; the history entry follows that answer.
    await waitFor(async () => (await h.runtime.store.history(SHOP, body.admin_graphql_api_id)).some((e) => e.event === 'address change sent'), {
      what: "the history's 'address change sent'",
    });
  });
});

describe('metrics', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('counts webhooks, jobs, print-service and Shopify calls, and reports orders and queues', async () => {
    const body = orderBody([{ sku: 'PRINT-A5' }]);
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);
    await h.sendWebhook('orders/paid', 'not json');
    await waitFor(() => h.standIn.getOrder(SHOP, body.admin_graphql_api_id)?.tags.includes('print-bridge:submitted'));
    // The tag is in Shopify before the app counts the call that wrote it, and the sync job that wrote it was queued by
    // the submit job, which may be counted as completed after it ran: both counts are waited for.
    await waitFor(async () => {
      const text = await (await fetch(`${h.runtime.url}/metrics`, { headers: metricsHeaders })).text();
      return /^print_bridge_jobs_total\{queue="orders",name="submit",outcome="completed"\} 1$/m.test(text) && /^print_bridge_shopify_calls_total\{operation="showStatus",outcome="ok"\} [1-9]/m.test(text);
    }, { what: 'the submit job and the status shown counted' });
    const res = await fetch(`${h.runtime.url}/metrics`, { headers: metricsHeaders });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? NaN);
    expect(value(/print_bridge_webhooks_total\{topic="orders\/paid",outcome="queued"\} (\d+)/)).toBe(1);
    expect(value(/print_bridge_webhooks_total\{topic="orders\/paid",outcome="bad-body"\} (\d+)/)).toBe(1);
    expect(value(/print_bridge_print_service_calls_total\{operation="create",status="200"\} (\d+)/)).toBe(1);
    expect(value(/print_bridge_print_service_calls_total\{operation="validate",status="200"\} (\d+)/)).toBe(1);
    expect(value(/print_bridge_print_service_call_duration_seconds_count\{operation="create"\} (\d+)/)).toBe(1);
    // The harness's mapping validates first, so the order goes through a submit job (an order due now without
    // validation is submitted by its webhook's job: test/bridge/submit-inline.test.ts).
    expect(value(/print_bridge_jobs_total\{queue="orders",name="submit",outcome="completed"\} (\d+)/)).toBe(1);
    expect(value(/print_bridge_shopify_calls_total\{operation="showStatus",outcome="ok"\} (\d+)/)).toBeGreaterThanOrEqual(1);
    expect(value(/print_bridge_shopify_calls_total\{operation="orderShows",outcome="ok"\} (\d+)/)).toBeGreaterThanOrEqual(1);
    expect(value(/print_bridge_orders\{status="submitted"\} (\d+)/)).toBe(1);
    expect(value(/print_bridge_queue_jobs\{queue="orders",state="waiting"\} (\d+)/)).toBe(0);
    expect(text).toMatch(/print_bridge_queue_oldest_waiting_seconds\{queue="webhooks"\} 0/);
    expect(text).toContain('print_bridge_process_resident_memory_bytes');
  });
});

describe('order pipeline with a hold window', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ mapping: testMapping({ holdMinutes: 30 }) });
  });
  afterAll(() => h.close());

  it('sends nothing for an order cancelled inside the window', async () => {
    const body = orderBody([{ sku: 'PRINT-A5' }]);
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);
    const jobId = submitJobId(SHOP, body.admin_graphql_api_id);
    const job = await waitFor(() => h.runtime.queues.orders.getJob(jobId), { what: 'the delayed submit job' });
    expect(await job.isDelayed()).toBe(true);
    expect(job.opts.delay).toBeGreaterThan(29 * 60_000);

    await h.sendWebhook('orders/cancelled', { ...body, cancelled_at: '2026-11-21T10:10:00-05:00', updated_at: '2026-11-21T10:10:00-05:00' });
    await waitFor(async () => (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status === 'cancelled');
    // The window ends (promoted now instead of in 30 minutes): the job runs and finds nothing to send.
    await job.promote();
    await waitFor(async () => (await h.runtime.queues.orders.getJob(jobId))?.finishedOn, { what: 'the submit job to run' });
    expect(emulatorOrders(h.emulator, `${SHOP.replace('.myshopify.com', '')}-${body.order_number}`)).toHaveLength(0);
  });

  it('sends the version edited inside the window', async () => {
    const body = orderBody([{ sku: 'PRINT-A5', quantity: 1 }]);
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);
    const edited = { ...body, updated_at: '2026-11-21T10:20:00-05:00', line_items: body.line_items.map((l) => ({ ...l, quantity: 3, current_quantity: 3 })) };
    await h.sendWebhook('orders/updated', edited);
    const job = await waitFor(() => h.runtime.queues.orders.getJob(submitJobId(SHOP, body.admin_graphql_api_id)));
    await waitFor(async () => JSON.parse((await h.runtime.store.getOrderBody(SHOP, body.admin_graphql_api_id))?.body ?? '{}').updated_at === edited.updated_at);
    await job.promote();
    const sourceOrderId = `${SHOP.replace('.myshopify.com', '')}-${body.order_number}`;
    const [printed] = await waitFor(() => emulatorOrders(h.emulator, sourceOrderId).length === 1 && emulatorOrders(h.emulator, sourceOrderId));
    expect((printed!.record.orderData.items as { quantity: number }[])[0]!.quantity).toBe(3);
  });
});
