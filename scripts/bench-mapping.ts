/**
 * `npm run bench:mapping`: Shopify orders mapped per second on one core (issue 27: real-shaped data). The orders are
 * real-shaped `orders/paid` bodies (bench/shopify-order-shape.ts: 3–10 line items with personaliser properties, tax
 * and discount lines, 10–26 KB), 200 of them by default, cycled; each is parsed once up front as the render thread
 * parses it (`parseJsonLossless`, ids above 2^53 exact). The mapping is bench/pipeline-mapping.ts's
 * `PIPELINE_MAPPING_YAML` (templates compiled once at load), written for these bodies: its Liquid reads every artwork
 * path from the line item's properties. `mappings/default.yaml` is not used: it has rules for `BOOK-A5-*` and
 * `POSTER-*` only, so it holds most of these bodies as unmapped (the bench prints how many it maps).
 *
 * Two baselines on the same orders, in the same run, so the ratios mean something on any machine:
 * - a deep copy, `JSON.parse(JSON.stringify(order))`;
 * - the bare pipeline's fixed function `toPrintOrder` (bench/pipeline-mapping.ts): the same document without Liquid,
 *   mapping files or schema checks (the bench checks that both give the same content for every order).
 *
 * Every mapped order must be ok: a mapping problem fails the bench (before timing, and in the timed loop).
 *
 *   npm run bench:mapping [-- --seconds 3 --bodies 200 --seed 27]
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PIPELINE_MAPPING_YAML, type ShopifyOrderBody, toPrintOrder } from '../bench/pipeline-mapping.js';
import { describeSizes, formatKb as kb, summariseSizes } from '../bench/body-sizes.js';
import { shopifyOrder } from '../bench/shopify-order-shape.js';
import { loadMappingText } from '../src/mapping/load.js';
import { mapOrder, type MapResult } from '../src/mapping/map-order.js';
import { parseOrder, type PrintOrder } from '../src/print-service/schema.js';
import { parseJsonLossless, quoteBigIntegers } from '../src/shopify/json.js';

const { values, positionals } = parseArgs({
  options: { seconds: { type: 'string' }, bodies: { type: 'string', default: '200' }, seed: { type: 'string', default: '27' } },
  allowPositionals: true,
});
// `npm run bench:mapping -- 5` (the seconds as the only argument) still works.
const seconds = Number(values.seconds ?? positionals[0] ?? 3);
const seed = Number(values.seed);
const shop = 'acme-books.myshopify.com';
const shopHandle = 'acme-books';

const loaded = loadMappingText(PIPELINE_MAPPING_YAML, 'bench/pipeline-mapping.ts PIPELINE_MAPPING_YAML');
if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
const mapping = loaded.mapping;

const bodies = Array.from({ length: Number(values.bodies) }, (_, i) => shopifyOrder({ seed, serial: i + 1 }));
const orders = bodies.map((b) => parseJsonLossless(b.body));
const sizes = summariseSizes(bodies);
const lineItems = bodies.reduce((n, b) => n + b.lineItems, 0);
const fewestLines = Math.min(...bodies.map((b) => b.lineItems));
const mostLines = Math.max(...bodies.map((b) => b.lineItems));

function fail(result: Extract<MapResult, { ok: false }>, index: number): never {
  throw new Error(`order ${index + 1} of ${orders.length} did not map: ${JSON.stringify(result.problems, null, 2)}`);
}

// Before timing: every order maps, and the print order has the content of the bare pipeline's document.
/** What both documents must agree on (the mapping adds schema defaults such as `localFile: false` beside it). */
function content(order: unknown): unknown {
  const o = order as PrintOrder;
  const shipment = o.orderData.shipments[0]!;
  const shipTo = Object.fromEntries(Object.entries(shipment.shipTo).filter(([, v]) => v !== undefined).sort(([a], [b]) => a.localeCompare(b)));
  return {
    destination: o.destination.name,
    sourceOrderId: o.orderData.sourceOrderId,
    customerName: o.orderData.customerName,
    items: o.orderData.items.map((i) => [i.sourceItemId, i.sku, i.quantity, i.shipmentIndex ?? 0, i.components.map((c) => [c.code, c.path, c.fetch])]),
    shipTo,
    returnAddress: shipment.returnAddress,
    carrier: shipment.carrier,
  };
}
const mapped: PrintOrder[] = [];
let printItems = 0;
let components = 0;
let sameAsBare = 0;
orders.forEach((order, i) => {
  const result = mapOrder(order, mapping, shop);
  if (!result.ok) fail(result, i);
  if (result.ignored.length > 0 || result.skipped.length > 0) throw new Error(`order ${i + 1}: lines left out: ${JSON.stringify([...result.ignored, ...result.skipped])}`);
  mapped.push(result.order);
  printItems += result.order.orderData.items.length;
  components += result.order.orderData.items.reduce((n, item) => n + item.components.length, 0);
  if (JSON.stringify(content(result.order)) === JSON.stringify(content(toPrintOrder(order as ShopifyOrderBody, shopHandle)))) sameAsBare++;
});
if (sameAsBare !== orders.length) throw new Error(`mapOrder and toPrintOrder differ in content for ${orders.length - sameAsBare} of ${orders.length} orders`);

// The example mapping on the same bodies, to say why it is not the one timed.
const example = loadMappingText(readFileSync(fileURLToPath(new URL('../mappings/default.yaml', import.meta.url)), 'utf8'), 'mappings/default.yaml');
const exampleMaps = example.ok ? orders.filter((order) => mapOrder(order, example.mapping, shop).ok).length : 0;

console.log(`bench:mapping  one core, ${seconds} s a figure, ${orders.length} orders cycled`);
console.log(`  real-shaped orders/paid bodies (seed ${seed}): ${describeSizes(sizes)}`);
console.log(
  `  mapping: bench/pipeline-mapping.ts PIPELINE_MAPPING_YAML; ${orders.length}/${orders.length} ok, ${lineItems} line items → ` +
    `${printItems} print items, ${components} artwork paths from line item properties; same content as toPrintOrder: ${sameAsBare}/${orders.length}`,
);
console.log(`  (mappings/default.yaml maps ${exampleMaps} of these ${orders.length}; the rest have SKUs it has no rule for, so it is not timed)`);

function rate(name: string, fn: (i: number) => unknown): number {
  let i = 0;
  const warmUntil = performance.now() + 500;
  while (performance.now() < warmUntil) fn(i++ % orders.length);
  let n = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    for (let k = 0; k < 100; k++) fn(i++ % orders.length);
    n += 100;
  }
  const perSecond = n / ((performance.now() - start) / 1000);
  console.log(`  ${name.padEnd(58)} ${Math.round(perSecond).toLocaleString('en-US').padStart(10)} orders/s`);
  return perSecond;
}

const mappedRate = rate('mapOrder (PIPELINE_MAPPING_YAML)', (i) => {
  const result = mapOrder(orders[i], mapping, shop);
  if (!result.ok) fail(result, i);
  return result;
});
const checkedRate = rate('  of which: the strict schema check of the result', (i) => {
  const result = parseOrder(mapped[i], 'strict');
  if (!result.ok) throw new Error(`order ${i + 1}: the mapped order fails the strict schema`);
  return result;
});
const copiedRate = rate('baseline: JSON.parse(JSON.stringify(order))', (i) => JSON.parse(JSON.stringify(orders[i])) as unknown);
const bareRate = rate("baseline: toPrintOrder (the bare pipeline's fixed function)", (i) => toPrintOrder(orders[i] as ShopifyOrderBody, shopHandle));
const parsedRate = rate('for scale, not in the ratios: parseJsonLossless(body)', (i) => parseJsonLossless(bodies[i]!.body));
// What the lossless parse costs beyond a plain one, and the character-by-character walk it falls back to (issue 27).
const plainRate = rate('  JSON.parse(body), ids above 2^53 rounded', (i) => JSON.parse(bodies[i]!.body) as unknown);
const walkedRate = rate('  the character walk alone, JSON.parse(quoteBigIntegers(body))', (i) => JSON.parse(quoteBigIntegers(bodies[i]!.body)) as unknown);

console.log(`  ratio mapOrder / deep copy:    ${(mappedRate / copiedRate).toFixed(3)}`);
console.log(`  ratio mapOrder / toPrintOrder: ${(mappedRate / bareRate).toFixed(3)}`);
console.log(
  `  time per order: ${(1e6 / mappedRate).toFixed(0)} µs (${(1e6 / mappedRate / (lineItems / orders.length)).toFixed(0)} µs a line item), ` +
    `of which the strict schema check ${(1e6 / checkedRate).toFixed(0)} µs; toPrintOrder ${(1e6 / bareRate).toFixed(1)} µs; ` +
    `parsing the body ${(1e6 / parsedRate).toFixed(0)} µs (JSON.parse ${(1e6 / plainRate).toFixed(0)} µs, the character walk ${(1e6 / walkedRate).toFixed(0)} µs)`,
);
console.log(
  `  target ≥ 5,000 orders/s, for orders of ${kb(sizes.minKb)}–${kb(sizes.maxKb)} (median ${kb(sizes.medianKb)}) with ` +
    `${fewestLines}–${mostLines} line items (mean ${(lineItems / orders.length).toFixed(1)}): ${mappedRate >= 5000 ? 'met' : 'NOT met'} (${Math.round(mappedRate).toLocaleString('en-US')} orders/s)`,
);
