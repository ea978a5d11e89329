import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitJobId } from '../../src/queue/queues.js';
import { emulatorOrders, orderBody, SHOP, startHarness, testMapping, waitFor, type Harness } from '../helpers/harness.js';

/**
 * Issue 27 against the running app (`start`: web and worker, PostgreSQL, Redis, the emulator and the Admin stand-in):
 * with a mapping that does not validate first, an order due now is submitted by its webhook's job. One print order,
 * no submit job, the status shown in Shopify; the same webhook again sends nothing more.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ mapping: testMapping({ validate: false }) });
});
afterAll(() => h?.close());

describe('an order due now, end to end', () => {
  it('reaches the printer once from its webhook job, with no submit job, and shows it in Shopify', async () => {
    const body = orderBody([{ sku: 'PRINT-A5' }, { sku: 'PRINT-A4', quantity: 2 }]);
    h.standIn.seedOrder(SHOP, body);
    expect((await h.sendWebhook('orders/paid', body)).status).toBe(200);
    const link = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return l?.status === 'submitted' && l;
    }, { what: 'the order submitted' });
    expect(emulatorOrders(h.emulator, link.sourceOrderId!)).toHaveLength(1);
    expect(await h.runtime.queues.orders.getJob(submitJobId(SHOP, body.admin_graphql_api_id))).toBeUndefined();
    await waitFor(() => h.standIn.getOrder(SHOP, body.admin_graphql_api_id)?.tags.includes('print-bridge:submitted'), { what: 'the submitted tag in Shopify' });

    // The same order's webhook again, under a new webhook id (Shopify's own duplicate): nothing more is sent.
    expect((await h.sendWebhook('orders/paid', body)).status).toBe(200);
    await waitFor(async () => (await h.runtime.queues.webhooks.getJobCounts('waiting', 'active', 'delayed')).waiting === 0 && (await h.runtime.queues.webhooks.getJobCounts('active')).active === 0, {
      what: 'the second webhook handled',
    });
    expect(emulatorOrders(h.emulator, link.sourceOrderId!)).toHaveLength(1);
    expect((await h.runtime.store.history(SHOP, body.admin_graphql_api_id)).map((e) => e.event)).toContain('submitted');
  });
});
