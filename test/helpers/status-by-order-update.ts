import { z } from 'zod';
import type { ShopifyFulfillmentPort } from '../../src/bridge/ports.js';
import type { StatusChange } from '../../src/bridge/shopify-data.js';
import { STATUS_METAFIELD } from '../../src/shopify/admin/order-status.js';
import { userErrorSchema, type AdminRequests } from '../../src/shopify/admin/request.js';

/**
 * Issue 27, measured and not kept (docs/pipeline.md, *What Shopify shows*): the order's status shown with one
 * `orderUpdate` (tags and the `$app:print_status` metafield, 10 points) instead of `tagsAdd`/`tagsRemove` and
 * `metafieldsSet` (10 points each). `OrderInput.tags` replaces the order's whole tag list, so the list sent is the one
 * the sync read plus and minus the change: a tag a merchant adds between that read and this write is lost. The app
 * does not do this; `bench:postbacks -- --status-write order-update` and the tests that show the loss do.
 */
export const ORDER_UPDATE_STATUS = /* GraphQL */ `
  mutation PrintBridgeShowStatusByOrderUpdate($input: OrderInput!) {
    orderUpdate(input: $input) { order { id } userErrors { field message } }
  }
`;

/** The tag list an order shows after `change`, from the tags it showed (case aside, as Shopify compares them). */
export function tagsAfter(shown: readonly string[], change: StatusChange): string[] {
  const removed = new Set(change.removeTags.map((t) => t.toLowerCase()));
  const kept = shown.filter((t) => !removed.has(t.toLowerCase()));
  const has = new Set(kept.map((t) => t.toLowerCase()));
  return [...kept, ...change.addTags.filter((t) => !has.has(t.toLowerCase()))];
}

/** One `orderUpdate`: the whole tag list when the change has tags to add or remove, and the metafield when it changes. */
export async function showStatusByOrderUpdate(api: AdminRequests, orderGid: string, shownTags: readonly string[], change: StatusChange): Promise<void> {
  const input: Record<string, unknown> = { id: orderGid };
  if (change.addTags.length > 0 || change.removeTags.length > 0) input.tags = tagsAfter(shownTags, change);
  if (change.status !== undefined) input.metafields = [{ ...STATUS_METAFIELD, value: JSON.stringify(change.status) }];
  if (Object.keys(input).length === 1) return;
  // The same operation name as the app's write: a background call for the pacer.
  const data = await api.call(
    'showStatus',
    ORDER_UPDATE_STATUS,
    { input },
    z.object({ orderUpdate: z.object({ order: z.object({ id: z.string() }).nullable(), userErrors: z.array(userErrorSchema) }) }),
    true,
  );
  api.throwUserErrors('showStatus', orderGid, data.orderUpdate.userErrors);
}

/**
 * The fulfillment port with the status written by one `orderUpdate`: the tags of the sync's own read (`orderShows`,
 * just before the write in the same sync) are the list the write starts from.
 */
export function statusByOrderUpdate(port: ShopifyFulfillmentPort, apiFor: (shop: string) => AdminRequests): ShopifyFulfillmentPort {
  const read = new Map<string, string[]>();
  return {
    ...port,
    orderShows: async (shop, orderId) => {
      const shown = await port.orderShows(shop, orderId);
      if (shown) read.set(`${shop} ${orderId}`, shown.tags);
      return shown;
    },
    showStatus: async (shop, orderId, change) => {
      const tags = read.get(`${shop} ${orderId}`);
      if (!tags) throw new Error(`showStatus by orderUpdate before orderShows for ${orderId}`);
      await showStatusByOrderUpdate(apiFor(shop), orderId, tags, change);
    },
  };
}
