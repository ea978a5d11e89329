import { describe, expect, it } from 'vitest';
import { amendShipping } from '../../src/bridge/amend-shipping.js';
import { cancelPrintOrder } from '../../src/bridge/cancel-print-order.js';
import { MappingProblemsError, OrderBusyError, OrderNotInShopYetError, OrderUnconfirmedError, PrintRefusedError } from '../../src/bridge/errors.js';
import { handleWebhook } from '../../src/bridge/webhooks/index.js';
import { submitShopifyOrder } from '../../src/bridge/submit-shopify-order.js';
import { PrintServiceBadRequestError, PrintServiceNetworkError, PrintServiceUnavailableError } from '../../src/print-service/errors.js';
import type { WebhookJob } from '../../src/queue/queues.js';
import { memoryDeps, shopifyOrderBody } from '../helpers/bridge-fakes.js';

// The use cases on the in-memory OrderStore (test/helpers/memory-order-store.ts): each test has a store of its own.
// The PostgreSQL store is held to the same contract in test/storage/order-store-contract.test.ts.
const SHOP = 'acme.myshopify.com';
let webhookCounter = 0;

function job(topic: string, body: unknown): WebhookJob {
  webhookCounter += 1;
  return { topic, shop: SHOP, webhookId: `wh-${webhookCounter}`, receivedAt: new Date().toISOString(), body: JSON.stringify(body) };
}

function setup() {
  return memoryDeps();
}

describe('handleWebhook', () => {
  it('schedules the submission on the mapping\'s topic, after the hold window, once', async () => {
    const deps = setup();
    deps.mapping.settings = { on: 'orders/paid', holdMinutes: 30, validate: false };
    const body = shopifyOrderBody();
    expect(await handleWebhook(deps, job('orders/create', body))).toMatchObject({ kind: 'recorded' });
    const scheduled = await handleWebhook(deps, job('orders/paid', body));
    expect(scheduled).toMatchObject({ kind: 'scheduled', orderId: body.admin_graphql_api_id });
    await handleWebhook(deps, job('orders/paid', body));
    const submits = deps.scheduler.calls.filter((c) => c.kind === 'submit');
    expect(submits).toHaveLength(2); // same job id twice: the queue keeps one
    expect(submits[0]!.delayMs).toBeGreaterThan(29 * 60_000);
    expect(submits[1]!.delayMs).toBeLessThanOrEqual(submits[0]!.delayMs!);
    const link = await deps.store.get(SHOP, body.admin_graphql_api_id);
    expect(link).toMatchObject({ status: 'pending', orderName: body.name });
    const history = await deps.store.history(SHOP, body.admin_graphql_api_id);
    expect(history.map((h) => h.event)).toEqual(['orders/paid received', 'submission scheduled', 'orders/paid received', 'orders/create received']);
  });

  it("takes the echo of the app's own tag and note writes as nothing new, and a merchant's change as news", async () => {
    const deps = setup();
    const body = shopifyOrderBody({ tags: 'vip', note: 'Gift wrap' });
    await handleWebhook(deps, job('orders/paid', body));
    const before = await deps.store.get(SHOP, body.admin_graphql_api_id);
    const echo = { ...body, updated_at: '2026-11-21T10:05:00-05:00', tags: 'vip, print-bridge:submitted', note: 'Gift wrap\nprint-bridge: shipment 1 shipped' };
    expect(await handleWebhook(deps, job('orders/updated', echo))).toEqual({ kind: 'own-write', orderId: body.admin_graphql_api_id });
    expect((await deps.store.get(SHOP, body.admin_graphql_api_id))!.version).toBe(before!.version);
    expect((await deps.store.getOrderBody(SHOP, body.admin_graphql_api_id))!.body).toBe(JSON.stringify(body));
    const merchant = { ...echo, updated_at: '2026-11-21T10:06:00-05:00', tags: 'vip, wholesale, print-bridge:submitted' };
    expect((await handleWebhook(deps, job('orders/updated', merchant))).kind).not.toBe('own-write');
    expect((await deps.store.history(SHOP, body.admin_graphql_api_id))[0]!.event).toBe('orders/updated received');
  });

  it('keeps the newest body when webhooks arrive out of order', async () => {
    const deps = setup();
    const old = shopifyOrderBody();
    const newer = { ...old, updated_at: '2026-11-21T11:00:00-05:00', shipping_address: { ...old.shipping_address, city: 'Kraków' } };
    await handleWebhook(deps, job('orders/updated', newer));
    expect(await handleWebhook(deps, job('orders/paid', old))).toMatchObject({ kind: 'scheduled' });
    const stored = await deps.store.getOrderBody(SHOP, old.admin_graphql_api_id);
    expect(JSON.parse(stored!.body).shipping_address.city).toBe('Kraków');
  });

  it('cancels before submission without sending anything', async () => {
    const deps = setup();
    const body = shopifyOrderBody();
    await handleWebhook(deps, job('orders/paid', body));
    expect(await handleWebhook(deps, job('orders/cancelled', { ...body, cancelled_at: '2026-11-21T10:05:00-05:00' }))).toMatchObject({
      kind: 'cancelled-before-submission',
    });
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'cancelled' });
    expect(deps.printService.creates).toBe(0);
  });

  it('removes sessions and pending jobs on uninstall', async () => {
    const deps = setup();
    deps.scheduler.dropped = 3;
    expect(await handleWebhook(deps, job('app/uninstalled', { id: 1 }))).toEqual({ kind: 'uninstalled', droppedJobs: 3, sessions: 1 });
    expect(deps.sessions.deleted).toEqual([SHOP]);
  });

  it('redacts customer data and answers data requests from what is stored', async () => {
    const deps = setup();
    const body = shopifyOrderBody();
    await handleWebhook(deps, job('orders/paid', body));
    const numericId = body.admin_graphql_api_id.split('/').pop()!;
    const request = await handleWebhook(deps, {
      ...job('customers/data_request', {}),
      body: `{"shop_domain":"${SHOP}","orders_requested":[${numericId}],"data_request":{"id":9999}}`,
    });
    expect(request).toEqual({ kind: 'data-request', orders: 1 });
    const report = (await deps.store.getDataRequest(SHOP, '9999')) as { orderId: string; orderBody: { email: string } }[];
    expect(report[0]).toMatchObject({ orderId: body.admin_graphql_api_id, orderBody: { email: 'zoe@example.com' } });

    const redacted = await handleWebhook(deps, { ...job('customers/redact', {}), body: `{"orders_to_redact":[${numericId}]}` });
    expect(redacted).toEqual({ kind: 'redacted', orders: 1 });
    expect(await deps.store.getOrderBody(SHOP, body.admin_graphql_api_id)).toBeUndefined();
    expect(await deps.store.get(SHOP, body.admin_graphql_api_id)).toBeDefined();

    expect(await handleWebhook(deps, job('shop/redact', { shop_domain: SHOP }))).toEqual({ kind: 'redacted', orders: 1 });
    expect(await deps.store.get(SHOP, body.admin_graphql_api_id)).toBeUndefined();
  });

  it('refuses a body that is not an order, permanently', async () => {
    const deps = setup();
    await expect(handleWebhook(deps, job('orders/paid', { name: '#1', line_items: [] }))).rejects.toMatchObject({ retryable: false });
  });
});

/** Every create of one job run is lost on the way (the answer never comes, nothing is stored), so the run fails. */
function failEveryCreateOfOneRun(deps: ReturnType<typeof setup>): void {
  for (let i = 0; i < deps.printService.retryPolicy.maxAttempts; i++) {
    deps.printService.createScript.push({ error: new PrintServiceNetworkError('create', 'x', new Error('socket hang up'), true), store: false });
  }
}

describe('submitShopifyOrder', () => {
  async function paidOrder(deps: ReturnType<typeof setup>, overrides: Record<string, unknown> = {}) {
    const body = shopifyOrderBody(overrides);
    await handleWebhook(deps, job('orders/paid', body));
    return body;
  }

  it('submits once, records the link and tags the order', async () => {
    const deps = setup();
    const body = await paidOrder(deps);
    const outcome = await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id);
    expect(outcome).toMatchObject({ kind: 'submitted', sourceOrderId: `acme-${body.order_number}`, reconciled: false });
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'already-submitted' });
    expect(deps.printService.count()).toBe(1);
    const link = await deps.store.get(SHOP, body.admin_graphql_api_id);
    expect(link).toMatchObject({ status: 'submitted', sourceOrderId: `acme-${body.order_number}`, submitAttempts: 1 });
    expect(link!.shipments).toEqual([{ index: 0, status: 'pending', lineItems: [{ lineItemId: body.line_items[0]!.admin_graphql_api_id, quantity: 2, sku: 'BOOK-A5' }] }]);
    await deps.scheduler.runShopifyJobs(deps);
    expect(deps.shopify.tagsOf(body.admin_graphql_api_id)).toEqual(['print-bridge:submitted']);
    expect((await deps.store.findByPrintOrderId(link!.printOrderId!))?.orderId).toBe(body.admin_graphql_api_id);
  });

  it('sends nothing new for an order cancelled while its submission was retrying', async () => {
    const deps = setup();
    const body = await paidOrder(deps);
    const orderId = body.admin_graphql_api_id;
    // A job run whose creates never reached the printer, then the merchant cancels.
    failEveryCreateOfOneRun(deps);
    await expect(submitShopifyOrder(deps, SHOP, orderId)).rejects.toBeInstanceOf(PrintServiceNetworkError);
    await handleWebhook(deps, job('orders/cancelled', { ...body, cancelled_at: '2026-11-21T10:05:00-05:00' }));
    expect(await submitShopifyOrder(deps, SHOP, orderId)).toMatchObject({ kind: 'cancelled' });
    const creates = deps.printService.creates;
    expect(deps.printService.count()).toBe(0);
    expect(creates).toBe(deps.printService.retryPolicy.maxAttempts);
    expect((await deps.store.get(SHOP, orderId))!.status).toBe('cancelled');
  });

  it('cancels at the printer an order whose earlier attempt reached it before the cancellation came', async () => {
    const deps = setup();
    const body = await paidOrder(deps);
    const orderId = body.admin_graphql_api_id;
    failEveryCreateOfOneRun(deps);
    await expect(submitShopifyOrder(deps, SHOP, orderId)).rejects.toBeInstanceOf(PrintServiceNetworkError);
    // One of those creates reached the printer after all (its answer was what got lost).
    const sourceOrderId = (await deps.store.get(SHOP, orderId))!.sourceOrderId!;
    await deps.printService.create({ destination: { name: 'p' }, orderData: { sourceOrderId, items: [], shipments: [] } });
    const creates = deps.printService.creates;
    await handleWebhook(deps, job('orders/cancelled', { ...body, cancelled_at: '2026-11-21T10:05:00-05:00' }));
    expect(await submitShopifyOrder(deps, SHOP, orderId)).toMatchObject({ kind: 'submitted', reconciled: true });
    expect(deps.printService.creates).toBe(creates);
    expect((await deps.store.get(SHOP, orderId))!.status).toBe('submitted');
    expect(deps.scheduler.calls.filter((c) => c.kind === 'cancel')).not.toHaveLength(0);
    expect(await cancelPrintOrder(deps, SHOP, orderId)).toMatchObject({ kind: 'cancelled', atPrinter: true });
  });

  it('holds an order with mapping problems, with the reason, and submits it once fixed', async () => {
    const deps = setup();
    const body = await paidOrder(deps, { line_items: [{ id: 7, admin_graphql_api_id: 'gid://shopify/LineItem/7', sku: null, title: 'Mystery', quantity: 1 }] });
    const error = await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MappingProblemsError);
    expect((error as MappingProblemsError).retryable).toBe(false);
    expect((error as Error).message).toContain('line item 7 (Mystery): no product rule matches this line item');
    const held = await deps.store.get(SHOP, body.admin_graphql_api_id);
    expect(held).toMatchObject({ status: 'held', problems: [{ kind: 'mapping', subject: 'line item 7 (Mystery)' }] });
    await deps.scheduler.runShopifyJobs(deps);
    expect(deps.shopify.tagsOf(body.admin_graphql_api_id)).toEqual(['print-bridge:needs-mapping']);
    expect(deps.printService.creates).toBe(0);

    deps.mapping.map = ((original) => (shop: string, b: string) => {
      const order = JSON.parse(b) as { line_items: { sku: string }[] };
      order.line_items[0]!.sku = 'FIXED';
      return original(shop, JSON.stringify(order));
    })(deps.mapping.map.bind(deps.mapping));
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'submitted' });
    await deps.scheduler.runShopifyJobs(deps);
    expect(deps.shopify.tagsOf(body.admin_graphql_api_id)).toEqual(['print-bridge:submitted']);
    expect((await deps.store.get(SHOP, body.admin_graphql_api_id))!.problems).toEqual([]);
  });

  it('reconciles after a create whose outcome was lost, creating nothing twice', async () => {
    const deps = setup();
    const body = await paidOrder(deps);
    deps.printService.createScript = [{ error: new PrintServiceNetworkError('create', 'x', new Error('socket hang up'), true), store: true }];
    const outcome = await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id);
    expect(outcome).toMatchObject({ kind: 'submitted', reconciled: true });
    expect(deps.printService.count()).toBe(1);
    expect(deps.printService.creates).toBe(1);
  });

  it('after a crash mid-submission, the next run asks first', async () => {
    const deps = setup();
    const body = await paidOrder(deps);
    // First run: the create is stored but the job "dies" with a retryable error after every in-job attempt.
    deps.printService.createScript = Array.from({ length: 5 }, () => ({ error: new PrintServiceUnavailableError('create', 503, undefined), store: false }));
    await expect(submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).rejects.toBeInstanceOf(PrintServiceUnavailableError);
    expect((await deps.store.get(SHOP, body.admin_graphql_api_id))).toMatchObject({ status: 'submitting', submitAttempts: 1 });
    // Simulate that a create did land meanwhile (e.g. sent just before the process was killed).
    deps.printService.createScript = [];
    const mapped = await deps.mapping.map(SHOP, JSON.stringify(body));
    if (!mapped.ok) throw new Error('the fake mapping should map this order');
    expect((await deps.printService.create(mapped.order))._id).toBeTruthy();
    const outcome = await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id);
    expect(outcome).toMatchObject({ kind: 'submitted', reconciled: true });
    expect(deps.printService.count()).toBe(1);
  });

  it('fails permanently with the reasons when validate refuses', async () => {
    const deps = setup();
    deps.mapping.settings = { on: 'orders/paid', holdMinutes: 0, validate: true };
    const body = await paidOrder(deps);
    deps.printService.validateError = new PrintServiceBadRequestError('validate', 400, {
      name: 'ValidationError', code: 4001, message: 'Order is not valid', validations: [{ path: 'orderData.items[0].sku', message: 'SKU BOOK-A5 is not set up' }],
    });
    await expect(submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).rejects.toBeInstanceOf(PrintRefusedError);
    expect(await deps.store.get(SHOP, body.admin_graphql_api_id)).toMatchObject({
      status: 'error',
      problems: [{ kind: 'validation', subject: 'orderData.items[0].sku', message: 'SKU BOOK-A5 is not set up' }],
    });
    await deps.scheduler.runShopifyJobs(deps);
    expect(deps.shopify.tagsOf(body.admin_graphql_api_id)).toEqual(['print-bridge:error']);
    expect(deps.printService.creates).toBe(0);
  });

  it('keeps Shopify failures away from the submission: the tag sync retries on its own', async () => {
    const deps = setup();
    const body = await paidOrder(deps);
    deps.shopify.failNext = 1;
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'submitted' });
    await deps.scheduler.runShopifyJobs(deps);
    expect(deps.shopify.tagsOf(body.admin_graphql_api_id)).toEqual([]);
    expect(deps.scheduler.shopifyJobs).toHaveLength(1);
    await deps.scheduler.runShopifyJobs(deps);
    expect(deps.shopify.tagsOf(body.admin_graphql_api_id)).toEqual(['print-bridge:submitted']);
    expect(deps.printService.creates).toBe(1);
  });
});

describe('cancelPrintOrder and amendShipping', () => {
  async function submitted(deps: ReturnType<typeof setup>) {
    const body = shopifyOrderBody();
    await handleWebhook(deps, job('orders/paid', body));
    await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id);
    return body;
  }

  it("cancels nothing for an orders/cancelled body of an open order unless Shopify answers that it is cancelled (review)", async () => {
    const deps = setup();
    const body = await submitted(deps);
    const open = job('orders/cancelled', { ...body, cancelled_at: null });
    // Shopify says not cancelled; then it no longer shows the order at all (deleted, or past what the app may read).
    expect(await handleWebhook(deps, open)).toMatchObject({ kind: 'rejected' });
    deps.shopify.notInShop.add(body.admin_graphql_api_id);
    expect(await handleWebhook(deps, open)).toMatchObject({ kind: 'rejected' });
    expect(deps.scheduler.kinds()).not.toContain('cancel');
    expect((await deps.store.get(SHOP, body.admin_graphql_api_id))!.status).toBe('submitted');
    // Shopify shows it cancelled: the same delivery cancels.
    deps.shopify.notInShop.delete(body.admin_graphql_api_id);
    deps.shopify.cancelledInShop.add(body.admin_graphql_api_id);
    expect(await handleWebhook(deps, open)).toMatchObject({ kind: 'cancel-requested' });
  });

  it('cancels at the print service after submission', async () => {
    const deps = setup();
    const body = await submitted(deps);
    expect(await handleWebhook(deps, job('orders/cancelled', { ...body, cancelled_at: '2026-11-21T12:00:00Z' }))).toMatchObject({ kind: 'cancel-requested' });
    expect(deps.scheduler.kinds()).toContain('cancel');
    expect(await cancelPrintOrder(deps, SHOP, body.admin_graphql_api_id)).toEqual({ kind: 'cancelled', atPrinter: true });
    expect(await cancelPrintOrder(deps, SHOP, body.admin_graphql_api_id)).toEqual({ kind: 'already-cancelled' });
    expect((await deps.store.get(SHOP, body.admin_graphql_api_id))!.status).toBe('cancelled');
    await deps.scheduler.runShopifyJobs(deps);
    expect(deps.shopify.tagsOf(body.admin_graphql_api_id)).toContain('print-bridge:cancelled');
  });

  it('shows a refused cancellation on the Shopify order', async () => {
    const deps = setup();
    const body = await submitted(deps);
    deps.printService.cancelError = new PrintServiceBadRequestError('cancel', 400, { name: 'OrderNotCancellable', code: 4005, message: 'the order has shipped' });
    expect(await cancelPrintOrder(deps, SHOP, body.admin_graphql_api_id)).toEqual({ kind: 'refused', reason: 'the order has shipped' });
    await deps.scheduler.runShopifyJobs(deps);
    expect(deps.shopify.tagsOf(body.admin_graphql_api_id)).toContain('print-bridge:cancel-refused');
    await deps.scheduler.runShopifyJobs(deps);
    expect(deps.shopify.notes.get(body.admin_graphql_api_id)?.[0]).toContain('refused the cancellation (the order has shipped)');
    expect((await deps.store.get(SHOP, body.admin_graphql_api_id))).toMatchObject({ status: 'submitted', problems: [{ kind: 'cancel-refused' }] });
  });

  it('waits while a create is in flight', async () => {
    const deps = setup();
    const body = shopifyOrderBody();
    await handleWebhook(deps, job('orders/paid', body));
    await deps.store.update(SHOP, body.admin_graphql_api_id, (c) => ({ link: { ...c!, status: 'submitting' } }));
    await expect(cancelPrintOrder(deps, SHOP, body.admin_graphql_api_id)).rejects.toBeInstanceOf(OrderBusyError);
  });

  it('sends a changed address to every shipment after submission, and only once', async () => {
    const deps = setup();
    const body = await submitted(deps);
    const moved = { ...body, updated_at: '2026-11-21T12:00:00-05:00', shipping_address: { ...body.shipping_address, address1: 'ul. Nowa 5', city: 'Kraków', zip: '30-001' } };
    expect(await handleWebhook(deps, job('orders/updated', moved))).toMatchObject({ kind: 'amend-requested' });
    expect(await amendShipping(deps, SHOP, body.admin_graphql_api_id)).toEqual({ kind: 'amended', shipments: [0] });
    const printOrder = [...deps.printService.orders.values()][0]!;
    expect(printOrder.shipTo[0]).toMatchObject({ address1: 'ul. Nowa 5', town: 'Kraków', postcode: '30-001' });
    expect(await amendShipping(deps, SHOP, body.admin_graphql_api_id)).toEqual({ kind: 'unchanged' });
    // The same version delivered again changes nothing.
    expect(await handleWebhook(deps, job('orders/updated', moved))).toMatchObject({ kind: 'stale' });
  });
});

describe('an order is its store’s only when the store’s Admin API shows it (issue 22 item 1)', () => {
  const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

  it('refuses an order the store does not have: not printed, body dropped, nothing claimed or created', async () => {
    const deps = setup();
    const body = shopifyOrderBody({ created_at: daysAgo(3) });
    deps.shopify.notInShop.add(body.admin_graphql_api_id);
    await handleWebhook(deps, job('orders/paid', body));
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'not-printed' });
    const link = (await deps.store.get(SHOP, body.admin_graphql_api_id))!;
    expect(link).toMatchObject({ status: 'not-printed', notInShopAt: expect.any(String) });
    expect(link.sourceOrderId).toBeUndefined();
    expect(await deps.store.getOrderBody(SHOP, body.admin_graphql_api_id)).toBeUndefined();
    expect(deps.printService.creates).toBe(0);
    // The same body again is not kept either.
    await handleWebhook(deps, job('orders/updated', { ...body, updated_at: daysAgo(1) }));
    expect(await deps.store.getOrderBody(SHOP, body.admin_graphql_api_id)).toBeUndefined();
  });

  it('asks again about an order placed moments ago, and holds (never refuses) one older than Shopify shows apps', async () => {
    const deps = setup();
    const fresh = shopifyOrderBody({ created_at: new Date().toISOString() });
    const old = shopifyOrderBody({ created_at: daysAgo(75) });
    for (const body of [fresh, old]) {
      deps.shopify.notInShop.add(body.admin_graphql_api_id);
      await handleWebhook(deps, job('orders/paid', body));
    }
    await expect(submitShopifyOrder(deps, SHOP, fresh.admin_graphql_api_id)).rejects.toBeInstanceOf(OrderNotInShopYetError);
    expect((await deps.store.get(SHOP, fresh.admin_graphql_api_id))!.status).toBe('pending');
    await expect(submitShopifyOrder(deps, SHOP, old.admin_graphql_api_id)).rejects.toBeInstanceOf(OrderUnconfirmedError);
    const held = (await deps.store.get(SHOP, old.admin_graphql_api_id))!;
    expect(held.status).toBe('held');
    expect(held.problems).toEqual([expect.objectContaining({ kind: 'order-unconfirmed', message: expect.stringMatching(/last 60 days/) })]);
    expect(held.notInShopAt).toBeUndefined();
    expect(await deps.store.getOrderBody(SHOP, old.admin_graphql_api_id)).toBeDefined();
    expect(deps.printService.creates).toBe(0);
  });

  it('confirms once, at submission: a later cancellation of the order does not ask again', async () => {
    const deps = setup();
    const body = shopifyOrderBody({ created_at: daysAgo(2) });
    await handleWebhook(deps, job('orders/paid', body));
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'submitted' });
    expect((await deps.store.get(SHOP, body.admin_graphql_api_id))!.shopConfirmedAt).toBeTruthy();
    const reads = deps.shopify.inShopReads;
    expect(await cancelPrintOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'cancelled', atPrinter: true });
    expect(deps.shopify.inShopReads).toBe(reads);
  });
});
