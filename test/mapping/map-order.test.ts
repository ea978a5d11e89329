import { describe, expect, it } from 'vitest';
import { formatMappingProblem, type MappingProblem } from '../../src/mapping/errors.js';
import { mapOrder, type MapResult } from '../../src/mapping/map-order.js';
import { parseOrder } from '../../src/print-service/schema.js';
import { exampleMapping, fixtureOrder, fixtureText, mustLoad, order, withBase } from './helpers.js';

const SHOP = 'acme-books.myshopify.com';

function ok(result: MapResult) {
  if (!result.ok) throw new Error(result.problems.map(formatMappingProblem).join('\n'));
  return result;
}
function problems(result: MapResult): MappingProblem[] {
  if (result.ok) throw new Error(`expected problems, got ${JSON.stringify(result.order)}`);
  return result.problems;
}

const simpleRule = `products:
  - match: { sku: "SKU-*" }
    sku: "P-{{ line.sku }}"
    components:
      - code: art
        path: "https://files.example/{{ line.sku }}.pdf"
`;

describe('the example mapping on a realistic book order', () => {
  it('maps book, poster, bookmark; ignores the gift card and the removed line', () => {
    const result = ok(mapOrder(fixtureOrder('book-order.json'), exampleMapping(), SHOP));
    expect(result.order).toEqual({
      destination: { name: 'acme-print' },
      orderData: {
        sourceOrderId: 'acme-books-1042',
        customerName: 'Zoë Ångström-Müller',
        extraData: { shopifyOrderName: '#1042' },
        items: [
          {
            description: 'Poems for a Rainy Day (A5 softcover)',
            shipmentIndex: 0,
            sourceItemId: '13001',
            sku: 'A5-SOFTCOVER',
            quantity: 2,
            components: [
              {
                code: 'cover',
                path: 'https://cdn.acme-books.example/u/13001/cover.pdf',
                fetch: true,
                localFile: false,
                preflight: true,
                duplicate: 1,
                attributes: { finish: 'matte' },
              },
              {
                code: 'text',
                path: 'https://cdn.acme-books.example/u/13001/text.pdf',
                fetch: true,
                localFile: false,
                preflight: true,
                duplicate: 1,
                attributes: { finish: 'matte' },
              },
            ],
          },
          {
            shipmentIndex: 0,
            sourceItemId: '13002',
            sku: 'PST-A2-SUNSET',
            quantity: 1,
            components: [
              {
                code: 'poster',
                path: 'https://files.example.com/posters/44002.pdf',
                fetch: true,
                localFile: false,
                preflight: false,
                duplicate: 1,
              },
            ],
          },
        ],
        stockItems: [{ code: 'BM-01', name: 'Bookmark', quantity: 3, shipmentIndex: 0, unitPrice: 4.5 }],
        shipments: [
          {
            canShipEarly: true,
            shipTo: {
              name: 'Zoë Ångström-Müller',
              companyName: 'Bücherwurm GmbH',
              address1: 'Straße des 17. Juni 135',
              address2: '3. OG',
              town: 'Berlin',
              postcode: '10623',
              isoCountry: 'DE',
              country: 'Germany',
              email: 'zoe@example.com',
              phone: '+49 30 1234567',
            },
            returnAddress: { name: 'Acme Returns', address1: '1 Mill Lane', town: 'Leeds', postcode: 'LS1 1AA', isoCountry: 'GB' },
            carrier: { alias: 'express' },
            attachments: [{ path: 'https://slips.example.com/acme-books/1042.pdf', type: 'packingslip' }],
          },
        ],
      },
    });
    expect(result.ignored).toEqual([
      { lineItem: { id: '13004', sku: null, title: 'Gift card' }, reason: 'gift cards are not printed', rule: 'ignore[0]' },
      {
        lineItem: { id: '13005', sku: 'BOOK-A5-NOVEL', title: 'The Long Winter' },
        reason: 'removed or refunded (current quantity 0)',
      },
    ]);
    expect(result.skipped).toEqual([]);
    expect(parseOrder(result.order, 'strict').ok).toBe(true);
  });

  it('is deterministic: the same order and mapping give the same document', () => {
    const mapping = exampleMapping();
    const a = ok(mapOrder(fixtureOrder('book-order.json'), mapping, SHOP));
    const b = ok(mapOrder(fixtureOrder('book-order.json'), mapping, SHOP));
    expect(JSON.stringify(b.order)).toBe(JSON.stringify(a.order));
  });

  it('names the line item and the component when a property is missing', () => {
    const body = fixtureOrder('book-order.json');
    const lines = body.line_items as { properties: { name: string }[] }[];
    lines[0]!.properties = lines[0]!.properties.filter((p) => p.name !== '_cover_pdf');
    const [problem, ...rest] = problems(mapOrder(body, exampleMapping(), SHOP));
    expect(rest).toEqual([]);
    expect(problem).toEqual({
      kind: 'template',
      lineItem: { id: '13001', sku: 'BOOK-A5-POEMS', title: 'Poems for a Rainy Day' },
      field: 'items[0].components[cover].path',
      message: `line.properties._cover_pdf is not defined for this order (write "{{ line.properties._cover_pdf | default: '...' }}" if it is optional)`,
      rule: 'products[0]',
      retryable: false,
    });
    expect(formatMappingProblem(problem!)).toBe(
      'line item 13001 (SKU "BOOK-A5-POEMS", "Poems for a Rainy Day") items[0].components[cover].path: ' +
        `line.properties._cover_pdf is not defined for this order (write "{{ line.properties._cover_pdf | default: '...' }}" if it is optional) [products[0]]`,
    );
  });

  it('treats a property that renders empty as a problem, never an empty path', () => {
    const body = fixtureOrder('book-order.json');
    const lines = body.line_items as { properties: { name: string; value: string }[] }[];
    lines[0]!.properties.find((p) => p.name === '_text_pdf')!.value = '   ';
    expect(problems(mapOrder(body, exampleMapping(), SHOP))).toMatchObject([
      {
        kind: 'value',
        field: 'items[0].components[text].path',
        message: 'is required but the template "{{ line.properties._text_pdf }}" rendered empty',
        lineItem: { id: '13001' },
      },
    ]);
  });
});

describe('big ids, null variants and Unicode', () => {
  const mapping = mustLoad(
    withBase(`products:
  - match: { variantId: "gid://shopify/ProductVariant/9007199254740993" }
    sku: SAKURA
    components: [{ code: art, path: "{{ line.properties._artwork }}" }]
  - match: { productId: 9007199254740995 }
    sku: "{{ line.sku }}"
    components: [{ code: art, path: "{{ line.properties._artwork }}" }]
`),
  );

  it('matches ids above 2^53 exactly and identifies line items by admin_graphql_api_id', () => {
    const result = ok(mapOrder(fixtureOrder('big-ids-order.json'), mapping, 'tokyo.myshopify.com'));
    const items = result.order.orderData.items;
    // Both numeric ids read 1234567890123456800; only the gids tell the lines apart.
    expect(items.map((i) => [i.sourceItemId, i.sku, i.quantity])).toEqual([
      ['1234567890123456789', 'POSTER-B2-FUJI', 1],
      ['1234567890123456791', 'SAKURA', 2],
    ]);
  });

  it('never matches a rounded id: with JSON.parse the ids are imprecise and the order is held, saying why', () => {
    const body = (JSON.parse(fixtureText('big-ids-order.json')) as { order: Record<string, unknown> }).order;
    const found = problems(mapOrder(body, mapping, 'tokyo.myshopify.com'));
    expect(found.map((p) => [p.kind, p.lineItem?.id, p.field])).toEqual([
      ['unmapped', '1234567890123456789', 'order.line_items[0]'],
      ['unmapped', '1234567890123456791', 'order.line_items[1]'],
    ]);
    expect(found[1]?.message).toBe(
      'no rule of products, stockItems or ignore matches it (sku "POSTER-B2-SAKURA", variant 9007199254740992 (imprecise: above 2^53), ' +
        'product 9007199254740996 (imprecise: above 2^53), vendor "Acme Prints"); unmapped: hold keeps the order back',
    );
  });

  it('reports a line item whose only id is a rounded number', () => {
    const body = order([{ id: 2 ** 60, admin_graphql_api_id: null }]);
    expect(problems(mapOrder(body, mustLoad(withBase(simpleRule)), SHOP))).toMatchObject([
      { kind: 'order', field: 'order.line_items[0].id', lineItem: { id: '1152921504606847000', sku: 'SKU-0' } },
    ]);
  });

  it('keeps a Japanese address intact', () => {
    const result = ok(mapOrder(fixtureOrder('big-ids-order.json'), mapping, 'tokyo.myshopify.com'));
    expect(result.order.orderData.shipments[0]?.shipTo).toEqual({
      name: '山田 太郎',
      address1: '神南1-2-3',
      address2: '渋谷ビル 5F',
      town: '渋谷区',
      postcode: '150-0041',
      state: '東京都',
      isoCountry: 'JP',
      country: 'Japan',
      phone: '+81 3-1234-5678',
      email: 'taro@example.jp',
    });
    expect(result.order.orderData.sourceOrderId).toBe('tokyo-2001');
    expect(result.order.orderData.customerName).toBe('山田 太郎');
  });
});

describe('rules', () => {
  it('unmapped: hold makes an unmatched line a problem; skip sends the rest and lists it', () => {
    const body = order([{ sku: 'SKU-A' }, { sku: 'MUG-1', title: 'Mug' }]);
    const held = problems(mapOrder(body, mustLoad(withBase(simpleRule + 'unmapped: hold\n')), SHOP));
    expect(held).toMatchObject([{ kind: 'unmapped', lineItem: { id: '101', sku: 'MUG-1', title: 'Mug' }, field: 'order.line_items[1]' }]);

    const sent = ok(mapOrder(body, mustLoad(withBase(simpleRule + 'unmapped: skip\n')), SHOP));
    expect(sent.order.orderData.items.map((i) => [i.sourceItemId, i.sku])).toEqual([['100', 'P-SKU-A']]);
    expect(sent.skipped).toMatchObject([{ lineItem: { id: '101', sku: 'MUG-1' } }]);
  });

  it('matches on every key given, first matching rule wins', () => {
    const mapping = mustLoad(
      withBase(`products:
  - match: { sku: "SKU-*", vendor: Acme, title: "*Deluxe*", properties: { Size: "A?", _engrave: "*" }, requiresShipping: true }
    sku: FIRST
    components: [{ code: c, path: "https://x.example/1.pdf" }]
  - match: { sku: ["NOPE", "SKU-*"], productId: [1, "gid://shopify/Product/55"], variantId: 66 }
    sku: SECOND
    components: [{ code: c, path: "https://x.example/2.pdf" }]
  - match: {}
    sku: CATCH-ALL
    components: [{ code: c, path: "https://x.example/3.pdf" }]
`),
    );
    const body = order([
      { vendor: 'Acme', title: 'Deluxe Book', properties: [{ name: 'Size', value: 'A5' }, { name: '_engrave', value: 'Hi' }] },
      { vendor: 'Acme', title: 'Deluxe Book', properties: [{ name: 'Size', value: 'A5' }] },
      { product_id: 55, variant_id: 66 },
      { product_id: 55, variant_id: 67 },
      { vendor: 'acme', title: 'Deluxe Book', properties: { Size: 'A4', _engrave: 'x' } },
    ]);
    const result = ok(mapOrder(body, mapping, SHOP));
    expect(result.order.orderData.items.map((i) => i.sku)).toEqual(['FIRST', 'CATCH-ALL', 'SECOND', 'CATCH-ALL', 'CATCH-ALL']);
  });

  it('matches a line with variant_id null by sku, and never by variantId', () => {
    const mapping = mustLoad(
      withBase(`products:
  - match: { variantId: 1 }
    sku: BY-VARIANT
    components: [{ code: c, path: "https://x.example/1.pdf" }]
  - match: { sku: "SKU-*" }
    sku: "BY-SKU-{{ line.variant_id | default: 'none' }}"
    components: [{ code: c, path: "https://x.example/2.pdf" }]
`),
    );
    const result = ok(mapOrder(order([{ variant_id: null, product_id: null }]), mapping, SHOP));
    expect(result.order.orderData.items.map((i) => i.sku)).toEqual(['BY-SKU-none']);
  });

  it('ignores gift cards and lines without shipping by default, unless a rule maps them', () => {
    const body = order([
      { sku: 'SKU-A' },
      { sku: 'GIFT', gift_card: true, requires_shipping: false },
      { sku: 'EBOOK', requires_shipping: false },
    ]);
    const byDefault = ok(mapOrder(body, mustLoad(withBase(simpleRule)), SHOP));
    expect(byDefault.order.orderData.items.map((i) => i.sku)).toEqual(['P-SKU-A']);
    expect(byDefault.ignored.map((l) => [l.lineItem.sku, l.reason])).toEqual([
      ['GIFT', 'gift card'],
      ['EBOOK', 'does not require shipping'],
    ]);

    const mapped = ok(
      mapOrder(
        body,
        mustLoad(
          withBase(`${simpleRule}  - match: { giftCard: true }
    sku: PRINTED-CARD
    components: [{ code: card, path: "https://x.example/card.pdf" }]
`),
        ),
        SHOP,
      ),
    );
    expect(mapped.order.orderData.items.map((i) => i.sku)).toEqual(['P-SKU-A', 'PRINTED-CARD']);
  });

  it('explicit ignore rules come first', () => {
    const mapping = mustLoad(withBase(`${simpleRule}ignore:\n  - match: { sku: "SKU-B" }\n    reason: sample\n`));
    const result = ok(mapOrder(order([{ sku: 'SKU-A' }, { sku: 'SKU-B' }]), mapping, SHOP));
    expect(result.order.orderData.items.map((i) => i.sku)).toEqual(['P-SKU-A']);
    expect(result.ignored).toEqual([{ lineItem: { id: '101', sku: 'SKU-B', title: 'Product 1' }, reason: 'sample', rule: 'ignore[0]' }]);
  });

  it('leaves out removed and refunded quantities; quantity defaults to what is left', () => {
    const body = order(
      [
        { sku: 'SKU-A', quantity: 3, current_quantity: 2 },
        { sku: 'SKU-B', quantity: 2, current_quantity: 0 },
        { sku: 'SKU-C', quantity: 4 },
        { sku: 'SKU-D', quantity: 1 },
      ],
      { refunds: [{ refund_line_items: [{ line_item_id: 102, quantity: 1 }, { line_item_id: 103, quantity: 1 }] }] },
    );
    const result = ok(mapOrder(body, mustLoad(withBase(simpleRule)), SHOP));
    expect(result.order.orderData.items.map((i) => [i.sku, i.quantity])).toEqual([
      ['P-SKU-A', 2],
      ['P-SKU-C', 3],
    ]);
    expect(result.ignored.map((l) => l.lineItem.sku)).toEqual(['SKU-B', 'SKU-D']);
  });

  it('says there is nothing to print when every line is left out', () => {
    const found = problems(mapOrder(order([{ sku: 'GIFT', gift_card: true }]), mustLoad(withBase(simpleRule)), SHOP));
    expect(found).toMatchObject([{ kind: 'empty', field: 'items', message: 'nothing to print: no line item maps to a print item (100: gift card)' }]);
  });
});

describe('fields, typing and defaults', () => {
  const everything = mustLoad(
    withBase(`order:
  sourceOrderId: "{{ order.name | remove: '#' | prepend: 'ACME-' }}"
  customerName: "{{ order.customer.first_name }} {{ order.customer.last_name | upcase }}"
  extraData: { channel: web, shopifyId: "{{ order.id }}", tags: ["{{ order.tags | split: ',' | first }}", 2] }
products:
  - match: { sku: "SKU-*" }
    sku: "{{ line.sku }}"
    quantity: "{{ line.properties.copies }}"
    description: "{{ line.title }}"
    dispatchAlert: "Check {{ line.properties.copies }} copies"
    unitWeight: "{{ line.grams | divided_by: 1000.0 }}"
    slaDays: "{{ line.properties.sla | default: 3 }}"
    barcode: "B{{ line.id }}"
    extraData: { lineId: "{{ line.id }}" }
    attributes: { finish: gloss, paper: "{{ line.properties.paper }}" }
    components:
      - code: cover
        path: "{{ line.properties._cover }}"
        preflight: "{{ line.properties.check }}"
        duplicate: 2
        barcode: "C{{ line.id }}"
        sourceComponentId: "{{ line.id }}-cover"
        attributes: { paper: silk, pages: 4, lam: true }
        extraData: { note: "{{ line.properties.paper }}" }
      - code: text
        path: "text-{{ line.sku }}.pdf"
        localFile: true
        preflight: true
stockItems:
  - match: { sku: "STOCK" }
    code: ST-1
    name: "{{ line.title }}"
    quantity: 5
    unitPrice: "{{ line.price }}"
`).replace(
      '  returnAddress:',
      `  carriers: { "DHL Express": { alias: "dhl-{{ order.shipping_lines[0].code }}" } }
  sourceShipmentId: "{{ order.order_number }}-{{ shipment.index }}"
  shipByDate: "{{ order.created_at | date: '%Y-%m-%d' }}"
  slaDays: "2"
  canShipEarly: "false"
  attachments: [{ path: "https://slips.example/{{ order.order_number }}.pdf", type: packingslip }]
  returnAddress:`,
    ),
  );

  const body = order(
    [
      {
        sku: 'SKU-A',
        grams: 1250,
        properties: [
          { name: 'copies', value: ' 3 ' },
          { name: 'paper', value: 'matt' },
          { name: '_cover', value: 'https://files.example/cover.pdf' },
          { name: 'check', value: 'yes' },
        ],
      },
      { sku: 'STOCK', price: '2.50', quantity: 1 },
    ],
    {
      customer: { first_name: 'Ann', last_name: 'Example' },
      tags: 'vip,repeat',
      created_at: '2026-11-20T23:30:00-05:00',
      shipping_lines: [{ code: 'dhl', title: 'DHL Express' }],
    },
  );

  it('sets every field of the order structure, typed after rendering', () => {
    const result = ok(mapOrder(body, everything, SHOP));
    expect(result.order).toEqual({
      destination: { name: 'acme-print' },
      orderData: {
        sourceOrderId: 'ACME-1001',
        customerName: 'Ann EXAMPLE',
        extraData: { channel: 'web', shopifyId: '700', tags: ['vip', 2] },
        items: [
          {
            sourceItemId: '100',
            sku: 'SKU-A',
            quantity: 3,
            description: 'Product 0',
            dispatchAlert: 'Check  3  copies',
            unitWeight: 1.25,
            slaDays: 3,
            barcode: 'B100',
            extraData: { lineId: '100' },
            shipmentIndex: 0,
            components: [
              {
                code: 'cover',
                path: 'https://files.example/cover.pdf',
                fetch: true,
                localFile: false,
                preflight: true,
                duplicate: 2,
                barcode: 'C100',
                sourceComponentId: '100-cover',
                attributes: { finish: 'gloss', paper: 'silk', pages: 4, lam: true },
                extraData: { note: 'matt' },
              },
              {
                code: 'text',
                path: 'text-SKU-A.pdf',
                fetch: false,
                localFile: true,
                preflight: false,
                duplicate: 1,
                attributes: { finish: 'gloss', paper: 'matt' },
              },
            ],
          },
        ],
        stockItems: [{ code: 'ST-1', name: 'Product 1', quantity: 5, unitPrice: 2.5, shipmentIndex: 0 }],
        shipments: [
          {
            sourceShipmentId: '1001-0',
            shipByDate: '2026-11-20',
            slaDays: 2,
            canShipEarly: false,
            shipTo: {
              name: 'Ann Example',
              address1: '1 High Street',
              town: 'York',
              postcode: 'YO1 7HH',
              isoCountry: 'GB',
              country: 'United Kingdom',
              email: 'ann@example.com',
            },
            returnAddress: { name: 'Acme Returns', address1: '1 Mill Lane', town: 'Leeds', postcode: 'LS1 1AA', isoCountry: 'GB' },
            carrier: { alias: 'dhl-dhl' },
            attachments: [{ path: 'https://slips.example/1001.pdf', type: 'packingslip' }],
          },
        ],
      },
    });
  });

  it('reports a template rendering text where a number is needed', () => {
    const bad = structuredClone(body);
    const props = (bad.line_items as { properties: { name: string; value: string }[] }[])[0]!.properties;
    props[0]!.value = 'abc';
    props[3]!.value = 'perhaps';
    expect(problems(mapOrder(bad, everything, SHOP)).map((p) => [p.kind, p.field, p.message])).toEqual([
      ['value', 'items[0].quantity', 'must be a whole number; the template rendered "abc"'],
      ['value', 'items[0].components[cover].preflight', 'must be true or false; the template rendered "perhaps"'],
    ]);
  });

  it('reports artwork that is not a URL as a problem of its line item and field', () => {
    const bad = structuredClone(body);
    (bad.line_items as { properties: { name: string; value: string }[] }[])[0]!.properties[2]!.value = 'cover.pdf';
    expect(problems(mapOrder(bad, everything, SHOP))).toEqual([
      {
        kind: 'value',
        field: 'items[0].components[cover].path',
        message: '"cover.pdf" is not an absolute URL (artwork must be an https:// address the printer can fetch)',
        rule: 'products[0]',
        lineItem: { id: '100', sku: 'SKU-A', title: 'Product 0' },
        retryable: false,
      },
    ]);
  });
});

describe('shipments and carriers', () => {
  const grouped = mustLoad(
    withBase(`products:
  - match: { sku: "SKU-*" }
    sku: "{{ line.sku }}"
    shipment: "{{ line.vendor }}"
    components: [{ code: c, path: "https://x.example/{{ line.sku }}.pdf" }]
stockItems:
  - match: { sku: "ST-*" }
    code: "{{ line.sku }}"
    shipment: "{{ line.vendor }}"
`),
  );

  it('makes one shipment per distinct key, in order of first appearance', () => {
    const body = order([
      { sku: 'SKU-1', vendor: 'North' },
      { sku: 'SKU-2', vendor: 'South' },
      { sku: 'ST-3', vendor: 'East' },
      { sku: 'SKU-4', vendor: 'North' },
      { sku: 'ST-5', vendor: 'South' },
    ]);
    const data = ok(mapOrder(body, grouped, SHOP)).order.orderData;
    expect(data.items.map((i) => [i.sku, i.shipmentIndex])).toEqual([
      ['SKU-1', 0],
      ['SKU-2', 1],
      ['SKU-4', 0],
    ]);
    expect(data.stockItems?.map((i) => [i.code, i.shipmentIndex])).toEqual([
      ['ST-3', 2],
      ['ST-5', 1],
    ]);
    expect(data.shipments).toHaveLength(3);
    // Which Shopify lines travel in which shipment, with their Shopify quantities: what fulfillments will cover.
    const mapped = ok(mapOrder(body, grouped, SHOP));
    expect(mapped.lines.map((l) => [l.lineItem.sku, l.quantity, l.shipmentIndex])).toEqual([
      ['SKU-1', 1, 0],
      ['SKU-2', 1, 1],
      ['ST-3', 1, 2],
      ['SKU-4', 1, 0],
      ['ST-5', 1, 1],
    ]);
    // A stock line first: its key comes first.
    const stockFirst = ok(mapOrder(order([{ sku: 'ST-1', vendor: 'East' }, { sku: 'SKU-2', vendor: 'North' }]), grouped, SHOP));
    expect(stockFirst.order.orderData.stockItems?.[0]?.shipmentIndex).toBe(0);
    expect(stockFirst.order.orderData.items[0]?.shipmentIndex).toBe(1);
    expect(new Set(data.shipments.map((s) => s.shipTo.name))).toEqual(new Set(['Ann Example']));
  });

  it('picks the carrier by shipping line code, then title, then the default', () => {
    const mapping = mustLoad(
      withBase(simpleRule).replace('  returnAddress:', '  carriers: { "EXP": { alias: express }, "Royal Mail Tracked": { alias: rm-tracked } }\n  returnAddress:'),
    );
    const carrierOf = (lines: unknown[]) =>
      ok(mapOrder(order([{}], { shipping_lines: lines }), mapping, SHOP)).order.orderData.shipments[0]?.carrier.alias;
    expect(carrierOf([{ code: 'EXP', title: 'Royal Mail Tracked' }])).toBe('express');
    expect(carrierOf([{ code: null, title: 'Royal Mail Tracked' }])).toBe('rm-tracked');
    expect(carrierOf([{ code: 'exp ', title: 'x' }])).toBe('express');
    expect(carrierOf([{ code: 'other', title: 'Other' }])).toBe('standard');
    expect(carrierOf([])).toBe('standard');
  });

  it('reports a missing carrier when there is no default', () => {
    const mapping = mustLoad(withBase(simpleRule).replace('  carrier: { alias: standard }\n', '  carriers: { EXP: { alias: express } }\n'));
    expect(problems(mapOrder(order([{}]), mapping, SHOP))).toMatchObject([
      { kind: 'carrier', field: 'shipments[0].carrier', message: expect.stringContaining('code "standard", title "Standard"') },
    ]);
  });

  it('reports an order that needs shipping but has no shipping address, without crashing', () => {
    const found = problems(mapOrder(order([{}], { shipping_address: null }), mustLoad(withBase(simpleRule)), SHOP));
    expect(found).toEqual([
      {
        kind: 'address',
        field: 'shipments[0].shipTo',
        message: 'the order has items to ship but no shipping address',
        retryable: false,
      },
    ]);
  });

  it('reports an address the print service cannot take (no postcode), and lets the mapping fill it', () => {
    const body = order([{}], {
      shipping_address: { name: 'Seán Ó Briain', address1: '1 Sráid Mhór', city: 'Gaillimh', zip: null, country_code: 'IE' },
    });
    expect(problems(mapOrder(body, mustLoad(withBase(simpleRule)), SHOP))).toMatchObject([
      { kind: 'schema', field: 'shipments[0].shipTo.postcode', message: 'required' },
    ]);
    const filled = mustLoad(
      withBase(simpleRule).replace('  returnAddress:', `  shipTo: { postcode: "{{ address.postcode | default: 'N/A' }}", name: "{{ address.name | upcase }}" }\n  returnAddress:`),
    );
    expect(ok(mapOrder(body, filled, SHOP)).order.orderData.shipments[0]?.shipTo).toMatchObject({
      name: 'SEÁN Ó BRIAIN',
      postcode: 'N/A',
      town: 'Gaillimh',
    });
  });

  it('turns one line item into several print items with suffixed sourceItemIds', () => {
    const mapping = mustLoad(
      withBase(`products:
  - match: { sku: "BUNDLE" }
    items:
      - sku: BOOK
        components: [{ code: text, path: "https://x.example/book.pdf" }]
      - sku: POSTER
        quantity: 2
        components: [{ code: art, path: "https://x.example/poster.pdf" }]
`),
    );
    const data = ok(mapOrder(order([{ sku: 'BUNDLE', quantity: 3 }]), mapping, SHOP)).order.orderData;
    expect(data.items.map((i) => [i.sourceItemId, i.sku, i.quantity])).toEqual([
      ['100-1', 'BOOK', 3],
      ['100-2', 'POSTER', 2],
    ]);
  });

  it('reads an order body it cannot use as a problem, not an exception', () => {
    expect(problems(mapOrder({ line_items: 'nope', name: '#1' }, mustLoad(withBase(simpleRule)), SHOP))).toMatchObject([
      { kind: 'order', field: 'order.line_items' },
    ]);
    expect(problems(mapOrder(null, mustLoad(withBase(simpleRule)), SHOP))[0]?.kind).toBe('order');
  });

  it('reads fields it only uses when they are text leniently: another type is absent, not an unreadable order (public bodies review, D4)', () => {
    // An older docs page printed order_status_url as an object; nothing in a mapping can fix such an order.
    const odd = {
      order_status_url: { order_status_url: 'https://checkout.shopify.com/1/orders/abc' },
      email: 42,
      contact_email: ['ann@example.com'],
      phone: { number: '555' },
    };
    const mapping = mustLoad(withBase(simpleRule.replace('    sku: "P-{{ line.sku }}"', '    sku: "P-{{ line.sku }}"\n    description: "{{ order.order_status_url.order_status_url }}"')));
    const data = ok(mapOrder(order([{}], odd), mapping, SHOP)).order.orderData;
    // Templates still see the body as it came.
    expect(data.items[0]?.description).toBe('https://checkout.shopify.com/1/orders/abc');
    const shipTo = data.shipments[0]?.shipTo;
    expect(shipTo).toMatchObject({ name: 'Ann Example', postcode: 'YO1 7HH' });
    expect(shipTo).not.toHaveProperty('email');
    expect(shipTo).not.toHaveProperty('phone');
    // Text is still used; what the mapping relies on stays strict.
    expect(ok(mapOrder(order([{}], { ...odd, email: null, contact_email: 'c@example.com' }), mapping, SHOP)).order.orderData.shipments[0]?.shipTo).toMatchObject({
      email: 'c@example.com',
    });
    expect(problems(mapOrder(order([{}], { ...odd, name: 1001 }), mapping, SHOP))).toMatchObject([{ kind: 'order', field: 'order.name' }]);
    expect(problems(mapOrder(order([{ quantity: '1' }], odd), mapping, SHOP))).toMatchObject([{ kind: 'order', field: 'order.line_items[0].quantity' }]);
  });

  it('names a line item without an id by its title and SKU, and says the id is missing (public bodies review, D5)', () => {
    const body = order([{ sku: '', title: 'Grizzly Bear Adoption Kit - Plush Bundle' }, { sku: 'SKU-1', quantity: 'two' }]);
    const lines = body.line_items as Record<string, unknown>[];
    delete lines[0]!.id;
    delete lines[0]!.admin_graphql_api_id;
    const found = problems(mapOrder(body, mustLoad(withBase(simpleRule)), SHOP));
    expect(found.map(formatMappingProblem)).toEqual([
      'line item ? (SKU none, "Grizzly Bear Adoption Kit - Plush Bundle") order.line_items[0].id: the Shopify order cannot be read: ' +
        'required: every line item has an id (a number, or its digits as text)',
      'line item 101 (SKU "SKU-1", "Product 1") order.line_items[1].quantity: the Shopify order cannot be read: ' +
        'Invalid input: expected number, received string',
    ]);
    expect(found[0]).toMatchObject({ kind: 'order', lineItem: { id: '?', sku: null, title: 'Grizzly Bear Adoption Kit - Plush Bundle' } });
    // An order-level issue names no line item.
    expect(problems(mapOrder({ ...order([{}]), name: undefined }, mustLoad(withBase(simpleRule)), SHOP))[0]).not.toHaveProperty('lineItem');
  });
});
