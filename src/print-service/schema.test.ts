import { describe, expect, it } from 'vitest';
import {
  acknowledgementSchema,
  errorBodySchema,
  orderEnvelopeSchema,
  orderListSchema,
  orderRecordSchema,
  isOrderList,
  isOrderRecord,
  parseOrder,
  quickCheckOf,
  shipmentResourceSchema,
  shippingUpdateSchema,
} from './schema.js';

/** The interface's minimum valid order, exactly as listed there. */
const minimumOrder = () => ({
  destination: { name: 'demo-printer' },
  orderData: {
    items: [{ sku: 'A5-SOFTCOVER', components: [{ code: 'cover', fetch: true, path: 'https://files.example.com/c.pdf' }] }],
    shipments: [{ shipTo: { name: 'Ada', address1: '1 Mill Lane', town: 'Leeds', postcode: 'LS1 1AA', isoCountry: 'GB' }, carrier: {} }],
  },
});

/** The minimum order plus what the later forms require. */
const minimumStrictOrder = () => {
  const order = minimumOrder();
  return {
    ...order,
    orderData: {
      ...order.orderData,
      sourceOrderId: 'acme-1001',
      items: [{ ...order.orderData.items[0]!, sourceItemId: '1' }],
      shipments: [
        {
          ...order.orderData.shipments[0]!,
          returnAddress: { name: 'Acme Returns', address1: '2 Dock Road', town: 'Leeds', postcode: 'LS2 2BB', isoCountry: 'GB' },
          carrier: { alias: 'standard' },
        },
      ],
    },
  };
};

describe('order schema', () => {
  it('accepts the minimum valid order in the lenient profile, with defaults applied', () => {
    const result = parseOrder(minimumOrder(), 'lenient');
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.order.orderData.items[0]).toEqual({
      sku: 'A5-SOFTCOVER',
      shipmentIndex: 0,
      quantity: 1,
      components: [
        { code: 'cover', fetch: true, path: 'https://files.example.com/c.pdf', localFile: false, preflight: false, duplicate: 1 },
      ],
    });
    expect(result.order.orderData.shipments[0]?.canShipEarly).toBe(true);
  });

  it('accepts the minimum order with the later forms\' fields in both profiles', () => {
    expect(parseOrder(minimumStrictOrder(), 'strict').ok).toBe(true);
    expect(parseOrder(minimumStrictOrder(), 'lenient').ok).toBe(true);
  });

  it('requires the later forms\' fields in the strict profile only', () => {
    const result = parseOrder(minimumOrder(), 'strict');
    expect(result).toEqual({
      ok: false,
      problems: [
        { path: 'orderData.sourceOrderId', message: 'required' },
        { path: 'orderData.items[0].sourceItemId', message: 'required' },
        { path: 'orderData.shipments[0].returnAddress', message: 'required' },
        { path: 'orderData.shipments[0].carrier.alias', message: 'required' },
      ],
    });
  });

  it('names every problem by its JSON path', () => {
    const order = minimumStrictOrder() as { orderData: { items: unknown[] } };
    order.orderData.items.push({ sourceItemId: '2', sku: 'POSTER', quantity: '2', components: [{ code: 'front', fetch: true }] });
    const result = parseOrder(order);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      { path: 'orderData.items[1].quantity', message: 'must be a number, got the string "2"' },
      { path: 'orderData.items[1].components[0].path', message: 'required' },
    ]);
  });

  it('needs at least one item and one shipment', () => {
    const order = minimumStrictOrder();
    const result = parseOrder({ ...order, orderData: { ...order.orderData, items: [], shipments: [] } });
    expect(!result.ok && result.problems.map((p) => p.path)).toEqual(['orderData.items', 'orderData.shipments']);
  });

  it('needs fetch or localFile, and a URL to fetch', () => {
    const order = minimumStrictOrder();
    order.orderData.items[0]!.components = [
      { code: 'a', path: 'https://x.example/a.pdf' } as never,
      { code: 'b', fetch: true, path: 'files/b.pdf' },
    ];
    const result = parseOrder(order);
    expect(!result.ok && result.problems).toEqual([
      {
        path: 'orderData.items[0].components[0].fetch',
        message: expect.stringContaining('either fetch or localFile must be true'),
      },
      { path: 'orderData.items[0].components[1].path', message: 'must be an http(s) URL when fetch is true' },
    ]);
  });

  it('turns preflight off for a local file, as the interface says', () => {
    const order = minimumStrictOrder();
    order.orderData.items[0]!.components = [{ code: 'text', path: 'book-123/text.pdf', localFile: true, preflight: true } as never];
    const result = parseOrder(order);
    expect(result.ok && result.order.orderData.items[0]!.components[0]).toMatchObject({ localFile: true, fetch: false, preflight: false });
  });

  it('checks shipmentIndex of items and stock items against the shipments array', () => {
    const order = minimumStrictOrder() as ReturnType<typeof minimumStrictOrder> & { orderData: { stockItems?: unknown[] } };
    (order.orderData.items[0] as { shipmentIndex?: number }).shipmentIndex = 1;
    order.orderData.stockItems = [{ code: 'BM-01', quantity: 1, shipmentIndex: 2 }];
    const result = parseOrder(order);
    expect(!result.ok && result.problems).toEqual([
      { path: 'orderData.items[0].shipmentIndex', message: 'must be an index into shipments (0 to 0), got 1' },
      { path: 'orderData.stockItems[0].shipmentIndex', message: 'must be an index into shipments (0 to 0), got 2' },
    ]);
  });

  it("requires a shipment's own shipmentIndex to be its position", () => {
    const order = minimumStrictOrder();
    (order.orderData.shipments[0] as { shipmentIndex?: number }).shipmentIndex = 3;
    const result = parseOrder(order);
    expect(!result.ok && result.problems[0]?.path).toBe('orderData.shipments[0].shipmentIndex');
  });

  it('requires sourceItemId to be unique within the order', () => {
    const order = minimumStrictOrder();
    order.orderData.items.push({ ...order.orderData.items[0]! });
    const result = parseOrder(order);
    expect(!result.ok && result.problems).toEqual([
      { path: 'orderData.items[1].sourceItemId', message: 'must be unique within the order; "1" is also items[0].sourceItemId' },
    ]);
  });

  it('checks shipByDate and isoCountry formats', () => {
    const order = minimumStrictOrder();
    Object.assign(order.orderData.shipments[0]!, { shipByDate: '2026-02-30' });
    order.orderData.shipments[0]!.shipTo.isoCountry = 'GBR';
    const result = parseOrder(order);
    expect(!result.ok && result.problems).toEqual([
      { path: 'orderData.shipments[0].shipByDate', message: 'must be a real calendar date (yyyy-mm-dd)' },
      { path: 'orderData.shipments[0].shipTo.isoCountry', message: 'must be a two-letter ISO country code' },
    ]);
    Object.assign(order.orderData.shipments[0]!, { shipByDate: '2026-12-01' });
    order.orderData.shipments[0]!.shipTo.isoCountry = 'us';
    const fixed = parseOrder(order);
    expect(fixed.ok && fixed.order.orderData.shipments[0]).toMatchObject({ shipByDate: '2026-12-01', shipTo: { isoCountry: 'US' } });
  });

  it('reads an empty array as an empty object for extraData and attributes, in both profiles', () => {
    for (const profile of ['strict', 'lenient'] as const) {
      const order = minimumStrictOrder() as ReturnType<typeof minimumStrictOrder> & { orderData: Record<string, unknown> };
      order.orderData.extraData = [];
      Object.assign(order.orderData.items[0]!, { extraData: [] });
      Object.assign(order.orderData.items[0]!.components[0]!, { attributes: [], extraData: [] });
      const result = parseOrder(order, profile);
      expect(result.ok, JSON.stringify(result)).toBe(true);
      if (result.ok) {
        expect(result.order.orderData.extraData).toEqual({});
        expect(result.order.orderData.items[0]!.components[0]).toMatchObject({ attributes: {}, extraData: {} });
      }
      order.orderData.extraData = [{ a: 1 }];
      const refused = parseOrder(order, profile);
      expect(!refused.ok && refused.problems.map((p) => p.path)).toEqual(['orderData.extraData']);
    }
  });

  it('accepts only ISO 3166-1 alpha-2 country codes (and XK), naming the code meant for UK', () => {
    const order = minimumStrictOrder();
    for (const [code, ok] of [['GB', true], ['gb', true], ['XK', true], ['UK', false], ['ZZ', false], ['EU', false]] as const) {
      order.orderData.shipments[0]!.shipTo.isoCountry = code;
      const result = parseOrder(order, 'lenient');
      expect(result.ok, code).toBe(ok);
      if (code === 'UK') {
        expect(!result.ok && result.problems).toEqual([{ path: 'orderData.shipments[0].shipTo.isoCountry', message: 'UK is not an ISO 3166-1 country code; use GB' }]);
      }
    }
  });

  it('ignores unknown fields instead of rejecting them', () => {
    const order = minimumStrictOrder() as Record<string, unknown> & ReturnType<typeof minimumStrictOrder>;
    Object.assign(order.orderData.items[0]!, { shipmentindex: '42', colour: 'red' });
    order.extra = true;
    const result = parseOrder(order);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.order.orderData.items[0]).not.toHaveProperty('shipmentindex');
      expect(result.order).not.toHaveProperty('extra');
    }
  });

  it('differs between profiles on the variant points', () => {
    const order = minimumStrictOrder() as ReturnType<typeof minimumStrictOrder> & { orderData: { stockItems?: unknown[] } };
    order.orderData.stockItems = [{ code: 'BM-01' }];
    expect(!parseOrder(order, 'strict').ok).toBe(true);
    const lenient = parseOrder(order, 'lenient');
    expect(lenient.ok && lenient.order.orderData.stockItems?.[0]).toEqual({ code: 'BM-01', quantity: 1, shipmentIndex: 0, unitPrice: 0 });

    // The latest form made the return postcode optional; the earliest requires it.
    const noPostcode = minimumStrictOrder();
    delete (noPostcode.orderData.shipments[0]!.returnAddress as { postcode?: string }).postcode;
    expect(parseOrder(noPostcode, 'strict').ok).toBe(true);
    const result = parseOrder(noPostcode, 'lenient');
    expect(!result.ok && result.problems).toEqual([{ path: 'orderData.shipments[0].returnAddress.postcode', message: 'required' }]);
  });

  it('takes slaDays on the item and on the shipment in both profiles', () => {
    const order = minimumStrictOrder();
    Object.assign(order.orderData.items[0]!, { slaDays: 3 });
    Object.assign(order.orderData.shipments[0]!, { slaDays: 5 });
    for (const profile of ['strict', 'lenient'] as const) {
      const result = parseOrder(order, profile);
      expect(result.ok && [result.order.orderData.items[0]!.slaDays, result.order.orderData.shipments[0]!.slaDays]).toEqual([3, 5]);
    }
  });

  it('accepts every documented field', () => {
    const full = {
      destination: { name: 'acme-print' },
      orderData: {
        sourceOrderId: 'acme-1002',
        customerName: 'Zoë Ünal',
        extraData: { shopifyOrder: 'gid://shopify/Order/1' },
        items: [
          {
            description: 'A5 notebook',
            shipmentIndex: 1,
            sourceItemId: '11',
            sku: 'A5',
            dispatchAlert: 'gift',
            quantity: 3,
            unitWeight: 0.25,
            slaDays: 2,
            barcode: 'B1',
            extraData: { k: 1 },
            components: [
              {
                code: 'cover',
                path: 'https://x.example/c.pdf',
                fetch: true,
                preflight: true,
                sourceComponentId: 'c1',
                duplicate: 2,
                barcode: 'C1',
                attributes: { finish: 'matte', pages: 120, laminated: true },
                extraData: { x: 'y' },
              },
            ],
          },
        ],
        stockItems: [{ code: 'BM-01', name: 'Bookmark', quantity: 2, shipmentIndex: 0, unitPrice: 1.5 }],
        shipments: [
          minimumStrictOrder().orderData.shipments[0]!,
          {
            sourceShipmentId: 's2',
            shipmentIndex: 1,
            shipByDate: '2026-12-24',
            slaDays: 4,
            canShipEarly: false,
            shipTo: {
              name: 'Zoë', companyName: 'Łódź Sp. z o.o.', address1: 'ul. Piotrkowska 1', address2: 'lok. 2', address3: 'III p.',
              town: 'Łódź', postcode: '90-001', state: 'łódzkie', isoCountry: 'PL', country: 'Polska', email: 'z@example.com', phone: '+48 1',
            },
            returnAddress: { name: 'Acme', address1: '2 Dock Road', town: 'Leeds', postcode: 'LS1 1AA', isoCountry: 'GB', email: 'r@example.com' },
            carrier: { alias: 'express' },
            attachments: [{ path: 'https://slips.example.com/1002.pdf', type: 'packingslip' }],
          },
        ],
      },
    };
    const result = parseOrder(full);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.order.orderData.shipments[1]!.shipTo.town).toBe('Łódź');
      expect(result.order.orderData.items[0]!.components[0]!.attributes).toEqual({ finish: 'matte', pages: 120, laminated: true });
    }
  });
});

describe('answer schemas', () => {
  it('reads an acknowledgement', () => {
    const ack = { _id: '57d07ba6872ba4110086ca0d', url: 'https://print.example.com/orders/57d0.json', timestamp: '2026-11-21T14:05:09.000Z', sourceAccountId: '5f0c0ffee0c0ffee0c0ffee0' };
    expect(acknowledgementSchema.parse(ack)).toEqual(ack);
    expect(acknowledgementSchema.safeParse({ ...ack, _id: 'xyz' }).success).toBe(false);
    expect(acknowledgementSchema.safeParse({ ...ack, timestamp: 'yesterday' }).success).toBe(false);
  });

  it('reads the stored order a real service answers a create with ({order, success}, no url or timestamp)', () => {
    // The shape of HP's SDK sample of a creation answer: the stored order with server-added fields, wrapped.
    const answer = {
      order: { __v: 1, _id: '57d07ba6872ba4110086ca0d', destination: { id: '57ad022fc3af860f00c7ed4e', name: 'hp.jpeng' }, files: [], status: 'received', orderData: { sourceOrderId: 'x-1', items: [], shipments: [] } },
      success: true,
    };
    expect(acknowledgementSchema.parse(answer)).toEqual({ _id: '57d07ba6872ba4110086ca0d' });
    expect(acknowledgementSchema.parse({ _id: '57d07ba6872ba4110086ca0d' })).toEqual({ _id: '57d07ba6872ba4110086ca0d' });
    expect(acknowledgementSchema.safeParse({ order: { status: 'received' }, success: true }).success).toBe(false);
    expect(acknowledgementSchema.safeParse({ success: true }).success).toBe(false);
    expect(acknowledgementSchema.safeParse({ ...answer, success: false }).success).toBe(false);
  });

  it('reads an error body', () => {
    expect(errorBodySchema.parse({ success: false, error: { message: 'Order not found', name: 'OrderNotFound', code: 4040 } }).error.code).toBe(4040);
    expect(errorBodySchema.safeParse({ success: false, error: { message: 'x' } }).success).toBe(false);
  });

  it('reads order records and keeps fields beyond the submitted structure', () => {
    const record = orderRecordSchema.parse({
      _id: '57d07ba6872ba4110086ca0d',
      status: 'dataready',
      destination: { id: 'x', name: 'hp.jpeng' },
      orderData: { sourceOrderId: 'RO7C7T', colour: 'black', shipments: [{ shipmentIndex: 0 }] },
      logs: [{ message: 'Order created' }],
    });
    expect(record.status).toBe('dataready');
    expect((record as Record<string, unknown>).logs).toEqual([{ message: 'Order created' }]);
    expect((record.orderData as Record<string, unknown>).colour).toBe('black');
    expect(orderListSchema.parse({ data: [record], count: 11, page: 2, pagesize: 10 }).count).toBe(11);
  });

  it('reads a shipment resource and an update-shipping body', () => {
    expect(
      shipmentResourceSchema.parse({ shipmentIndex: 0, sourceOrderId: 'a-1', shipTo: { name: 'A', town: 'T' }, carrier: { code: 'royalmail', service: '1st' } }),
    ).toMatchObject({ shipmentIndex: 0, items: [] });
    expect(shippingUpdateSchema.safeParse({}).success).toBe(false);
    expect(shippingUpdateSchema.safeParse({ trackingNumber: 'TN1' }).success).toBe(true);
    expect(shippingUpdateSchema.safeParse({ carrier: { service: 'x' } }).success).toBe(false);
    expect(shippingUpdateSchema.safeParse({ shipTo: { name: 'A' } }).success).toBe(false);
  });

  it('recognises the create envelope without judging the content', () => {
    expect(orderEnvelopeSchema.safeParse({ destination: {}, orderData: { items: 'nonsense' } }).success).toBe(true);
    expect(orderEnvelopeSchema.safeParse({ destination: 'x', orderData: {} }).success).toBe(false);
    expect(orderEnvelopeSchema.safeParse([]).success).toBe(false);
  });
});

/* eslint-disable @typescript-eslint/no-explicit-any -- the edits below reach anywhere into a record of any shape */
describe('quick check agrees with zod', () => {
  /** A record as a real service answers it (HP's sample output's fields, several items and shipments). */
  const record = (): Record<string, unknown> => ({
    __v: 1,
    _id: '57d07ba6872ba4110086ca0d',
    status: 'dataready',
    sourceAccountId: '57ad022fc3af860f00c7ed4e',
    destination: { id: '57ad022fc3af860f00c7ed4e', name: 'hp.jpeng' },
    files: [{ _id: '57d07ba6872ba4110086ca13', versions: [{ paths: { fetchUrl: 'https://x/a.pdf' } }] }],
    logs: [{ level: 'info', message: 'Order created' }],
    orderData: {
      sourceOrderId: 'RO7C7T',
      attributes: [],
      items: [
        { _id: 'a', sku: 'Business Cards', components: [{ code: 'Content', attributes: { cut: 'To Trim' } }] },
        { _id: 'b', sku: 'Poster', quantity: 2, components: [] },
      ],
      shipments: [{ shipmentIndex: 0, status: 'shipped', trackingNumber: 'TN1', carrier: { code: 'royalmail' } }, { shipmentIndex: 1 }],
    },
  });
  type Edit = [string, (r: Record<string, any>) => void];
  const edits: Edit[] = [
    ['as sent', () => {}],
    ['no status', (r) => delete r.status],
    ['no orderData lists', (r) => { delete r.orderData.items; delete r.orderData.shipments; }],
    ['empty lists', (r) => { r.orderData.items = []; r.orderData.shipments = []; }],
    ['upper-case id', (r) => (r._id = '57D07BA6872BA4110086CA0D')],
    ['short id', (r) => (r._id = '57d07ba6872ba4110086ca0')],
    ['numeric id', (r) => (r._id = 57)],
    ['no id', (r) => delete r._id],
    ['null status', (r) => (r.status = null)],
    ['numeric status', (r) => (r.status = 3)],
    ['numeric account', (r) => (r.sourceAccountId = 3)],
    ['no destination', (r) => delete r.destination],
    ['destination array', (r) => (r.destination = [])],
    ['destination without name', (r) => delete r.destination.name],
    ['destination name null', (r) => (r.destination.name = null)],
    ['no orderData', (r) => delete r.orderData],
    ['orderData null', (r) => (r.orderData = null)],
    ['orderData array', (r) => (r.orderData = [])],
    ['numeric sourceOrderId', (r) => (r.orderData.sourceOrderId = 42)],
    ['items object', (r) => (r.orderData.items = {})],
    ['item null', (r) => (r.orderData.items[1] = null)],
    ['item array', (r) => (r.orderData.items[0] = [])],
    ['item string', (r) => (r.orderData.items[0] = 'x')],
    ['shipments string', (r) => (r.orderData.shipments = 'x')],
    ['shipment null', (r) => (r.orderData.shipments[1] = null)],
    ['own __proto__ key', (r) => (r.orderData.shipments[0] = JSON.parse('{"__proto__": {"x": 1}, "shipmentIndex": 0}'))],
  ];

  it.each(edits)('record, %s', (_name, edit) => {
    const value = record();
    edit(value);
    const parsed = orderRecordSchema.safeParse(value);
    const quick = isOrderRecord(value);
    // The first five are sound records: the quick path takes them; every other edit is left to zod.
    expect(quick).toBe(edits.findIndex(([name]) => name === _name) < 5);
    if (quick) {
      expect(parsed.success).toBe(true);
      expect(value).toEqual(parsed.data);
    }
  });

  it('takes the quick path for a real-shaped record and list, and leaves the rest to zod', () => {
    expect(isOrderRecord(record())).toBe(true);
    expect(isOrderRecord(JSON.parse(JSON.stringify(record())))).toBe(true);
    expect(isOrderList({ data: [record(), record()], count: 2, page: 1, pagesize: 10 })).toBe(true);
    expect(quickCheckOf(orderRecordSchema)).toBe(isOrderRecord);
    expect(quickCheckOf(orderListSchema)).toBe(isOrderList);
    expect(quickCheckOf(acknowledgementSchema)).toBeUndefined();
  });

  it.each([
    ['as sent', (l: Record<string, any>) => l],
    ['extra key (zod drops it)', (l: Record<string, any>) => ({ ...l, success: true })],
    ['count -1', (l: Record<string, any>) => ({ ...l, count: -1 })],
    ['page 0', (l: Record<string, any>) => ({ ...l, page: 0 })],
    ['pagesize 1.5', (l: Record<string, any>) => ({ ...l, pagesize: 1.5 })],
    ['page as text', (l: Record<string, any>) => ({ ...l, page: '1' })],
    ['data object', (l: Record<string, any>) => ({ ...l, data: {} })],
    ['bad record', (l: Record<string, any>) => ({ ...l, data: [{ ...record(), _id: 'x' }] })],
  ])('list, %s', (_name, edit) => {
    const value = edit({ data: [record()], count: 1, page: 1, pagesize: 10 });
    const parsed = orderListSchema.safeParse(value);
    if (isOrderList(value)) {
      expect(parsed.success).toBe(true);
      expect(value).toEqual(parsed.data);
    } else if (parsed.success) {
      expect(value).not.toEqual(parsed.data);
    }
  });
});
/* eslint-enable @typescript-eslint/no-explicit-any */
