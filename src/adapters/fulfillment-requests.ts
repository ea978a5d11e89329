import type { FulfillmentRequestsPort } from '../bridge/ports.js';
import type { FulfillmentServiceStore } from '../shops/fulfillment-services.js';
import type { ShopifyAdminApi } from '../shopify/admin-api.js';

/** The use cases' FulfillmentRequestsPort on the stores' fulfillment settings and each store's Admin API. */
export function adminApiFulfillmentRequests(
  forShop: (shop: string) => Promise<ShopifyAdminApi>,
  services: Pick<FulfillmentServiceStore, 'get' | 'setMerchant'>,
  /** Forgets the cached set-up of the store (its mode changed). */
  invalidate: (shop: string) => void = () => undefined,
): FulfillmentRequestsPort {
  return {
    async serviceLocation(shop) {
      const setting = await services.get(shop);
      return setting.mode === 'service' ? setting.service?.locationId : undefined;
    },
    async pending(shop, kind, locationId) {
      return (await forShop(shop)).assignedFulfillmentOrders(kind, locationId);
    },
    async accept(shop, id, message, estimatedShippedAt) {
      await (await forShop(shop)).acceptFulfillmentRequest(id, message, estimatedShippedAt);
    },
    async reject(shop, id, rejection) {
      await (await forShop(shop)).rejectFulfillmentRequest(id, rejection);
    },
    async acceptCancellation(shop, id, message) {
      await (await forShop(shop)).acceptCancellationRequest(id, message);
    },
    async rejectCancellation(shop, id, message) {
      await (await forShop(shop)).rejectCancellationRequest(id, message);
    },
    async orderBody(shop, orderId) {
      return (await forShop(shop)).getOrderAsWebhookBody(orderId);
    },
    async forgetService(shop) {
      await services.setMerchant(shop);
      invalidate(shop);
    },
  };
}
