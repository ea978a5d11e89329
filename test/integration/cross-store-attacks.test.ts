import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAccounts } from '../../src/dev/emulator/accounts.js';
import { connectPrintAccount, pushMapping, setPrintMode } from '../../src/shops/setup.js';
import { emulatorOrders, type Harness, orderBody, SHOPIFY_SECRET, startHarness, testMapping, waitFor } from '../helpers/harness.js';
import { signedWebhookHeaders } from '../helpers/shopify-webhooks.js';

/**
 * Issue 22 items 1 and 3 against the running app: one store acting through another store's orders or order ids.
 *
 * 1. Shopify's HMAC covers a webhook's body, not its shop header: a genuine body of store A re-sent with store B's
 *    domain must print nothing on B's account, keep nothing of A's customer, and never block B's own order.
 * 3. A store's own mapping may render any sourceOrderId: a store in test mode, or live on its own account, rendering
 *    another store's ids must never hold that store's orders, and no reason names another store.
 */
const STORE_A = 'sec-a.myshopify.com';
const STORE_B = 'sec-b.myshopify.com';
const STORE_C = 'sec-c.myshopify.com';
const ACCOUNTS = parseAccounts([
  { name: 'demo-brand', token: 'demo-token', secret: 'demo-secret', accountId: 'a0000000000000000000000a' },
  { name: 'brand-c', token: 'token-c', secret: 'secret-c-0123456789', accountId: 'c3333333333333333333333c', destinations: [{ name: 'printer-c' }] },
]);

let h: Harness;
const send = async (shop: string, topic: string, body: unknown, options: { seed?: boolean } = {}) => {
  if (options.seed !== false) h.standIn.seedOrder(shop, body);
  const raw = JSON.stringify(body);
  const answer = await fetch(`${h.runtime.url}/webhooks`, { method: 'POST', body: raw, headers: signedWebhookHeaders(SHOPIFY_SECRET, raw, { topic, shop, webhookId: randomUUID() }) });
  expect(answer.status).toBe(200);
};
const linkOf = (shop: string, orderId: string) => h.runtime.store.get(shop, orderId);
const statusIs = (shop: string, orderId: string, status: string) => async () => {
  const link = await linkOf(shop, orderId);
  return link?.status === status && link;
};

beforeAll(async () => {
  h = await startHarness({ emulator: { manual: false, accounts: ACCOUNTS, delays: { receivedMs: 20, printReadyMs: 40, shipMs: 60 } }, mapping: testMapping() });
  for (const shop of [STORE_A, STORE_B, STORE_C]) {
    h.standIn.registerShop(shop, `shpat_${shop}`);
    await h.runtime.sessions.addCustomAppToken(shop, `shpat_${shop}`, h.config.SHOPIFY_SCOPES);
  }
});
afterAll(() => h?.close());

describe('a signed order body re-sent with another store’s domain (item 1)', () => {
  it('prints nothing on the other store, keeps no body, and does not block that store’s own order of the same number', async () => {
    const genuine = orderBody([{ sku: 'PRINT-A5' }]);
    await send(STORE_A, 'orders/paid', genuine);
    const ofA = await waitFor(statusIs(STORE_A, genuine.admin_graphql_api_id, 'submitted'), { what: "store A's own order submitted" });
    expect(ofA.sourceOrderId).toBe(`sec-a-${genuine.order_number}`);

    // The attacker re-sends A's signed body with B's domain (B's Admin API does not have the order).
    await send(STORE_B, 'orders/paid', genuine, { seed: false });
    const refused = await waitFor(statusIs(STORE_B, genuine.admin_graphql_api_id, 'not-printed'), { what: 'the replay refused' });
    expect(refused.notInShopAt).toBeTruthy();
    expect(refused.notPrintedReason).toMatch(/has no order .*not this store's/);
    expect(refused.sourceOrderId).toBeUndefined();
    expect(await h.runtime.store.getOrderBody(STORE_B, genuine.admin_graphql_api_id)).toBeUndefined();
    expect(emulatorOrders(h.emulator, `sec-b-${genuine.order_number}`)).toEqual([]);
    expect(emulatorOrders(h.emulator, `sec-a-${genuine.order_number}`)).toHaveLength(1);

    // Sent again, it keeps nothing either.
    await send(STORE_B, 'orders/paid', { ...genuine, updated_at: '2026-11-22T10:00:00-05:00' }, { seed: false });
    await waitFor(async () => (await h.runtime.store.history(STORE_B, genuine.admin_graphql_api_id)).filter((e) => e.event === 'orders/paid received').length === 2, { what: 'the second replay recorded' });
    expect(await h.runtime.store.getOrderBody(STORE_B, genuine.admin_graphql_api_id)).toBeUndefined();

    // B's own order with the same number (another Shopify id) goes out as usual.
    const own = { ...orderBody([{ sku: 'PRINT-B5' }]), order_number: genuine.order_number, name: genuine.name };
    await send(STORE_B, 'orders/paid', own);
    const ofB = await waitFor(statusIs(STORE_B, own.admin_graphql_api_id, 'submitted'), { what: "store B's own order submitted" });
    expect(ofB.sourceOrderId).toBe(`sec-b-${genuine.order_number}`);
    expect(emulatorOrders(h.emulator, `sec-b-${genuine.order_number}`)).toHaveLength(1);
  });

  it('a re-sent cancellation or address change acts on nothing of the other store', async () => {
    const genuine = orderBody([{ sku: 'PRINT-A6' }]);
    await send(STORE_A, 'orders/paid', genuine);
    await waitFor(statusIs(STORE_A, genuine.admin_graphql_api_id, 'submitted'), { what: "store A's order submitted" });
    await send(STORE_B, 'orders/cancelled', { ...genuine, cancelled_at: '2026-11-21T11:00:00-05:00', updated_at: '2026-11-21T11:00:00-05:00' }, { seed: false });
    await send(STORE_B, 'orders/updated', { ...genuine, updated_at: '2026-11-21T12:00:00-05:00', shipping_address: { ...genuine.shipping_address, address1: 'Attacker Street 1' } }, { seed: false });
    await waitFor(async () => (await h.runtime.store.history(STORE_B, genuine.admin_graphql_api_id)).length >= 2, { what: 'the replays recorded' });
    // A's order at the printer is neither cancelled nor re-addressed.
    const atPrinter = emulatorOrders(h.emulator, `sec-a-${genuine.order_number}`);
    expect(atPrinter).toHaveLength(1);
    expect(atPrinter[0]!.record.status).not.toBe('cancelled');
    expect(JSON.stringify(atPrinter[0]!.record)).not.toContain('Attacker Street');
    expect((await linkOf(STORE_A, genuine.admin_graphql_api_id))!.cancelRequested).toBeUndefined();
  });
});

describe('sourceOrderId claims never reach across stores (item 3)', () => {
  const account = () => ({ baseUrl: h.emulator.baseUrl, ordersUrl: h.emulator.ordersUrl, token: 'token-c', secret: 'secret-c-0123456789', sourceAccount: 'brand-c', destination: 'printer-c' });
  // Store C's own mapping renders store B's ids (B is on the operator's account with the default `{{ shop.handle }}-N`).
  const hostile = testMapping().replace('destination: demo-printer', 'destination: printer-c\norder:\n  sourceOrderId: "sec-b-{{ order.order_number }}"');

  it('a store in test mode claims nothing; live on its own account, its ids are its own account’s', async () => {
    expect((await connectPrintAccount(h.runtime.setup, STORE_C, account())).kind).toBe('saved');
    expect((await pushMapping(h.runtime.setup, STORE_C, hostile, 'merchant')).kind).toBe('saved');

    const trial = orderBody([{ sku: 'PRINT-C1' }]);
    await send(STORE_C, 'orders/paid', trial);
    const tried = await waitFor(async () => {
      const l = await linkOf(STORE_C, trial.admin_graphql_api_id);
      return l?.status === 'waiting' && l.testRun && l;
    }, { what: "store C's test run" });
    expect((tried.testRun!.order as { orderData: { sourceOrderId: string } }).orderData.sourceOrderId).toBe(`sec-b-${trial.order_number}`);

    // B's real order of that number is not held by C's test run.
    const victim = { ...orderBody([{ sku: 'PRINT-B1' }]), order_number: trial.order_number, name: trial.name };
    await send(STORE_B, 'orders/paid', victim);
    await waitFor(statusIs(STORE_B, victim.admin_graphql_api_id, 'submitted'), { what: "store B's order submitted despite C's test run" });

    // C goes live: its order with B's next number is created on C's own account...
    expect(await setPrintMode(h.runtime.setup, STORE_C, 'live', { force: true })).toMatchObject({ kind: 'done' });
    await waitFor(statusIs(STORE_C, trial.admin_graphql_api_id, 'submitted'), { what: "store C's test order sent once live" });
    const live = orderBody([{ sku: 'PRINT-C2' }]);
    await send(STORE_C, 'orders/paid', live);
    await waitFor(statusIs(STORE_C, live.admin_graphql_api_id, 'submitted'), { what: "store C's live order" });

    // ...and B's order of the same number still goes out on the operator's account, held by nothing of C's.
    const second = { ...orderBody([{ sku: 'PRINT-B2' }]), order_number: live.order_number, name: live.name };
    await send(STORE_B, 'orders/paid', second);
    const ofB = await waitFor(statusIs(STORE_B, second.admin_graphql_api_id, 'submitted'), { what: "store B's second order" });
    expect(JSON.stringify(ofB)).not.toContain(STORE_C);
    const byAccount = emulatorOrders(h.emulator, `sec-b-${live.order_number}`).map((o) => o.account.name).sort();
    expect(byAccount).toEqual(['brand-c', 'demo-brand']);

    // The operator-wide postback token finds B's order by that id, never C's.
    expect((await h.runtime.store.findBySourceOrderId(`sec-b-${live.order_number}`))?.shop).toBe(STORE_B);
    expect((await h.runtime.store.findBySourceOrderId(`sec-b-${live.order_number}`, STORE_C))?.shop).toBe(STORE_C);
  });

  it('two orders on one account still never share an id, and the reason names no other store', async () => {
    // STORE_A and STORE_B share the operator's account; a second B order rendering an id A's order holds is held.
    const first = orderBody([{ sku: 'PRINT-A7' }]);
    await send(STORE_A, 'orders/paid', first);
    await waitFor(statusIs(STORE_A, first.admin_graphql_api_id, 'submitted'), { what: "store A's order" });
    await pushMapping(h.runtime.setup, STORE_B, testMapping().replace('destination: demo-printer', 'destination: demo-printer\norder:\n  sourceOrderId: "sec-a-{{ order.order_number }}"'), 'operator');
    const clash = { ...orderBody([{ sku: 'PRINT-B7' }]), order_number: first.order_number, name: first.name };
    await send(STORE_B, 'orders/paid', clash);
    const held = await waitFor(statusIs(STORE_B, clash.admin_graphql_api_id, 'held'), { what: 'the clashing order held' });
    expect(held.problems[0]!.message).toContain('already belongs to another order on the same print account');
    expect(JSON.stringify(held)).not.toContain(STORE_A);
    expect(emulatorOrders(h.emulator, `sec-a-${first.order_number}`)).toHaveLength(1);
  });
});
