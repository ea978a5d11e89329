/**
 * `npm run bench:mapping`: Shopify orders mapped per second on one core, for a 10-line-item order with the example
 * mapping (`mappings/default.yaml`, templates compiled once at load). The baseline in the same run is a deep copy of
 * the same order (`JSON.parse(JSON.stringify(order))`), so the ratio means something on any machine.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadMappingText } from '../src/mapping/load.js';
import { mapOrder } from '../src/mapping/map-order.js';
import { parseOrder } from '../src/print-service/schema.js';

const seconds = Number(process.argv[2] ?? 3);
const root = fileURLToPath(new URL('../', import.meta.url));
const loaded = loadMappingText(readFileSync(`${root}mappings/default.yaml`, 'utf8'), 'mappings/default.yaml');
if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
const mapping = loaded.mapping;
const shop = 'acme-books.myshopify.com';

function line(i: number, sku: string, properties: { name: string; value: string }[]) {
  return {
    id: 14000 + i,
    admin_graphql_api_id: `gid://shopify/LineItem/${14000 + i}`,
    product_id: 8000 + i,
    variant_id: 44000 + i,
    sku,
    title: `Title ${i}`,
    variant_title: 'A5 softcover',
    vendor: 'Acme Books',
    quantity: 1 + (i % 3),
    current_quantity: 1 + (i % 3),
    requires_shipping: true,
    gift_card: false,
    price: '12.50',
    properties,
  };
}

const lineItems = Array.from({ length: 10 }, (_, i) => {
  if (i < 5) {
    return line(i, `BOOK-A5-${i}`, [
      { name: 'Dedication', value: `For reader ${i}` },
      { name: '_cover_pdf', value: `https://cdn.example/u/${i}/cover.pdf` },
      { name: '_text_pdf', value: `https://cdn.example/u/${i}/text.pdf` },
    ]);
  }
  if (i < 8) return line(i, `POSTER-A2-${i}`, []);
  if (i === 8) return line(i, 'BOOKMARK-LEATHER', []);
  return { ...line(i, 'GIFT', []), gift_card: true, requires_shipping: false };
});

const order = {
  id: 5830112345678,
  admin_graphql_api_id: 'gid://shopify/Order/5830112345678',
  name: '#1042',
  order_number: 1042,
  email: 'zoe@example.com',
  created_at: '2026-11-20T18:42:07+01:00',
  shipping_address: {
    name: 'Zoë Ångström-Müller',
    address1: 'Straße des 17. Juni 135',
    city: 'Berlin',
    zip: '10623',
    country: 'Germany',
    country_code: 'DE',
  },
  shipping_lines: [{ code: 'Express', title: 'Express Shipping' }],
  line_items: lineItems,
};

const check = mapOrder(order, mapping, shop);
if (!check.ok) throw new Error(JSON.stringify(check.problems, null, 2));
console.log(
  `order: ${order.line_items.length} line items → ${check.order.orderData.items.length} print items, ` +
    `${check.order.orderData.stockItems?.length ?? 0} stock item, ${check.ignored.length} ignored`,
);

function rate(name: string, fn: () => unknown): number {
  const warmUntil = performance.now() + 500;
  while (performance.now() < warmUntil) fn();
  let n = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < 100; i++) fn();
    n += 100;
  }
  const perSecond = n / ((performance.now() - start) / 1000);
  console.log(`${name.padEnd(44)} ${Math.round(perSecond).toLocaleString('en-US').padStart(10)} /s`);
  return perSecond;
}

const mapped = rate('mapOrder (10 line items, example mapping)', () => mapOrder(order, mapping, shop));
const checked = rate('of which: the strict schema check of the result', () => parseOrder(check.order, 'strict'));
const copied = rate('baseline: JSON.parse(JSON.stringify(order))', () => JSON.parse(JSON.stringify(order)));
console.log(`ratio mapOrder / baseline: ${(mapped / copied).toFixed(3)}`);
console.log(`time per order: ${(1e6 / mapped).toFixed(0)} µs, of which the strict schema check ${(1e6 / checked).toFixed(0)} µs`);
console.log(`target ≥ 5,000 orders/s: ${mapped >= 5000 ? 'met' : 'NOT met'}`);
