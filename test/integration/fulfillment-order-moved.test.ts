import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SHOPIFY_API_VERSION } from '../../src/config.js';
import { chooseFulfillmentMode, type FulfillmentModeDeps } from '../../src/shops/fulfillment-mode.js';
import { type Harness, orderBody, SHOP, SHOPIFY_SECRET, startHarness, waitFor, waitForIdle } from '../helpers/harness.js';

/**
 * A merchant moves a fulfillment order away from print-bridge's location in the Shopify admin ("Change location"): the
 * Admin stand-in sends `fulfillment_orders/moved` as Shopify does (`original_fulfillment_order`,
 * `moved_fulfillment_order`, no `fulfillment_order`), signed, to the running app. The app takes it at intake and
 * follows it on the order; the first version refused Shopify's body with 401, so a move was never followed.
 */
let h: Harness;
let modeDeps: FulfillmentModeDeps;
let locationId: string;
let primaryId: string;

beforeAll(async () => {
  h = await startHarness({ env: { FULFILLMENT_READ_INTERVAL_MS: '0' } });
  h.standIn.configureWebhooks({ url: `${h.runtime.url}/webhooks`, secret: SHOPIFY_SECRET, apiVersion: DEFAULT_SHOPIFY_API_VERSION });
  modeDeps = { ...h.runtime.fulfillmentMode, appUrl: h.runtime.url! };
  h.standIn.setAutomaticFulfillmentRequests(false);
  const chosen = await chooseFulfillmentMode(modeDeps, SHOP, 'service');
  locationId = chosen.service!.locationId;
  h.standIn.stockFulfillmentService(SHOP, chosen.service!.id, ['PRINT-BOOK']);
});
afterAll(() => h?.close());

async function events(orderId: string): Promise<{ event: string; detail?: string }[]> {
  return h.runtime.store.history(SHOP, orderId);
}

describe('fulfillment_orders/moved from Shopify (stand-in) to the running app', () => {
  it('a fulfillment order moved away from the print location is followed: noted on the order, and never printed', async () => {
    const body = orderBody([{ sku: 'PRINT-BOOK' }, { sku: 'HAT-RED' }]);
    expect((await h.sendWebhook('orders/paid', body)).status).toBe(200);
    const orderId = body.admin_graphql_api_id;
    await waitFor(async () => (await events(orderId)).some((e) => e.event === 'waiting for a fulfillment request'), { what: 'the order waiting for a request' });
    const atPrint = h.standIn.getOrder(SHOP, orderId)!.fulfillmentOrders.find((fo) => fo.assignedLocation.id === locationId)!;
    primaryId = h.standIn.getOrder(SHOP, orderId)!.fulfillmentOrders.find((fo) => fo.assignedLocation.id !== locationId)!.assignedLocation.id;

    const moved = h.standIn.moveFulfillmentOrder(SHOP, orderId, { fulfillmentOrderId: atPrint.id, newLocationId: primaryId });
    expect(moved.ok).toBe(true);
    await h.standIn.webhooksSettled();
    const sent = h.standIn.sentWebhooks().find((w) => w.topic === 'fulfillment_orders/moved')!;
    expect(sent.body).toMatchObject({ original_fulfillment_order: { id: atPrint.id }, destination_location_id: primaryId });
    expect(sent.body).not.toHaveProperty('fulfillment_order');
    expect(sent.status).toBe(200);

    const noted = await waitFor(async () => (await events(orderId)).find((e) => e.event === 'Shopify moved a fulfillment order'), { what: 'the move on the order' });
    expect(noted.detail).toBe(`${atPrint.id} → ${atPrint.id} at ${primaryId}: it left print-bridge's location, so Shopify will not ask print-bridge to print it; the merchant fulfils it unless it is moved back`);
    await waitForIdle(h);
    const link = (await h.runtime.store.get(SHOP, orderId))!;
    expect(link.sourceOrderId).toBeUndefined();
  });
});
