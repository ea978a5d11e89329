import '@shopify/shopify-api/adapters/node';
import { ApiVersion, LogSeverity, Session, shopifyApi } from '@shopify/shopify-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOrderWebhook } from '../../src/shopify/order-webhook.js';
import { startAdminStandIn, type AdminStandIn } from '../../src/dev/admin-stand-in/index.js';
import { createShopifyApiTransport, ShopifyAdminApi, ShopifyPacer, ShopifyUnauthorizedError, ShopifyUnavailableError } from '../../src/shopify/admin-api.js';
import { parseJsonLossless } from '../../src/shopify/json.js';
import { loadMappingText, mapOrder, parseShopifyOrderJson } from '../../src/mapping/index.js';
import { PIPELINE_MAPPING_YAML } from '../../bench/pipeline-mapping.js';
import { shopifyOrder } from '../../bench/shopify-order-shape.js';

/**
 * Issue 15, GraphQL only: the lost-order recovery reads an order through GraphQL and gets it in its webhook body's
 * shape. A body seeded into the stand-in comes back field for field where GraphQL has the field.
 */
const SHOP = 'graphql-read.myshopify.com';
const TOKEN = 'shpat_graphql';

// Written as Shopify sends it: ids above 2^53 as bare numbers.
const SEEDED = `{
  "id": 5500000000000000001, "admin_graphql_api_id": "gid://shopify/Order/5500000000000000001",
  "name": "#2001", "order_number": 2001, "email": "zoe@example.com", "phone": "+48 42 000 00 00", "note": "Gift wrap",
  "tags": "vip, wholesale", "currency": "EUR", "financial_status": "partially_paid",
  "created_at": "2026-11-20T10:00:00-05:00", "updated_at": "2026-11-21T10:00:00-05:00", "cancelled_at": null,
  "note_attributes": [{ "name": "gift", "value": "yes" }],
  "shipping_address": { "name": "Zoë Ünal", "first_name": "Zoë", "last_name": "Ünal", "company": null, "address1": "ul. Piotrkowska 1",
    "address2": "m. 4", "city": "Łódź", "zip": "90-001", "province": "Łódzkie", "province_code": "LD", "country": "Poland", "country_code": "PL", "phone": null },
  "shipping_lines": [{ "id": 1, "title": "Standard", "code": "STD" }],
  "line_items": [
    { "id": 14000000000000000003, "admin_graphql_api_id": "gid://shopify/LineItem/14000000000000000003", "sku": "BOOK-A5", "title": "Notebook", "variant_title": "A5 / Dotted", "product_type": "Stationery", "name": "Notebook - A5",
      "vendor": "Acme", "quantity": 2, "current_quantity": 2, "requires_shipping": true, "gift_card": false, "price": "12.50",
      "properties": [{ "name": "Initials", "value": "ZÜ" }, { "name": "_artwork", "value": "https://files.example.com/zu.pdf" }],
      "variant_id": 46120000000000000106, "product_id": 8812340000000000106 },
    { "id": 14000000000000000005, "admin_graphql_api_id": "gid://shopify/LineItem/14000000000000000005", "sku": null, "title": "Gift card", "variant_title": null, "product_type": null, "name": "Gift card",
      "vendor": null, "quantity": 1, "current_quantity": 1, "requires_shipping": false, "gift_card": true, "price": "25.00", "properties": [],
      "variant_id": null, "product_id": null }
  ]
}`;

describe('an order read through GraphQL in its webhook shape', () => {
  let standIn: AdminStandIn;
  const api = (token = TOKEN) => {
    const shopify = shopifyApi({ apiKey: 'k', apiSecretKey: 's', hostName: 'print-bridge.test', apiVersion: ApiVersion.July26, isEmbeddedApp: false, logger: { level: LogSeverity.Error } });
    const session = new Session({ id: `offline_${SHOP}`, shop: SHOP, state: '', isOnline: false, accessToken: token });
    return new ShopifyAdminApi(createShopifyApiTransport({ shopify, session, adminApiOrigin: standIn.origin }), { pacer: new ShopifyPacer({ unavailableBaseDelayMs: 5 }) });
  };
  beforeAll(async () => {
    standIn = await startAdminStandIn({ port: 0 });
    standIn.registerShop(SHOP, TOKEN);
    standIn.seedOrder(SHOP, parseJsonLossless(SEEDED));
  });
  afterAll(() => standIn.close());

  it('gives back every field the pipeline and the mappings read, ids exact', async () => {
    const text = (await api().getOrderAsWebhookBody('gid://shopify/Order/5500000000000000001'))!;
    const read = parseJsonLossless(text) as Record<string, unknown>;
    const seeded = parseJsonLossless(SEEDED) as Record<string, unknown>;
    for (const key of ['id', 'admin_graphql_api_id', 'name', 'order_number', 'email', 'phone', 'note', 'currency', 'financial_status', 'note_attributes', 'shipping_address']) {
      expect(read[key], key).toEqual(seeded[key]);
    }
    expect(read.tags).toBe('vip, wholesale');
    expect(Date.parse(read.created_at as string)).toBe(Date.parse(seeded.created_at as string));
    expect(read.shipping_lines).toEqual([{ title: 'Standard', code: 'STD' }]);
    const lines = read.line_items as Record<string, unknown>[];
    const seededLines = seeded.line_items as Record<string, unknown>[];
    for (const [i, line] of lines.entries()) {
      for (const key of ['id', 'admin_graphql_api_id', 'sku', 'title', 'variant_title', 'product_type', 'name', 'vendor', 'quantity', 'current_quantity', 'requires_shipping', 'gift_card', 'price', 'properties', 'variant_id', 'product_id']) {
        expect(line[key], `line ${i} ${key}`).toEqual(seededLines[i]![key]);
      }
    }
    // The pipeline reads it as it reads a webhook.
    const parsed = parseOrderWebhook(text);
    expect(parsed.ok && parsed.order).toMatchObject({ id: '5500000000000000001', line_items: [{ id: '14000000000000000003' }, { id: '14000000000000000005' }] });
  });

  it('reads an order with more line items than one page, every line in order', async () => {
    const lines = Array.from({ length: 230 }, (_, i) => ({
      id: 15000000 + i, admin_graphql_api_id: `gid://shopify/LineItem/${15000000 + i}`, sku: `SKU-${i}`, title: `Item ${i}`,
      name: `Item ${i}`, vendor: 'Acme', quantity: 1, current_quantity: 1, requires_shipping: true, gift_card: false, price: '1.00', properties: [],
    }));
    standIn.seedOrder(SHOP, { ...(parseJsonLossless(SEEDED) as object), id: 5500000009, admin_graphql_api_id: 'gid://shopify/Order/5500000009', name: '#2009', line_items: lines });
    const read = parseJsonLossless((await api().getOrderAsWebhookBody('gid://shopify/Order/5500000009'))!) as { line_items: { sku: string }[] };
    expect(read.line_items.map((l) => l.sku)).toEqual(lines.map((l) => l.sku));
    expect(standIn.requests().filter((r) => r.shop === SHOP && typeof r.variables?.after === 'string')).toHaveLength(2);
  });

  it('reads real-shaped orders (webhook line items name a product, not its type) and maps them as their webhooks', async () => {
    const loaded = loadMappingText(PIPELINE_MAPPING_YAML, 'bench.yaml');
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    for (let serial = 1; serial <= 5; serial++) {
      const { body, orderId } = shopifyOrder({ seed: 31, serial });
      standIn.seedOrder(SHOP, parseJsonLossless(body));
      const read = await api().getOrderAsWebhookBody(`gid://shopify/Order/${orderId}`);
      expect(read, `order ${serial}`).toBeDefined();
      const fromRead = mapOrder(parseShopifyOrderJson(read!), loaded.mapping, SHOP);
      const fromWebhook = mapOrder(parseShopifyOrderJson(body), loaded.mapping, SHOP);
      expect(fromRead.ok && fromWebhook.ok, JSON.stringify(fromRead.ok ? '' : fromRead.problems)).toBe(true);
      if (fromRead.ok && fromWebhook.ok) expect(fromRead.order).toEqual(fromWebhook.order);
      // A line whose product has no type reads as the webhook has it: no type (Shopify answers "").
      const lines = (parseJsonLossless(read!) as { line_items: { product_type: unknown }[] }).line_items;
      expect(lines.every((l) => l.product_type === null)).toBe(true);
    }
  });

  it('says undefined for an order Shopify does not have, and fails typed otherwise', async () => {
    expect(await api().getOrderAsWebhookBody('gid://shopify/Order/424242')).toBeUndefined();
    await expect(api('wrong').getOrderAsWebhookBody('gid://shopify/Order/424242')).rejects.toBeInstanceOf(ShopifyUnauthorizedError);
    standIn.failNext(5, 503);
    const unavailable = await api().getOrderAsWebhookBody('gid://shopify/Order/424242').catch((e: unknown) => e);
    expect(unavailable).toBeInstanceOf(ShopifyUnavailableError);
    expect((unavailable as ShopifyUnavailableError).retryable).toBe(true);
  });
});
