import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadMappingText } from '../../src/mapping/load.js';
import { mapOrder } from '../../src/mapping/map-order.js';
import { parsePostback, printEventSchema } from '../../src/print-service/postback.js';
import { parseOrder } from '../../src/print-service/schema.js';
import { parseJsonLossless } from '../../src/shopify/json.js';
import { parseOrderWebhook } from '../../src/shopify/order-webhook.js';
import { testMapping } from '../helpers/harness.js';

/**
 * Property-based fuzzing of the parsers at the boundaries: whatever arrives, each answers with a typed result
 * (problems, a refusal) and never throws. Bounded run counts keep the suite fast; a failure prints its seed.
 */
const RUNS = { numRuns: 300 };

const mapping = (() => {
  const loaded = loadMappingText(testMapping(), 'fuzz.yaml');
  if (!loaded.ok) throw new Error('the test mapping must load');
  return loaded.mapping;
})();

/** Values shaped like Shopify order bodies, with every field free to be absent, null, the wrong type or odd text. */
const anyValue = fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.double(), fc.string(), fc.string({ unit: 'grapheme', maxLength: 20 }));
const lineItem = fc.record(
  {
    id: fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 20n }).map(String), fc.integer(), anyValue),
    admin_graphql_api_id: fc.oneof(fc.constant('gid://shopify/LineItem/1'), fc.string(), anyValue),
    sku: fc.oneof(fc.constantFrom('PRINT-A5', 'PRINT-*', '', 'MUG'), anyValue),
    title: anyValue,
    vendor: anyValue,
    quantity: fc.oneof(fc.integer({ min: -3, max: 5 }), anyValue),
    current_quantity: fc.oneof(fc.integer({ min: -3, max: 5 }), anyValue),
    properties: fc.oneof(fc.array(fc.record({ name: anyValue, value: anyValue }), { maxLength: 3 }), fc.dictionary(fc.string(), anyValue), anyValue),
    requires_shipping: anyValue,
    gift_card: anyValue,
    variant_id: anyValue,
    product_id: anyValue,
  },
  { requiredKeys: [] },
);
const orderLike = fc.record(
  {
    id: fc.oneof(fc.integer(), anyValue),
    admin_graphql_api_id: fc.oneof(fc.constant('gid://shopify/Order/12345678901234567'), anyValue),
    name: anyValue,
    order_number: anyValue,
    updated_at: fc.oneof(fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), anyValue),
    email: anyValue,
    shipping_address: fc.oneof(
      fc.record({ name: anyValue, address1: anyValue, city: anyValue, zip: anyValue, country_code: anyValue, province: anyValue, phone: anyValue }, { requiredKeys: [] }),
      anyValue,
    ),
    shipping_lines: fc.oneof(fc.array(fc.record({ code: anyValue, title: anyValue }, { requiredKeys: [] }), { maxLength: 2 }), anyValue),
    line_items: fc.oneof(fc.array(lineItem, { maxLength: 4 }), anyValue),
    refunds: fc.oneof(fc.array(anyValue, { maxLength: 2 }), anyValue),
  },
  { requiredKeys: [] },
);

describe('fuzz: parsers never throw', () => {
  it('the lossless JSON reader equals JSON.parse on every JSON text, but for big integers', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        // Integers a double cannot hold exactly come back as their digits; JSON writes 1e21 and above with an exponent.
        const expected: unknown = JSON.parse(text, (_key, v: unknown) =>
          typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v) && Math.abs(v) < 1e21 ? String(v) : v,
        );
        expect(parseJsonLossless(text)).toEqual(expected);
      }),
      RUNS,
    );
  });

  it('reads any text as an order webhook or says why not', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), orderLike.map((o) => JSON.stringify(o)), fc.jsonValue().map((v) => JSON.stringify(v))), (text) => {
        const result = parseOrderWebhook(text);
        expect(typeof result.ok).toBe('boolean');
        if (!result.ok) expect(result.message.length).toBeGreaterThan(0);
      }),
      RUNS,
    );
  });

  it('maps any order-shaped body to a strict-valid print order or to problems, never both', () => {
    fc.assert(
      fc.property(orderLike, (body) => {
        const result = mapOrder(body, mapping, 'fuzz.myshopify.com');
        if (result.ok) {
          expect(parseOrder(result.order, 'strict').ok).toBe(true);
        } else {
          expect(result.problems.length).toBeGreaterThan(0);
          for (const p of result.problems) expect(p.message.length).toBeGreaterThan(0);
        }
      }),
      RUNS,
    );
  });

  it('reads any text as a postback or says why not, and what it reads is a valid event', () => {
    const shaped = fc
      .record({
        Event: fc.constantFrom('Shipment Shipped', 'order print ready', 'ORDER ERRORED', 'Order Cancelled', 'received', 'nonsense'),
        OrderId: fc.oneof(fc.stringMatching(/^[0-9a-f]{24}$/), fc.string({ maxLength: 10 })),
        SourceOrderId: fc.string({ maxLength: 12 }),
        ShipmentIndex: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.constantFrom('0', '1', 'x', '')),
        TrackingNumber: fc.string({ maxLength: 12 }),
        status: fc.string({ maxLength: 12 }),
        errorsClean: fc.array(fc.string({ maxLength: 10 }), { maxLength: 2 }),
      }, { requiredKeys: [] })
      .map((v) => JSON.stringify(v));
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), shaped, shaped.map((t) => t.replace(/"/g, ''))), (raw) => {
        const parsed = parsePostback(raw);
        if (parsed.ok) expect(printEventSchema.safeParse(parsed.event).success).toBe(true);
        else expect(typeof parsed.error).toBe('string');
      }),
      { numRuns: 500 },
    );
  });

  it('loads any text as a mapping file or reports positioned problems', () => {
    const yamlish = fc.oneof(
      fc.string(),
      fc.string({ unit: 'grapheme', maxLength: 200 }),
      // Mutations of a real file: a line dropped, duplicated, or a character changed.
      fc.tuple(fc.nat(), fc.nat(), fc.constantFrom('drop', 'dup', 'char')).map(([a, b, how]) => {
        const lines = testMapping().split('\n');
        const i = a % lines.length;
        if (how === 'drop') lines.splice(i, 1);
        else if (how === 'dup') lines.splice(i, 0, lines[i]!);
        else lines[i] = lines[i]!.slice(0, b % (lines[i]!.length + 1)) + '{' + lines[i]!.slice(b % (lines[i]!.length + 1));
        return lines.join('\n');
      }),
    );
    fc.assert(
      fc.property(yamlish, (text) => {
        const result = loadMappingText(text, 'fuzz.yaml');
        if (!result.ok) {
          expect(result.problems.length).toBeGreaterThan(0);
          for (const p of result.problems) {
            expect(p.file).toBe('fuzz.yaml');
            expect(p.line).toBeGreaterThanOrEqual(1);
            expect(p.message.length).toBeGreaterThan(0);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('checks any document against the order schema without throwing', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ destination: fc.jsonValue(), orderData: fc.jsonValue() })), (doc) => {
        for (const profile of ['strict', 'lenient'] as const) {
          const result = parseOrder(doc, profile);
          if (!result.ok) expect(result.problems.length).toBeGreaterThan(0);
        }
      }),
      RUNS,
    );
  });
});
