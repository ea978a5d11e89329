import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { PrintServiceClient } from '../../src/print-service/client.js';
import {
  PrintRequestInvalidError,
  PrintServiceBadRequestError,
  PrintServiceForbiddenError,
  PrintServiceNetworkError,
  PrintServiceNotFoundError,
  PrintServiceProtocolError,
  PrintServiceTimeoutError,
  PrintServiceUnauthorizedError,
  PrintServiceUnavailableError,
} from '../../src/print-service/errors.js';
import { json, serviceError, startScriptedServer, type Handler } from '../helpers/scripted-server.js';
import { SAMPLE_ID, sampleOrder, sampleRecord } from '../helpers/orders.js';

const SECRET = 'client-test-secret';
const ACK = { _id: SAMPLE_ID, url: 'http://x/orders/1.json', timestamp: '2026-11-21T14:00:00.000Z', sourceAccountId: 'acc-1' };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup(handler: Handler, clientOptions: Partial<ConstructorParameters<typeof PrintServiceClient>[0]> = {}, prefix = '') {
  const server = await startScriptedServer({ secret: SECRET, handler });
  const client = new PrintServiceClient({
    baseUrl: server.url + prefix,
    token: 'tok-1',
    secret: SECRET,
    sourceAccount: 'acme-brand',
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    ...clientOptions,
  });
  cleanups.push(() => server.close(), () => client.close());
  return { server, client };
}

describe('PrintServiceClient operations', () => {
  it('sends every operation signed, to the right address, and parses the answer', async () => {
    const orders = await startScriptedServer({ secret: SECRET, handler: (_req, res) => json(res, 200, ACK) });
    cleanups.push(() => orders.close());
    const { server, client } = await setup(
      (req, res) => {
        if (req.path === '/api/order/validate') return json(res, 200, { valid: true });
        if (req.path === '/api/order') return json(res, 200, { data: [sampleRecord()], count: 12, page: 2, pagesize: 5 });
        if (req.path.endsWith('/shipping')) return json(res, 200, { shipmentIndex: 1, sourceOrderId: 'acme 1/2', shipTo: { name: 'A' }, items: [] });
        if (req.path.endsWith('/cancel')) return json(res, 200, sampleRecord('acme-1001', { status: 'cancelled' }));
        return json(res, 200, sampleRecord());
      },
      { ordersUrl: orders.url },
    );

    await expect(client.validate(sampleOrder())).resolves.toEqual({ valid: true });
    await expect(client.create(sampleOrder())).resolves.toEqual(ACK);
    await expect(client.list({ page: 2, pagesize: 5 })).resolves.toMatchObject({ count: 12, page: 2, pagesize: 5 });
    await expect(client.get(SAMPLE_ID)).resolves.toMatchObject({ _id: SAMPLE_ID, status: 'received' });
    await expect(client.getBySourceId('acme 1/2')).resolves.toMatchObject({ _id: SAMPLE_ID });
    await expect(client.cancel('acme 1/2')).resolves.toMatchObject({ status: 'cancelled' });
    await expect(client.updateShipping('acme 1/2', 1, { trackingNumber: 'TN' })).resolves.toMatchObject({ shipmentIndex: 1 });

    expect(orders.requests.map((r) => [r.method, r.url, r.signatureValid])).toEqual([['POST', '/api/order', true]]);
    expect(JSON.parse(orders.requests[0]!.body)).toEqual(sampleOrder());
    expect(server.requests.map((r) => [r.method, r.url, r.signatureValid])).toEqual([
      ['POST', '/api/order/validate', true],
      ['GET', '/api/order?page=2&pagesize=5', true],
      ['GET', `/api/order/${SAMPLE_ID}`, true],
      ['GET', '/api/order/bysourceid/acme%201%2F2', true],
      ['PUT', '/api/order/acme-brand/acme%201%2F2/cancel', true],
      ['PUT', '/api/shipment/acme%201%2F2/1/shipping', true],
    ]);
    expect(server.requests[0]!.headers['x-service-authorization']).toMatch(/^tok-1:[0-9a-f]{40}$/);
    expect(server.requests[0]!.headers['x-service-date']).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(server.requests[0]!.headers['content-type']).toBe('application/json');
    expect(server.requests[4]!.body).toBe('');
  });

  it("keeps the base URL's path prefix and signs it", async () => {
    const { server, client } = await setup((_req, res) => json(res, 200, { data: [], count: 0, page: 1, pagesize: 10 }), {}, '/print/v1/');
    await client.list();
    expect(server.requests.map((r) => [r.url, r.signatureValid])).toEqual([['/print/v1/api/order', true]]);
  });

  it('rejects a malformed order id and bad paging before any request', async () => {
    const { server, client } = await setup((_req, res) => json(res, 200, {}));
    await expect(client.get('12345')).rejects.toBeInstanceOf(PrintRequestInvalidError);
    await expect(client.get(`${SAMPLE_ID}0`)).rejects.toThrow(/24 hexadecimal/);
    await expect(client.get('zz41a0f0c0ffee0000000001')).rejects.toBeInstanceOf(PrintRequestInvalidError);
    await expect(client.list({ page: 0 })).rejects.toThrow(/page must be a whole number/);
    await expect(client.updateShipping('a', -1, {})).rejects.toBeInstanceOf(PrintRequestInvalidError);
    await expect(new PrintServiceClient({ baseUrl: server.url, token: 't', secret: 's' }).cancel('a-1')).rejects.toThrow(/PRINT_SOURCE_ACCOUNT/);
    expect(server.requests).toHaveLength(0);
  });

  it('unwraps a record answered as {order, success}', async () => {
    const { client } = await setup((_req, res) => json(res, 200, { order: sampleRecord(), success: true }));
    await expect(client.get(SAMPLE_ID)).resolves.toMatchObject({ _id: SAMPLE_ID, orderData: { sourceOrderId: 'acme-1001' } });
  });
});

describe('PrintServiceClient failures', () => {
  it('maps each status to its error class with the service error', async () => {
    let status = 400;
    const { client } = await setup((_req, res) => serviceError(res, status, `Name${status}`, status * 10, `message ${status}`), {
      retry: { maxAttempts: 1 },
    });
    const cases: [number, new (...args: never[]) => Error, boolean][] = [
      [400, PrintServiceBadRequestError, false],
      [401, PrintServiceUnauthorizedError, false],
      [403, PrintServiceForbiddenError, false],
      [404, PrintServiceNotFoundError, false],
      [409, PrintServiceBadRequestError, false],
      [429, PrintServiceUnavailableError, true],
      [500, PrintServiceUnavailableError, true],
      [503, PrintServiceUnavailableError, true],
    ];
    for (const [code, cls, retryable] of cases) {
      status = code;
      const error = await client.getBySourceId('a-1').catch((e: unknown) => e);
      expect(error, String(code)).toBeInstanceOf(cls);
      expect((error as { retryable: boolean }).retryable, String(code)).toBe(retryable);
      expect((error as { status: number }).status).toBe(code);
      expect((error as { serviceError: unknown }).serviceError).toEqual({ name: `Name${code}`, code: code * 10, message: `message ${code}` });
    }
  });

  it('carries validation problems of a 400', async () => {
    const validations = [{ path: 'orderData.items[0].sku', message: 'required' }];
    const { client } = await setup((_req, res) =>
      json(res, 400, { success: false, error: { name: 'ValidationError', code: 4001, message: 'Order is not valid', validations } }),
    );
    const error = (await client.validate({}).catch((e: unknown) => e)) as PrintServiceBadRequestError;
    expect(error).toBeInstanceOf(PrintServiceBadRequestError);
    expect(error.serviceError.validations).toEqual(validations);
    expect(error.message).toContain('orderData.items[0].sku: required');
  });

  it('describes an error answer that is not JSON', async () => {
    const { client } = await setup((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body>Bad gateway</body></html>');
    }, { retry: { maxAttempts: 1 } });
    const error = (await client.list().catch((e: unknown) => e)) as PrintServiceUnavailableError;
    expect(error).toBeInstanceOf(PrintServiceUnavailableError);
    expect(error.serviceError).toEqual({ name: 'HTTP 502', code: 502, message: '<html><body>Bad gateway</body></html>' });
    expect(error.outcomeUnknown).toBe(true);
  });

  it('refuses a success answer that is not what the interface promises', async () => {
    let body = 'not json';
    const { client } = await setup((_req, res) => {
      res.writeHead(200);
      res.end(body);
    });
    await expect(client.create(sampleOrder())).rejects.toBeInstanceOf(PrintServiceProtocolError);
    body = JSON.stringify({ _id: 'nope', url: 'x' });
    await expect(client.create(sampleOrder())).rejects.toThrow(/_id: must be a 24-character hexadecimal id/);
  });

  it("reads the answer a real service gives a create: HP's stored order, wrapped, without url or timestamp", async () => {
    // The shared fixture when it is beside the repository (a local check, as the postback parser's), else its shape.
    const fixture = fileURLToPath(new URL('../../../shared/fixtures/print-service/03-hpinc-submit-order-response.json', import.meta.url));
    const answer = existsSync(fixture)
      ? readFileSync(fixture, 'utf8')
      : JSON.stringify({ order: { __v: 1, _id: '57d07ba6872ba4110086ca0d', files: [], logs: [], status: 'received' }, success: true });
    const { client } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(answer);
    });
    await expect(client.create(sampleOrder())).resolves.toEqual({ _id: '57d07ba6872ba4110086ca0d' });
  });

  it('takes nothing from a success status whose body says it did not succeed', async () => {
    let body: unknown = { order: { _id: '57d07ba6872ba4110086ca0d' }, success: false };
    const { client } = await setup((_req, res) => json(res, 200, body));
    await expect(client.create(sampleOrder())).rejects.toBeInstanceOf(PrintServiceProtocolError);
    body = { _id: '57d07ba6872ba4110086ca0d', success: false };
    await expect(client.create(sampleOrder())).rejects.toThrow(/did not succeed/);
  });

  it('retries reads on 503, honouring Retry-After, and stops within its bounds', async () => {
    let calls = 0;
    const { server, client } = await setup((_req, res) => {
      calls += 1;
      if (calls < 3) return json(res, 503, { success: false, error: { name: 'ServiceUnavailable', code: 5030, message: 'scaling' } }, { 'retry-after': '1' });
      return json(res, 200, sampleRecord());
    });
    const started = Date.now();
    await expect(client.getBySourceId('acme-1001')).resolves.toMatchObject({ _id: SAMPLE_ID });
    expect(server.requests).toHaveLength(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);

    calls = -100;
    const retries: number[] = [];
    const bounded = new PrintServiceClient({
      baseUrl: server.url, token: 't', secret: SECRET,
      retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 2 },
      onRetry: ({ attempt }) => retries.push(attempt),
    });
    cleanups.push(() => bounded.close());
    server.setHandler((_req, res) => json(res, 500, { success: false, error: { name: 'InternalError', code: 5000, message: 'boom' } }));
    const before = server.requests.length;
    await expect(bounded.list()).rejects.toBeInstanceOf(PrintServiceUnavailableError);
    expect(server.requests.length - before).toBe(4);
    expect(retries).toEqual([1, 2, 3]);
  });

  it('gives up when the total time budget would be exceeded', async () => {
    const { server, client } = await setup((_req, res) => json(res, 503, {}, { 'retry-after': '5' }), {
      retry: { maxAttempts: 10, maxTotalMs: 1_000 },
    });
    const started = Date.now();
    await expect(client.list()).rejects.toBeInstanceOf(PrintServiceUnavailableError);
    expect(server.requests).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('never retries a create by itself', async () => {
    const { server, client } = await setup((_req, res) => json(res, 503, {}));
    const error = (await client.create(sampleOrder()).catch((e: unknown) => e)) as PrintServiceUnavailableError;
    expect(error).toBeInstanceOf(PrintServiceUnavailableError);
    expect(error.outcomeUnknown).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('reports a refused connection as a network failure that sent nothing', async () => {
    const { server, client } = await setup((_req, res) => json(res, 200, {}), { retry: { maxAttempts: 1 } });
    await server.close();
    const error = (await client.create(sampleOrder()).catch((e: unknown) => e)) as PrintServiceNetworkError;
    expect(error).toBeInstanceOf(PrintServiceNetworkError);
    expect(error.retryable).toBe(true);
    expect(error.outcomeUnknown).toBe(false);
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('reports a dropped connection as a failure whose outcome is unknown', async () => {
    const { client } = await setup((_req, res) => void res.socket?.destroy(), { retry: { maxAttempts: 1 } });
    const error = (await client.create(sampleOrder()).catch((e: unknown) => e)) as PrintServiceNetworkError;
    expect(error).toBeInstanceOf(PrintServiceNetworkError);
    expect(error.outcomeUnknown).toBe(true);
  });

  it('times out a slow answer', async () => {
    const { client } = await setup((_req, res) => void setTimeout(() => json(res, 200, ACK), 2_000), {
      responseTimeoutMs: 200,
      retry: { maxAttempts: 1 },
    });
    const started = Date.now();
    const error = (await client.create(sampleOrder()).catch((e: unknown) => e)) as PrintServiceTimeoutError;
    expect(error).toBeInstanceOf(PrintServiceTimeoutError);
    expect(error).toMatchObject({ phase: 'response', retryable: true, outcomeUnknown: true, timeoutMs: 200 });
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('treats "already cancelled" after a lost first cancel as our own cancellation', async () => {
    let cancels = 0;
    const { server, client } = await setup((req, res) => {
      if (req.path.endsWith('/cancel')) {
        cancels += 1;
        if (cancels === 1) return void res.socket?.destroy();
        return serviceError(res, 400, 'OrderAlreadyCancelled', 4004, 'Order acme-1001 is already cancelled');
      }
      return json(res, 200, sampleRecord('acme-1001', { status: 'cancelled' }));
    });
    await expect(client.cancel('acme-1001')).resolves.toMatchObject({ status: 'cancelled' });
    expect(server.requests.map((r) => r.method)).toEqual(['PUT', 'PUT', 'GET']);

    // A first-attempt "already cancelled" is the service's answer, not ours to hide.
    cancels = 1;
    await expect(client.cancel('acme-1001')).rejects.toBeInstanceOf(PrintServiceBadRequestError);
  });
});
