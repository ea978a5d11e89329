import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { type Harness, orderBody, SHOP, SHOP_TOKEN, SHOPIFY_SECRET, startHarness, waitFor, waitForIdle } from '../helpers/harness.js';

/** A full run at debug level must not write any configured secret or any customer address into the logs. */
describe('logs', () => {
  let h: Harness;
  const lines: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    h = await startHarness({ logger: createLogger({ level: 'trace', destination: sink }) });
  });
  afterAll(() => h.close());

  it('never contain secrets or customer addresses', async () => {
    const good = orderBody([{ sku: 'PRINT-A5' }]);
    const held = orderBody([{ sku: 'UNMAPPED-1' }]);
    for (const body of [good, held]) h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', good);
    await h.sendWebhook('orders/paid', held);
    await h.sendWebhook('orders/paid', '{"broken":', 'bad-body');
    await waitFor(async () => (await h.runtime.store.get(SHOP, good.admin_graphql_api_id))?.status === 'submitted');
    await waitFor(async () => (await h.runtime.store.get(SHOP, held.admin_graphql_api_id))?.status === 'held');
    await h.sendWebhook('orders/cancelled', { ...good, cancelled_at: '2026-11-21T11:00:00-05:00', updated_at: '2026-11-21T11:00:00-05:00' });
    await waitFor(async () => (await h.runtime.store.get(SHOP, good.admin_graphql_api_id))?.status === 'cancelled');
    // The lines of every job the run queued (the cancel job and the Shopify jobs after it) are written.
    await waitForIdle(h, { what: 'every job of the run done' });

    const log = lines.join('');
    if (process.env.SHOW_LOGS) console.log(log);
    expect(lines.length).toBeGreaterThan(3);
    const secrets = [h.config.PRINT_API_SECRET!, SHOPIFY_SECRET, SHOP_TOKEN, ...(h.config.POSTBACK_TOKEN ?? [])];
    const address = good.shipping_address;
    const personal = [address.address1, address.city, address.zip, address.phone, address.name, good.email];
    for (const secret of secrets) expect(log, `secret ${secret.slice(0, 4)}… in the logs`).not.toContain(secret);
    for (const value of personal) expect(log, `customer data "${value}" in the logs`).not.toContain(value);
  });
});
