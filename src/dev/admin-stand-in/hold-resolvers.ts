import type { FulfillmentHoldReason } from './records.js';
import { fulfillmentOrderView, holdView, type ResolverContext } from './resolvers.js';

/**
 * `fulfillmentOrderHold` and `fulfillmentOrderReleaseHold` as the app calls them: holds placed this way are the app's
 * own (`heldByRequestingApp`), under the rules holds.ts keeps (HOLDS_PER_APP). graphql-endpoint.ts adds these to
 * resolvers.ts's root value.
 */

interface HoldArgs {
  id: string;
  fulfillmentHold: {
    reason: FulfillmentHoldReason;
    reasonNotes?: string | null;
    handle?: string | null;
    notifyMerchant?: boolean | null;
    externalId?: string | null;
    fulfillmentOrderLineItems?: { id: string; quantity: number }[] | null;
  };
}

/** Shopify's limit on a hold's handle. */
const HANDLE_MAX = 64;

export const holdRootValue = {
  fulfillmentOrderHold: (args: HoldArgs, ctx: ResolverContext) => {
    const found = ctx.store.findFulfillmentOrder(ctx.shop, args.id);
    const refuse = (field: string[], message: string, code: string) => ({ fulfillmentHold: null, fulfillmentOrder: null, remainingFulfillmentOrder: null, userErrors: [{ field, message, code }] });
    if (!found) return refuse(['id'], 'Fulfillment order does not exist.', 'FULFILLMENT_ORDER_NOT_FOUND');
    const input = args.fulfillmentHold;
    if ((input.handle ?? '').length > HANDLE_MAX) return refuse(['fulfillmentHold', 'handle'], `Handle is too long (maximum is ${HANDLE_MAX} characters)`, 'TAKEN');
    if (input.fulfillmentOrderLineItems && input.fulfillmentOrderLineItems.length > 0) {
      throw new Error('The Admin API stand-in holds whole fulfillment orders only (fulfillmentOrderLineItems is not answered).');
    }
    const result = ctx.holds.placeOn(found.order, found.fo, { reason: input.reason, reasonNotes: input.reasonNotes ?? null, handle: input.handle ?? '' }, { kind: 'api' });
    if (!result.ok) return { fulfillmentHold: null, fulfillmentOrder: null, remainingFulfillmentOrder: null, userErrors: result.userErrors };
    return {
      fulfillmentHold: holdView(result.value.hold),
      fulfillmentOrder: fulfillmentOrderView(found.order, found.fo),
      remainingFulfillmentOrder: null,
      userErrors: [],
    };
  },
  fulfillmentOrderReleaseHold: (args: { id: string; holdIds?: string[] | null; externalId?: string | null }, ctx: ResolverContext) => {
    const found = ctx.store.findFulfillmentOrder(ctx.shop, args.id);
    if (!found) return { fulfillmentOrder: null, userErrors: [{ field: ['id'], message: 'Fulfillment order does not exist.', code: 'FULFILLMENT_ORDER_NOT_FOUND' }] };
    const result = ctx.holds.release(ctx.shop, found.order.id, { fulfillmentOrderId: found.fo.id, ...(args.holdIds ? { holdIds: args.holdIds } : {}) }, { kind: 'api' });
    if (!result.ok) return { fulfillmentOrder: null, userErrors: result.userErrors };
    return { fulfillmentOrder: fulfillmentOrderView(found.order, found.fo), userErrors: [] };
  },
};
