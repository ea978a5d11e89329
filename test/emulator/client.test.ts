import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/dev/emulator/server.js';
import { PrintServiceClient, type PrintServiceClientOptions } from '../../src/print-service/client.js';
import {
  PrintServiceBadRequestError,
  PrintServiceForbiddenError,
  PrintServiceNetworkError,
  PrintServiceNotFoundError,
  PrintServiceUnauthorizedError,
  PrintServiceUnavailableError,
} from '../../src/print-service/errors.js';
import type { PrintOrder } from '../../src/print-service/schema.js';
import { submitOrder } from '../../src/print-service/submit.js';
import { A, B, DEMO, TWO_ACCOUNTS, hook, startTestEmulator, validOrder, waitFor } from './helpers.js';

/**
 * The conformance suite driven by the project's own client: every endpoint and every status code the client can
 * meet, so that the client and the emulator are held to the same reading of the interface.
 */

const FAST_RETRY = { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10, maxTotalMs: 2000 };

function clientFor(emu: RunningEmulator, account: { name: string; token: string; secret: string } = DEMO, extra: Partial<PrintServiceClientOptions> = {}) {
  return new PrintServiceClient({
    baseUrl: emu.baseUrl,
    ordersUrl: emu.ordersUrl,
    token: account.token,
    secret: account.secret,
    sourceAccount: account.name,
    retry: FAST_RETRY,
    ...extra,
  });
}

async function rejection<T extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => T): Promise<T> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}

const order = (id: string, extra?: Parameters<typeof validOrder>[1]) => validOrder(id, extra) as PrintOrder;

let emu: RunningEmulator;
let client: PrintServiceClient;
beforeAll(async () => {
  emu = await startTestEmulator({ ordersPort: 0, manual: true });
  client = clientFor(emu);
});
afterAll(async () => {
  await client.close();
  await emu.close();
});
beforeEach(async () => {
  await hook(emu, 'POST', '/reset');
});
const advance = (id: string, to: string, shipmentIndex?: number) => hook(emu, 'POST', `/orders/${id}/advance`, { to, shipmentIndex });

describe('through the client', () => {
  it('validate: 200 valid, 400 ValidationError with the problems', async () => {
    await expect(client.validate(order('K-1'))).resolves.toEqual({ valid: true });
    const invalid = order('K-2');
    invalid.orderData.shipments[0]!.shipTo.isoCountry = 'GBR';
    const error = await rejection(client.validate(invalid), PrintServiceBadRequestError);
    expect(error.status).toBe(400);
    expect(error.serviceError).toMatchObject({ name: 'ValidationError', code: 4001 });
    expect(error.serviceError.validations).toEqual([{ path: 'orderData.shipments[0].shipTo.isoCountry', message: 'must be a two-letter ISO country code' }]);
  });

  it('create on the orders address, then list, get and get by source id', async () => {
    const ack = await client.create(order('K-3'));
    expect(ack.sourceAccountId).toBe(DEMO.accountId);
    const again = await client.create(order('K-4'));
    const list = await client.list();
    expect(list).toMatchObject({ count: 2, page: 1, pagesize: 10 });
    expect(list.data.map((o) => o._id)).toEqual([again._id, ack._id]);
    expect((await client.list({ page: 2, pagesize: 1 })).data.map((o) => o._id)).toEqual([ack._id]);
    expect((await client.get(ack._id)).orderData.sourceOrderId).toBe('K-3');
    expect((await client.getBySourceId('K-4'))._id).toBe(again._id);
  });

  it('list: 400 InvalidQuery beyond the largest page size', async () => {
    const error = await rejection(client.list({ pagesize: 101 }), PrintServiceBadRequestError);
    expect(error.serviceError).toMatchObject({ name: 'InvalidQuery', code: 4002 });
  });

  it('get and get by source id: 404 for an unknown order', async () => {
    const unknown = await rejection(client.get('0123456789abcdef01234567'), PrintServiceNotFoundError);
    expect(unknown.serviceError).toMatchObject({ name: 'OrderNotFound', code: 4040 });
    await rejection(client.getBySourceId('K-404'), PrintServiceNotFoundError);
    await expect(client.findBySourceId('K-404')).resolves.toBeUndefined();
  });

  it('cancel: 200 cancelled; 400 when already cancelled or shipped; 404 when unknown', async () => {
    await client.create(order('K-5'));
    expect((await client.cancel('K-5')).status).toBe('cancelled');
    const twice = await rejection(client.cancel('K-5'), PrintServiceBadRequestError);
    expect(twice.serviceError).toMatchObject({ name: 'OrderAlreadyCancelled', code: 4004 });
    const shipped = await client.create(order('K-6'));
    await advance(shipped._id, 'shipped');
    const notCancellable = await rejection(client.cancel('K-6'), PrintServiceBadRequestError);
    expect(notCancellable.serviceError).toMatchObject({ name: 'OrderNotCancellable', code: 4005 });
    await rejection(client.cancel('K-404'), PrintServiceNotFoundError);
  });

  it('update shipping: 200 with the shipment; 400 when shipped or invalid; 404 when unknown', async () => {
    const ack = await client.create(order('K-7', { shipments: 2 }));
    await advance(ack._id, 'received');
    const shipment = await client.updateShipping('K-7', 1, { carrier: { code: 'dpd', service: 'next-day' }, trackingNumber: 'DPD-1' });
    expect(shipment).toMatchObject({ shipmentIndex: 1, sourceOrderId: 'K-7', carrier: { code: 'dpd', service: 'next-day' }, trackingNumber: 'DPD-1' });
    expect((await client.get(ack._id)).orderData.shipments?.[1]).toMatchObject({ trackingNumber: 'DPD-1' });
    const invalid = await rejection(client.updateShipping('K-7', 1, { carrier: { service: 'x' } }), PrintServiceBadRequestError);
    expect(invalid.serviceError).toMatchObject({ name: 'ValidationError', code: 4001 });
    expect(invalid.serviceError.validations).toEqual([{ path: 'carrier.code', message: 'required' }]);
    const missing = await rejection(client.updateShipping('K-7', 2, { trackingNumber: 'x' }), PrintServiceNotFoundError);
    expect(missing.serviceError).toMatchObject({ name: 'ShipmentNotFound', code: 4040 });
    await rejection(client.updateShipping('K-404', 0, { trackingNumber: 'x' }), PrintServiceNotFoundError);
    await advance(ack._id, 'shipped', 0);
    const shippedError = await rejection(client.updateShipping('K-7', 0, { trackingNumber: 'x' }), PrintServiceBadRequestError);
    expect(shippedError.serviceError).toMatchObject({ name: 'ShipmentNotAmendable', code: 4006 });
  });

  it('401 for a wrong secret, an unknown token or a clock 20 minutes off', async () => {
    for (const wrong of [
      clientFor(emu, { ...DEMO, secret: 'wrong' }),
      clientFor(emu, { ...DEMO, token: 'stranger' }),
      clientFor(emu, DEMO, { now: () => new Date(Date.now() - 20 * 60_000) }),
    ]) {
      try {
        const error = await rejection(wrong.list(), PrintServiceUnauthorizedError);
        expect(error.serviceError).toMatchObject({ name: 'AuthenticationError', code: 4010 });
        await rejection(wrong.create(order('K-8')), PrintServiceUnauthorizedError);
      } finally {
        await wrong.close();
      }
    }
    expect(emu.store.size).toBe(0);
  });
});

describe('through the client, between accounts', () => {
  it('403 for another account\'s order', async () => {
    const two = await startTestEmulator({ accountInputs: TWO_ACCOUNTS, manual: true });
    const a = clientFor(two, A);
    const b = clientFor(two, B);
    try {
      const brandA = order('K-9', { destination: 'printer-a' });
      brandA.orderData.shipments[0]!.carrier = { alias: 'express' };
      const ack = await a.create(brandA);
      const read = await rejection(b.get(ack._id), PrintServiceForbiddenError);
      expect(read.serviceError).toMatchObject({ name: 'Forbidden', code: 4030 });
      await rejection(b.cancel('K-9', 'brand-a'), PrintServiceForbiddenError);
      expect((await a.get(ack._id)).status).toBe('submitted');
    } finally {
      await a.close();
      await b.close();
      await two.close();
    }
  });
});

describe('through the client, with faults', () => {
  it('503 from --fail-rate is a refusal that stored nothing', async () => {
    await hook(emu, 'PUT', '/faults', { failRate: 1, dropRate: 0 });
    try {
      const error = await rejection(client.create(order('K-10')), PrintServiceUnavailableError);
      expect(error.status).toBe(503);
      expect(error.retryAfterMs).toBe(1000);
      expect(error.outcomeUnknown).toBe(false);
      expect(error.serviceError).toMatchObject({ name: 'ServiceUnavailable', code: 5030 });
      expect(emu.store.size).toBe(0);
    } finally {
      await hook(emu, 'PUT', '/faults', { failRate: 0 });
    }
  });

  it('a dropped create leaves the outcome unknown; submitOrder finds the stored order instead of sending it twice', async () => {
    await hook(emu, 'PUT', '/faults', { dropRate: 1 });
    try {
      const error = await rejection(client.create(order('K-11')), PrintServiceNetworkError);
      expect(error.outcomeUnknown).toBe(true);
      expect(emu.store.size).toBe(1);
      const outcome = await submitOrder(client, order('K-12'), { reconcileFirst: false, maxAttempts: 3 });
      expect(outcome.kind).toBe('already-submitted');
      expect(emu.store.size).toBe(2);
      expect((await hook(emu, 'GET', '/orders?sourceOrderId=K-12')).body.count).toBe(1);
    } finally {
      await hook(emu, 'PUT', '/faults', { dropRate: 0 });
    }
  });

  it('submitOrder gets past a 503 and creates the order once', async () => {
    const draws = [0.1, 0.9, 0.9];
    const flaky = await startTestEmulator({ failRate: 0.5, dropRate: 0.5, random: () => draws.shift() ?? 0.9, manual: true });
    const c = clientFor(flaky);
    try {
      const outcome = await submitOrder(c, order('K-13'), { maxAttempts: 3 });
      expect(outcome).toMatchObject({ kind: 'created', attempts: 2 });
      expect(flaky.store.size).toBe(1);
    } finally {
      await c.close();
      await flaky.close();
    }
  });
});

describe('through the client, with automatic processing', () => {
  it('shows the status following the events until shipped', async () => {
    const auto = await startTestEmulator();
    const c = clientFor(auto);
    try {
      const outcome = await submitOrder(c, order('K-14', { shipments: 2 }));
      if (outcome.kind !== 'created') throw new Error('expected a create');
      const seen: string[] = [];
      await waitFor('shipped', async () => {
        const record = await c.get(outcome.acknowledgement._id);
        if (seen[seen.length - 1] !== record.status) seen.push(record.status ?? '');
        return record.status === 'shipped';
      });
      // Whatever the polling caught, the statuses came in the order of the main line and never went back.
      const line = ['submitted', 'received', 'printready', 'shipped'];
      expect(seen.map((s) => line.indexOf(s))).toEqual([...seen.map((s) => line.indexOf(s))].sort());
      expect(seen.every((s) => line.includes(s))).toBe(true);
      const record = await c.getBySourceId('K-14');
      expect(record.orderData.shipments?.map((s) => s.status)).toEqual(['shipped', 'shipped']);
    } finally {
      await c.close();
      await auto.close();
    }
  });
});
