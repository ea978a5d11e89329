import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postbackTriggers } from '../../src/print-service/postback-triggers.js';
import { parseTriggers } from '../../src/dev/emulator/triggers.js';
import { chooseFulfillmentMode, type FulfillmentModeDeps } from '../../src/shops/fulfillment-mode.js';
import { jobId } from '../../src/queue/queues.js';
import { type Harness, emulatorOrders, HARNESS_ENCRYPTION_KEY, orderBody, SHOP, SHOP_TOKEN, SHOPIFY_SECRET, startHarness, waitFor } from '../helpers/harness.js';
import { signedWebhookHeaders } from '../helpers/shopify-webhooks.js';
import { runCliInProcess } from '../helpers/run-cli.js';

/**
 * Issue 25: fulfillment-service mode end to end, against the Admin stand-in's model of Shopify's fulfillment services
 * (requests, answers, the signed callback ping) and the print-service emulator: only the print location's lines reach
 * the printer, nothing before Shopify's request, acceptance after the print service stored the order, rejections in
 * words a merchant can act on, a lost callback picked up by the schedule, cancellation requests answered by what the
 * printer says, and uninstall / re-install.
 */
let h: Harness;
let modeDeps: FulfillmentModeDeps;
let serviceId: string;
let locationId: string;

beforeAll(async () => {
  // Reads of the store's requests follow each other at once (the least interval between them is tested on its own).
  h = await startHarness({ env: { FULFILLMENT_READ_INTERVAL_MS: '0' } });
  h.emulator.deliveries.setTriggers(parseTriggers(postbackTriggers(`${h.runtime.url}/postbacks/postback-test-token-0123456789abcdef`)));
  // Shopify pings APP_URL/fulfillment_service/...: here the app listens on a port of its own.
  modeDeps = { ...h.runtime.fulfillmentMode, appUrl: h.runtime.url! };
  h.standIn.setAutomaticFulfillmentRequests(false);
  const chosen = await chooseFulfillmentMode(modeDeps, SHOP, 'service');
  serviceId = chosen.service!.id;
  locationId = chosen.service!.locationId;
  // The merchant assigns the printed products to print-bridge's location (docs/fulfillment.md).
  h.standIn.stockFulfillmentService(SHOP, serviceId, ['PRINT-POSTER', 'PRINT-BOOK', 'MUG-11OZ']);
});
afterAll(() => h?.close());

/** The order's fulfillment orders at print-bridge's location and elsewhere, as Shopify has them. */
function fulfillmentOrders(orderId: string) {
  const order = h.standIn.getOrder(SHOP, orderId)!;
  const ours = order.fulfillmentOrders.filter((fo) => fo.assignedLocation.id === locationId);
  const merchants = order.fulfillmentOrders.filter((fo) => fo.assignedLocation.id !== locationId);
  return { order, ours, merchants };
}

async function paidOrder(lines: { sku: string; quantity?: number }[]) {
  const body = orderBody(lines);
  const res = await h.sendWebhook('orders/paid', body);
  expect(res.status).toBe(200);
  return body;
}

async function advance(sourceOrderId: string, to: string): Promise<void> {
  const record = h.emulator.store.all().find((o) => o.sourceOrderId === sourceOrderId)!;
  const res = await fetch(`${h.emulator.baseUrl}/_emulator/orders/${record.record._id}/advance`, {
    method: 'POST',
    body: JSON.stringify({ to }),
    headers: { 'content-type': 'application/json' },
  });
  expect(res.status).toBe(200);
}

async function events(orderId: string): Promise<string[]> {
  return (await h.runtime.store.history(SHOP, orderId)).map((e) => e.event).reverse();
}

describe('fulfillment-service mode (issue 25)', () => {
  it('registers one service with its location, however often it is chosen', async () => {
    const again = await chooseFulfillmentMode(modeDeps, SHOP, 'service');
    expect(again.service?.id).toBe(serviceId);
    expect(h.standIn.listFulfillmentServices(SHOP)).toHaveLength(1);
    expect(h.standIn.listFulfillmentServices(SHOP)[0]).toMatchObject({ callbackUrl: `${h.runtime.url}/fulfillment_service` });
    expect((await h.runtime.shopSettings.get(SHOP)).fulfillment).toBe('service');
  });

  it("Shopify's suffixed fulfillment service ids (FulfillmentService/…?id=true) are kept whole and read back", async () => {
    // Shopify's answers write a fulfillment service's id with a query: the stand-in mints them so, and the app, which
    // once refused them as "not usable", keeps the id exactly and finds its service by it again.
    expect(serviceId).toMatch(/^gid:\/\/shopify\/FulfillmentService\/\d+\?id=true$/);
    expect((await modeDeps.services.get(SHOP)).service?.id).toBe(serviceId);
    const again = await chooseFulfillmentMode(modeDeps, SHOP, 'service');
    expect(again.service?.id).toBe(serviceId);
    expect(h.standIn.listFulfillmentServices(SHOP).map((s) => s.id)).toEqual([serviceId]);
  });

  it('prints nothing before the request, then only the print location lines of a mixed cart, accepted once the printer has them', async () => {
    const body = await paidOrder([{ sku: 'PRINT-POSTER', quantity: 2 }, { sku: 'HAT-RED' }]);
    const orderId = body.admin_graphql_api_id;
    const { ours, merchants } = fulfillmentOrders(orderId);
    expect(ours).toHaveLength(1);
    expect(merchants).toHaveLength(1);

    await waitFor(async () => (await events(orderId)).includes('waiting for a fulfillment request'), { what: 'the order waiting for a request' });
    const link = await h.runtime.store.get(SHOP, orderId);
    expect(link?.status).toBe('pending');
    expect(link?.sourceOrderId).toBeUndefined();

    expect(h.standIn.requestFulfillment(SHOP, { fulfillmentOrderId: ours[0]!.id }).ok).toBe(true);
    const submitted = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, orderId);
      return l?.sourceOrderId && emulatorOrders(h.emulator, l.sourceOrderId).length === 1 && l;
    }, { timeoutMs: 20_000, what: 'the print order' });
    const printed = emulatorOrders(h.emulator, submitted.sourceOrderId!)[0]!;
    const skus = (printed.record.orderData.items as { sku: string; quantity: number }[]).map((i) => `${i.sku}×${i.quantity}`);
    expect(skus).toEqual(['PRINT-POSTER×2']);

    await waitFor(() => fulfillmentOrders(orderId).ours[0]!.requestStatus === 'ACCEPTED', { what: 'the request accepted' });
    const history = await waitFor(async () => {
      const e = await events(orderId);
      return e.includes('fulfillment request accepted') && e;
    }, { what: 'the answer recorded on the order' });
    expect(history.indexOf('submitted')).toBeGreaterThan(-1);
    expect(history.indexOf('submitted')).toBeLessThan(history.indexOf('fulfillment request accepted'));
    expect(fulfillmentOrders(orderId).ours[0]!.serviceResponses.at(-1)).toMatchObject({ kind: 'FULFILLMENT_ACCEPTED' });

    // Shipped: that fulfillment order is fulfilled with tracking; the merchant's own is never touched.
    await advance(submitted.sourceOrderId!, 'shipped');
    const done = await waitFor(() => {
      const f = fulfillmentOrders(orderId);
      return f.order.fulfillments.length === 1 && f;
    }, { timeoutMs: 20_000, what: 'the fulfillment' });
    expect(done.order.fulfillments[0]!.lineItems.map((l) => `${l.lineItemId}×${l.quantity}`)).toEqual([`${body.line_items[0]!.admin_graphql_api_id}×2`]);
    expect(done.order.fulfillments[0]!.trackingInfo[0]?.number).toMatch(/^EM/);
    expect(done.merchants[0]!.status).toBe('OPEN');
    expect(done.merchants[0]!.lineItems[0]!.remainingQuantity).toBe(1);
  });

  it('rejects a request for a product no mapping prints, naming the SKU on the line', async () => {
    const body = await paidOrder([{ sku: 'MUG-11OZ' }]);
    const orderId = body.admin_graphql_api_id;
    const fo = fulfillmentOrders(orderId).ours[0]!;
    h.standIn.requestFulfillment(SHOP, { fulfillmentOrderId: fo.id });
    await waitFor(() => fulfillmentOrders(orderId).ours[0]!.requestStatus === 'REJECTED', { timeoutMs: 20_000, what: 'the request rejected' });
    const response = fulfillmentOrders(orderId).ours[0]!.serviceResponses.at(-1)!;
    expect(response.kind).toBe('FULFILLMENT_REJECTED');
    expect(response.reason).toBe('INVALID_SKU');
    expect(response.message).toContain('MUG-11OZ');
    expect(response.message).toMatch(/mapping/i);
    expect(response.lineItems?.[0]?.message).toContain('MUG-11OZ');
    expect(h.emulator.store.all().some((o) => (o.record.orderData.items as { sku: string }[]).some((i) => i.sku === 'MUG-11OZ'))).toBe(false);
  });

  it('picks up a request whose callback was lost on the schedule', async () => {
    const body = await paidOrder([{ sku: 'PRINT-BOOK' }]);
    const orderId = body.admin_graphql_api_id;
    h.standIn.dropNextFulfillmentPings(1);
    h.standIn.requestFulfillment(SHOP, { fulfillmentOrderId: fulfillmentOrders(orderId).ours[0]!.id });
    await h.standIn.fulfillmentPingsSettled();
    expect((await h.runtime.store.get(SHOP, orderId))?.fulfillmentRequest).toBeUndefined();
    // The scheduled read (every RECONCILE_EVERY_MINUTES), run now.
    await h.runtime.queues.maintenance.add('read-fulfillment-requests', {}, {});
    await waitFor(() => fulfillmentOrders(orderId).ours[0]!.requestStatus === 'ACCEPTED', { timeoutMs: 20_000, what: 'the request picked up and accepted' });
  });

  it('refuses a callback whose HMAC is wrong and does nothing; a signed one is answered at once', async () => {
    const raw = '{"kind":"FULFILLMENT_REQUEST"}';
    const url = `${h.runtime.url}/fulfillment_service/fulfillment_order_notification`;
    const forged = await fetch(url, { method: 'POST', body: raw, headers: { 'content-type': 'application/json', 'x-shopify-shop-domain': SHOP, 'x-shopify-hmac-sha256': createHmac('sha256', 'not-the-secret').update(raw).digest('base64') } });
    expect(forged.status).toBe(401);
    const unsigned = await fetch(url, { method: 'POST', body: raw, headers: { 'content-type': 'application/json', 'x-shopify-shop-domain': SHOP } });
    expect(unsigned.status).toBe(401);
    const jobs = await h.runtime.queues.shopify.getJobs(['waiting', 'delayed', 'active', 'completed']);
    const before = jobs.filter((j) => j.data.kind === 'fulfillment-requests').length;
    const signed = await fetch(url, { method: 'POST', body: raw, headers: { 'content-type': 'application/json', 'x-shopify-shop-domain': SHOP, 'x-shopify-hmac-sha256': createHmac('sha256', SHOPIFY_SECRET).update(raw).digest('base64') } });
    expect(signed.status).toBe(200);
    await waitFor(async () => (await h.runtime.queues.shopify.getJobs(['waiting', 'delayed', 'active', 'completed'])).filter((j) => j.data.kind === 'fulfillment-requests').length > before, { what: 'the read queued' });
  });

  it('accepts a cancellation request the printer carries out, and rejects one it refuses (shipped), fulfilling as the shipment comes', { timeout: 60_000 }, async () => {
    const first = await paidOrder([{ sku: 'PRINT-POSTER' }]);
    const second = await paidOrder([{ sku: 'PRINT-BOOK' }]);
    for (const body of [first, second]) h.standIn.requestFulfillment(SHOP, { fulfillmentOrderId: fulfillmentOrders(body.admin_graphql_api_id).ours[0]!.id });
    for (const body of [first, second]) await waitFor(() => fulfillmentOrders(body.admin_graphql_api_id).ours[0]!.requestStatus === 'ACCEPTED', { timeoutMs: 20_000, what: 'accepted' });

    h.standIn.requestCancellation(SHOP, { fulfillmentOrderId: fulfillmentOrders(first.admin_graphql_api_id).ours[0]!.id });
    await waitFor(() => fulfillmentOrders(first.admin_graphql_api_id).ours[0]!.requestStatus === 'CANCELLATION_ACCEPTED', { timeoutMs: 20_000, what: 'the cancellation accepted' });
    const cancelled = await h.runtime.store.get(SHOP, first.admin_graphql_api_id);
    expect(cancelled?.status).toBe('cancelled');
    expect(emulatorOrders(h.emulator, cancelled!.sourceOrderId!)[0]!.record.status).toMatch(/cancel/i);

    // The printer ships, and its postback is late (its trigger cannot reach the app for now): Shopify's cancellation
    // request comes first. The printer refuses to cancel a shipped order, so the request is rejected with why.
    const shipping = (await h.runtime.store.get(SHOP, second.admin_graphql_api_id))!;
    const postbackUrl = `${h.runtime.url}/postbacks/postback-test-token-0123456789abcdef`;
    h.emulator.deliveries.setTriggers(parseTriggers(postbackTriggers('http://127.0.0.1:9/unreachable')));
    await advance(shipping.sourceOrderId!, 'shipped');
    const late = await waitFor(() => h.emulator.deliveries.list({ event: 'Shipment Shipped' }).find((d) => d.body.includes(shipping.sourceOrderId!)), { what: 'the shipped postback' });
    h.emulator.deliveries.setTriggers(parseTriggers(postbackTriggers(postbackUrl)));
    h.standIn.requestCancellation(SHOP, { fulfillmentOrderId: fulfillmentOrders(second.admin_graphql_api_id).ours[0]!.id });
    await waitFor(() => fulfillmentOrders(second.admin_graphql_api_id).ours[0]!.requestStatus === 'CANCELLATION_REJECTED', { timeoutMs: 20_000, what: 'the cancellation rejected' });
    expect(fulfillmentOrders(second.admin_graphql_api_id).ours[0]!.serviceResponses.at(-1)?.message).toMatch(/shipped/i);
    // The postback arrives: the shipment is still fulfilled on the accepted fulfillment order.
    const delivered = await fetch(postbackUrl, { method: 'POST', body: late.body, headers: { 'content-type': 'application/json' } });
    expect(delivered.status).toBe(202);
    await waitFor(() => fulfillmentOrders(second.admin_graphql_api_id).order.fulfillments.length === 1, { timeoutMs: 20_000, what: 'fulfilled after the refused cancellation' });
  });

  it('shows a refund of printed items after submission on the order, with what the merchant can do', async () => {
    const body = await paidOrder([{ sku: 'PRINT-POSTER', quantity: 2 }]);
    const orderId = body.admin_graphql_api_id;
    h.standIn.requestFulfillment(SHOP, { fulfillmentOrderId: fulfillmentOrders(orderId).ours[0]!.id });
    await waitFor(async () => (await h.runtime.store.get(SHOP, orderId))?.status === 'submitted', { timeoutMs: 20_000, what: 'submitted' });
    // Ids as Shopify writes them: integers past 2^53, exact in the text.
    const digits = (gid: string) => gid.split('/').pop()!;
    const refund = `{"id":890088186047892319,"order_id":${digits(orderId)},"refund_line_items":[{"line_item_id":${digits(body.line_items[0]!.admin_graphql_api_id)},"quantity":1}]}`;
    expect((await h.sendWebhook('refunds/create', refund)).status).toBe(200);
    const problem = await waitFor(async () => (await h.runtime.store.get(SHOP, orderId))?.problems.find((p) => p.kind === 'changed-after-submission'), { what: 'the refund shown' });
    expect(problem.message).toContain('A refund after #');
    expect(problem.message).toContain('SKU PRINT-POSTER): 1 now, 2 sent');
    expect(problem.message).toMatch(/Cancel order.*or keep it as sent/);
  });

  it('forgets the service on uninstall; a re-install registers a new one', async () => {
    const raw = JSON.stringify({ id: 1, domain: SHOP });
    // Shopify revokes the app's token and deletes its fulfillment service, then sends the webhook.
    h.standIn.uninstallApp(SHOP);
    const res = await fetch(`${h.runtime.url}/webhooks`, { method: 'POST', body: raw, headers: signedWebhookHeaders(SHOPIFY_SECRET, raw, { topic: 'app/uninstalled', shop: SHOP, webhookId: 'uninstall-fs' }) });
    expect(res.status).toBe(200);
    // The uninstall forgets the service and deletes the store's sessions at once: the whole job is waited for, or the
    // session added below could be stored before the job's deletion runs (and be deleted by it).
    await waitFor(async () => (await h.runtime.queues.webhooks.getJob(jobId('wh', 'uninstall-fs')))?.finishedOn, { what: 'the uninstall job done' });
    expect((await h.runtime.shopSettings.get(SHOP)).fulfillment).toBe('merchant');
    expect(h.standIn.listFulfillmentServices(SHOP)).toEqual([]);
    h.standIn.registerShop(SHOP, SHOP_TOKEN);
    await h.runtime.sessions.addCustomAppToken(SHOP, SHOP_TOKEN, h.config.SHOPIFY_SCOPES);
    const again = await chooseFulfillmentMode(modeDeps, SHOP, 'service');
    expect(again.service?.id).not.toBe(serviceId);
    expect(h.standIn.listFulfillmentServices(SHOP)).toHaveLength(1);
  });

  it('is chosen from the command line too: back to merchant (KEEP), then service again', async () => {
    const env = {
      APP_URL: h.runtime.url!,
      REDIS_URL: h.config.REDIS_URL,
      REDIS_PREFIX: h.prefix,
      DATABASE_URL: h.config.DATABASE_URL!,
      DATABASE_SCHEMA: h.schema,
      SHOPIFY_API_KEY: 'test-key',
      SHOPIFY_API_SECRET: SHOPIFY_SECRET,
      ENCRYPTION_KEY: HARNESS_ENCRYPTION_KEY,
      SHOPIFY_ADMIN_API_ORIGIN: h.standIn.origin,
      LOG_LEVEL: 'silent',
    };
    // An order waiting for Shopify's request when the store goes back to merchant-managed is sent at once, not at the
    // hourly sweep (contract review: it stayed pending, no problem shown).
    const waiting = await paidOrder([{ sku: 'PRINT-BOOK' }]);
    await waitFor(async () => (await events(waiting.admin_graphql_api_id)).includes('waiting for a fulfillment request'), { what: 'the order waiting for a request' });
    const back = await runCliInProcess(['shops', 'fulfillment', SHOP, 'merchant'], env);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toMatch(/merchant-managed again.*KEEP/);
    const sent = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, waiting.admin_graphql_api_id);
      return l?.sourceOrderId && l.status !== 'submitting' && emulatorOrders(h.emulator, l.sourceOrderId).length === 1 && l;
    }, { timeoutMs: 20_000, what: 'the order that waited, sent once the store is merchant-managed' });
    expect(sent.status).toBe('submitted');
    expect(await events(waiting.admin_graphql_api_id)).toContain('released for submission');
    expect(h.standIn.listFulfillmentServices(SHOP)).toHaveLength(0);
    expect((await h.runtime.shopSettings.get(SHOP)).fulfillment).toBe('merchant');
    const wrong = await runCliInProcess(['shops', 'fulfillment', SHOP, 'sideways'], env);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('service or merchant');
    const service = await runCliInProcess(['shops', 'fulfillment', SHOP, 'service'], env);
    expect(service.code, service.stderr).toBe(0);
    expect(service.stdout).toContain('fulfillment-service mode');
    expect(h.standIn.listFulfillmentServices(SHOP)).toHaveLength(1);
  });
});
