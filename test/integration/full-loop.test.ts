import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postbackTriggers } from '../../src/print-service/postback-triggers.js';
import { parseTriggers } from '../../src/dev/emulator/triggers.js';
import { type Harness, orderBody, SHOP, startHarness, waitFor, waitForIdle, metricsHeaders } from '../helpers/harness.js';

/**
 * The whole loop through the real app: a Shopify webhook becomes a print order at the emulator, whose triggers (the
 * templates of docs/triggers.md) post its events back to `POST /postbacks/:token`, which become fulfillments with
 * tracking, tags and a status in the Shopify stand-in.
 */
describe('full loop', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ emulator: { manual: false, delays: { receivedMs: 20, printReadyMs: 40, shipMs: 60 } } });
    h.emulator.deliveries.setTriggers(parseTriggers(postbackTriggers(`${h.runtime.url}/postbacks/postback-test-token-0123456789abcdef`)));
  });
  afterAll(() => h.close());

  it('fulfils each print shipment in Shopify with its own tracking, once', async () => {
    const body = orderBody([
      { sku: 'PRINT-BOOK', quantity: 2, vendor: 'Books' },
      { sku: 'PRINT-POSTER', quantity: 1, vendor: 'Posters' },
    ]);
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);

    const order = await waitFor(() => {
      const o = h.standIn.getOrder(SHOP, body.admin_graphql_api_id);
      return o && o.fulfillments.length === 2 && o.tags.includes('print-bridge:shipped') && o;
    }, { timeoutMs: 30_000, what: 'two fulfillments and the shipped tag' });

    const byLine = new Map(order.fulfillments.map((f) => [f.lineItems.map((l) => `${l.lineItemId}×${l.quantity}`).join(','), f]));
    const book = byLine.get(`${body.line_items[0]!.admin_graphql_api_id}×2`);
    const poster = byLine.get(`${body.line_items[1]!.admin_graphql_api_id}×1`);
    expect(book, JSON.stringify([...byLine.keys()])).toBeDefined();
    expect(poster).toBeDefined();
    for (const f of [book!, poster!]) {
      expect(f.trackingInfo).toHaveLength(1);
      expect(f.trackingInfo[0]!.number).toMatch(/^EM\d{9}GB$/);
      expect(f.notifyCustomer).toBe(true);
    }
    expect(book!.trackingInfo[0]!.number).not.toBe(poster!.trackingInfo[0]!.number);
    expect(book!.trackingInfo[0]).toMatchObject({ company: 'Royal Mail', url: `https://track.example.com/${book!.trackingInfo[0]!.number}` });
    expect(order.tags).toEqual(expect.arrayContaining(['print-bridge:submitted', 'print-bridge:shipped']));
    expect(order.tags).not.toContain('print-bridge:print-ready');

    // The order is recorded shipped before each fulfillment is made in Shopify and recorded on it: the fulfillments
    // recorded are waited for with the status, not read right after it.
    const link = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return l?.status === 'shipped' && l.shipments.every((s) => s.fulfillmentId) && l;
    }, { what: 'the order shipped with both fulfillments recorded' });
    expect(link.shipments.map((s) => Boolean(s.fulfillmentId))).toEqual([true, true]);
    const history = (await h.runtime.store.history(SHOP, body.admin_graphql_api_id)).map((e) => e.event).reverse();
    expect(history.indexOf('submitted')).toBeLessThan(history.findIndex((e) => /print.?ready/i.test(e)));

    // The emulator retries nothing and the app repeats nothing: still two fulfillments after the dust settles. The
    // order is shipped (the emulator emits nothing after that): once every delivery is answered (the app queues an
    // event before answering) and every job those events queued has run, nothing more can come.
    await h.emulator.deliveries.idle();
    await waitForIdle(h, { what: 'every event and status sync done' });
    expect(h.standIn.getOrder(SHOP, body.admin_graphql_api_id)!.fulfillments).toHaveLength(2);

    const metrics = await (await fetch(`${h.runtime.url}/metrics`, { headers: metricsHeaders })).text();
    expect(metrics).toMatch(/print_bridge_postbacks_total\{event="shipped",outcome="queued"\} 2/);
  });

  it('refuses a postback with an unknown token and keeps one it cannot understand', async () => {
    const unknown = await fetch(`${h.runtime.url}/postbacks/wrong-token`, { method: 'POST', body: '{"event":"shipped"}' });
    expect(unknown.status).toBe(401);
    const garbage = await fetch(`${h.runtime.url}/postbacks/postback-test-token-0123456789abcdef`, { method: 'POST', body: 'this is not { json' });
    expect(garbage.status).toBe(400);
    const kept = await h.runtime.store.listUnreadablePostbacks();
    expect(kept.entries.map((k) => k.body)).toContain('this is not { json');
  });
});
