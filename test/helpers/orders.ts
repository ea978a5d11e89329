import type { PrintOrder } from '../../src/print-service/schema.js';

/** A complete, strict-valid print order written for the project's tests. */
export function sampleOrder(sourceOrderId = 'acme-1001'): PrintOrder {
  return {
    destination: { name: 'demo-printer' },
    orderData: {
      sourceOrderId,
      customerName: 'Zoë Ünal',
      items: [
        {
          sourceItemId: '14000000000000001',
          sku: 'A5-SOFTCOVER',
          quantity: 2,
          shipmentIndex: 0,
          components: [
            { code: 'cover', path: 'https://files.example.com/books/1/cover.pdf', fetch: true, localFile: false, preflight: true, duplicate: 1 },
            { code: 'text', path: 'https://files.example.com/books/1/text.pdf', fetch: true, localFile: false, preflight: false, duplicate: 1 },
          ],
        },
      ],
      shipments: [
        {
          canShipEarly: true,
          shipTo: { name: 'Zoë Ünal', address1: 'ul. Piotrkowska 1', town: 'Łódź', postcode: '90-001', isoCountry: 'PL' },
          returnAddress: { name: 'Acme Returns', address1: '1 Mill Lane', town: 'Leeds', postcode: 'LS1 1AA', isoCountry: 'GB' },
          carrier: { alias: 'standard' },
        },
      ],
    },
  };
}

export const SAMPLE_ID = '6541a0f0c0ffee0000000001';

export function sampleRecord(sourceOrderId = 'acme-1001', overrides: Record<string, unknown> = {}) {
  return { _id: SAMPLE_ID, status: 'received', sourceAccountId: '6541a0f0c0ffee00000000aa', ...sampleOrder(sourceOrderId), ...overrides };
}
