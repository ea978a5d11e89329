import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadMappingText, type LoadedMapping } from '../../src/mapping/load.js';
import { parseShopifyOrderJson, unwrapOrder } from '../../src/mapping/shopify-order.js';

export const root = fileURLToPath(new URL('../../', import.meta.url));

export function fixtureText(name: string): string {
  return readFileSync(`${root}test/fixtures/shopify/${name}`, 'utf8');
}

/** A project fixture read as the app reads a webhook body: big ids exact. */
export function fixtureOrder(name: string): Record<string, unknown> {
  return unwrapOrder(parseShopifyOrderJson(fixtureText(name))) as Record<string, unknown>;
}

export function exampleMapping(): LoadedMapping {
  return mustLoad(readFileSync(`${root}mappings/default.yaml`, 'utf8'), 'mappings/default.yaml');
}

export function mustLoad(yaml: string, file = 'test.yaml'): LoadedMapping {
  const result = loadMappingText(yaml, file);
  if (!result.ok) throw new Error(result.problems.map((p) => `${p.line}:${p.col} ${p.message}`).join('\n'));
  return result.mapping;
}

/** The minimum a mapping file needs, plus the given YAML (top-level keys). */
export function withBase(rest: string, shops = '["*"]'): string {
  return `shops: ${shops}
destination: acme-print
shipments:
  carrier: { alias: standard }
  returnAddress: { name: "Acme Returns", address1: "1 Mill Lane", town: "Leeds", postcode: "LS1 1AA", isoCountry: GB }
${rest}`;
}

/** A small Shopify order with the given line items (merged over a default line). */
export function order(lines: Record<string, unknown>[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 700,
    admin_graphql_api_id: 'gid://shopify/Order/700',
    name: '#1001',
    order_number: 1001,
    email: 'ann@example.com',
    shipping_address: {
      name: 'Ann Example',
      address1: '1 High Street',
      city: 'York',
      zip: 'YO1 7HH',
      country: 'United Kingdom',
      country_code: 'GB',
    },
    shipping_lines: [{ code: 'standard', title: 'Standard' }],
    line_items: lines.map((l, i) => ({
      id: 100 + i,
      admin_graphql_api_id: `gid://shopify/LineItem/${100 + i}`,
      sku: `SKU-${i}`,
      title: `Product ${i}`,
      quantity: 1,
      requires_shipping: true,
      gift_card: false,
      properties: [],
      ...l,
    })),
    ...extra,
  };
}
