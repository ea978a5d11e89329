import { describe, expect, it } from 'vitest';
import { shopifyOrderSchema } from '../mapping/shopify-order.js';
import { parseOrderWebhook } from '../shopify/order-webhook.js';
import { readOrderJson } from './shopify-order.js';

const BODY = `{"order":{"id":5500000000000000001,"admin_graphql_api_id":"gid://shopify/Order/5500000000000000001","name":"#1001",
"line_items":[{"id":14000000000000000003,"admin_graphql_api_id":"gid://shopify/LineItem/14000000000000000003","sku":"BOOK-A5","title":"Notebook","quantity":2,"current_quantity":2,"properties":[{"name":"Initials","value":"ZÜ"}]}],
"shipping_address":{"name":"Zoë Ünal","address1":"ul. Piotrkowska 1","city":"Łódź","zip":"90-001","country_code":"PL"}}}`;

describe('the one reader of a Shopify order body', () => {
  it('reads ids above 2^53 exactly and unwraps {"order": ...}, for the pipeline and the mapping alike', () => {
    const raw = readOrderJson(BODY) as { id: unknown; line_items: { id: unknown }[] };
    expect(raw.id).toBe('5500000000000000001');
    expect(raw.line_items[0]!.id).toBe('14000000000000000003');

    const pipeline = parseOrderWebhook(BODY);
    expect(pipeline.ok && pipeline.order).toMatchObject({ id: '5500000000000000001', line_items: [{ id: '14000000000000000003', sku: 'BOOK-A5', quantity: 2 }] });
    const mapping = shopifyOrderSchema.parse(raw);
    expect(mapping).toMatchObject({ name: '#1001', line_items: [{ id: '14000000000000000003', sku: 'BOOK-A5', current_quantity: 2 }], shipping_address: { city: 'Łódź' } });
  });

  it('holds each side to what it relies on: the mapping needs names and titles, the pipeline an id', () => {
    const noName = readOrderJson('{"id":1,"line_items":[{"id":2,"quantity":1}]}');
    expect(shopifyOrderSchema.safeParse(noName).success).toBe(false);
    expect(parseOrderWebhook('{"id":1,"line_items":[{"id":2,"quantity":1}]}').ok).toBe(true);
    expect(parseOrderWebhook('{"name":"#1","line_items":[]}').ok).toBe(false);
    expect(parseOrderWebhook('{"id":1,"line_items":[{"id":2,"quantity":1,"current_quantity":-1}]}').ok).toBe(false);
  });

  it('says a line item has no id, naming it by its SKU and title, on the pipeline side too (public bodies review, D5)', () => {
    const body = '{"id":1,"line_items":[{"id":2,"quantity":1},{"sku":"","title":"Grizzly Bear Adoption Kit - Plush Bundle","quantity":1}]}';
    expect(parseOrderWebhook(body)).toEqual({
      ok: false,
      message:
        'line item ? (SKU none, "Grizzly Bear Adoption Kit - Plush Bundle") line_items.1.id: required: every line item has an id (a number, or its digits as text)',
    });
    expect(parseOrderWebhook('{"id":true,"line_items":[]}')).toEqual({ ok: false, message: 'id: expected a Shopify id (a number, or its digits as text), received boolean' });
  });
});
