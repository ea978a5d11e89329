import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { PrintServiceClient } from '../../src/print-service/client.js';
import { PrintRequestInvalidError, PrintServiceBadRequestError, PrintServiceUnavailableError } from '../../src/print-service/errors.js';
import { submitOrder } from '../../src/print-service/submit.js';
import { json, serviceError, startScriptedServer, type RecordedRequest } from '../helpers/scripted-server.js';
import { sampleOrder } from '../helpers/orders.js';

const SECRET = 'submit-test-secret';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

type CreateBehaviour = 'ok' | 'store-then-drop' | 'store-then-stall' | '503' | '500-before-store' | '400';

/**
 * A print service that really stores orders, so "exactly one order ends up stored" can be counted, and whose create
 * misbehaves as scripted, attempt by attempt.
 */
async function storingService(script: CreateBehaviour[]) {
  const stored = new Map<string, { _id: string; sourceOrderId: string }>();
  let creates = 0;
  let lookups = 0;
  const handle = (req: RecordedRequest, res: ServerResponse) => {
    if (req.method === 'POST' && req.path === '/api/order') {
      const behaviour = script[creates] ?? 'ok';
      creates += 1;
      const sourceOrderId = (JSON.parse(req.body) as { orderData: { sourceOrderId: string } }).orderData.sourceOrderId;
      if (behaviour === '503') return json(res, 503, { success: false, error: { name: 'ServiceUnavailable', code: 5030, message: 'scaling up' } });
      if (behaviour === '500-before-store') return serviceError(res, 500, 'InternalError', 5000, 'boom');
      if (behaviour === '400') return serviceError(res, 400, 'BadRequest', 4000, 'orderData must be an object');
      const _id = (stored.size + 1).toString(16).padStart(24, '0');
      // A second create of the same sourceOrderId is what duplicates production: count it, never merge it.
      stored.set(`${sourceOrderId}#${stored.size}`, { _id, sourceOrderId });
      if (behaviour === 'store-then-drop') return void res.socket?.destroy();
      if (behaviour === 'store-then-stall') return; // never answers: the client times out
      return json(res, 200, { _id, url: `http://x/${_id}.json`, timestamp: new Date().toISOString(), sourceAccountId: 'acc' });
    }
    const match = /^\/api\/order\/bysourceid\/(.+)$/.exec(req.path);
    if (req.method === 'GET' && match) {
      lookups += 1;
      const id = decodeURIComponent(match[1]!);
      const found = [...stored.values()].find((o) => o.sourceOrderId === id);
      if (!found) return serviceError(res, 404, 'OrderNotFound', 4040, `No order with sourceOrderId ${id}`);
      return json(res, 200, { _id: found._id, status: 'received', destination: { name: 'demo-printer' }, orderData: { sourceOrderId: id } });
    }
    return serviceError(res, 404, 'RouteNotFound', 4040, 'no route');
  };
  const server = await startScriptedServer({ secret: SECRET, handler: handle });
  const client = new PrintServiceClient({
    baseUrl: server.url,
    token: 't',
    secret: SECRET,
    responseTimeoutMs: 300,
    retry: { maxAttempts: 5, baseDelayMs: 5, maxDelayMs: 20 },
  });
  cleanups.push(() => server.close(), () => client.close());
  return {
    client,
    server,
    stored: () => [...stored.values()],
    counts: () => ({ creates, lookups }),
  };
}

describe('submitOrder', () => {
  it('stores exactly one order when the service stores it and then drops the connection', async () => {
    const service = await storingService(['store-then-drop']);
    const outcome = await submitOrder(service.client, sampleOrder('acme-2001'));
    expect(outcome).toMatchObject({ kind: 'already-submitted', order: { orderData: { sourceOrderId: 'acme-2001' } } });
    expect(service.stored()).toHaveLength(1);
    expect(service.counts()).toEqual({ creates: 1, lookups: 2 });
  });

  it('stores exactly one order when the answer times out after storing', async () => {
    const service = await storingService(['store-then-stall']);
    const outcome = await submitOrder(service.client, sampleOrder('acme-2002'), { reconcileFirst: false });
    expect(outcome.kind).toBe('already-submitted');
    expect(service.stored()).toHaveLength(1);
    expect(service.counts()).toEqual({ creates: 1, lookups: 1 });
  });

  it('re-creates after a 500 only once the service says it does not have the order', async () => {
    const service = await storingService(['500-before-store', 'ok']);
    const failures: boolean[] = [];
    const outcome = await submitOrder(service.client, sampleOrder('acme-2003'), {
      reconcileFirst: false,
      onAttemptFailed: ({ willReconcile }) => failures.push(willReconcile),
    });
    expect(outcome).toMatchObject({ kind: 'created', attempts: 2 });
    expect(failures).toEqual([true]);
    expect(service.counts()).toEqual({ creates: 2, lookups: 1 });
    expect(service.stored()).toHaveLength(1);
  });

  it('creates again straight after a 503, which is refused before anything is stored', async () => {
    const service = await storingService(['503', '503', 'ok']);
    const outcome = await submitOrder(service.client, sampleOrder('acme-2004'), { reconcileFirst: false });
    expect(outcome).toMatchObject({ kind: 'created', attempts: 3 });
    expect(service.counts()).toEqual({ creates: 3, lookups: 0 });
  });

  it('asks first by default, so a job run again after a crash sends nothing new', async () => {
    const service = await storingService(['ok']);
    await submitOrder(service.client, sampleOrder('acme-2005'));
    const again = await submitOrder(service.client, sampleOrder('acme-2005'));
    expect(again.kind).toBe('already-submitted');
    expect(service.stored()).toHaveLength(1);
    expect(service.counts()).toEqual({ creates: 1, lookups: 2 });
  });

  it('fails at once on a permanent refusal', async () => {
    const service = await storingService(['400']);
    await expect(submitOrder(service.client, sampleOrder('acme-2006'))).rejects.toBeInstanceOf(PrintServiceBadRequestError);
    expect(service.counts().creates).toBe(1);
  });

  it('gives up after its attempts with the retryable error, leaving the rest to the job', async () => {
    const service = await storingService(['503', '503', '503']);
    await expect(submitOrder(service.client, sampleOrder('acme-2007'), { maxAttempts: 3 })).rejects.toBeInstanceOf(
      PrintServiceUnavailableError,
    );
    expect(service.counts().creates).toBe(3);
    expect(service.stored()).toHaveLength(0);
  });

  it('needs a sourceOrderId', async () => {
    const service = await storingService([]);
    const order = sampleOrder();
    delete (order.orderData as { sourceOrderId?: string }).sourceOrderId;
    await expect(submitOrder(service.client, order)).rejects.toBeInstanceOf(PrintRequestInvalidError);
    expect(service.counts().creates).toBe(0);
  });

  it('survives a storm of dropped answers with exactly one order per sourceOrderId', async () => {
    const script: CreateBehaviour[] = Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? 'store-then-drop' : i % 3 === 1 ? '503' : 'ok'));
    const service = await storingService(script);
    const ids = Array.from({ length: 40 }, (_, i) => `storm-${i}`);
    await Promise.all(ids.map((id) => submitOrder(service.client, sampleOrder(id), { maxAttempts: 10 })));
    const stored = service.stored().map((o) => o.sourceOrderId).sort();
    expect(stored).toEqual([...ids].sort());
  });
});
