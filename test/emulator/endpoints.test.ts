import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/dev/emulator/server.js';
import { DEMO_ACCOUNT_ID } from '../../src/dev/emulator/accounts.js';
import { A, TWO_ACCOUNTS, call, createOrder, hook, startTestEmulator, validOrder } from './helpers.js';

/** Every endpoint and its rules, with processing under the test's control (manual mode, advanced by the hooks). */

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ manual: true });
});
afterAll(() => emu.close());
beforeEach(async () => {
  expect((await hook(emu, 'POST', '/reset')).status).toBe(200);
});

const get = (path: string) => call(emu.baseUrl, 'GET', path);
const advance = (id: string, to: string, shipmentIndex?: number) =>
  hook(emu, 'POST', `/orders/${id}/advance`, shipmentIndex === undefined ? { to } : { to, shipmentIndex });

describe('validate', () => {
  it('answers 200 {valid:true} for a valid order', async () => {
    const res = await call(emu.baseUrl, 'POST', '/api/order/validate', { body: validOrder('V-1') });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ valid: true });
  });

  it('lists every problem of an invalid order as a ValidationError', async () => {
    const order = validOrder('V-2');
    const invalid = {
      ...order,
      orderData: {
        ...order.orderData,
        items: [{ ...order.orderData.items[0], components: [{ code: 'cover', path: 'cover.pdf', fetch: true }] }],
        shipments: [{ ...order.orderData.shipments[0], carrier: {} }],
      },
    };
    const res = await call(emu.baseUrl, 'POST', '/api/order/validate', { body: invalid });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error).toMatchObject({ name: 'ValidationError', code: 4001, message: 'the order is not valid: 2 problems' });
    expect(res.body.error.validations).toEqual([
      { path: 'orderData.items[0].components[0].path', message: 'must be an http(s) URL when fetch is true' },
      { path: 'orderData.shipments[0].carrier.alias', message: 'required' },
    ]);
    const badIndex = validOrder('V-2');
    badIndex.orderData.items[0]!.shipmentIndex = 3;
    const index = await call(emu.baseUrl, 'POST', '/api/order/validate', { body: badIndex });
    expect(index.body.error.validations).toEqual([
      { path: 'orderData.items[0].shipmentIndex', message: 'must be an index into shipments (0 to 0), got 3' },
    ]);
    expect(emu.store.size).toBe(0);
  });

  it('checks the destination, its SKUs and the carrier aliases of the account', async () => {
    const two = await startTestEmulator({ accountInputs: TWO_ACCOUNTS, manual: true });
    try {
      const order = validOrder('V-3', { destination: 'printer-a', sku: 'MUG', shipments: 2 });
      order.orderData.shipments[1]!.carrier = { alias: 'overnight' };
      const res = await call(two.baseUrl, 'POST', '/api/order/validate', { body: order, account: A });
      expect(res.status).toBe(400);
      expect(res.body.error.validations).toEqual([
        { path: 'orderData.items[0].sku', message: 'SKU "MUG" is not set up in destination "printer-a"' },
        { path: 'orderData.items[1].sku', message: 'SKU "MUG" is not set up in destination "printer-a"' },
        { path: 'orderData.shipments[0].carrier.alias', message: 'carrier alias "standard" is not set up for brand-a (set up: express)' },
        { path: 'orderData.shipments[1].carrier.alias', message: 'carrier alias "overnight" is not set up for brand-a (set up: express)' },
      ]);
      const elsewhere = await call(two.baseUrl, 'POST', '/api/order/validate', { body: validOrder('V-4', { destination: 'printer-z' }), account: A });
      expect(elsewhere.body.error.validations[0]).toEqual({
        path: 'destination.name',
        message: '"printer-z" is not a destination account that brand-a may send to (known: "printer-a")',
      });
    } finally {
      await two.close();
    }
  });

  it('follows the schema profile: lenient accepts the interface\'s minimum valid order, strict does not', async () => {
    const minimum = {
      destination: { name: 'demo-printer' },
      orderData: {
        items: [{ sku: 'CARD', components: [{ code: 'Content', fetch: true, path: 'https://files.example.test/card.pdf' }] }],
        shipments: [{ shipTo: { name: 'John Doe', address1: '1 Main St', town: 'Capitol', postcode: '12345', isoCountry: 'US' }, carrier: {} }],
      },
    };
    const strict = await call(emu.baseUrl, 'POST', '/api/order/validate', { body: minimum });
    expect(strict.status).toBe(400);
    expect(strict.body.error.validations.map((v: { path: string }) => v.path)).toEqual([
      'orderData.sourceOrderId',
      'orderData.items[0].sourceItemId',
      'orderData.shipments[0].returnAddress',
      'orderData.shipments[0].carrier.alias',
    ]);
    const lenient = await startTestEmulator({ profile: 'lenient', manual: true });
    try {
      const res = await call(lenient.baseUrl, 'POST', '/api/order/validate', { body: minimum });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ valid: true });
      // Lenient takes every order strict takes too: one whose return address has no postcode (the earliest form wants
      // one) is valid under both.
      const later = validOrder('P-1');
      delete (later.orderData.shipments[0]!.returnAddress as { postcode?: string }).postcode;
      expect((await call(emu.baseUrl, 'POST', '/api/order/validate', { body: later })).body).toEqual({ valid: true });
      expect((await call(lenient.baseUrl, 'POST', '/api/order/validate', { body: later })).body).toEqual({ valid: true });
    } finally {
      await lenient.close();
    }
  });
});

describe('empty objects written as [] and country codes (docs/print-service-api.md)', () => {
  // A production order as a PHP sender writes it: json_encode turns an empty associative array into [].
  const phpOrder = (isoCountry: string) => {
    const order = validOrder('PHP-1') as unknown as { orderData: Record<string, unknown> & { items: Record<string, unknown>[]; shipments: { shipTo: { isoCountry: string } }[] } };
    order.orderData.extraData = [];
    order.orderData.items[0]!.extraData = [];
    (order.orderData.items[0]!.components as Record<string, unknown>[])[0]!.attributes = [];
    order.orderData.shipments[0]!.shipTo.isoCountry = isoCountry;
    return order;
  };

  it('takes extraData: [] and attributes: [] as empty objects, in both profiles, through validate and create', async () => {
    const lenient = await startTestEmulator({ profile: 'lenient', manual: true });
    try {
      for (const emulator of [emu, lenient]) {
        const valid = await call(emulator.baseUrl, 'POST', '/api/order/validate', { body: phpOrder('GB') });
        expect(valid.status, JSON.stringify(valid.body)).toBe(200);
        const id = await createOrder(emulator, phpOrder('GB'));
        expect((await hook(emulator, 'POST', `/orders/${id}/advance`, { to: 'received' })).status).toBe(200);
        expect((await call(emulator.baseUrl, 'GET', `/api/order/${id}`)).body.status).toBe('received');
      }
    } finally {
      await lenient.close();
    }
  });

  it('refuses a non-empty array where an object belongs, and UK for GB', async () => {
    const order = phpOrder('UK');
    order.orderData.extraData = ['a'];
    const res = await call(emu.baseUrl, 'POST', '/api/order/validate', { body: order });
    expect(res.status).toBe(400);
    expect(res.body.error.validations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'orderData.extraData' }),
        { path: 'orderData.shipments[0].shipTo.isoCountry', message: 'UK is not an ISO 3166-1 country code; use GB' },
      ]),
    );
    const id = await createOrder(emu, phpOrder('UK'));
    await advance(id, 'received');
    const stored = (await get(`/api/order/${id}`)).body;
    expect(stored.status).toBe('submissionerror');
    expect(stored.errors.join(' ')).toMatch(/UK is not an ISO 3166-1 country code/);
  });
});

describe('create', () => {
  it('stores the order and acknowledges _id, url, timestamp and sourceAccountId', async () => {
    const order = validOrder('C-1');
    const before = Date.now();
    const res = await call(emu.ordersUrl, 'POST', '/api/order', { body: order });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['_id', 'sourceAccountId', 'timestamp', 'url']);
    expect(res.body._id).toMatch(/^[0-9a-f]{24}$/);
    expect(res.body.sourceAccountId).toBe(DEMO_ACCOUNT_ID);
    expect(Date.parse(res.body.timestamp)).toBeGreaterThanOrEqual(before - 1000);
    expect(res.body.url).toBe(`${emu.baseUrl}/_emulator/orders/${res.body._id}/original`);
    const original = await call(emu.baseUrl, 'GET', new URL(res.body.url).pathname, { unsigned: true });
    expect(original.body).toEqual(order);
    const stored = await get(`/api/order/${res.body._id}`);
    expect(stored.body).toMatchObject({ _id: res.body._id, status: 'submitted', sourceAccountId: DEMO_ACCOUNT_ID, sourceAccountName: 'demo-brand', errors: [] });
  });

  it('acknowledges an order that is not valid, because validity is known only later', async () => {
    const res = await call(emu.ordersUrl, 'POST', '/api/order', { body: { destination: { name: 'nowhere' }, orderData: { items: [] } } });
    expect(res.status).toBe(200);
    expect(res.body._id).toMatch(/^[0-9a-f]{24}$/);
    const after = await advance(res.body._id, 'received');
    expect(after.status).toBe(409);
    expect(after.body.error.name).toBe('InvalidTransition');
    expect((await get(`/api/order/${res.body._id}`)).body.status).toBe('submissionerror');
  });
});

describe('list', () => {
  it('lists the account\'s orders newest first, 10 per page by default', async () => {
    for (let i = 1; i <= 12; i++) await createOrder(emu, validOrder(`L-${i}`));
    const first = await get('/api/order');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ count: 12, page: 1, pagesize: 10 });
    expect(first.body.data.map((o: { orderData: { sourceOrderId: string } }) => o.orderData.sourceOrderId)).toEqual(
      Array.from({ length: 10 }, (_, i) => `L-${12 - i}`),
    );
    const second = await get('/api/order?page=2');
    expect(second.body.data.map((o: { orderData: { sourceOrderId: string } }) => o.orderData.sourceOrderId)).toEqual(['L-2', 'L-1']);
    const small = await get('/api/order?page=3&pagesize=5');
    expect(small.body).toMatchObject({ count: 12, page: 3, pagesize: 5 });
    expect(small.body.data).toHaveLength(2);
    const beyond = await get('/api/order?page=9');
    expect(beyond.body).toMatchObject({ data: [], count: 12, page: 9 });
  });

  it('answers 400 InvalidQuery for a bad page or pagesize', async () => {
    for (const query of ['page=0', 'page=-1', 'page=abc', 'page=1.5', 'pagesize=0', 'pagesize=101', 'pagesize=x']) {
      const res = await get(`/api/order?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error).toMatchObject({ name: 'InvalidQuery', code: 4002 });
    }
  });
});

describe('get and get by source id', () => {
  it('answers 400 for a malformed id, 404 for an unknown one', async () => {
    for (const id of ['xyz', '0123456789abcdef0123456', '0123456789abcdef012345678', 'zzzzzzzzzzzzzzzzzzzzzzzz']) {
      const res = await get(`/api/order/${id}`);
      expect(res.status, id).toBe(400);
      expect(res.body.error).toMatchObject({ name: 'InvalidOrderId', code: 4003 });
    }
    const unknown = await get('/api/order/0123456789abcdef01234567');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ name: 'OrderNotFound', code: 4040 });
  });

  it('finds an order by id and by source id, with its status', async () => {
    const id = await createOrder(emu, validOrder('G-1'));
    await advance(id, 'printready');
    const byId = await get(`/api/order/${id}`);
    expect(byId.status).toBe(200);
    expect(byId.body.status).toBe('printready');
    const bySource = await get('/api/order/bysourceid/G-1');
    expect(bySource.status).toBe(200);
    expect(bySource.body).toEqual(byId.body);
    const missing = await get('/api/order/bysourceid/G-2');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ name: 'OrderNotFound', code: 4040 });
  });

  it('finds the original, not the duplicate\'s submission-error record', async () => {
    const original = await createOrder(emu, validOrder('D-1'));
    const duplicate = await createOrder(emu, validOrder('D-1'));
    // Processed first or not, the later submission is the duplicate.
    const dup = await advance(duplicate, 'received');
    expect(dup.status).toBe(409);
    expect((await get(`/api/order/${duplicate}`)).body).toMatchObject({
      status: 'submissionerror',
      errors: [`orderData.sourceOrderId: an order with sourceOrderId "D-1" already exists (${original}); this submission is a duplicate`],
    });
    expect((await advance(original, 'received')).body.status).toBe('received');
    expect((await get('/api/order/bysourceid/D-1')).body._id).toBe(original);
  });
});

describe('cancel', () => {
  const cancel = (sourceOrderId: string) => call(emu.baseUrl, 'PUT', `/api/order/demo-brand/${encodeURIComponent(sourceOrderId)}/cancel`);

  it('cancels, then refuses to cancel again', async () => {
    const id = await createOrder(emu, validOrder('X-1'));
    await advance(id, 'received');
    const res = await cancel('X-1');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: id, status: 'cancelled' });
    const again = await cancel('X-1');
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ name: 'OrderAlreadyCancelled', code: 4004 });
    expect(again.body).not.toHaveProperty('status');
  });

  it('answers 404 for an unknown order', async () => {
    const res = await cancel('X-404');
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ name: 'OrderNotFound', code: 4040 });
  });

  it('refuses to cancel a shipped order, a partly shipped one, or a submission error', async () => {
    const shipped = await createOrder(emu, validOrder('X-2'));
    await advance(shipped, 'shipped');
    const res = await cancel('X-2');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ name: 'OrderNotCancellable', code: 4005 });

    const partly = await createOrder(emu, validOrder('X-3', { shipments: 2 }));
    const afterOne = await advance(partly, 'shipped', 1);
    expect(afterOne.body.status).toBe('printready');
    expect(afterOne.body.orderData.shipments.map((s: { status: string }) => s.status)).toEqual(['pending', 'shipped']);
    expect((await cancel('X-3')).body.error.name).toBe('OrderNotCancellable');

    await createOrder(emu, validOrder('X-4', { destination: 'nowhere' }));
    const failed = await call(emu.baseUrl, 'GET', '/_emulator/orders?sourceOrderId=X-4', { unsigned: true });
    await advance(failed.body.data[0]._id, 'received');
    expect((await cancel('X-4')).body.error.name).toBe('OrderNotCancellable');
    expect((await get(`/api/order/${shipped}`)).body.status).toBe('shipped');
  });
});

describe('update shipping', () => {
  const update = (sourceOrderId: string, index: string | number, body: unknown) =>
    call(emu.baseUrl, 'PUT', `/api/shipment/${encodeURIComponent(sourceOrderId)}/${index}/shipping`, { body });
  const newAddress = { name: 'Grace Hopper', address1: '2 Navy Yard', town: 'Arlington', postcode: '22202', isoCountry: 'us' };

  it('changes the stored shipment and returns it; dispatch then uses the new carrier and tracking', async () => {
    const id = await createOrder(emu, validOrder('U-1', { shipments: 2 }));
    await advance(id, 'received');
    const res = await update('U-1', 1, { shipTo: newAddress, carrier: { code: 'ups', service: 'ground' }, trackingNumber: '1Z999' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      shipmentIndex: 1,
      sourceOrderId: 'U-1',
      status: 'pending',
      shipTo: { ...newAddress, isoCountry: 'US' },
      carrier: { alias: 'express', code: 'ups', service: 'ground' },
      trackingNumber: '1Z999',
    });
    expect(res.body.items.map((i: { sourceItemId: string }) => i.sourceItemId)).toEqual(['U-1-item-1']);
    expect(res.body.returnAddress.name).toBe('Acme Returns');
    const stored = (await get(`/api/order/${id}`)).body.orderData.shipments;
    expect(stored[1].shipTo.name).toBe('Grace Hopper');
    expect(stored[0].shipTo.name).toBe('Ada Lovelace');
    const done = await advance(id, 'shipped');
    expect(done.body.orderData.shipments[1]).toMatchObject({ status: 'shipped', trackingNumber: '1Z999', carrier: { code: 'ups', service: 'ground' } });
    expect(done.body.orderData.shipments[0]).toMatchObject({ status: 'shipped', carrier: { alias: 'standard', code: 'royalmail', service: 'standard' } });
    expect(done.body.orderData.shipments[0].trackingNumber).toMatch(/^EM\d{9}GB$/);
  });

  it('reports an amended carrier without a service as given, with no service made up (contract review)', async () => {
    const id = await createOrder(emu, validOrder('U-6'));
    await advance(id, 'received');
    expect((await update('U-6', 0, { carrier: { code: 'dhl' } })).status).toBe(200);
    const shipped = await advance(id, 'shipped');
    const carrier = shipped.body.orderData.shipments[0].carrier;
    expect(carrier).toMatchObject({ code: 'dhl' });
    expect(carrier.service).toBeUndefined();
  });

  it('keeps an update made before processing through the submission checks', async () => {
    const id = await createOrder(emu, validOrder('U-5'));
    const early = await update('U-5', 0, { shipTo: newAddress, carrier: { code: 'ups', service: 'ground' }, trackingNumber: '1Z000' });
    expect(early.status).toBe(200);
    expect(early.body).toMatchObject({ shipmentIndex: 0, carrier: { alias: 'standard', code: 'ups', service: 'ground' }, trackingNumber: '1Z000' });
    const shipped = await advance(id, 'shipped');
    expect(shipped.body.orderData.shipments[0]).toMatchObject({
      status: 'shipped',
      shipTo: { name: 'Grace Hopper', isoCountry: 'US' },
      carrier: { alias: 'standard', code: 'ups', service: 'ground' },
      trackingNumber: '1Z000',
    });
  });

  it('answers 404 for an unknown order or shipment, 400 for a bad index or body', async () => {
    await createOrder(emu, validOrder('U-2'));
    const noOrder = await update('U-404', 0, { trackingNumber: 'T' });
    expect(noOrder.status).toBe(404);
    expect(noOrder.body.error).toMatchObject({ name: 'OrderNotFound', code: 4040 });
    const noShipment = await update('U-2', 5, { trackingNumber: 'T' });
    expect(noShipment.status).toBe(404);
    expect(noShipment.body.error).toMatchObject({ name: 'ShipmentNotFound', code: 4040 });
    const badIndex = await update('U-2', 'first', { trackingNumber: 'T' });
    expect(badIndex.status).toBe(400);
    expect(badIndex.body.error).toMatchObject({ name: 'InvalidShipmentIndex', code: 4007 });
    const empty = await update('U-2', 0, {});
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({ name: 'ValidationError', code: 4001 });
    expect(empty.body.error.validations).toEqual([{ path: '', message: 'give at least one of shipTo, carrier and trackingNumber' }]);
    const partial = await update('U-2', 0, { shipTo: { name: 'Only a name' } });
    expect(partial.status).toBe(400);
    expect(partial.body.error.validations.map((v: { path: string }) => v.path)).toEqual([
      'shipTo.address1',
      'shipTo.town',
      'shipTo.postcode',
      'shipTo.isoCountry',
    ]);
  });

  it('refuses to change a shipped shipment or a cancelled order', async () => {
    const id = await createOrder(emu, validOrder('U-3', { shipments: 2 }));
    await advance(id, 'shipped', 0);
    const shipped = await update('U-3', 0, { trackingNumber: 'T' });
    expect(shipped.status).toBe(400);
    expect(shipped.body.error).toMatchObject({ name: 'ShipmentNotAmendable', code: 4006 });
    expect((await update('U-3', 1, { trackingNumber: 'T2' })).status).toBe(200);

    await createOrder(emu, validOrder('U-4'));
    await call(emu.baseUrl, 'PUT', '/api/order/demo-brand/U-4/cancel');
    const cancelled = await update('U-4', 0, { trackingNumber: 'T' });
    expect(cancelled.status).toBe(400);
    expect(cancelled.body.error.name).toBe('ShipmentNotAmendable');
  });
});

describe('status transitions', () => {
  it('never moves backwards and keeps final states final', async () => {
    const id = await createOrder(emu, validOrder('S-1'));
    expect((await advance(id, 'printready')).body.status).toBe('printready');
    const back = await advance(id, 'received');
    expect(back.status).toBe(409);
    expect(back.body.error).toMatchObject({ name: 'InvalidTransition', code: 4090 });
    expect((await advance(id, 'errored')).status).toBe(409);
    expect((await advance(id, 'shipped')).body.status).toBe('shipped');
    expect((await advance(id, 'cancelled')).body.error.name).toBe('OrderNotCancellable');
    const bad = await hook(emu, 'POST', `/orders/${id}/advance`, { to: 'lost' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.name).toBe('ValidationError');
  });
});

describe('separate orders address', () => {
  it('serves create on --orders-port only, and everything else on --port only', async () => {
    const split = await startTestEmulator({ ordersPort: 0, manual: true });
    try {
      expect(split.ordersUrl).not.toBe(split.baseUrl);
      const created = await call(split.ordersUrl, 'POST', '/api/order', { body: validOrder('P-1') });
      expect(created.status).toBe(200);
      const onBase = await call(split.baseUrl, 'POST', '/api/order', { body: validOrder('P-2') });
      expect(onBase.status).toBe(404);
      expect(onBase.body.error.message).toContain(split.ordersUrl);
      const listOnOrders = await call(split.ordersUrl, 'GET', '/api/order');
      expect(listOnOrders.status).toBe(404);
      expect((await call(split.baseUrl, 'GET', '/api/order')).body.count).toBe(1);
    } finally {
      await split.close();
    }
  });
});
