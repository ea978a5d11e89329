import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { handleWebhook } from '../../src/bridge/webhooks/index.js';
import { retryOrder } from '../../src/bridge/operator-actions.js';
import { submitShopifyOrder } from '../../src/bridge/submit-shopify-order.js';
import { reexamineWaitingOrders } from '../../src/bridge/waiting-orders.js';
import type { PrintAccount } from '../../src/shops/model.js';
import { PrintAccounts } from '../../src/shops/print-accounts.js';
import { changedShops } from '../../src/app/waiting.js';
import type { WebhookJob } from '../../src/queue/queues.js';
import { fakeDeps, shopifyOrderBody } from '../helpers/bridge-fakes.js';
import { testRedis } from '../helpers/redis.js';
import { lazyTestDatabase } from '../helpers/database.js';

/** The waits before submission and what ends them, on the use cases with a real order store and fake ports. */
const { redis, prefix, cleanup } = testRedis('waiting');
afterAll(cleanup);
// Each test has a schema of its own (as it has a key prefix of its own): store-wide reads see only its orders.
const openDatabases: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(openDatabases.splice(0).map((close) => close()));
});
function freshDatabase() {
  const db = lazyTestDatabase('waiting');
  openDatabases.push(db.cleanup);
  return db.database;
}
const SHOP = 'acme.myshopify.com';
let webhooks = 0;

function job(topic: string, body: unknown): WebhookJob {
  webhooks += 1;
  return { topic, shop: SHOP, webhookId: `wh-w-${webhooks}`, receivedAt: new Date().toISOString(), body: JSON.stringify(body) };
}

function setup() {
  const deps = fakeDeps(redis, `${prefix}${Math.random().toString(36).slice(2, 8)}:`, freshDatabase());
  return { ...deps, failedJobs: { forOrder: async () => [] } };
}

const submits = (deps: ReturnType<typeof setup>) => deps.scheduler.calls.filter((c) => c.kind === 'submit');

describe('an order that arrives before its store has a mapping', () => {
  it('waits with the reason, remembers its topics, and is scheduled once from the topic\'s arrival when a mapping appears', async () => {
    const deps = setup();
    deps.mapping.settings = undefined;
    const body = shopifyOrderBody();
    await handleWebhook(deps, job('orders/create', body));
    await handleWebhook(deps, job('orders/paid', body));
    const waiting = (await deps.store.get(SHOP, body.admin_graphql_api_id))!;
    expect(waiting.status).toBe('waiting');
    expect(waiting.problems.map((p) => p.kind)).toEqual(['no-mapping']);
    expect(Object.keys(waiting.topics ?? {}).sort()).toEqual(['orders/create', 'orders/paid']);
    expect(submits(deps)).toHaveLength(0);

    deps.mapping.settings = { on: 'orders/paid', holdMinutes: 30, validate: false };
    const first = await reexamineWaitingOrders(deps, { shop: SHOP, cause: 'mapping changed', remap: true });
    const again = await reexamineWaitingOrders(deps, { shop: SHOP, cause: 'mapping changed', remap: true });
    expect(first.scheduled).toBe(1);
    expect(again.scheduled + again.released).toBe(0);
    expect(submits(deps)).toHaveLength(1);
    // The hold window runs from orders/paid's arrival, not from now.
    const scheduled = (await deps.store.get(SHOP, body.admin_graphql_api_id))!;
    expect(scheduled).toMatchObject({ status: 'pending', problems: [] });
    expect(Date.parse(scheduled.submitAfter!)).toBe(Date.parse(waiting.topics!['orders/paid']!) + 30 * 60_000);
    expect(submits(deps)[0]!.delayMs).toBeGreaterThan(29 * 60_000);
  });

  it('does not show an order only seen through orders/updated as waiting (placed before the app)', async () => {
    const deps = setup();
    deps.mapping.settings = undefined;
    const body = shopifyOrderBody();
    await handleWebhook(deps, job('orders/updated', body));
    expect(await deps.store.get(SHOP, body.admin_graphql_api_id)).toMatchObject({ status: 'pending', problems: [] });
  });

  it('goes back to pending when the new mapping submits on a topic that has not arrived, and is scheduled when it does', async () => {
    const deps = setup();
    deps.mapping.settings = undefined;
    const body = shopifyOrderBody();
    await handleWebhook(deps, job('orders/create', body));
    expect((await deps.store.get(SHOP, body.admin_graphql_api_id))?.status).toBe('waiting');
    deps.mapping.settings = { on: 'orders/paid', holdMinutes: 0, validate: false };
    await reexamineWaitingOrders(deps, { shop: SHOP, cause: 'mapping changed', remap: true });
    expect(await deps.store.get(SHOP, body.admin_graphql_api_id)).toMatchObject({ status: 'pending', problems: [] });
    expect(submits(deps)).toHaveLength(0);
    expect(await handleWebhook(deps, job('orders/paid', body))).toMatchObject({ kind: 'scheduled' });
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'submitted' });
  });

  it('is scheduled when the mapping starts submitting on a topic that already came', async () => {
    const deps = setup();
    const body = shopifyOrderBody();
    await handleWebhook(deps, job('orders/create', body));
    expect(submits(deps)).toHaveLength(0);
    deps.mapping.settings = { on: 'orders/create', holdMinutes: 0, validate: false };
    expect((await reexamineWaitingOrders(deps, { shop: '*', cause: 'mapping changed', remap: true })).scheduled).toBe(1);
    expect(submits(deps)).toHaveLength(1);
  });

  it('lets Retry send a pending order whose submit topic is in its history (orders recorded before topics were kept)', async () => {
    const deps = setup();
    const body = shopifyOrderBody();
    const orderId = body.admin_graphql_api_id;
    await deps.store.saveOrderBody(SHOP, orderId, body.updated_at, JSON.stringify(body));
    await deps.store.update(SHOP, orderId, () => ({
      link: deps.store.blank(SHOP, orderId),
      history: [{ event: 'orders/paid received', source: 'shopify', detail: 'webhook old' }],
    }));
    const outcome = await retryOrder(deps, { shop: SHOP, orderId, actor: 'operator' });
    expect(outcome.kind).toBe('done');
    expect(submits(deps)).toHaveLength(1);

    const unpaid = shopifyOrderBody();
    await handleWebhook(deps, job('orders/create', unpaid));
    const refused = await retryOrder(deps, { shop: SHOP, orderId: unpaid.admin_graphql_api_id, actor: 'operator' });
    expect(refused).toMatchObject({ kind: 'refused' });
    expect(refused.message).toContain('waits for orders/paid');
  });
});

describe('which shops a mapping change concerns', () => {
  it('names the stores the changed files served or serve, or every store when a catch-all file changed', () => {
    expect(changedShops({ shops: ['Acme.myshopify.com', 'other.myshopify.com'] })).toEqual(['acme.myshopify.com', 'other.myshopify.com']);
    expect(changedShops({ shops: ['acme.myshopify.com', '*'] })).toBe('*');
    expect(changedShops({ shops: [] })).toEqual([]);
  });
});

describe('a store that is not connected', () => {
  it('never sends its order, and releases it once (one job) when the store is connected', async () => {
    const deps = setup();
    deps.connections.disconnected.add(SHOP);
    const body = shopifyOrderBody();
    await handleWebhook(deps, job('orders/paid', body));
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toEqual({ kind: 'waiting', reason: 'store-not-connected' });
    expect(deps.printService.creates).toBe(0);
    const link = (await deps.store.get(SHOP, body.admin_graphql_api_id))!;
    expect(link.status).toBe('waiting');
    expect(link.problems[0]!.message).toContain('no Admin API access');
    // No tag sync for a store the app cannot reach: it would only fail.
    expect(deps.scheduler.shopifyJobs).toHaveLength(0);

    expect((await reexamineWaitingOrders(deps, { shop: SHOP, cause: 'periodic check', remap: false })).waiting).toBe(1);
    deps.connections.disconnected.delete(SHOP);
    const queuedBefore = submits(deps).length;
    const runs = await Promise.all([
      reexamineWaitingOrders(deps, { shop: SHOP, cause: 'store connected', remap: false }),
      reexamineWaitingOrders(deps, { shop: '*', cause: 'store connected', remap: false }),
    ]);
    expect(runs.reduce((n, r) => n + r.released, 0)).toBeGreaterThanOrEqual(1);
    const jobs = new Set(submits(deps).slice(queuedBefore).map((c) => c.generation));
    expect(jobs.size).toBe(1);
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'submitted' });
    expect(deps.printService.creates).toBe(1);
  });

  it('cancels a waiting order of a store it cannot reach without a Shopify sync that could only fail', async () => {
    const deps = setup();
    deps.connections.disconnected.add(SHOP);
    const body = shopifyOrderBody();
    await handleWebhook(deps, job('orders/paid', body));
    await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id);
    expect(await handleWebhook(deps, job('orders/cancelled', { ...body, cancelled_at: '2026-11-21T10:05:00-05:00' }))).toMatchObject({ kind: 'cancelled-before-submission' });
    expect((await deps.store.get(SHOP, body.admin_graphql_api_id))?.status).toBe('cancelled');
    expect(deps.scheduler.shopifyJobs).toHaveLength(0);
    expect(deps.printService.creates).toBe(0);
  });

  it('lets Retry release a waiting order whose store is connected now (the connection event was missed)', async () => {
    const deps = setup();
    deps.connections.disconnected.add(SHOP);
    const body = shopifyOrderBody();
    await handleWebhook(deps, job('orders/paid', body));
    await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id);
    const waiting = (await deps.store.get(SHOP, body.admin_graphql_api_id))!;
    const refused = await retryOrder(deps, { shop: SHOP, orderId: waiting.orderId, expectedVersion: waiting.version, actor: 'operator' });
    expect(refused).toMatchObject({ kind: 'refused' });
    expect(refused.message).toContain('Connect the store');
    deps.connections.disconnected.delete(SHOP);
    const current = (await deps.store.get(SHOP, body.admin_graphql_api_id))!;
    expect(await retryOrder(deps, { shop: SHOP, orderId: current.orderId, expectedVersion: current.version, actor: 'operator' })).toMatchObject({ kind: 'done' });
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'submitted' });
    expect(deps.printService.creates).toBe(1);
  });

  it('keeps a held order held (never back to waiting) and releases it too', async () => {
    const deps = setup();
    const body = shopifyOrderBody({ line_items: [{ id: 1, admin_graphql_api_id: 'gid://shopify/LineItem/1', sku: null, title: 'Mug', quantity: 1 }] });
    await handleWebhook(deps, job('orders/paid', body));
    await expect(submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).rejects.toThrow();
    expect((await deps.store.get(SHOP, body.admin_graphql_api_id))?.status).toBe('held');
    deps.connections.disconnected.add(SHOP);
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'waiting' });
    const held = (await deps.store.get(SHOP, body.admin_graphql_api_id))!;
    expect(held.status).toBe('held');
    expect(held.problems.map((p) => p.kind).sort()).toEqual(['mapping', 'store-not-connected']);
    deps.connections.disconnected.delete(SHOP);
    expect((await reexamineWaitingOrders(deps, { shop: SHOP, cause: 'store connected', remap: false })).released).toBe(1);
  });
});

describe('a print account connected in another process', () => {
  it("releases the store's waiting orders on the look the change asks for, though this process read the store just before", async () => {
    const deps = setup();
    // The worker's account cache, on the settings the web process changes (so never told to forget them); its clock
    // stands still, so what it read stays in use for as long as the test takes.
    const stored: { own?: PrintAccount } = {};
    const worker = {
      ...deps,
      printAccounts: new PrintAccounts({
        settings: {
          get: async (shop) => ({ shop, mode: 'live', fulfillment: 'merchant', revision: 1 }),
          printAccountOf: async () => (stored.own ? { account: stored.own, revision: 2 } : undefined),
          markTestValidated: async () => undefined,
        },
        createClient: () => Object.assign(deps.printService, { close: async () => undefined }),
        clock: () => 0,
      }),
    };
    const body = shopifyOrderBody();
    await handleWebhook(worker, job('orders/paid', body));
    expect(await submitShopifyOrder(worker, SHOP, body.admin_graphql_api_id)).toEqual({ kind: 'waiting', reason: 'no-print-account' });

    // The merchant connects an account (web process), which queues this look at the store's waiting orders.
    stored.own = { baseUrl: 'https://print.example', token: 'token', secret: 'secret', sourceAccount: 'brand', connectedAt: new Date().toISOString() };
    expect((await reexamineWaitingOrders(worker, { shop: SHOP, cause: 'print account connected', remap: true })).released).toBe(1);
    expect(await submitShopifyOrder(worker, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'submitted' });
  });
});

describe('held orders after a mapping change', () => {
  it('are released when they now map, and keep their reasons (written once) when they still do not', async () => {
    const deps = setup();
    const body = shopifyOrderBody({ line_items: [{ id: 2, admin_graphql_api_id: 'gid://shopify/LineItem/2', sku: null, title: 'Mug', quantity: 1 }] });
    await handleWebhook(deps, job('orders/paid', body));
    await expect(submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).rejects.toThrow();
    const before = (await deps.store.history(SHOP, body.admin_graphql_api_id)).length;
    expect((await reexamineWaitingOrders(deps, { shop: SHOP, cause: 'mapping changed', remap: true })).waiting).toBe(1);
    expect((await deps.store.history(SHOP, body.admin_graphql_api_id)).length).toBe(before);

    const queuedBefore = submits(deps).length;
    const fixed = deps.mapping.map.bind(deps.mapping);
    deps.mapping.map = (shop, order) => fixed(shop, JSON.stringify({ ...(JSON.parse(order) as object), line_items: [{ ...body.line_items[0], sku: 'PRINT-MUG' }] }));
    expect((await reexamineWaitingOrders(deps, { shop: SHOP, cause: 'mapping changed', remap: true })).released).toBe(1);
    expect((await reexamineWaitingOrders(deps, { shop: SHOP, cause: 'mapping changed', remap: true })).released).toBe(1);
    // Both runs queue the same job (same generation): one submission.
    expect(new Set(submits(deps).slice(queuedBefore).map((c) => c.generation)).size).toBe(1);
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'submitted' });
  });
});

describe('two submit jobs of one order at once (a release and a Retry)', () => {
  it('lets one create while the other waits for it, so the printer gets the order once', async () => {
    const deps = setup();
    const body = shopifyOrderBody();
    await handleWebhook(deps, job('orders/paid', body));
    const create = deps.printService.create.bind(deps.printService);
    // The create is held until the other job has had its answer (not for a set time): the creating job holds the
    // order all that while, whichever of the two it is. It cannot itself settle before its create, so the first of
    // the two to settle is the other one.
    let otherAnswered: Promise<unknown> = Promise.resolve();
    deps.printService.create = async (order) => {
      await otherAnswered;
      return create(order);
    };
    const runs = [submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id), submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)] as const;
    otherAnswered = Promise.race(runs.map((run) => run.then(() => undefined, () => undefined)));
    const [first, second] = await Promise.allSettled(runs);
    const outcomes = [first, second].map((r) => (r.status === 'fulfilled' ? r.value.kind : (r.reason as Error).name));
    expect(outcomes.sort()).toEqual(['OrderBusyError', 'submitted']);
    // The busy job runs again later and finds the order submitted.
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'already-submitted' });
    expect(deps.printService.creates).toBe(1);
  });
});

describe('nothing to print', () => {
  it('records an order the mapping leaves nothing of as not printed, a final state with the reason', async () => {
    const deps = setup();
    deps.mapping.map = async () => ({ ok: false, problems: [{ mappingKind: 'empty', message: 'nothing to print: no line item maps to a print item (1: gift card)' }] });
    const body = shopifyOrderBody();
    await handleWebhook(deps, job('orders/paid', body));
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'not-printed' });
    const link = (await deps.store.get(SHOP, body.admin_graphql_api_id))!;
    expect(link).toMatchObject({ status: 'not-printed', problems: [] });
    expect(link.notPrintedReason).toContain('gift card');
    await deps.scheduler.runShopifyJobs(deps);
    expect(deps.shopify.tagsOf(body.admin_graphql_api_id)).toEqual(['print-bridge:not-printed']);
    // A repeated job changes nothing.
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'not-printed' });
    expect(deps.printService.creates).toBe(0);
  });
});
