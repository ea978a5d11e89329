import { describe, expect, it } from 'vitest';
import { printEventConfirmer } from '../../src/bridge/confirm-print-event.js';
import { PrintServiceNotFoundError, PrintServiceNetworkError } from '../../src/print-service/errors.js';
import type { PrintEvent } from '../../src/print-service/postback.js';
import type { OrderRecord } from '../../src/print-service/schema.js';

const ORDER = { shop: 'acme.myshopify.com', printAccount: undefined };
const errored: PrintEvent = { kind: 'errored', sourceOrderId: 'acme-1', errors: ['made up'] };

function record(status: string | undefined, extra: Record<string, unknown> = {}): OrderRecord {
  return { _id: 'a'.repeat(24), status, destination: { name: 'demo-printer' }, orderData: { sourceOrderId: 'acme-1' }, ...extra } as OrderRecord;
}

describe('confirming an "Order Errored" claim', () => {
  it('is confirmed only by the status word errored (any case or spacing), with the service\'s own errors', async () => {
    const confirm = (r: OrderRecord) => printEventConfirmer(async () => r)(ORDER, 'acme-1', errored);
    expect(await confirm(record('errored', { errors: ['cover: HTTP 404', { message: 'text: preflight failed' }, 7, '  '] }))).toEqual({
      confirmed: true,
      errors: ['cover: HTTP 404', 'text: preflight failed', '7'],
    });
    expect(await confirm(record('Errored'))).toEqual({ confirmed: true });
    for (const status of ['received', 'printready', 'submitted', 'submissionerror', 'cancelled', undefined]) {
      const answer = await confirm(record(status, { errors: ['old'] }));
      expect(answer.confirmed, String(status)).toBe(false);
      if (!answer.confirmed) expect(answer.reason).toMatch(/not errored$/);
    }
  });

  it('is refused when the service has no such order, and throws (the job retries) when the service cannot be reached', async () => {
    const missing = printEventConfirmer(async () => {
      throw new PrintServiceNotFoundError('getBySourceId', 'order acme-1');
    });
    expect(await missing(ORDER, 'acme-1', errored)).toEqual({ confirmed: false, reason: 'the print service has no order acme-1' });
    const down = printEventConfirmer(async () => {
      throw new PrintServiceNetworkError('getBySourceId', 'http://127.0.0.1:1/api/order/bysourceid/acme-1', new Error('connect ECONNREFUSED'), false);
    });
    await expect(down(ORDER, 'acme-1', errored)).rejects.toBeInstanceOf(PrintServiceNetworkError);
  });
});

describe('confirming an "Order Submission Error" claim', () => {
  const failed: PrintEvent = { kind: 'submission-error', sourceOrderId: 'acme-1', errors: ['made up'] };

  it('is confirmed by the status word submissionerror or by no order at all, and refused for a live order', async () => {
    const confirm = (read: () => Promise<OrderRecord>) => printEventConfirmer(read)(ORDER, 'acme-1', failed);
    expect(await confirm(async () => record('submissionerror', { errors: ['sku unknown'] }))).toEqual({ confirmed: true, errors: ['sku unknown'] });
    expect(
      await confirm(async () => {
        throw new PrintServiceNotFoundError('getBySourceId', 'order acme-1');
      }),
    ).toEqual({ confirmed: true });
    for (const status of ['received', 'printready', 'shipped', 'errored']) {
      const answer = await confirm(async () => record(status));
      expect(answer.confirmed, status).toBe(false);
      if (!answer.confirmed) expect(answer.reason).toMatch(/not submissionerror$/);
    }
  });
});
