import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/dev/emulator/server.js';
import { computeSignature, formatServiceDate } from '../../src/print-service/signing.js';
import { A, B, TWO_ACCOUNTS, call, createOrder, hook, startTestEmulator, validOrder } from './helpers.js';

/** Authentication, authority and the error shapes of requests a well-behaved client never sends. */

const CLOCK = new Date('2026-11-21T14:00:00.000Z');
const minutes = (n: number) => new Date(CLOCK.getTime() + n * 60_000);

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ now: () => CLOCK, manual: true });
});
afterAll(() => emu.close());

function expectAuthError(res: { status: number; body: { success: boolean; error: { name: string; code: number; message: string } } }, message: RegExp) {
  expect(res.status).toBe(401);
  expect(res.body.success).toBe(false);
  expect(res.body.error.name).toBe('AuthenticationError');
  expect(res.body.error.code).toBe(4010);
  expect(res.body.error.message).toMatch(message);
}

describe('authentication', () => {
  it('accepts a request signed with the demo account', async () => {
    const res = await call(emu.baseUrl, 'GET', '/api/order', { now: CLOCK });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], count: 0, page: 1, pagesize: 10 });
  });

  it('refuses a request without the headers', async () => {
    expectAuthError(await call(emu.baseUrl, 'GET', '/api/order', { unsigned: true }), /missing x-service-date/);
    expectAuthError(
      await call(emu.baseUrl, 'GET', '/api/order', { unsigned: true, headers: { 'x-service-date': formatServiceDate(CLOCK) } }),
      /missing x-service-authorization/,
    );
  });

  it('refuses malformed headers', async () => {
    const date = formatServiceDate(CLOCK);
    expectAuthError(
      await call(emu.baseUrl, 'GET', '/api/order', { unsigned: true, headers: { 'x-service-date': '21/11/2026 14:00', 'x-service-authorization': 'demo-token:abc' } }),
      /x-service-date must be a UTC date in the form yyyy-mm-dd hh:mm:ss/,
    );
    expectAuthError(
      await call(emu.baseUrl, 'GET', '/api/order', { unsigned: true, headers: { 'x-service-date': '2026-02-30 10:00:00' } }),
      /x-service-date must be/,
    );
    expectAuthError(
      await call(emu.baseUrl, 'GET', '/api/order', { unsigned: true, headers: { 'x-service-date': date, 'x-service-authorization': 'no-colon-here' } }),
      /must be TOKEN:SIGNATURE/,
    );
    expectAuthError(
      await call(emu.baseUrl, 'GET', '/api/order', { unsigned: true, headers: { 'x-service-date': date, 'x-service-authorization': 'demo-token:NOTHEX' } }),
      /40 lower-case hex digits/,
    );
  });

  it('refuses an unknown token and a wrong signature without telling the right one', async () => {
    expectAuthError(await call(emu.baseUrl, 'GET', '/api/order', { now: CLOCK, account: { token: 'nobody', secret: 'x' } }), /unknown access token/);
    const wrong = await call(emu.baseUrl, 'GET', '/api/order', { now: CLOCK, account: { token: 'demo-token', secret: 'not-the-secret' } });
    expectAuthError(wrong, /signature does not match/);
    const right = computeSignature('demo-secret', 'GET', '/api/order', formatServiceDate(CLOCK));
    expect(wrong.text).not.toContain(right);
    expectAuthError(await call(emu.baseUrl, 'GET', '/api/order', { now: CLOCK, signPath: '/api/order/validate' }), /signature does not match/);
  });

  it('refuses a date more than 15 minutes from its clock, either way', async () => {
    expectAuthError(await call(emu.baseUrl, 'GET', '/api/order', { now: minutes(-16) }), /more than 15 minutes from the service's clock \(2026-11-21 14:00:00 UTC\)/);
    expectAuthError(await call(emu.baseUrl, 'GET', '/api/order', { now: minutes(16) }), /more than 15 minutes/);
    expect((await call(emu.baseUrl, 'GET', '/api/order', { now: minutes(-14) })).status).toBe(200);
    expect((await call(emu.baseUrl, 'GET', '/api/order', { now: minutes(15) })).status).toBe(200);
  });

  it('signs the percent-decoded path without the query string', async () => {
    const list = await call(emu.baseUrl, 'GET', '/api/order?page=1&pagesize=5', { now: CLOCK });
    expect(list.status).toBe(200);
    expect(list.body.pagesize).toBe(5);
    const created = await call(emu.ordersUrl, 'POST', '/api/order', { body: validOrder('A B/é'), now: CLOCK });
    const id = created.body._id as string;
    const found = await call(emu.baseUrl, 'GET', `/api/order/bysourceid/${encodeURIComponent('A B/é')}`, { now: CLOCK });
    expect(found.status).toBe(200);
    expect(found.body._id).toBe(id);
  });

  it('needs no signature for the test hooks', async () => {
    const res = await hook(emu, 'GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
  });
});

describe('another account', () => {
  let two: RunningEmulator;
  beforeAll(async () => {
    two = await startTestEmulator({ accountInputs: TWO_ACCOUNTS, manual: true });
  });
  afterAll(() => two.close());

  it('answers 403 when an account reads or cancels another account\'s order', async () => {
    const id = await createOrder(two, validOrder('A-1', { destination: 'printer-a' }), A);
    const asB = await call(two.baseUrl, 'GET', `/api/order/${id}`, { account: B });
    expect(asB.status).toBe(403);
    expect(asB.body.error).toMatchObject({ name: 'Forbidden', code: 4030 });
    const cancel = await call(two.baseUrl, 'PUT', '/api/order/brand-a/A-1/cancel', { account: B });
    expect(cancel.status).toBe(403);
    expect(cancel.body.error).toMatchObject({ name: 'Forbidden', code: 4030 });
    // B has no order A-1 of its own: its namespace of source ids is separate.
    const bySource = await call(two.baseUrl, 'GET', '/api/order/bysourceid/A-1', { account: B });
    expect(bySource.status).toBe(404);
    const unknownAccount = await call(two.baseUrl, 'PUT', '/api/order/nobody/A-1/cancel', { account: A });
    expect(unknownAccount.status).toBe(404);
    // Nothing of the above changed the order.
    expect((await call(two.baseUrl, 'GET', `/api/order/${id}`, { account: A })).body.status).toBe('submitted');
    expect((await call(two.baseUrl, 'GET', '/api/order', { account: B })).body.count).toBe(0);
  });
});

describe('requests a client never sends', () => {
  it('answers an unknown route with 404 JSON, signed or not', async () => {
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/api/orders'],
      ['DELETE', '/api/order'],
      ['POST', '/api/order/123/cancel'],
      ['GET', '/api/order/a/b/c/d'],
      ['GET', '/_emulator/nothing'],
    ] as const) {
      for (const unsigned of [true, false]) {
        const res = await call(emu.baseUrl, method, path, { unsigned, now: CLOCK });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body.success).toBe(false);
        expect(res.body.error).toMatchObject({ name: 'RouteNotFound', code: 4040 });
      }
    }
  });

  it('answers a body that is not JSON, or not an order, with 400, and stores nothing', async () => {
    const before = emu.store.size;
    for (const [method, path] of [
      ['POST', '/api/order'],
      ['POST', '/api/order/validate'],
      ['PUT', '/api/shipment/x/0/shipping'],
    ] as const) {
      const res = await call(emu.baseUrl, method, path, { raw: '{"destination": ', now: CLOCK });
      expect(res.status, path).toBe(400);
      expect(res.body.error).toMatchObject({ name: 'BadRequest', code: 4000 });
      expect(res.body.error.message).toMatch(/not JSON/);
      const empty = await call(emu.baseUrl, method, path, { raw: '', now: CLOCK });
      expect(empty.status).toBe(400);
      expect(empty.body.error.name).toBe('BadRequest');
    }
    const notOrder = await call(emu.baseUrl, 'POST', '/api/order', { body: { destination: { name: 'x' } }, now: CLOCK });
    expect(notOrder.status).toBe(400);
    expect(notOrder.body.error).toMatchObject({ name: 'BadRequest', code: 4000 });
    expect(notOrder.body.error.message).toMatch(/orderData: required/);
    const array = await call(emu.baseUrl, 'POST', '/api/order', { body: [1, 2], now: CLOCK });
    expect(array.status).toBe(400);
    expect(array.body.error.name).toBe('BadRequest');
    expect(emu.store.size).toBe(before);
  });

  it('answers an internal failure with 500 JSON and keeps serving', async () => {
    const list = emu.store.list.bind(emu.store);
    emu.store.list = () => {
      throw new Error('boom');
    };
    try {
      const res = await call(emu.baseUrl, 'GET', '/api/order', { now: CLOCK });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ success: false, error: { name: 'InternalError', code: 5000, message: 'the emulator failed to answer; see its log' } });
    } finally {
      emu.store.list = list;
    }
    expect((await call(emu.baseUrl, 'GET', '/api/order', { now: CLOCK })).status).toBe(200);
  });

  it('answers a malformed path or request with 400 JSON and keeps serving', async () => {
    const badEscape = await call(emu.baseUrl, 'GET', '/api/order/bysourceid/%E0%A4%A', { now: CLOCK });
    expect(badEscape.status).toBe(400);
    expect(badEscape.body.error).toMatchObject({ name: 'BadRequest', code: 4000 });

    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(emu.port, '127.0.0.1', () => socket.write('THIS IS NOT HTTP\r\n\r\n'));
      let data = '';
      socket.on('data', (d) => (data += d.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    expect(body).toMatchObject({ success: false, error: { name: 'BadRequest', code: 4000 } });
    expect((await hook(emu, 'GET', '/health')).status).toBe(200);
  });
});
