import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { jobId } from '../../src/queue/queues.js';
import { type Harness, SHOP, startHarness, waitFor } from '../helpers/harness.js';

/**
 * Every topic shopify.app.toml subscribes to, delivered with the body Shopify's webhook reference shows as its sample
 * payload (test/fixtures/shopify/webhook-samples, written after the reference's samples for API 2026-10), signed
 * as Shopify signs it, through intake to the topic's handler. A stand-in of our own encodes our assumptions about
 * Shopify's bodies; these are Shopify's shapes: 18-digit ids past 2^53, `variant_id` null, an order that is already
 * cancelled in orders/create's sample, a `fulfillment_orders/moved` body with `original_fulfillment_order` and no
 * `fulfillment_order`, an app/uninstalled shop object.
 *
 * Shopify's samples write the shop as `{shop}.myshopify.com`, or leave the app/uninstalled shop's domains null: a real
 * delivery names the store it comes from, so the store's domain is written there, as Shopify's delivery would.
 */
const SAMPLES = new URL('../fixtures/shopify/webhook-samples/', import.meta.url);
const sample = (file: string) => readFileSync(new URL(file, SAMPLES), 'utf8').replaceAll('{shop}.myshopify.com', SHOP);

/** The sample body of each subscribed topic (Shopify uses one order sample for every order topic). */
const SAMPLE_OF: Record<string, string> = {
  'orders/create': 'order.json',
  'orders/paid': 'order.json',
  'orders/updated': 'order.json',
  'orders/cancelled': 'order.json',
  'refunds/create': 'refunds-create.json',
  'app/scopes_update': 'app-scopes-update.json',
  'fulfillment_orders/placed_on_hold': 'fulfillment-orders-placed-on-hold.json',
  'fulfillment_orders/hold_released': 'fulfillment-orders-hold-released.json',
  'fulfillment_orders/scheduled_fulfillment_order_ready': 'fulfillment-orders-scheduled-fulfillment-order-ready.json',
  'fulfillment_orders/moved': 'fulfillment-orders-moved.json',
  'customers/data_request': 'customers-data-request.json',
  'customers/redact': 'customers-redact.json',
  // Last: these two end the store's install and data.
  'app/uninstalled': 'app-uninstalled.json',
  'shop/redact': 'shop-redact.json',
};

/** The topics shopify.app.toml subscribes to, read from the file the Shopify CLI deploys. */
function subscribedTopics(): string[] {
  const toml = parseToml(readFileSync(new URL('../../shopify.app.toml', import.meta.url), 'utf8')) as unknown as {
    webhooks: { subscriptions: { topics?: string[]; compliance_topics?: string[] }[] };
  };
  return [...new Set(toml.webhooks.subscriptions.flatMap((s) => [...(s.topics ?? []), ...(s.compliance_topics ?? [])]))];
}

/**
 * What each topic's handler makes of its sample. Shopify's order sample is an order the customer cancelled, so every
 * order topic ends with nothing sent to the printer; the fulfillment-order samples name a fulfillment order the store
 * does not have, recorded and then looked up in the store's Admin API (where it finds nothing).
 */
const HANDLED_AS: Record<string, string> = {
  'orders/create': 'cancelled-before-submission',
  'orders/paid': 'cancelled-before-submission',
  'orders/updated': 'cancelled-before-submission',
  'orders/cancelled': 'cancelled-before-submission',
  'refunds/create': 'recorded',
  'app/scopes_update': 'recorded',
  'fulfillment_orders/placed_on_hold': 'recorded',
  'fulfillment_orders/hold_released': 'recorded',
  'fulfillment_orders/scheduled_fulfillment_order_ready': 'recorded',
  'customers/data_request': 'data-request',
  'customers/redact': 'redacted',
};

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  // Shopify sends an order's webhooks because the store has the order: the Admin stand-in has it too.
  h.standIn.seedOrder(SHOP, JSON.parse(sample('order.json')) as Record<string, unknown>);
});
afterAll(() => h?.close());

async function deliver(topic: string, body: string, webhookId: string): Promise<{ status: number; outcome: { kind: string; reason?: string } }> {
  const res = await h.sendWebhook(topic, body, webhookId);
  if (res.status !== 200) return { status: res.status, outcome: { kind: 'refused at intake', reason: await res.text() } };
  const job = await waitFor(async () => {
    const found = await h.runtime.queues.webhooks.getJob(jobId('wh', webhookId));
    return found?.finishedOn && found;
  }, { timeoutMs: 20_000, what: `the ${topic} job handled` });
  return { status: res.status, outcome: job.returnvalue as { kind: string; reason?: string } };
}

describe("Shopify's sample payloads, through intake to each topic's handler", () => {
  it('has a sample for every topic shopify.app.toml subscribes to', () => {
    expect(subscribedTopics().sort()).toEqual(Object.keys(SAMPLE_OF).sort());
  });

  it.each(Object.keys(HANDLED_AS))(
    '%s: accepted and handled, not refused',
    async (topic) => {
      const { status, outcome } = await deliver(topic, sample(SAMPLE_OF[topic]!), `sample-${topic}`);
      expect(status).toBe(200);
      expect(outcome.kind, outcome.reason).toBe(HANDLED_AS[topic]);
    },
  );

  it("fulfillment_orders/moved in Shopify's real shape (original_fulfillment_order, moved_fulfillment_order) is followed on the order", async () => {
    // The sample's ids, put on the order Shopify has: the move of that order's fulfillment order to another location.
    const order = h.standIn.getOrder(SHOP, 'gid://shopify/Order/820982911946154508')!;
    const fulfillmentOrderId = order.fulfillmentOrders[0]!.id;
    const body = sample(SAMPLE_OF['fulfillment_orders/moved']!).replaceAll('gid://shopify/FulfillmentOrder/1"', `${fulfillmentOrderId}"`);
    const { status, outcome } = await deliver('fulfillment_orders/moved', body, 'sample-moved');
    expect(status).toBe(200);
    expect(outcome).toMatchObject({ kind: 'recorded', orderId: fulfillmentOrderId });
    const history = await waitFor(async () => {
      const events = await h.runtime.store.history(SHOP, order.id);
      return events.find((e) => e.event === 'Shopify moved a fulfillment order');
    }, { what: 'the move noted on the order' });
    expect(history.detail).toContain(`${fulfillmentOrderId} → gid://shopify/FulfillmentOrder/2 at gid://shopify/Location/1`);
  });

  it('app/uninstalled and shop/redact: accepted and handled, the store disconnected and its data gone', async () => {
    const shopObject = JSON.parse(sample(SAMPLE_OF['app/uninstalled']!)) as Record<string, unknown>;
    const uninstalled = await deliver('app/uninstalled', JSON.stringify({ ...shopObject, domain: SHOP, myshopify_domain: SHOP }), 'sample-uninstalled');
    expect(uninstalled).toMatchObject({ status: 200, outcome: { kind: 'uninstalled' } });
    // A shop/redact job keeps no record once done (its own record would name the store): the effect is what shows.
    const redact = await h.sendWebhook('shop/redact', sample(SAMPLE_OF['shop/redact']!), 'sample-shop-redact');
    expect(redact.status).toBe(200);
    await waitFor(async () => (await h.runtime.store.get(SHOP, 'gid://shopify/Order/820982911946154508')) === undefined, { what: "the store's orders redacted" });
    await waitFor(async () => (await h.runtime.queues.webhooks.getJob(jobId('wh', 'sample-shop-redact'))) === undefined, { what: 'the shop/redact job done' });
    expect(await h.runtime.queues.webhooks.getJobs(['failed'])).toEqual([]);
  });
});
