import type { ShopifyFulfillmentPort } from '../bridge/ports.js';
import type { ShopifyAdminApi } from '../shopify/admin-api.js';

/** The fulfillment port on the app's Admin API clients, one per shop (e.g. `ShopifyAdminClients.forShop`). */
export function adminApiFulfillmentPort(forShop: (shop: string) => ShopifyAdminApi | Promise<ShopifyAdminApi>): ShopifyFulfillmentPort {
  return {
    getOrderForFulfillment: async (shop, orderId) => (await forShop(shop)).getOrderForFulfillment(orderId),
    getFulfillmentOrderOrder: async (shop, fulfillmentOrderId) => (await forShop(shop)).getFulfillmentOrderOrder(fulfillmentOrderId),
    createFulfillment: async (shop, input) => (await forShop(shop)).createFulfillment(input),
    updateFulfillmentTracking: async (shop, fulfillmentId, tracking, notifyCustomer) =>
      (await forShop(shop)).updateFulfillmentTracking(fulfillmentId, tracking, notifyCustomer),
    orderShows: async (shop, orderId) => (await forShop(shop)).orderShows(orderId),
    showStatus: async (shop, orderId, change) => (await forShop(shop)).showStatus(orderId, change),
    releaseHolds: async (shop, fulfillmentOrderId, holdIds) => (await forShop(shop)).releaseHolds(fulfillmentOrderId, holdIds),
    appendOrderNote: async (shop, orderId, line) => {
      await (await forShop(shop)).appendOrderNote(orderId, line);
    },
  };
}
