import { describe, expect, it } from 'vitest';
import { handleWebhook } from '../../src/bridge/webhooks/index.js';
import { submitShopifyOrder } from '../../src/bridge/submit-shopify-order.js';
import { memoryDeps, shopifyOrderBody } from '../helpers/bridge-fakes.js';

const SHOP = 'acme.myshopify.com';
const NAME = 'Pia-Privacy-Person';

describe("customers/redact and print-bridge's own hold in Shopify", () => {
  it("has the hold's notes, which quote the order's problem, rewritten in Shopify without the customer's words", async () => {
    const deps = memoryDeps();
    const body = shopifyOrderBody({ line_items: [{ id: 1, admin_graphql_api_id: 'gid://shopify/LineItem/1', sku: null, title: `Cover for ${NAME}`, quantity: 1 }] });
    const orderId = body.admin_graphql_api_id;
    await handleWebhook(deps, { topic: 'orders/paid', shop: SHOP, webhookId: 'wh-r1', receivedAt: new Date().toISOString(), body: JSON.stringify(body) });
    await submitShopifyOrder(deps, SHOP, orderId).catch(() => undefined);
    // The sync placed the app's hold, its notes quoting the problem (which quotes what the customer typed).
    await deps.store.update(SHOP, orderId, (c) => (c ? { link: { ...c, appHold: { notes: `Print Bridge: a line (${NAME}): no product rule matches`, at: new Date().toISOString() } } } : undefined));
    deps.scheduler.shopifyJobs.splice(0);

    await handleWebhook(deps, { topic: 'customers/redact', shop: SHOP, webhookId: 'wh-r2', receivedAt: new Date().toISOString(), body: JSON.stringify({ shop_domain: SHOP, orders_to_redact: [orderId.split('/').at(-1)] }) });
    const link = (await deps.store.get(SHOP, orderId))!;
    expect(JSON.stringify(link.appHold)).not.toContain(NAME);
    // The copy in Shopify is the app's writing too: a sync of the order rewrites it from the redacted link.
    expect(deps.scheduler.shopifyJobs).toContainEqual({ kind: 'sync', shop: SHOP, orderId });
  });
});
