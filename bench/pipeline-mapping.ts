/**
 * One print order from one real-shaped order (bench/shopify-order-shape.ts), written twice: as a print-bridge mapping
 * file (Liquid artwork paths read from line item properties, as a storefront personaliser writes them) and as the
 * bare pipeline's fixed function (no Liquid, no mapping files). Both give the same document for the same body.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const DESTINATION = 'demo-printer';
const RETURN_ADDRESS = { name: 'Acme Returns', address1: '1 Mill Lane', town: 'Leeds', postcode: 'LS1 1AA', isoCountry: 'GB' };
const CARRIERS: Record<string, string> = { Express: 'express', Standard: 'standard' };

export const PIPELINE_MAPPING_YAML = `shops: ["*"]
destination: ${DESTINATION}
order:
  sourceOrderId: "{{ shop.handle }}-{{ order.order_number }}"
submit: { on: orders/paid, holdMinutes: 0, validate: false }
shipments:
  carrier: { alias: standard }
  carriers:
    "Express": { alias: express }
    "Standard": { alias: standard }
  returnAddress: { name: "${RETURN_ADDRESS.name}", address1: "${RETURN_ADDRESS.address1}", town: "${RETURN_ADDRESS.town}", postcode: "${RETURN_ADDRESS.postcode}", isoCountry: ${RETURN_ADDRESS.isoCountry} }
products:
  - match: { sku: "BOOK-*" }
    sku: "{{ line.sku }}"
    components:
      - { code: cover, path: "{{ line.properties._cover_pdf }}" }
      - { code: text, path: "{{ line.properties._text_pdf }}" }
  - match: { sku: "POSTER-*" }
    sku: "{{ line.sku }}"
    components:
      - { code: poster, path: "{{ line.properties._artwork_url }}" }
  - match: { sku: "CARD-*" }
    sku: "{{ line.sku }}"
    components:
      - { code: front, path: "{{ line.properties._artwork_url }}" }
      - { code: back, path: "{{ line.properties._back_url }}" }
unmapped: hold
`;

/** A mappings directory holding the file above, for `MAPPINGS_DIR`. */
export function pipelineMappingDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pb-bench-pipeline-mappings-'));
  writeFileSync(join(dir, 'default.yaml'), PIPELINE_MAPPING_YAML);
  return dir;
}

interface Address {
  name?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  company?: string | null;
  address1?: string | null;
  address2?: string | null;
  city?: string | null;
  zip?: string | null;
  province?: string | null;
  country_code?: string | null;
  country?: string | null;
  phone?: string | null;
}
interface LineItem {
  admin_graphql_api_id: string;
  sku: string;
  quantity: number;
  properties: { name: string; value: string }[];
}
export interface ShopifyOrderBody {
  admin_graphql_api_id: string;
  order_number: number;
  email?: string | null;
  phone?: string | null;
  shipping_address: Address;
  shipping_lines: { code?: string | null; title?: string | null }[];
  line_items: LineItem[];
}

const COMPONENTS: [prefix: string, components: [code: string, property: string][]][] = [
  ['BOOK-', [['cover', '_cover_pdf'], ['text', '_text_pdf']]],
  ['POSTER-', [['poster', '_artwork_url']]],
  ['CARD-', [['front', '_artwork_url'], ['back', '_back_url']]],
];

const text = (v: string | null | undefined): string | undefined => (v ? v : undefined);
/** `gid://shopify/LineItem/4870…` → `4870…`: exact, where JSON.parse of the bare integer is not. */
export const gidTail = (gid: string): string => gid.slice(gid.lastIndexOf('/') + 1);

/** The bare pipeline's fixed mapping: the print service's create document for one order. */
export function toPrintOrder(order: ShopifyOrderBody, shopHandle: string): unknown {
  const a = order.shipping_address;
  const shipping = order.shipping_lines[0];
  return {
    destination: { name: DESTINATION },
    orderData: {
      sourceOrderId: `${shopHandle}-${order.order_number}`,
      customerName: text(a.name) ?? text(order.email),
      items: order.line_items.map((line) => {
        const rule = COMPONENTS.find(([prefix]) => line.sku.startsWith(prefix));
        if (!rule) throw new Error(`no rule for SKU ${line.sku}`);
        const props = new Map(line.properties.map((p) => [p.name, p.value]));
        return {
          sourceItemId: gidTail(line.admin_graphql_api_id),
          sku: line.sku,
          quantity: line.quantity,
          shipmentIndex: 0,
          components: rule[1].map(([code, property]) => {
            const path = props.get(property);
            if (!path) throw new Error(`line ${line.admin_graphql_api_id}: no ${property}`);
            return { code, path, fetch: true };
          }),
        };
      }),
      shipments: [
        {
          shipTo: {
            name: text(a.name) ?? [a.first_name, a.last_name].filter(Boolean).join(' '),
            companyName: text(a.company),
            address1: a.address1,
            address2: text(a.address2),
            town: a.city,
            postcode: a.zip,
            state: text(a.province),
            isoCountry: a.country_code,
            country: text(a.country),
            phone: text(a.phone) ?? text(order.phone),
            email: text(order.email),
          },
          returnAddress: RETURN_ADDRESS,
          carrier: { alias: CARRIERS[shipping?.code ?? shipping?.title ?? ''] ?? 'standard' },
        },
      ],
    },
  };
}
