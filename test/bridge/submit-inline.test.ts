import { describe, expect, it } from 'vitest';
import { handleWebhook } from '../../src/bridge/webhooks/index.js';
import { submitShopifyOrder } from '../../src/bridge/submit-shopify-order.js';
import { PrintServiceNetworkError } from '../../src/print-service/errors.js';
import type { WebhookJob } from '../../src/queue/queues.js';
import { memoryDeps, shopifyOrderBody } from '../helpers/bridge-fakes.js';

// An order due now is submitted by the webhook's own job (BridgeDeps.submitDueOrdersInline, issue 27); anything that
// goes wrong there is left to the submit job, which settles it as before (asking the printer first).
const SHOP = 'acme.myshopify.com';
let counter = 0;

function job(topic: string, body: unknown): WebhookJob {
  counter += 1;
  return { topic, shop: SHOP, webhookId: `inline-${counter}`, receivedAt: new Date().toISOString(), body: JSON.stringify(body) };
}

function inlineDeps() {
  const deps = memoryDeps();
  deps.mapping.settings = { on: 'orders/paid', holdMinutes: 0, validate: false };
  return Object.assign(deps, { submitDueOrdersInline: true });
}

const submits = (deps: ReturnType<typeof memoryDeps>) => deps.scheduler.calls.filter((c) => c.kind === 'submit');

describe('inline submission of an order due now', () => {
  it('sends the order from the webhook job, once, with no submit job, reading neither the order nor its body again', async () => {
    const deps = inlineDeps();
    const body = shopifyOrderBody();
    const reads = { get: 0, body: 0 };
    const get = deps.store.get.bind(deps.store);
    const getOrderBody = deps.store.getOrderBody.bind(deps.store);
    deps.store.get = async (...args) => ((reads.get += 1), get(...args));
    deps.store.getOrderBody = async (...args) => ((reads.body += 1), getOrderBody(...args));
    expect(await handleWebhook(deps, job('orders/paid', body))).toEqual({ kind: 'submission', orderId: body.admin_graphql_api_id, outcome: 'submitted' });
    expect(deps.printService.count()).toBe(1);
    expect(submits(deps)).toHaveLength(0);
    expect(reads).toEqual({ get: 1, body: 0 }); // the one read is the webhook's own update
    const link = await deps.store.get(SHOP, body.admin_graphql_api_id);
    expect(link).toMatchObject({ status: 'submitted', sourceOrderId: `acme-${body.order_number}` });
    const history = (await deps.store.history(SHOP, body.admin_graphql_api_id)).map((h) => h.event);
    expect(history.slice(0, 2)).toEqual(['submitted', 'submitting']);
    expect(history.slice(2).sort()).toEqual(['orders/paid received', 'submission scheduled']);
    // The status is shown in Shopify by the sync the submission asks for, as from a submit job.
    expect(deps.scheduler.shopifyJobs).toContainEqual({ kind: 'sync', shop: SHOP, orderId: body.admin_graphql_api_id });
    // The same webhook again (a redelivery, or the job run again after its worker died before what follows the
    // submission) sends nothing more: the submit job's already-submitted path shows the status and answers requests.
    await handleWebhook(deps, job('orders/paid', body));
    expect(deps.printService.count()).toBe(1);
    expect(submits(deps)).toEqual([expect.objectContaining({ orderId: body.admin_graphql_api_id, delayMs: 0 })]);
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'already-submitted' });
    expect(deps.printService.count()).toBe(1);
  });

  it('leaves a create whose answer was lost to the submit job, which asks the printer first and creates nothing twice', async () => {
    const deps = inlineDeps();
    const body = shopifyOrderBody();
    const orderId = body.admin_graphql_api_id;
    deps.printService.createScript.push({ error: new PrintServiceNetworkError('create', 'x', new Error('socket hang up'), true), store: false });
    expect(await handleWebhook(deps, job('orders/paid', body))).toMatchObject({ kind: 'scheduled', orderId });
    // Fails fast: one create, no waiting between tries inside the webhook job.
    expect(deps.printService.creates).toBe(1);
    expect(submits(deps)).toEqual([expect.objectContaining({ orderId, delayMs: 0 })]);
    const link = (await deps.store.get(SHOP, orderId))!;
    expect(link.status).toBe('submitting');
    // One of those creates reached the printer after all (its answer was what got lost).
    await deps.printService.create({ destination: { name: 'p' }, orderData: { sourceOrderId: link.sourceOrderId!, items: [], shipments: [] } });
    const creates = deps.printService.creates;
    expect(await submitShopifyOrder(deps, SHOP, orderId)).toMatchObject({ kind: 'submitted', reconciled: true });
    expect(deps.printService.creates).toBe(creates);
    expect(deps.printService.count()).toBe(1);
  });

  it('queues the submit job again when the trigger comes back while a submission is under way (a worker died inside it)', async () => {
    const deps = inlineDeps();
    const body = shopifyOrderBody();
    const orderId = body.admin_graphql_api_id;
    deps.printService.createScript.push({ error: new PrintServiceNetworkError('create', 'x', new Error('socket hang up'), true), store: false });
    await handleWebhook(deps, job('orders/paid', body));
    deps.scheduler.calls.length = 0;
    // The webhook job runs again (stalled and taken back): it cannot tell whether the create went out, so the submit
    // job, which reconciles first, takes the order.
    expect(await handleWebhook(deps, job('orders/paid', body))).toMatchObject({ kind: 'scheduled', orderId });
    expect(submits(deps)).toEqual([expect.objectContaining({ orderId, delayMs: 0 })]);
    expect(deps.printService.count()).toBe(0);
    expect(await submitShopifyOrder(deps, SHOP, orderId)).toMatchObject({ kind: 'submitted', reconciled: false });
    expect(deps.printService.count()).toBe(1);
  });

  it('holds an order that cannot be mapped, with the reason on the order, and no submit job to fail again', async () => {
    const deps = inlineDeps();
    const body = shopifyOrderBody({ line_items: [{ id: 1, admin_graphql_api_id: 'gid://shopify/LineItem/1', sku: null, title: 'Mystery', quantity: 1 }] });
    expect(await handleWebhook(deps, job('orders/paid', body))).toMatchObject({ kind: 'not-submitted', orderId: body.admin_graphql_api_id, reason: expect.stringMatching(/cannot be mapped/) });
    const link = await deps.store.get(SHOP, body.admin_graphql_api_id);
    expect(link).toMatchObject({ status: 'held' });
    expect(link!.problems.map((p) => p.message).join(' ')).toMatch(/no product rule/);
    expect(submits(deps)).toHaveLength(0);
    expect(deps.printService.count()).toBe(0);
  });

  it('leaves to the submit job a mapping that validates first, a store in test mode, and a failure it did not record', async () => {
    const validating = inlineDeps();
    validating.mapping.settings = { on: 'orders/paid', holdMinutes: 0, validate: true };
    expect(await handleWebhook(validating, job('orders/paid', shopifyOrderBody()))).toMatchObject({ kind: 'scheduled' });
    expect(validating.printService.creates).toBe(0);
    expect(submits(validating)).toHaveLength(1);

    const testMode = inlineDeps();
    testMode.printAccounts.modes.set(SHOP, 'test');
    expect(await handleWebhook(testMode, job('orders/paid', shopifyOrderBody()))).toMatchObject({ kind: 'scheduled' });
    expect(submits(testMode)).toHaveLength(1);

    // A permanent failure the submission does not write on the order (the store's print account gone): the submit job
    // fails with it where an operator sees it, rather than the order sitting pending with no reason.
    const gone = inlineDeps();
    gone.printAccounts.forOrder = async () => {
      throw Object.assign(new Error('the print account of this store was removed'), { retryable: false });
    };
    const body = shopifyOrderBody();
    expect(await handleWebhook(gone, job('orders/paid', body))).toMatchObject({ kind: 'scheduled', orderId: body.admin_graphql_api_id });
    expect(submits(gone)).toEqual([expect.objectContaining({ orderId: body.admin_graphql_api_id, delayMs: 0 })]);
  });

  it('queues the submit job after the wait the failure asks for (another job holds the order)', async () => {
    const deps = inlineDeps();
    const body = shopifyOrderBody();
    await deps.store.tryLease(SHOP, `${body.admin_graphql_api_id}#submit`, 15_000);
    expect(await handleWebhook(deps, job('orders/paid', body))).toMatchObject({ kind: 'scheduled' });
    expect(deps.printService.creates).toBe(0);
    expect(submits(deps)[0]!.delayMs).toBeGreaterThanOrEqual(2_000);
  });

  it('keeps the submit job for an order with a hold window, and where inline submission is off', async () => {
    const held = inlineDeps();
    held.mapping.settings = { on: 'orders/paid', holdMinutes: 30, validate: false };
    const body = shopifyOrderBody();
    expect(await handleWebhook(held, job('orders/paid', body))).toMatchObject({ kind: 'scheduled' });
    expect(held.printService.count()).toBe(0);
    expect(submits(held)[0]!.delayMs).toBeGreaterThan(29 * 60_000);

    const off = memoryDeps();
    off.mapping.settings = { on: 'orders/paid', holdMinutes: 0, validate: false };
    expect(await handleWebhook(off, job('orders/paid', shopifyOrderBody()))).toMatchObject({ kind: 'scheduled' });
    expect(off.printService.count()).toBe(0);
    expect(submits(off)).toHaveLength(1);
  });

  it('maps the newest stored body when this webhook carries an older one', async () => {
    const deps = inlineDeps();
    deps.mapping.settings = { on: 'orders/paid', holdMinutes: 0, validate: false };
    const old = shopifyOrderBody();
    const newer = { ...old, updated_at: '2026-11-21T11:00:00-05:00', shipping_address: { ...old.shipping_address, city: 'Kraków' } };
    await handleWebhook(deps, job('orders/updated', newer));
    expect(await handleWebhook(deps, job('orders/paid', old))).toMatchObject({ kind: 'submission' });
    const [sent] = [...deps.printService.orders.values()];
    expect(sent!.shipTo).toEqual([expect.objectContaining({ town: 'Kraków' })]);
  });
});
