import { describe, expect, it } from 'vitest';
import { loadMappingText, mapOrder, parseShopifyOrderJson } from '../../src/mapping/index.js';
import { parseOrder } from '../../src/print-service/schema.js';
import { PIPELINE_MAPPING_YAML, type ShopifyOrderBody, toPrintOrder } from '../../bench/pipeline-mapping.js';
import { summariseSizes } from '../../bench/body-sizes.js';
import { shopifyOrder } from '../../bench/shopify-order-shape.js';

const SHOP = 'bench-shop.myshopify.com';

describe('issue 27 bench: real-shaped orders and the bare pipeline mapping', () => {
  it('generates 6–31 KB bodies, median about 12 KB, 3–10 line items, ids bare integers above 2^53', () => {
    const bodies = Array.from({ length: 1000 }, (_, i) => shopifyOrder({ seed: 27, serial: i + 1 }));
    const sizes = summariseSizes(bodies);
    expect(sizes.minKb).toBeGreaterThanOrEqual(6);
    expect(sizes.maxKb).toBeLessThanOrEqual(31);
    expect(sizes.medianKb).toBeGreaterThan(11);
    expect(sizes.medianKb).toBeLessThan(13.5);
    const first = bodies[0]!;
    expect(BigInt(first.orderId)).toBeGreaterThan(2n ** 53n);
    expect(first.body.startsWith(`{"id":${first.orderId},`)).toBe(true);
    expect(shopifyOrder({ seed: 27, serial: 1 }).body).toBe(first.body);
  });

  it('maps to the same valid print order with the fixed function and with print-bridge’s mapping file', () => {
    const loaded = loadMappingText(PIPELINE_MAPPING_YAML, 'default.yaml');
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    for (let serial = 1; serial <= 20; serial++) {
      const { body } = shopifyOrder({ seed: 27, serial });
      const bare = toPrintOrder(JSON.parse(body) as ShopifyOrderBody, 'bench-shop');
      const parsed = parseOrder(bare);
      expect(parsed.ok, JSON.stringify(parsed.ok ? '' : parsed.problems)).toBe(true);
      const mapped = mapOrder(parseShopifyOrderJson(body), loaded.mapping, SHOP);
      if (!mapped.ok) throw new Error(JSON.stringify(mapped.problems));
      const summary = (o: { orderData: { sourceOrderId?: string; items: { sourceItemId?: string; sku: string; quantity: number; components: { code: string; path: string }[] }[]; shipments: { carrier?: { alias?: string }; shipTo?: { postcode?: string } }[] } }) => ({
        sourceOrderId: o.orderData.sourceOrderId,
        items: o.orderData.items.map((i) => [i.sourceItemId, i.sku, i.quantity, i.components.map((c) => `${c.code}=${c.path}`)]),
        carrier: o.orderData.shipments[0]?.carrier?.alias,
        postcode: o.orderData.shipments[0]?.shipTo?.postcode,
      });
      expect(summary(parsed.ok ? parsed.order : (bare as never))).toEqual(summary(mapped.order));
    }
  });
});
