import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { trackingNumberFor } from '../../src/dev/emulator/ids.js';
import type { RunningEmulator } from '../../src/dev/emulator/server.js';
import { parseTriggers, type TriggerInput } from '../../src/dev/emulator/triggers.js';
import { A, TWO_ACCOUNTS, call, createOrder, hook, startReceiver, startTestEmulator, validOrder, waitFor, type Receiver } from './helpers.js';

/** Processing and postbacks end to end: a local receiver gets each trigger's rendered body. */

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HEADERS = { authorization: `Basic ${Buffer.from('bridge:s3cret').toString('base64')}`, 'x-postback-token': 'tok-1' };

function sixTriggers(url: string): TriggerInput[] {
  const common = '"event": {{ event | json }}, "id": {{ _id | json }}, "sourceOrderId": {{ orderData.sourceOrderId | json }}, "status": {{ status | json }}, "timestamp": {{ timestamp | json }}';
  return [
    { event: 'Order Received', url: `${url}/received`, headers: HEADERS, template: `{${common}, "customer": {{ orderData.customerName | json }}}` },
    { event: 'Order Print Ready', url: `${url}/printready`, headers: HEADERS, template: `{${common}}` },
    { event: 'Order Errored', url: `${url}/errored`, headers: HEADERS, template: `{${common}, "errors": {{ errors | json }}}` },
    { event: 'Order Cancelled', url: `${url}/cancelled`, headers: HEADERS, template: `{${common}}` },
    {
      event: 'Shipment Shipped',
      url: `${url}/shipped`,
      headers: HEADERS,
      template:
        `{${common}, "shipmentIndex": {{ shipmentIndex }}, "trackingNumber": {{ trackingNumber | json }}, ` +
        '"carrier": {{ carrier.code | json }}, "service": {{ carrier.service | json }}, "shipTo": {{ shipment.shipTo.name | json }}}',
    },
    {
      event: 'Order Submission Error',
      url: `${url}/submissionerror`,
      headers: HEADERS,
      template: '{"TimeStamp": {{ TimeStamp | json }}, "OrderId": {{ OrderId | json }}, "status": {{ status | json }}, "errorsClean": {{ errorsClean | json }}}',
    },
  ];
}

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());
afterEach(() => {
  receiver.received.length = 0;
});

const bodiesAt = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body));

/**
 * Waits until the order can take no further step: its step in progress (a file fetch) has ended and no step is
 * scheduled. What a test then finds not delivered never will be (with `deliveries.idle()` for those already queued).
 */
async function settled(emu: RunningEmulator, id: string): Promise<void> {
  const order = emu.store.get(id)!;
  while (order.busy) await order.busy;
  expect(order.timer).toBeUndefined();
  await emu.deliveries.idle();
}

describe('the six events', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({ triggers: parseTriggers(sixTriggers(receiver.url)) });
  });
  afterAll(() => emu.close());

  it('delivers Order Received, Order Print Ready and one Shipment Shipped per shipment, in order', async () => {
    const id = await createOrder(emu, validOrder('E-1', { shipments: 2 }));
    await waitFor('two shipments', () => receiver.received.filter((r) => r.path === '/shipped').length === 2);
    await emu.deliveries.idle();
    expect(receiver.received.map((r) => r.path)).toEqual(['/received', '/printready', '/shipped', '/shipped']);
    for (const r of receiver.received) {
      expect(r.method).toBe('POST');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers.authorization).toBe(HEADERS.authorization);
      expect(r.headers['x-postback-token']).toBe('tok-1');
    }
    const [received] = bodiesAt('/received');
    expect(received).toEqual({ event: 'Order Received', id, sourceOrderId: 'E-1', status: 'received', timestamp: expect.stringMatching(ISO), customer: 'Ada Lovelace' });
    expect(bodiesAt('/printready')).toEqual([{ event: 'Order Print Ready', id, sourceOrderId: 'E-1', status: 'printready', timestamp: expect.stringMatching(ISO) }]);
    expect(bodiesAt('/shipped')).toEqual([
      {
        event: 'Shipment Shipped', id, sourceOrderId: 'E-1', status: 'printready', timestamp: expect.stringMatching(ISO),
        shipmentIndex: 0, trackingNumber: trackingNumberFor(id, 0), carrier: 'royalmail', service: 'standard', shipTo: 'Ada Lovelace',
      },
      {
        event: 'Shipment Shipped', id, sourceOrderId: 'E-1', status: 'shipped', timestamp: expect.stringMatching(ISO),
        shipmentIndex: 1, trackingNumber: trackingNumberFor(id, 1), carrier: 'royalmail', service: 'express', shipTo: 'Ada Lovelace',
      },
    ]);
    const order = await call(emu.baseUrl, 'GET', `/api/order/${id}`);
    expect(order.body.status).toBe('shipped');
    expect(order.body.orderData.shipments[1]).toMatchObject({ status: 'shipped', trackingNumber: trackingNumberFor(id, 1), carrier: { alias: 'express', code: 'royalmail', service: 'express' }, shippedAt: expect.stringMatching(ISO) });
    const log = await hook(emu, 'GET', `/deliveries?orderId=${id}`);
    expect(log.body.count).toBe(4);
    expect(log.body.data.map((d: { state: string; attempts: unknown[] }) => [d.state, d.attempts.length])).toEqual([
      ['delivered', 1], ['delivered', 1], ['delivered', 1], ['delivered', 1],
    ]);
    expect(log.body.data[0].headers).toEqual(['authorization', 'x-postback-token']);
    expect(JSON.stringify(log.body)).not.toContain('s3cret');
  });

  it('delivers Order Errored when a file cannot be fetched, and stops there', async () => {
    const id = await createOrder(emu, validOrder('E-2', { path: 'https://files.example.test/fail/cover.pdf' }));
    await waitFor('errored', () => bodiesAt('/errored').length === 1);
    await settled(emu, id);
    expect(bodiesAt('/errored')).toEqual([
      {
        event: 'Order Errored', id, sourceOrderId: 'E-2', status: 'errored', timestamp: expect.stringMatching(ISO),
        errors: ['orderData.items[0].components[0] (cover): could not fetch https://files.example.test/fail/cover.pdf: HTTP 404 (simulated: the path contains "fail")'],
      },
    ]);
    expect(receiver.received.map((r) => r.path)).toEqual(['/received', '/errored']);
    expect((await call(emu.baseUrl, 'GET', `/api/order/${id}`)).body.status).toBe('errored');
  });

  it('delivers Order Errored when preflight fails', async () => {
    await createOrder(emu, validOrder('E-3', { path: 'https://files.example.test/preflight-error.pdf' }));
    await waitFor('errored', () => bodiesAt('/errored').length === 1);
    expect(bodiesAt('/errored')[0].errors).toEqual([
      'orderData.items[0].components[0] (cover): preflight failed (simulated: the path contains "preflight-error")',
    ]);
  });

  it('delivers Order Cancelled for a cancel through the API, and processes the order no further', async () => {
    const slow = await startTestEmulator({ triggers: parseTriggers(sixTriggers(receiver.url)), delays: { receivedMs: 5, printReadyMs: 150, shipMs: 5 } });
    try {
      const id = await createOrder(slow, validOrder('E-4'));
      await waitFor('received', () => bodiesAt('/received').length === 1);
      const res = await call(slow.baseUrl, 'PUT', '/api/order/demo-brand/E-4/cancel');
      expect(res.status).toBe(200);
      await settled(slow, id);
      expect(receiver.received.map((r) => r.path)).toEqual(['/received', '/cancelled']);
      expect(bodiesAt('/cancelled')).toEqual([{ event: 'Order Cancelled', id, sourceOrderId: 'E-4', status: 'cancelled', timestamp: expect.stringMatching(ISO) }]);
      expect((await call(slow.baseUrl, 'GET', `/api/order/${id}`)).body.status).toBe('cancelled');
    } finally {
      await slow.close();
    }
  });

  it('delivers Order Cancelled for a cancel by a user at the printer (hook)', async () => {
    const manual = await startTestEmulator({ triggers: parseTriggers(sixTriggers(receiver.url)), manual: true });
    try {
      const id = await createOrder(manual, validOrder('E-5'));
      await hook(manual, 'POST', `/orders/${id}/advance`, { to: 'printready' });
      expect((await hook(manual, 'POST', `/orders/${id}/advance`, { to: 'cancelled' })).body.status).toBe('cancelled');
      await manual.deliveries.idle();
      expect(receiver.received.map((r) => r.path)).toEqual(['/received', '/printready', '/cancelled']);
    } finally {
      await manual.close();
    }
  });
});

describe('submission errors', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator({ accountInputs: TWO_ACCOUNTS, triggers: parseTriggers(sixTriggers(receiver.url)) });
  });
  afterAll(() => emu.close());

  const brandAOrder = (id: string, change: (o: ReturnType<typeof validOrder>) => void = () => undefined) => {
    const order = validOrder(id, { destination: 'printer-a' });
    order.orderData.shipments[0]!.carrier = { alias: 'express' };
    change(order);
    return order;
  };

  async function submissionError(order: unknown): Promise<{ TimeStamp: string; OrderId: string; status: string; errorsClean: string[] }> {
    const before = bodiesAt('/submissionerror').length;
    await createOrder(emu, order, A);
    await waitFor('a submission error', () => bodiesAt('/submissionerror').length === before + 1);
    return bodiesAt('/submissionerror')[before];
  }

  it('reports an unknown destination, an unknown SKU, a bad shipmentIndex and a schema problem', async () => {
    const cases: [unknown, string[]][] = [
      [brandAOrder('S-1', (o) => (o.destination.name = 'printer-z')), ['destination.name: "printer-z" is not a destination account that brand-a may send to (known: "printer-a")']],
      [brandAOrder('S-2', (o) => (o.orderData.items[0]!.sku = 'MUG')), ['orderData.items[0].sku: SKU "MUG" is not set up in destination "printer-a"']],
      [brandAOrder('S-3', (o) => (o.orderData.items[0]!.shipmentIndex = 2)), ['orderData.items[0].shipmentIndex: must be an index into shipments (0 to 0), got 2']],
      [brandAOrder('S-4', (o) => (o.orderData.shipments[0]!.carrier = { alias: 'pigeon' })), ['orderData.shipments[0].carrier.alias: carrier alias "pigeon" is not set up for brand-a (set up: express)']],
      [brandAOrder('S-5', (o) => delete (o.orderData.shipments[0] as { returnAddress?: unknown }).returnAddress), ['orderData.shipments[0].returnAddress: required']],
    ];
    for (const [order, errors] of cases) {
      const body = await submissionError(order);
      const sourceOrderId = (order as { orderData: { sourceOrderId: string } }).orderData.sourceOrderId;
      expect(body).toEqual({ TimeStamp: expect.stringMatching(ISO), OrderId: sourceOrderId, status: 'Order submission error', errorsClean: errors });
      const record = await call(emu.baseUrl, 'GET', `/api/order/bysourceid/${sourceOrderId}`, { account: A });
      expect(record.body).toMatchObject({ status: 'submissionerror', errors });
    }
    expect(bodiesAt('/received')).toEqual([]);
  });

  it('reports a duplicate sourceOrderId for the account; the original goes on', async () => {
    const first = await createOrder(emu, brandAOrder('S-6'), A);
    const body = await submissionError(brandAOrder('S-6'));
    expect(body.errorsClean).toEqual([`orderData.sourceOrderId: an order with sourceOrderId "S-6" already exists (${first}); this submission is a duplicate`]);
    await waitFor('the original shipped', async () => (await call(emu.baseUrl, 'GET', `/api/order/${first}`, { account: A })).body.status === 'shipped');
    // The status is set before its postback goes out: wait for the delivery itself.
    await emu.deliveries.idle();
    const shipped = bodiesAt('/shipped');
    expect(shipped).toHaveLength(1);
    expect(shipped[0]).toMatchObject({ id: first, carrier: 'dhl', service: 'express-worldwide' });
    const all = await hook(emu, 'GET', '/orders?sourceOrderId=S-6');
    expect(all.body.data.map((o: { status: string }) => o.status)).toEqual(['submissionerror', 'shipped']);
  });
});

describe('trigger delivery', () => {
  it('retries a failing receiver with backoff, then delivers', async () => {
    const emu = await startTestEmulator({ triggers: parseTriggers(sixTriggers(receiver.url).slice(0, 1)), manual: true });
    try {
      const id = await createOrder(emu, validOrder('R-1'));
      receiver.failNext(500, 503);
      await hook(emu, 'POST', `/orders/${id}/advance`, { to: 'received' });
      await emu.deliveries.idle();
      expect(receiver.received).toHaveLength(3);
      expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
      const [delivery] = (await hook(emu, 'GET', '/deliveries?event=Order%20Received')).body.data;
      expect(delivery.state).toBe('delivered');
      expect(delivery.attempts.map((a: { status: number }) => a.status)).toEqual([500, 503, 200]);
      const times = delivery.attempts.map((a: { at: string }) => Date.parse(a.at));
      expect(times[1] - times[0]).toBeGreaterThanOrEqual(9);
      expect(times[2] - times[1]).toBeGreaterThanOrEqual(19);
    } finally {
      await emu.close();
    }
  });

  it('gives up after the last attempt and logs why', async () => {
    const closed = await startReceiver();
    const deadUrl = closed.url;
    await closed.close();
    const emu = await startTestEmulator({
      triggers: parseTriggers([
        { event: 'Order Received', url: `${receiver.url}/flaky`, template: '{"id": {{ _id | json }}}' },
        { event: 'Order Received', url: `${deadUrl}/gone`, template: '{}' },
      ]),
      manual: true,
    });
    try {
      receiver.failNext(500, 500, 500);
      const id = await createOrder(emu, validOrder('R-2'));
      await hook(emu, 'POST', `/orders/${id}/advance`, { to: 'received' });
      await emu.deliveries.idle();
      const log = (await hook(emu, 'GET', '/deliveries')).body.data;
      expect(log.map((d: { state: string; trigger: number }) => [d.trigger, d.state])).toEqual([[0, 'failed'], [1, 'failed']]);
      expect(log[0].attempts.map((a: { status: number }) => a.status)).toEqual([500, 500, 500]);
      expect(log[0].lastResponse).toBe('{"ok":false}');
      expect(log[1].attempts).toHaveLength(3);
      expect(log[1].attempts[0].error).toMatch(/ECONNREFUSED/);
      expect((await hook(emu, 'GET', '/stats')).body.deliveries).toEqual({ pending: 0, delivered: 0, failed: 2 });
    } finally {
      await emu.close();
    }
  });

  it('closes at once even while a receiver is slow to answer', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const emu = await startTestEmulator({
      triggers: parseTriggers([{ event: 'Order Received', url: `http://127.0.0.1:${port}/`, template: '{}' }]),
      delivery: { timeoutMs: 60_000 },
      manual: true,
    });
    try {
      const id = await createOrder(emu, validOrder('R-4'));
      await hook(emu, 'POST', `/orders/${id}/advance`, { to: 'received' });
      await waitFor('the attempt to start', () => emu.deliveries.list()[0]?.state === 'pending');
      const started = Date.now();
      await emu.close();
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('takes new triggers through the hook, refusing bad ones with the reason', async () => {
    const emu = await startTestEmulator({ manual: true });
    try {
      const bad = await hook(emu, 'PUT', '/triggers', [{ event: 'Order Shipped', url: receiver.url, template: '{}' }]);
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toMatch(/^triggers: \[0\]\.event: must be one of "Order Received"/);
      const ok = await hook(emu, 'PUT', '/triggers', [{ event: 'Order Received', url: `${receiver.url}/hooked`, template: '{{ destination.name }}/{{ orderData.items[0].sku }}' }]);
      expect(ok.body).toEqual({ count: 1 });
      const id = await createOrder(emu, validOrder('R-3'));
      await hook(emu, 'POST', `/orders/${id}/advance`, { to: 'received' });
      await emu.deliveries.idle();
      expect(receiver.received.map((r) => [r.path, r.body])).toEqual([['/hooked', 'demo-printer/A5-BOOK']]);
    } finally {
      await emu.close();
    }
  });
});

describe('real file fetching', () => {
  let files: Server;
  let filesUrl: string;
  /** Requests for /held.pdf so far, each answered only when the test opens `held`. */
  let heldRequests = 0;
  let held: { opened: Promise<void>; open: () => void } | undefined;
  beforeAll(async () => {
    files = createServer((req, res) => {
      if (req.url === '/ok.pdf') return void res.end('%PDF-1.7\n...');
      if (req.url === '/moved.pdf') return void res.writeHead(302, { location: '/ok.pdf' }).end();
      if (req.url === '/fake.pdf') return void res.end('<html>not a pdf</html>');
      if (req.url === '/slow.pdf') return void setTimeout(() => res.end('%PDF-1.7'), 150);
      if (req.url === '/held.pdf') {
        heldRequests += 1;
        return void held!.opened.then(() => res.end('%PDF-1.7'));
      }
      res.writeHead(404).end('not found');
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => files.close(() => resolve())));

  async function outcome(emu: RunningEmulator, id: string, ...paths: string[]) {
    const order = validOrder(id, { path: `${filesUrl}${paths[0]}` });
    order.orderData.items[0]!.components.push(...paths.slice(1).map((p, i) => ({ code: `part${i}`, path: `${filesUrl}${p}`, fetch: true, preflight: true })));
    const orderId = await createOrder(emu, order);
    const res = await hook(emu, 'POST', `/orders/${orderId}/advance`, { to: 'printready' });
    return { orderId, res };
  }

  it('fetches over HTTP, follows redirects, and errors on a missing file or a failed preflight', async () => {
    const emu = await startTestEmulator({ fetch: 'real', fetchTimeoutMs: 2000, manual: true });
    try {
      const good = await outcome(emu, 'F-1', '/ok.pdf', '/moved.pdf');
      expect(good.res.status).toBe(200);
      expect(good.res.body.status).toBe('printready');
      const bad = await outcome(emu, 'F-2', '/ok.pdf', '/missing.pdf', '/fake.pdf');
      expect(bad.res.status).toBe(409);
      const record = (await call(emu.baseUrl, 'GET', `/api/order/${bad.orderId}`)).body;
      expect(record.status).toBe('errored');
      expect(record.errors).toEqual([
        `orderData.items[0].components[1] (part0): could not fetch ${filesUrl}/missing.pdf: HTTP 404`,
        'orderData.items[0].components[2] (part1): preflight failed: the file is not a PDF (it does not start with %PDF-)',
      ]);
    } finally {
      await emu.close();
    }
  });

  it('errors on a fetch that takes longer than the time-out', async () => {
    const emu = await startTestEmulator({ fetch: 'real', fetchTimeoutMs: 50, manual: true });
    try {
      const slow = await outcome(emu, 'F-3', '/slow.pdf');
      expect(slow.res.status).toBe(409);
      expect((await call(emu.baseUrl, 'GET', `/api/order/${slow.orderId}`)).body.errors).toEqual([
        `orderData.items[0].components[0] (cover): could not fetch ${filesUrl}/slow.pdf: no answer within 50 ms`,
      ]);
    } finally {
      await emu.close();
    }
  });

  it('ignores a fetch that ends after the order was cancelled', async () => {
    const emu = await startTestEmulator({ fetch: 'real', triggers: parseTriggers(sixTriggers(receiver.url)), delays: { receivedMs: 1, printReadyMs: 1, shipMs: 1 } });
    try {
      let open!: () => void;
      held = { opened: new Promise<void>((resolve) => (open = resolve)), open };
      const before = heldRequests;
      const id = await createOrder(emu, validOrder('F-4', { path: `${filesUrl}/held.pdf` }));
      await waitFor('received', () => bodiesAt('/received').length === 1);
      // Cancelled while its file is being fetched (the file answers only after the cancel), looked at once the fetch ended.
      await waitFor('the fetch under way', () => heldRequests > before);
      expect((await call(emu.baseUrl, 'PUT', '/api/order/demo-brand/F-4/cancel')).status).toBe(200);
      held.open();
      await settled(emu, id);
      expect(receiver.received.map((r) => r.path)).toEqual(['/received', '/cancelled']);
      expect((await call(emu.baseUrl, 'GET', `/api/order/${id}`)).body.status).toBe('cancelled');
    } finally {
      await emu.close();
    }
  });
});
