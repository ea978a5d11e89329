import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderBody, SHOP, SHOPIFY_SECRET, startHarness, testMapping, waitFor, waitForIdle, type Harness } from '../helpers/harness.js';
import { signedWebhookHeaders } from '../helpers/shopify-webhooks.js';
import { dumpRedis, dumpSchema, mentioning } from '../helpers/privacy-scan.js';

/**
 * An outside attack run found redaction leaving copies behind: a customer's name, typed into an artwork URL and quoted
 * by the problem the URL raised, stayed in the order's problems and history, in the failed job's error and in the
 * queue's event stream; a store's domain and order ids stayed in the queues' kept job records and in the `shops` row.
 * Against the running app, these tests read back everything it keeps (every table of its schema, every Redis key under
 * its prefix) after the webhook.
 */

// Artwork comes from what the customer typed on the product page.
const MAPPING = testMapping().replace('path: "https://files.example.com/{{ line.sku }}.pdf"', 'path: "{{ line.properties._cover_pdf }}"');

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ mapping: MAPPING });
});
afterAll(async () => {
  await h?.close();
});

function send(topic: string, body: unknown, webhookId = randomUUID()) {
  const raw = JSON.stringify(body);
  return fetch(`${h.runtime.url}/webhooks`, { method: 'POST', body: raw, headers: signedWebhookHeaders(SHOPIFY_SECRET, raw, { topic, shop: SHOP, webhookId }) });
}

/** How long a wait may last on a machine busy with other suites: a ceiling only, each wait ends at its event. */
const LOADED = 60_000;

const numeric = (order: { admin_graphql_api_id: string }) => order.admin_graphql_api_id.split('/').pop()!;

/** Pia's order: her name in her address, her contact, and in the artwork URL she typed (http: a mapping problem). */
function piasOrder() {
  const order = orderBody([{ sku: 'PRINT-A4' }], {
    email: 'pia.person@example.org',
    shipping_address: {
      name: 'Pia Privacy-Person', first_name: 'Pia', last_name: 'Privacy-Person', address1: '7 Quiet Close', address2: null,
      city: 'Hebden Bridge', zip: 'HX7 8AA', province: null, country: 'United Kingdom', country_code: 'GB', phone: '+44 1422 555 0199', company: null,
    },
  });
  order.line_items[0]!.properties = [{ name: '_cover_pdf', value: 'http://files.example.com/Pia-Privacy-Person/cover.pdf' }] as never;
  return order;
}
const PIA = ['Pia-Privacy-Person', 'Privacy-Person', 'pia.person@example.org', '7 Quiet Close', '555 0199'];

/** Another customer's order, printed: what her redaction must leave alone. */
function zoesOrder() {
  const order = orderBody([{ sku: 'PRINT-A5' }]);
  order.line_items[0]!.properties = [{ name: '_cover_pdf', value: 'https://files.example.com/zoe/cover.pdf' }] as never;
  return order;
}

async function everything(): Promise<string[]> {
  return [...(await dumpSchema(h.schema)), ...(await dumpRedis(h.prefix))];
}

describe("customers/redact leaves the customer's name behind (problems, history, job records, event streams)", () => {
  it('erases every copy of the customer, artwork URLs carrying her name included, and nothing of another customer', async () => {
    const pia = piasOrder();
    const zoe = zoesOrder();
    expect((await h.sendWebhook('orders/paid', pia)).status).toBe(200);
    expect((await h.sendWebhook('orders/paid', zoe)).status).toBe(200);
    await waitFor(async () => (await h.runtime.store.get(SHOP, pia.admin_graphql_api_id))?.status === 'held', { timeoutMs: LOADED, what: "Pia's order held for its artwork URL" });
    await waitFor(async () => (await h.runtime.store.get(SHOP, zoe.admin_graphql_api_id))?.status === 'submitted', { timeoutMs: LOADED, what: "Zoë's order submitted" });
    await waitForIdle(h, { timeoutMs: LOADED });
    // The copies the attack run found are there to be erased: the problem, the history, the failed job, its event.
    const before = mentioning(await everything(), ['Pia-Privacy-Person']);
    expect(before.some((l) => l.startsWith('orders: '))).toBe(true);
    expect(before.some((l) => l.startsWith('order_history: '))).toBe(true);
    expect(before.some((l) => l.includes(':bull:') && l.includes(' hash '))).toBe(true);
    expect(before.some((l) => l.includes(':events stream '))).toBe(true);

    const redactId = randomUUID();
    const request = { shop_id: 1, shop_domain: SHOP, customer: { id: 9, email: 'pia.person@example.org', phone: '+44 1422 555 0199' }, orders_to_redact: [numeric(pia)] };
    expect((await send('customers/redact', request, redactId)).status).toBe(200);
    await waitFor(async () => (await h.runtime.queues.webhooks.getJob(`wh|${redactId}`))?.finishedOn, { timeoutMs: LOADED, what: 'the customers/redact job done' });
    await waitForIdle(h, { timeoutMs: LOADED });

    expect(mentioning(await everything(), PIA)).toEqual([]);
    // The order's course stays readable: the problem's kind, the history's events, and the redaction itself.
    const link = await h.runtime.store.get(SHOP, pia.admin_graphql_api_id);
    expect(link).toMatchObject({ status: 'held', problems: [expect.objectContaining({ kind: 'mapping' })] });
    const history = await h.runtime.store.history(SHOP, pia.admin_graphql_api_id);
    // The redaction, and after it print-bridge's own hold in Shopify written again from the redacted problem.
    expect(history).toContainEqual(expect.objectContaining({ event: 'customer data redacted', detail: `customers/redact webhook ${redactId}` }));
    expect(history.map((e) => e.event)).toContain('orders/paid received');
    // Zoë's order, body and job records are untouched.
    const after = await everything();
    expect(mentioning(after, ['Piotrkowska']).some((l) => l.startsWith('order_bodies: '))).toBe(true);
    expect(mentioning(after, [numeric(zoe)]).some((l) => l.includes(':bull:orders:submit|'))).toBe(true);
  }, 4 * LOADED);
});

describe("shop/redact leaves the store's domain and order ids in kept job records and the shops row", () => {
  it('erases every record naming the store or its orders: tables, job records of every queue, event streams', async () => {
    const orders = [zoesOrder(), zoesOrder(), piasOrder()];
    for (const order of orders) expect((await h.sendWebhook('orders/paid', order)).status).toBe(200);
    await waitFor(async () => {
      const links = await Promise.all(orders.map((o) => h.runtime.store.get(SHOP, o.admin_graphql_api_id)));
      return links.every((l) => l?.status === 'submitted' || l?.status === 'held');
    }, { timeoutMs: LOADED, what: 'the orders submitted or held' });
    await waitForIdle(h, { timeoutMs: LOADED });
    const ids = [SHOP, ...orders.map(numeric)];
    const before = mentioning(await everything(), ids);
    expect(before.some((l) => l.startsWith('shops: '))).toBe(true);
    expect(before.filter((l) => l.includes(':bull:')).length).toBeGreaterThan(5);

    // Shopify's order: the uninstall, then shop/redact 48 hours later.
    h.standIn.uninstallApp(SHOP);
    expect((await send('app/uninstalled', { id: 1, name: 'Acme', domain: SHOP, myshopify_domain: SHOP })).status).toBe(200);
    await waitForIdle(h, { queues: ['webhooks'], timeoutMs: LOADED });
    const redactId = randomUUID();
    expect((await send('shop/redact', { shop_id: 1, shop_domain: SHOP }, redactId)).status).toBe(200);
    await waitFor(async () => {
      const own = await h.runtime.queues.webhooks.getJob(`wh|${redactId}`);
      return (await h.runtime.store.orderIdsOfShop(SHOP)).length === 0 && (own === undefined || Boolean(own.finishedOn));
    }, { timeoutMs: LOADED, what: 'the shop/redact job done' });
    await waitForIdle(h, { timeoutMs: LOADED });

    expect(mentioning(await everything(), ids)).toEqual([]);
  }, 4 * LOADED);
});
