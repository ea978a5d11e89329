import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushMapping } from '../../src/shops/setup.js';
import { orderBody, SHOP, SHOPIFY_SECRET, startHarness, testMapping, waitFor, type Harness } from '../helpers/harness.js';
import { signedWebhookHeaders } from '../helpers/shopify-webhooks.js';
import { sessionToken } from '../admin/helpers.js';

/**
 * Issue 22 item 2 against the running app (`start`: web and worker in one process): a store's mapping with a filter
 * chain that runs for seconds, saved and previewed, while another store's webhooks arrive. The slow store's orders are
 * stopped at the budget and held with the reason; the other store's webhooks are answered fast and its orders go out.
 * The bounds on latency are generous for a loaded CI machine; Shopify itself gives 5 s before it retries.
 */
const SLOW = 'slow-store.myshopify.com';
// `sort_natural | reverse` over a thousand long strings, 3,000 times: about 5 s on this machine, unbounded.
const CHAIN = Array.from({ length: 3000 }, () => 'sort_natural | reverse').join(' | ');
const SLOW_MAPPING = testMapping().replace(
  'destination: demo-printer',
  `destination: demo-printer\norder:\n  sourceOrderId: "{% assign x = order.note | split: ',' | ${CHAIN} %}slow-{{ order.order_number }}-{{ x | size }}"`,
);
const LONG_NOTE = Array.from({ length: 1000 }, (_, i) => `${'a'.repeat(1000)}${i}`).join(',');

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  h.standIn.registerShop(SLOW, `shpat_${SLOW}`);
  await h.runtime.sessions.addCustomAppToken(SLOW, `shpat_${SLOW}`, h.config.SHOPIFY_SCOPES);
});
afterAll(() => h?.close());

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;

describe('one store’s slow mapping never holds intake or another store (item 2)', () => {
  it('stops the slow store at the budget while the other store’s webhooks are answered fast and its orders go out', async () => {
    expect((await pushMapping(h.runtime.setup, SLOW, SLOW_MAPPING, 'operator')).kind).toBe('saved');
    expect(h.runtime.registry.storeVersion(SLOW)).toBe(1);

    // The slow store's orders: in Shopify (the editor previews them) and as webhooks (the worker maps them).
    const slowOrders = Array.from({ length: 4 }, () => orderBody([{ sku: 'PRINT-A5' }], { note: LONG_NOTE }));
    for (const body of slowOrders) h.standIn.seedOrder(SLOW, body);
    const slowSent = slowOrders.map((body) => {
      const raw = JSON.stringify(body);
      return fetch(`${h.runtime.url}/webhooks`, { method: 'POST', body: raw, headers: signedWebhookHeaders(SHOPIFY_SECRET, raw, { topic: 'orders/paid', shop: SLOW }) });
    });
    // Two merchants' previews of the slow draft: five orders each, rendered by the app.
    const token = sessionToken(SHOPIFY_SECRET, { shop: SLOW, apiKey: 'test-key' });
    const previews = Array.from({ length: 2 }, () =>
      fetch(`${h.runtime.url}/admin/mappings/draft-preview`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        body: new URLSearchParams({ yaml: SLOW_MAPPING }),
      }).then(async (r) => ({ status: r.status, json: (await r.json()) as { orders: { ok: boolean; problems?: string[] }[] } })),
    );

    // Meanwhile, and for as long as the slow store's work lasts, the other store's webhooks and the liveness check, a
    // few at a time, each timed.
    let previewsDone = false;
    const previewed = Promise.all(previews).finally(() => {
      previewsDone = true;
    });
    const slowHeld = async () => (await Promise.all(slowOrders.map((b) => h.runtime.store.get(SLOW, b.admin_graphql_api_id)))).every((l) => l?.status === 'held');
    const latencies: number[] = [];
    const health: number[] = [];
    const fastOrders: ReturnType<typeof orderBody>[] = [];
    for (let round = 0; round < 200 && (round < 40 || !previewsDone || !(await slowHeld())); round++) {
      const batch = Array.from({ length: 3 }, () => orderBody([{ sku: 'PRINT-A4' }]));
      fastOrders.push(...batch);
      await Promise.all(
        batch.map(async (body) => {
          const started = performance.now();
          const answer = await h.sendWebhook('orders/paid', body);
          latencies.push(performance.now() - started);
          expect(answer.status).toBe(200);
        }),
      );
      const started = performance.now();
      const live = await fetch(`${h.runtime.url}/healthz`);
      health.push(performance.now() - started);
      expect(live.status).toBe(200);
      // The next batch once this one went out: the rounds keep pace with the other store's pipeline, not with the
      // clock, so the loop lasts as long as the slow store's work however fast this machine answers webhooks.
      await waitFor(async () => (await Promise.all(batch.map((b) => h.runtime.store.get(SHOP, b.admin_graphql_api_id)))).every((l) => l?.status === 'submitted'), {
        timeoutMs: 30_000,
        what: "the other store's batch submitted while the slow store's mapping runs",
      });
    }
    expect(previewsDone).toBe(true);

    expect((await Promise.all(slowSent)).every((r) => r.status === 200)).toBe(true);
    // The other store's orders went out while the slow store's were still being stopped.
    await waitFor(async () => {
      const links = await Promise.all(fastOrders.map((b) => h.runtime.store.get(SHOP, b.admin_graphql_api_id)));
      return links.every((l) => l?.status === 'submitted');
    }, { timeoutMs: 60_000, what: "the other store's orders submitted" });

    for (const body of slowOrders) {
      const held = await waitFor(async () => {
        const l = await h.runtime.store.get(SLOW, body.admin_graphql_api_id);
        return l?.status === 'held' && l;
      }, { timeoutMs: 60_000, what: "the slow store's order held" });
      expect(held.problems.map((p) => p.message).join(' ')).toMatch(/longer than the 1000 ms budget/);
    }
    for (const preview of await previewed) {
      expect(preview.status).toBe(200);
      expect(preview.json.orders).toHaveLength(4);
      expect(preview.json.orders.every((o) => !o.ok && o.problems!.join(' ').includes('budget'))).toBe(true);
    }
    // Bounds for a shared 2-core CI machine running other test files at once: with the templates on the process's own
    // thread these were 4 s and more. The 1 s figure on a quiet machine is in BENCHMARKS.md (npm run bench:isolation).
    expect(percentile(latencies, 95)).toBeLessThan(1000);
    expect(percentile(latencies, 99)).toBeLessThan(2000);
    expect(percentile(health, 95)).toBeLessThan(1000);
  }, 120_000);
});
