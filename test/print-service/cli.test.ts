import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, serviceError, startScriptedServer } from '../helpers/scripted-server.js';
import { runBin, runCliInProcess } from '../helpers/run-cli.js';
import { SAMPLE_ID, sampleOrder, sampleRecord } from '../helpers/orders.js';

const SECRET = 'cli-test-secret';
let base: Awaited<ReturnType<typeof startScriptedServer>>;
let orders: Awaited<ReturnType<typeof startScriptedServer>>;
let env: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'print-bridge-cli-files-'));

beforeAll(async () => {
  base = await startScriptedServer({
    secret: SECRET,
    handler: (req, res) => {
      if (req.path === '/api/order') return json(res, 200, { data: [], count: 0, page: 2, pagesize: 5 });
      if (req.path.startsWith('/api/order/bysourceid/missing')) return serviceError(res, 404, 'OrderNotFound', 4040, 'No order with sourceOrderId missing');
      if (req.path.startsWith('/api/order/bysourceid/')) return serviceError(res, 404, 'OrderNotFound', 4040, 'not yet');
      if (req.path.endsWith('/cancel')) return serviceError(res, 400, 'OrderNotCancellable', 4005, 'Order acme-1 has shipped and cannot be cancelled');
      if (req.path.endsWith('/shipping')) return json(res, 200, { shipmentIndex: 0, sourceOrderId: 'acme-1', shipTo: JSON.parse(req.body).shipTo, items: [] });
      return json(res, 200, sampleRecord());
    },
  });
  orders = await startScriptedServer({
    secret: SECRET,
    handler: (_req, res) => json(res, 200, { _id: SAMPLE_ID, url: 'http://x/1.json', timestamp: '2026-11-21T14:00:00.000Z', sourceAccountId: 'acc' }),
  });
  env = {
    PRINT_API_BASE_URL: base.url,
    PRINT_API_ORDERS_URL: orders.url,
    PRINT_API_TOKEN: 'cli-token',
    PRINT_API_SECRET: SECRET,
    PRINT_SOURCE_ACCOUNT: 'acme-brand',
  };
});
afterAll(async () => {
  await base.close();
  await orders.close();
});

// The commands run in this process (runCliInProcess); one test starts the real binary.
describe('print-bridge print-api', () => {
  it('list --page 2 --pagesize 5 sends a signed GET /api/order?page=2&pagesize=5 and prints the JSON answer', async () => {
    const result = await runCliInProcess(['print-api', 'list', '--page', '2', '--pagesize', '5'], env);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ data: [], count: 0, page: 2, pagesize: 5 });
    const request = base.requests.at(-1)!;
    expect([request.method, request.url, request.signatureValid]).toEqual(['GET', '/api/order?page=2&pagesize=5', true]);
    expect(request.headers['x-service-authorization']).toMatch(/^cli-token:/);
  });

  it('submit checks the order, asks whether it exists, then creates it at PRINT_API_ORDERS_URL', async () => {
    const file = join(dir, 'order.json');
    writeFileSync(file, JSON.stringify(sampleOrder('acme-77')));
    const before = base.requests.length;
    const result = await runCliInProcess(['print-api', 'submit', file], env);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ _id: SAMPLE_ID });
    expect(base.requests.slice(before).map((r) => r.url)).toEqual(['/api/order/bysourceid/acme-77']);
    expect(orders.requests.map((r) => [r.method, r.url, r.signatureValid])).toEqual([['POST', '/api/order', true]]);
    expect(JSON.parse(orders.requests[0]!.body).orderData.sourceOrderId).toBe('acme-77');
  });

  it('submit refuses an invalid order locally and names the problems', async () => {
    const file = join(dir, 'bad.json');
    const order = sampleOrder() as unknown as { orderData: { items: { components: { path?: string }[] }[] } };
    delete order.orderData.items[0]!.components[0]!.path;
    writeFileSync(file, JSON.stringify(order));
    const sent = orders.requests.length;
    const result = await runCliInProcess(['print-api', 'submit', file], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('orderData.items[0].components[0].path: required');
    expect(orders.requests.length).toBe(sent);
  });

  it("submit sends the file as it is, not the schema's copy: a production order's extra fields and extraData: [] arrive unchanged", async () => {
    // Fields a real Site Flow order carries that the schema does not name; the first version sent the schema's parsed
    // copy, which dropped them and turned extraData: [] into {}.
    const order = sampleOrder('acme-78') as unknown as { orderData: Record<string, unknown> & { items: Record<string, unknown>[] } };
    order.orderData.email = 'orders@example.com';
    order.orderData.pspBranding = true;
    order.orderData.extraData = [];
    Object.assign(order.orderData.items[0]!, { printType: 'digital', amount: 12.5, error: null });
    Object.assign((order.orderData.items[0]!.components as Record<string, unknown>[])[0]!, { componentId: 'cover-77' });
    const file = join(dir, 'production.json');
    writeFileSync(file, JSON.stringify(order));
    const sent = orders.requests.length;
    const result = await runCliInProcess(['print-api', 'submit', file], env);
    expect(result.code, result.stderr).toBe(0);
    expect(orders.requests.length).toBe(sent + 1);
    expect(JSON.parse(orders.requests.at(-1)!.body)).toEqual(order);
  });

  it('submit names a shipByDate not in the form yyyy-mm-dd once, one message for one fault', async () => {
    const order = sampleOrder('acme-79') as unknown as { orderData: { shipments: Record<string, unknown>[] } };
    order.orderData.shipments[0]!.shipByDate = '24/12/2026';
    const file = join(dir, 'ship-by.json');
    writeFileSync(file, JSON.stringify(order));
    const result = await runCliInProcess(['print-api', 'submit', file], env);
    expect(result.code).toBe(1);
    expect(result.stderr.match(/shipByDate/g)).toHaveLength(1);
    expect(result.stderr).toContain('orderData.shipments[0].shipByDate: must be a date in the form yyyy-mm-dd');
  });

  it('prints the service error and exits 1 on an error answer', async () => {
    const result = await runCliInProcess(['print-api', 'by-source', 'missing'], env);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({ success: false, error: { name: 'OrderNotFound', code: 4040, message: 'No order with sourceOrderId missing' } });
    expect(result.stderr).toContain('HTTP 404');

    const cancel = await runCliInProcess(['print-api', 'cancel', 'acme-1'], env);
    expect(cancel.code).toBe(1);
    expect(JSON.parse(cancel.stdout).error.name).toBe('OrderNotCancellable');
    expect(base.requests.at(-1)!.url).toBe('/api/order/acme-brand/acme-1/cancel');
  });

  it('get and update-shipping', async () => {
    const got = await runCliInProcess(['print-api', 'get', SAMPLE_ID], env);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout)._id).toBe(SAMPLE_ID);

    const bad = await runCliInProcess(['print-api', 'get', 'nothex'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('24 hexadecimal');

    const file = join(dir, 'shipping.json');
    const shipTo = { name: 'Zoë', address1: '9 New Road', town: 'York', postcode: 'YO1 1AA', isoCountry: 'GB' };
    writeFileSync(file, JSON.stringify({ shipTo }));
    const updated = await runCliInProcess(['print-api', 'update-shipping', 'acme-1', '0', file], env);
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout).shipTo).toEqual(shipTo);
    expect([base.requests.at(-1)!.method, base.requests.at(-1)!.url]).toEqual(['PUT', '/api/shipment/acme-1/0/shipping']);
  });

  it('says clearly when the configuration is incomplete', async () => {
    // The real binary: the exit code through bin/print-bridge.js, and no stack trace from the process.
    const result = await runBin(['print-api', 'cancel', 'acme-1'], { PRINT_API_BASE_URL: 'not a url' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PRINT_API_BASE_URL: must be an http(s) URL');
    expect(result.stderr).toContain('PRINT_API_TOKEN: required but not set');
    expect(result.stderr).toContain('PRINT_SOURCE_ACCOUNT: required but not set');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('reads a .env file in the working directory', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'print-bridge-dotenv-'));
    writeFileSync(join(cwd, '.env'), Object.entries(env).map(([k, v]) => `${k}=${v}`).join('\n'));
    const result = await runCliInProcess(['print-api', 'list'], {}, { cwd });
    expect(result.code).toBe(0);
  });

  it('says clearly when the service cannot be reached, without a stack trace', async () => {
    const result = await runCliInProcess(['print-api', 'list'], { ...env, PRINT_API_BASE_URL: 'http://127.0.0.1:9' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Could not reach the print service at http://127.0.0.1:9/api/order');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('lists the print-api commands in --help', async () => {
    const result = await runCliInProcess(['print-api', '--help']);
    expect(result.code).toBe(0);
    for (const command of ['validate', 'submit', 'list', 'get', 'by-source', 'cancel', 'update-shipping']) {
      expect(result.stdout).toContain(command);
    }
  });
});
