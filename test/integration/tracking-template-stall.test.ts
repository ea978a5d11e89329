import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderPath } from '../../src/admin/order-fragments.js';
const TRACKING_URL_PROBLEM = 'tracking-url';
import { ORDER_RENDER_BUDGET_MS } from '../../src/mapping/templates.js';
import { postbackTriggers } from '../../src/print-service/postback-triggers.js';
import { parseTriggers } from '../../src/dev/emulator/triggers.js';
import { type Harness, orderBody, SHOP, SHOPIFY_SECRET, startHarness, testMapping, waitFor } from '../helpers/harness.js';
import { sessionToken } from '../admin/helpers.js';

/**
 * A merchant can stall every store: a mapping's tracking-URL template was rendered on the app's own thread without
 * the render budget, on the order page, the order list and when a shipment was fulfilled. A template that takes about
 * a second a render (it runs until the engine's own limit), two shipped parcels and the order list opened were enough
 * for other stores' webhooks to wait past 5 s. Against the running app (web and worker in this process): the event
 * loop is never held anywhere near the budget while the shipments are fulfilled and the pages are read, and the
 * template over its budget is a problem on the order, not a stall.
 */
const SLOW_URL = 'https://track.example.com/{% for i in (1..5000) %}{% for j in (1..5000) %}{% endfor %}{% endfor %}{{ trackingNumber }}';

describe('a slow tracking-URL template', () => {
  let h: Harness;
  let probe: IntervalHistogram;
  beforeAll(async () => {
    h = await startHarness({
      mapping: testMapping().replace(/ {2}royalmail: .*\n/, `  royalmail: { company: "Slow Post", url: "${SLOW_URL}" }\n`),
      emulator: { manual: false, delays: { receivedMs: 20, printReadyMs: 40, shipMs: 60 } },
    });
    h.emulator.deliveries.setTriggers(parseTriggers(postbackTriggers(`${h.runtime.url}/postbacks/postback-test-token-0123456789abcdef`)));
    probe = monitorEventLoopDelay({ resolution: 10 });
  }, 60_000);
  afterAll(async () => {
    probe?.disable();
    await h?.close();
  });

  /** The longest the event loop was held while `work` ran, in ms. */
  async function heldWhile(work: () => Promise<void>): Promise<number> {
    probe.reset();
    probe.enable();
    try {
      await work();
    } finally {
      probe.disable();
    }
    return probe.max / 1e6;
  }

  const body = orderBody([{ sku: 'PRINT-A5', vendor: 'North' }, { sku: 'PRINT-A4', vendor: 'South' }]);
  const merchant = (path: string) => fetch(`${h.runtime.url}${path}${path.includes('?') ? '&' : '?'}id_token=${sessionToken(SHOPIFY_SECRET, { shop: SHOP, apiKey: 'test-key' })}`);

  it('does not hold the event loop past the budget when its shipments are fulfilled; the order gets the problem, Shopify the company without a link', async () => {
    const held = await heldWhile(async () => {
      await h.sendWebhook('orders/paid', body);
      await waitFor(
        async () => {
          const link = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
          return link && link.shipments.length === 2 && link.shipments.every((s) => s.fulfillmentId) && link;
        },
        { timeoutMs: 60_000, what: 'both shipments fulfilled' },
      );
    });
    expect(held).toBeLessThan(ORDER_RENDER_BUDGET_MS / 2);
    const link = (await h.runtime.store.get(SHOP, body.admin_graphql_api_id))!;
    expect(link.shipments.map((s) => s.trackingUrl)).toEqual([undefined, undefined]);
    const problems = link.problems.filter((p) => p.kind === TRACKING_URL_PROBLEM);
    expect(problems.map((p) => p.subject).sort()).toEqual(['tracking of shipment 0', 'tracking of shipment 1']);
    expect(problems[0]!.message).toMatch(/tracking URL .* "royalmail" could not be rendered \(.*budget.*\)/);
    const fulfillments = h.standIn.getOrder(SHOP, body.admin_graphql_api_id)!.fulfillments;
    expect(fulfillments.flatMap((f) => f.trackingInfo.map((t) => [t.company, t.url]))).toEqual([
      ['Slow Post', null],
      ['Slow Post', null],
    ]);
  }, 90_000);

  it('does not hold the event loop past the budget on the order list and the order page', async () => {
    let list = '';
    let page = '';
    const held = await heldWhile(async () => {
      for (let i = 0; i < 2; i++) list = await (await merchant('/admin')).text();
      page = await (await merchant(orderPath({ shop: SHOP, orderId: body.admin_graphql_api_id }))).text();
    });
    expect(held).toBeLessThan(ORDER_RENDER_BUDGET_MS / 2);
    expect(list).toContain('Slow Post');
    expect(page).toContain('Slow Post');
    expect(page).toContain('could not be rendered');
  }, 60_000);
});
