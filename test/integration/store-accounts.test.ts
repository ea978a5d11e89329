import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAccounts } from '../../src/dev/emulator/accounts.js';
import { postbackTriggers } from '../../src/print-service/postback-triggers.js';
import { parseTriggers } from '../../src/dev/emulator/triggers.js';
import { printEventJobId } from '../../src/queue/queues.js';
import { connectPrintAccount, postbackSetup, pushMapping, rollbackMapping, setPrintMode } from '../../src/shops/setup.js';
import { emulatorOrders, type Harness, orderBody, SHOPIFY_SECRET, startHarness, testMapping, waitFor } from '../helpers/harness.js';
import { signedWebhookHeaders } from '../helpers/shopify-webhooks.js';

/**
 * Issue 16: two stores on two print accounts of their own (two emulator accounts with different secrets). Each
 * store's orders are created with its own signature and account; its postbacks reach only its orders (the other
 * store's token, and the operator-wide one, are refused for them); a store in test mode creates nothing, and its
 * waiting order goes out once when it goes live.
 */
const STORE_A = 'store-a.myshopify.com';
const STORE_B = 'store-b.myshopify.com';
const OPERATOR_TOKEN = 'postback-test-token-0123456789abcdef';
const ACCOUNTS = parseAccounts([
  { name: 'demo-brand', token: 'demo-token', secret: 'demo-secret', accountId: 'a0000000000000000000000a' },
  { name: 'brand-a', token: 'token-a', secret: 'secret-a-0123456789', accountId: 'a1111111111111111111111a', destinations: [{ name: 'printer-a' }] },
  { name: 'brand-b', token: 'token-b', secret: 'secret-b-9876543210', accountId: 'b2222222222222222222222b', destinations: [{ name: 'printer-b' }] },
]);

describe('stores on print accounts of their own', () => {
  let h: Harness;
  const tokens: Record<string, string> = {};

  const account = (name: 'a' | 'b') => ({
    baseUrl: h.emulator.baseUrl,
    ordersUrl: h.emulator.ordersUrl,
    token: `token-${name}`,
    secret: name === 'a' ? 'secret-a-0123456789' : 'secret-b-9876543210',
    sourceAccount: `brand-${name}`,
    destination: `printer-${name}`,
  });
  const send = async (shop: string, body: ReturnType<typeof orderBody>) => {
    h.standIn.seedOrder(shop, body);
    const raw = JSON.stringify(body);
    const sent = await fetch(`${h.runtime.url}/webhooks`, { method: 'POST', body: raw, headers: signedWebhookHeaders(SHOPIFY_SECRET, raw, { topic: 'orders/paid', shop, webhookId: randomUUID() }) });
    expect(sent.status).toBe(200);
  };
  const postback = (token: string, event: Record<string, unknown>) => fetch(`${h.runtime.url}/postbacks/${token}`, { method: 'POST', body: JSON.stringify(event), headers: { 'content-type': 'application/json' } });

  beforeAll(async () => {
    h = await startHarness({ emulator: { manual: false, accounts: ACCOUNTS, delays: { receivedMs: 20, printReadyMs: 40, shipMs: 60 } } });
    for (const shop of [STORE_A, STORE_B]) {
      h.standIn.registerShop(shop, `shpat_${shop}`);
      await h.runtime.sessions.addCustomAppToken(shop, `shpat_${shop}`, h.config.SHOPIFY_SCOPES);
    }
    // Each account's triggers post to its store's own address; the operator's to the operator-wide one.
    for (const shop of [STORE_A, STORE_B]) tokens[shop] = (await postbackSetup(h.runtime.setup, shop)).token;
    h.emulator.deliveries.setTriggers(
      parseTriggers([
        ...postbackTriggers(`${h.runtime.url}/postbacks/${OPERATOR_TOKEN}`).map((t) => ({ ...t, account: 'demo-brand' })),
        ...postbackTriggers(`${h.runtime.url}/postbacks/${tokens[STORE_A]}`).map((t) => ({ ...t, account: 'brand-a' })),
        ...postbackTriggers(`${h.runtime.url}/postbacks/${tokens[STORE_B]}`).map((t) => ({ ...t, account: 'brand-b' })),
      ]),
    );
  });
  afterAll(() => h?.close());

  it('refuses an account the print service does not accept, in plain words, and stores nothing', async () => {
    const wrongSecret = await connectPrintAccount(h.runtime.setup, STORE_A, { ...account('a'), secret: 'not-the-secret' });
    expect(wrongSecret.kind).toBe('refused');
    expect(wrongSecret.kind === 'refused' && wrongSecret.check.message).toMatch(/signature did not match.*secret key is wrong/);
    const unknownToken = await connectPrintAccount(h.runtime.setup, STORE_A, { ...account('a'), token: 'no-such-token' });
    expect(unknownToken.kind === 'refused' && unknownToken.check.message).toMatch(/does not know this access token/);
    const unreachable = await connectPrintAccount(h.runtime.setup, STORE_A, { ...account('a'), baseUrl: 'http://127.0.0.1:9', ordersUrl: undefined });
    expect(unreachable.kind === 'refused' && unreachable.check.message).toMatch(/could not be reached/);
    expect((await h.runtime.shopSettings.get(STORE_A)).printAccount).toBeUndefined();
  });

  it("creates nothing for a store in test mode, shows what would have been sent, and sends it once when the store goes live", async () => {
    const connected = await connectPrintAccount(h.runtime.setup, STORE_A, account('a'));
    expect(connected.kind).toBe('saved');
    expect(connected.kind === 'saved' && connected.setup.mode).toBe('test');
    // The secret never comes back out of the settings a page reads.
    expect(JSON.stringify(await h.runtime.shopSettings.get(STORE_A))).not.toMatch(/secret-a|token-a/);

    const body = orderBody([{ sku: 'PRINT-A1' }]);
    await send(STORE_A, body);
    const waiting = await waitFor(async () => {
      const link = await h.runtime.store.get(STORE_A, body.admin_graphql_api_id);
      return link?.status === 'waiting' && link.testRun && link;
    }, { what: 'the test-mode order' });
    expect(waiting.problems.map((p) => p.kind)).toEqual(['test-mode']);
    expect(waiting.testRun).toMatchObject({ valid: true, problems: [] });
    expect((waiting.testRun!.order as { destination: { name: string } }).destination.name).toBe('printer-a');
    expect(h.emulator.store.all().filter((o) => o.account.name === 'brand-a')).toEqual([]);
    expect((await h.runtime.shopSettings.get(STORE_A)).testValidatedAt).toBeTruthy();

    // Going live from the app needs the checklist: here every item is done.
    const live = await setPrintMode(h.runtime.setup, STORE_A, 'live');
    expect(live).toMatchObject({ kind: 'done', missing: [] });
    const shipped = await waitFor(() => {
      const o = h.standIn.getOrder(STORE_A, body.admin_graphql_api_id);
      return o && o.fulfillments.length === 1 && o;
    }, { timeoutMs: 30_000, what: "store A's fulfillment" });
    expect(shipped.fulfillments[0]!.trackingInfo[0]!.number).toMatch(/^EM\d{9}GB$/);
    const link = (await h.runtime.store.get(STORE_A, body.admin_graphql_api_id))!;
    expect(link.printAccount).toBe('own');
    const created = emulatorOrders(h.emulator, link.sourceOrderId!);
    expect(created).toHaveLength(1);
    expect(created[0]!.account.name).toBe('brand-a');
    expect(created[0]!.record.destination.name).toBe('printer-a');
  });

  it("signs each store's orders with its own account, and a postback acts only on its own store's orders", async () => {
    const connected = await connectPrintAccount(h.runtime.setup, STORE_B, account('b'));
    expect(connected.kind).toBe('saved');
    // The operator goes live for it without the checklist (print-bridge shops mode ... live).
    expect(await setPrintMode(h.runtime.setup, STORE_B, 'live')).toMatchObject({ kind: 'not-ready' });
    expect(await setPrintMode(h.runtime.setup, STORE_B, 'live', { force: true })).toMatchObject({ kind: 'done' });

    const a = orderBody([{ sku: 'PRINT-A2' }]);
    const b = orderBody([{ sku: 'PRINT-B1' }]);
    await Promise.all([send(STORE_A, a), send(STORE_B, b)]);
    const linkA = await waitFor(async () => {
      const l = await h.runtime.store.get(STORE_A, a.admin_graphql_api_id);
      return l?.status === 'shipped' && l;
    }, { timeoutMs: 30_000, what: "store A's order shipped" });
    const linkB = await waitFor(async () => {
      const l = await h.runtime.store.get(STORE_B, b.admin_graphql_api_id);
      return l?.status === 'shipped' && l;
    }, { timeoutMs: 30_000, what: "store B's order shipped" });
    expect(emulatorOrders(h.emulator, linkA.sourceOrderId!).map((o) => o.account.name)).toEqual(['brand-a']);
    expect(emulatorOrders(h.emulator, linkB.sourceOrderId!).map((o) => o.account.name)).toEqual(['brand-b']);
    // Every trigger delivery reached print-bridge on its store's own address and was accepted. The emulator marks a
    // delivery delivered when it reads the app's answer, which may come after the worker applied the event: every
    // delivery's answer is waited for.
    await h.emulator.deliveries.idle();
    const deliveries = (await (await fetch(`${h.emulator.hooksUrl}/deliveries?orderId=${linkB.printOrderId}`)).json()) as { data: { url: string; state: string }[] };
    expect(deliveries.data.length).toBeGreaterThanOrEqual(3);
    expect(deliveries.data.every((d) => d.url.endsWith(`/postbacks/${tokens[STORE_B]}`) && d.state === 'delivered')).toBe(true);

    // Store B's token, and the operator-wide token, naming store A's order: accepted at the door, refused by the worker.
    const claim = { event: 'Order Cancelled', orderId: linkA.printOrderId, sourceOrderId: linkA.sourceOrderId, status: 'cancelled' };
    for (const token of [tokens[STORE_B]!, OPERATOR_TOKEN]) {
      const answer = await postback(token, claim);
      expect(answer.status).toBe(202);
    }
    const hash = (await (await postback(tokens[STORE_B]!, claim)).json()) as { id: string };
    for (const id of [printEventJobId(`${hash.id}.${STORE_B}`), printEventJobId(hash.id)]) {
      const outcome = await waitFor(async () => {
        const job = await h.runtime.queues.events.getJob(id);
        return job && (await job.getState()) === 'completed' && (job.returnvalue as { kind: string });
      }, { what: `the refused event job ${id}` });
      expect(outcome.kind).toBe('out-of-scope');
    }
    const after = (await h.runtime.store.get(STORE_A, a.admin_graphql_api_id))!;
    expect(after.status).toBe('shipped');
    expect(after.cancelRequested).toBeUndefined();
    // Nothing of it reached store A's order, not even its history.
    expect((await h.runtime.store.history(STORE_A, a.admin_graphql_api_id)).filter((e) => /cancel/i.test(e.event))).toEqual([]);
    // An unknown token is refused at the door.
    expect((await postback('pb_not-a-token-of-anyone-0123456789', claim)).status).toBe(401);
  });

  it("rotates a store's postback address, keeping the old one working for 24 hours", async () => {
    const before = tokens[STORE_A]!;
    const rotated = await postbackSetup(h.runtime.setup, STORE_A, { rotate: true });
    expect(rotated.token).not.toBe(before);
    expect(Date.parse(rotated.previousValidUntil!) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect(await h.runtime.shopSettings.shopOfPostbackToken(before)).toBe(STORE_A);
    expect(await h.runtime.shopSettings.shopOfPostbackToken(rotated.token)).toBe(STORE_A);
    expect((await postbackSetup(h.runtime.setup, STORE_A)).token).toBe(rotated.token);
    const event = { event: 'Order Received', orderId: 'ffffffffffffffffffffffff', sourceOrderId: 'nobody-1', status: 'Received' };
    expect((await postback(before, event)).status).toBe(202);
    expect((await postback(rotated.token, event)).status).toBe(202);
    // The trigger set-up names the new address for every event.
    expect(rotated.triggers.map((t) => t.event).sort()).toEqual(['Order Cancelled', 'Order Errored', 'Order Print Ready', 'Order Received', 'Order Submission Error', 'Shipment Shipped']);
    expect(rotated.triggers.every((t) => t.url === rotated.url && t.url.endsWith(rotated.token))).toBe(true);
  });

  it("maps a store's orders with its own saved mapping version, and a rollback changes what the next order uses", async () => {
    const version = (prefix: string) => testMapping().replace('sku: "{{ line.sku }}"', `sku: "${prefix}-{{ line.sku }}"`);
    const sentSku = async () => {
      const body = orderBody([{ sku: 'PRINT-V' }]);
      await send(STORE_B, body);
      const link = await waitFor(async () => {
        const l = await h.runtime.store.get(STORE_B, body.admin_graphql_api_id);
        return l?.printOrderId && l;
      }, { timeoutMs: 20_000, what: "store B's order created" });
      return (emulatorOrders(h.emulator, link.sourceOrderId!)[0]!.record.orderData as { items: { sku: string }[] }).items[0]!.sku;
    };
    expect(await pushMapping(h.runtime.setup, STORE_B, version('V1'), `${STORE_B} user 7`, 'first')).toEqual({ kind: 'saved', version: 1 });
    expect(await pushMapping(h.runtime.setup, STORE_B, version('V2'), `${STORE_B} user 7`)).toEqual({ kind: 'saved', version: 2 });
    expect(await sentSku()).toBe('V2-PRINT-V');
    expect(await rollbackMapping(h.runtime.setup, STORE_B, 1)).toEqual({ kind: 'saved', version: 1 });
    expect(await sentSku()).toBe('V1-PRINT-V');
    // Store A is still served by the files.
    expect(h.runtime.registry.forShop(STORE_A)?.file).toMatch(/default\.yaml$/);
    // A text with a problem is refused at its line and column, and nothing is stored.
    const broken = await pushMapping(h.runtime.setup, STORE_B, version('V3').replace('unmapped: hold', 'unmapped: sometimes'), 'operator');
    expect(broken.kind).toBe('problems');
    expect(broken.kind === 'problems' && broken.problems[0]).toMatchObject({ line: expect.any(Number), col: expect.any(Number) });
    expect((await h.runtime.shopSettings.mappingVersions(STORE_B)).map((v) => v.version)).toEqual([2, 1]);
  });
});
