import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearAdminApiRoutes, routeAdminApi } from '../../src/shopify/admin/routing.js';
import { ShopifyUnauthorizedError, ShopifyUnavailableError } from '../../src/shopify/admin/errors.js';
import { startAdminStandIn, type AdminStandIn } from '../../src/shopify/admin-stand-in/index.js';
import { fetchOrderWebhookBody } from '../../src/shopify/order-rest.js';
import { orderBody } from '../helpers/harness.js';

const SHOP = 'rest-read.myshopify.com';

describe('fetchOrderWebhookBody (the REST read of one order, through the routed library fetch)', () => {
  let standIn: AdminStandIn;
  beforeAll(async () => {
    standIn = await startAdminStandIn({ port: 0 });
    standIn.registerShop(SHOP, 'shpat_rest');
    routeAdminApi(standIn.origin, SHOP);
  });
  afterAll(async () => {
    clearAdminApiRoutes(SHOP);
    await standIn.close();
  });

  const read = (orderGid: string, accessToken = 'shpat_rest') => fetchOrderWebhookBody({ shop: SHOP, accessToken, apiVersion: '2026-01', orderGid });

  it('answers the order in the webhook shape, with what changed in Shopify since', async () => {
    const body = orderBody([{ sku: 'PRINT-REST', quantity: 3 }], { note_attributes: [{ name: 'gift', value: 'yes' }] });
    standIn.seedOrder(SHOP, body);
    await standIn.fulfillByHand(SHOP, body.admin_graphql_api_id, {});
    const text = await read(body.admin_graphql_api_id);
    const order = JSON.parse(text!) as typeof body & { fulfillment_status: string | null; note_attributes: unknown };
    expect(order.admin_graphql_api_id).toBe(body.admin_graphql_api_id);
    expect(order.line_items[0]).toMatchObject({ sku: 'PRINT-REST', quantity: 3, admin_graphql_api_id: body.line_items[0]!.admin_graphql_api_id });
    expect(order.shipping_address.city).toBe('Łódź');
    expect(order.note_attributes).toEqual([{ name: 'gift', value: 'yes' }]);
    expect(order.fulfillment_status).toBe('fulfilled');
  });

  it('says undefined for an order Shopify does not have, and fails typed otherwise', async () => {
    expect(await read('gid://shopify/Order/424242')).toBeUndefined();
    await expect(read('gid://shopify/Order/424242', 'wrong')).rejects.toBeInstanceOf(ShopifyUnauthorizedError);
    await standIn.failNext(1, 503);
    const unavailable = await read('gid://shopify/Order/424242').catch((e: unknown) => e);
    expect(unavailable).toBeInstanceOf(ShopifyUnavailableError);
    expect((unavailable as ShopifyUnavailableError).retryable).toBe(true);
  });
});
