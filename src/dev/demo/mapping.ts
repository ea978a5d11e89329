import type { AccountInput } from '../emulator/accounts.js';
import { DEMO_SHOP, PRODUCTS } from './orders.js';

/**
 * The demo store's mapping file and the print-service account it sends to. The mapping is written for the sample
 * orders (src/dev/demo/orders.ts): posters and cards print from static artwork, the personalised journal takes its
 * cover from a line item property, lines of different vendors (two production sites) go to different shipments,
 * and the tote bag matches no rule, so its order is held with the reason shown.
 */

export const DEMO_DESTINATION = 'demo-printer';

/** Print SKUs the demo printer is set up for; the emulator refuses any other (a submission error). */
export const DEMO_PRINT_SKUS = ['PST-A2-MOUNTAINS', 'PST-A3-HARBOUR', 'GREETING-CARD-A6', 'A5-HARDCOVER-JOURNAL'];

/**
 * The store's products the mapping prints (or the printer ships from its shelf): what the service-mode store assigns
 * to print-bridge's location. The tote bag is not among them: that store ships it itself.
 */
export const DEMO_PRINTED_PRODUCT_SKUS: readonly string[] = [PRODUCTS.posterA2, PRODUCTS.posterA3, PRODUCTS.cardBirthday, PRODUCTS.envelope, PRODUCTS.journal].map((p) => p.sku);

export const DEMO_ACCOUNT = { name: 'demo-brand', token: 'demo-token', secret: 'demo-secret', accountId: '64656d6f2d6272616e642d31' };
/** The print account the second store's merchant brings (a secret of its own, a printer of its own). */
export const DEMO_OWN_ACCOUNT = { name: 'own-brand', token: 'own-brand-token', secret: 'own-brand-secret-7f3a', accountId: '6f776e2d6272616e642d3031' };
export const DEMO_OWN_DESTINATION = 'own-printer';

/** The emulator's account for the demo: one destination with its SKUs, and what each carrier alias ships with. */
export function demoPrinterAccounts(options: { printSkus?: readonly string[] } = {}): AccountInput[] {
  const carriers = {
    standard: { code: 'royalmail', service: 'tracked48' },
    express: { code: 'dhl', service: 'express-worldwide' },
  };
  const skus = [...(options.printSkus ?? DEMO_PRINT_SKUS)];
  return [
    { ...DEMO_ACCOUNT, destinations: [{ name: DEMO_DESTINATION, skus }], carriers },
    { ...DEMO_OWN_ACCOUNT, destinations: [{ name: DEMO_OWN_DESTINATION, skus }], carriers },
  ];
}

/** The mapping file's text; `holdMinutes` may be a fraction (the demo's window is a few seconds). */
export function demoMappingYaml(options: { holdMinutes: number; shop?: string }): string {
  return `# The print-bridge demo store's mapping (written by \`print-bridge demo\`; see docs/demo.md and docs/mappings.md).
shops: ["${options.shop ?? DEMO_SHOP}"]
destination: ${DEMO_DESTINATION}

order:
  sourceOrderId: "{{ shop.handle }}-{{ order.order_number }}"
  customerName: "{{ order.shipping_address.name | default: order.email }}"
  extraData:
    shopifyOrderName: "{{ order.name }}"

submit:
  on: orders/paid
  # ${Math.round(options.holdMinutes * 60 * 10) / 10} seconds: edits and cancellations inside it never reach the printer.
  holdMinutes: ${options.holdMinutes}
  validate: true

shipments:
  carrier: { alias: standard }
  carriers:
    "Express": { alias: express }
    "Standard": { alias: standard }
  returnAddress: { name: "Print Bridge Demo Returns", address1: "1 Mill Lane", town: "Leeds", postcode: "LS1 1AA", isoCountry: GB }

products:
  # The storefront's personaliser uploads the customer's cover and puts its address in a hidden line item property.
  # Journals are bound at another site (vendor Bindery North): lines of another vendor go in another shipment.
  - match: { sku: "JOURNAL-A5-PERSONAL" }
    sku: A5-HARDCOVER-JOURNAL
    description: "{{ line.title }} for {{ line.properties['Name on cover'] | default: 'a customer' }}"
    components:
      - code: cover
        path: "{{ line.properties._artwork_url }}"
        preflight: true
      - code: text
        path: "https://files.print-bridge.example/journals/ruled-192-pages.pdf"
    shipment: "{{ line.vendor }}"

  - match: { sku: "POSTER-*" }
    sku: "{{ line.sku | remove: 'POSTER-' | prepend: 'PST-' }}"
    components:
      - code: poster
        path: "https://files.print-bridge.example/posters/{{ line.sku | downcase }}.pdf"
    attributes: { paper: "200gsm silk" }
    shipment: "{{ line.vendor }}"

  - match: { sku: "CARD-A6-*" }
    sku: GREETING-CARD-A6
    components:
      - code: front
        path: "https://files.print-bridge.example/cards/{{ line.sku | downcase }}-front.pdf"
      - code: inside
        path: "https://files.print-bridge.example/cards/blank-inside.pdf"
    shipment: "{{ line.vendor }}"

stockItems:
  # Envelopes come off the printer's shelf: no artwork.
  - match: { sku: "ENVELOPE-*" }
    code: ENV-C6-KRAFT
    name: Kraft envelope C6
    shipment: "{{ line.vendor }}"

unmapped: hold

tracking:
  royalmail: { company: "Royal Mail", url: "https://www.royalmail.com/track-your-item#/tracking-results/{{ trackingNumber }}" }
  dhl: { company: "DHL Express", url: "https://www.dhl.com/gb-en/home/tracking.html?tracking-id={{ trackingNumber }}" }
`;
}
