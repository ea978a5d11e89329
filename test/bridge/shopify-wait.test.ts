import { describe, expect, it } from 'vitest';
import { handleWebhook } from '../../src/bridge/webhooks/index.js';
import { submitShopifyOrder } from '../../src/bridge/submit-shopify-order.js';
import { nextRecheck } from '../../src/bridge/shopify-wait.js';
import { sendOrderNow } from '../../src/bridge/send-now.js';
import { memoryDeps, shopifyOrderBody } from '../helpers/bridge-fakes.js';

/** An order that waits for Shopify's risk recommendation or hold is read again on one schedule, whoever asks. */
const SHOP = 'acme.myshopify.com';
const MINUTE = 60_000;

function waitingOnRisk() {
  const deps = memoryDeps();
  let now = Date.parse('2026-11-21T16:00:00Z');
  const clocked = { ...deps, clock: () => new Date(now), holdRecheckMs: 15 * MINUTE };
  const body = shopifyOrderBody();
  deps.shopify.standings.set(body.admin_graphql_api_id, { riskRecommendation: 'CANCEL' });
  const rechecks = () => deps.scheduler.calls.filter((c) => c.kind === 'submit' && c.delayMs! > 0).map((c) => Number(c.generation));
  return { deps: clocked, scheduler: deps.scheduler, body, rechecks, at: (ms: number) => (now = ms), start: now };
}

describe("an order waiting for Shopify's judgement", () => {
  it('reads from the reconciliation (or a webhook) in between join the scheduled re-read instead of starting a chain of their own', async () => {
    const { deps, body, rechecks, at, start } = waitingOnRisk();
    await handleWebhook(deps, { topic: 'orders/paid', shop: SHOP, webhookId: 'wh-1', receivedAt: new Date(start).toISOString(), body: JSON.stringify(body) });
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'waiting', reason: 'risk-recommendation' });
    // The reconciliation, ten and twelve minutes later, reads the order again: still waiting.
    at(start + 10 * MINUTE);
    await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id);
    at(start + 12 * MINUTE);
    await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id);
    // One re-read is due next, not one per look: each would re-schedule itself for as long as the order waits.
    expect(new Set(rechecks()).size).toBe(1);

    // The scheduled re-read runs, still waiting: the next is later (the interval grows), and again only one.
    at(rechecks()[0]!);
    await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id);
    at(rechecks()[0]! + 3 * MINUTE);
    await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id);
    const [first, second, ...more] = [...new Set(rechecks())];
    expect(more).toEqual([]);
    expect(second! - first!).toBeGreaterThan(first! - start);
  });

  it('the schedule grows from the base to six hours, and an order waiting for weeks is read within six hours of any look', () => {
    const base = 15 * MINUTE;
    expect(nextRecheck(0, 0, base)).toBe(base);
    expect(nextRecheck(0, base, base)).toBe(3 * base);
    expect(nextRecheck(0, 3 * base, base)).toBe(7 * base);
    const weeks = 30 * 24 * 60 * MINUTE;
    const due = nextRecheck(0, weeks, base);
    expect(due).toBeGreaterThan(weeks);
    expect(due - weeks).toBeLessThanOrEqual(6 * 60 * MINUTE);
    expect(nextRecheck(0, due - 1, base)).toBe(due);
  });

  it("Send now in the edit window passes the window, not a risk recommendation nobody has seen yet (a Flow workflow sending every order)", async () => {
    const { deps, body, at, start } = waitingOnRisk();
    deps.mapping.settings = { on: 'orders/paid', holdMinutes: 60, validate: false };
    await handleWebhook(deps, { topic: 'orders/paid', shop: SHOP, webhookId: 'wh-2', receivedAt: new Date(start).toISOString(), body: JSON.stringify(body) });
    const actions = { ...deps, failedJobs: { forOrder: async () => [] } };
    expect(await sendOrderNow(actions, { shop: SHOP, orderId: body.admin_graphql_api_id, actor: 'Shopify Flow' })).toMatchObject({ kind: 'done' });
    at(start + 1_000);
    // Shopify's analysis recommends cancelling: the order waits, and nothing reaches the printer.
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'waiting', reason: 'risk-recommendation' });
    expect(deps.printService.creates).toBe(0);

    // The merchant, shown the recommendation, sends it anyway: now it goes.
    expect(await sendOrderNow(actions, { shop: SHOP, orderId: body.admin_graphql_api_id, actor: 'merchant' })).toMatchObject({ kind: 'done' });
    expect(await submitShopifyOrder(deps, SHOP, body.admin_graphql_api_id)).toMatchObject({ kind: 'submitted' });
    expect(deps.printService.creates).toBe(1);
  });
});
