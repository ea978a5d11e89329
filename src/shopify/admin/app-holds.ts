import { z } from 'zod';
import type { FulfillmentOrderHolds } from '../../bridge/shopify-data.js';
import { APP_HOLD_HANDLE } from '../app-hold.js';
import { ShopifyProtocolError } from './errors.js';
import { gid, pageInfoSchema, userErrorSchema, type AdminRequests } from './request.js';

/**
 * print-bridge's own fulfillment hold (src/bridge/app-holds.ts): the order's fulfillment orders with their holds and
 * lines, one hold placed with the app's handle, and holds released by id.
 *
 * What Shopify documents and this relies on (`fulfillmentOrderHold`, `fulfillmentOrderReleaseHold`, `FulfillmentHold`,
 * 2025-01 onwards): a fulfillment order already ON_HOLD can take another hold; a hold's `handle` (at most 64
 * characters) is unique among the holds one app places on one fulfillment order (DUPLICATE_FULFILLMENT_HOLD_HANDLE),
 * and one app has at most 10 holds on one (FULFILLMENT_ORDER_HOLD_LIMIT_REACHED); `heldByRequestingApp` tells the
 * app's own holds from others'; `fulfillmentOrderReleaseHold` without `holdIds` releases every hold of the fulfillment
 * order, the merchant's and other apps' too, so the app always names its own hold. Both need
 * `write_merchant_managed_fulfillment_orders` for a merchant's location (the app never holds a fulfillment service's).
 */

/** As the fulfillment read (fulfillments.ts): an order larger than this is refused, never half-read. */
const FULFILLMENT_ORDERS_PAGE = 5;
const FULFILLMENT_ORDER_LINES_PAGE = 25;

const holdsReadSchema = z.object({
  order: z
    .object({
      fulfillmentOrders: z.object({
        nodes: z.array(
          z.object({
            id: gid('FulfillmentOrder'),
            status: z.string(),
            assignedLocation: z.object({ location: z.object({ isFulfillmentService: z.boolean() }).nullable() }),
            fulfillmentHolds: z.array(
              z.object({ id: gid('FulfillmentHold'), reason: z.string(), reasonNotes: z.string().nullable(), handle: z.string().nullable(), heldByRequestingApp: z.boolean() }),
            ),
            lineItems: z.object({ nodes: z.array(z.object({ lineItem: z.object({ id: gid('LineItem') }) })), pageInfo: pageInfoSchema }),
          }),
        ),
        pageInfo: pageInfoSchema,
      }),
    })
    .nullable(),
});

const FULFILLMENT_ORDER_HOLDS = /* GraphQL */ `
  query PrintBridgeFulfillmentOrderHolds($id: ID!) {
    order(id: $id) {
      fulfillmentOrders(first: ${FULFILLMENT_ORDERS_PAGE}) {
        nodes {
          id
          status
          assignedLocation { location { isFulfillmentService } }
          fulfillmentHolds { id reason reasonNotes handle heldByRequestingApp }
          lineItems(first: ${FULFILLMENT_ORDER_LINES_PAGE}) { nodes { lineItem { id } } pageInfo { hasNextPage } }
        }
        pageInfo { hasNextPage }
      }
    }
  }
`;

const FULFILLMENT_ORDER_HOLD = /* GraphQL */ `
  mutation PrintBridgeFulfillmentOrderHold($id: ID!, $fulfillmentHold: FulfillmentOrderHoldInput!) {
    fulfillmentOrderHold(id: $id, fulfillmentHold: $fulfillmentHold) {
      fulfillmentHold { id }
      userErrors { field message code }
    }
  }
`;

const FULFILLMENT_ORDER_RELEASE_HOLD = /* GraphQL */ `
  mutation PrintBridgeFulfillmentOrderReleaseHold($id: ID!, $holdIds: [ID!]!) {
    fulfillmentOrderReleaseHold(id: $id, holdIds: $holdIds) {
      fulfillmentOrder { id status }
      userErrors { field message code }
    }
  }
`;

const holdPayloadSchema = z.object({
  fulfillmentOrderHold: z.object({ fulfillmentHold: z.object({ id: gid('FulfillmentHold') }).nullable(), userErrors: z.array(userErrorSchema) }),
});
const releasePayloadSchema = z.object({
  fulfillmentOrderReleaseHold: z.object({ fulfillmentOrder: z.object({ id: gid('FulfillmentOrder'), status: z.string() }).nullable(), userErrors: z.array(userErrorSchema) }),
});

/** The order's fulfillment orders with their holds and lines; null when the shop has no such order. */
export async function fulfillmentOrderHolds(api: AdminRequests, orderGid: string): Promise<FulfillmentOrderHolds[] | null> {
  const operation = 'fulfillmentOrderHolds';
  const data = await api.call(operation, FULFILLMENT_ORDER_HOLDS, { id: orderGid }, holdsReadSchema, true);
  if (!data.order) return null;
  const { nodes, pageInfo } = data.order.fulfillmentOrders;
  if (pageInfo.hasNextPage || nodes.some((fo) => fo.lineItems.pageInfo.hasNextPage)) {
    // A hold decided on part of the order could hold or release the wrong fulfillment orders.
    throw new ShopifyProtocolError(operation, api.shop, `order ${orderGid} has more than ${FULFILLMENT_ORDERS_PAGE} fulfillment orders or ${FULFILLMENT_ORDER_LINES_PAGE} lines in one, more than print-bridge reads`);
  }
  return nodes.map((fo) => ({
    id: fo.id,
    status: fo.status,
    // A location gone since (null) was the merchant's or a service's: only a known merchant location is held.
    atServiceLocation: fo.assignedLocation.location?.isFulfillmentService ?? true,
    holds: fo.fulfillmentHolds,
    lineItemIds: fo.lineItems.nodes.map((l) => l.lineItem.id),
  }));
}

/**
 * Places the app's hold (handle `print-bridge`, reason OTHER, no notification) with `reasonNotes`. Not idempotent: a
 * second call is DUPLICATE_FULFILLMENT_HOLD_HANDLE, so after an answer whose outcome is unknown the caller reads first.
 */
export async function placeAppHold(api: AdminRequests, fulfillmentOrderGid: string, reasonNotes: string): Promise<{ id: string }> {
  const operation = 'placeAppHold';
  const variables = { id: fulfillmentOrderGid, fulfillmentHold: { reason: 'OTHER', handle: APP_HOLD_HANDLE, reasonNotes, notifyMerchant: false } };
  const data = await api.call(operation, FULFILLMENT_ORDER_HOLD, variables, holdPayloadSchema, false);
  const payload = data.fulfillmentOrderHold;
  api.throwUserErrors(operation, fulfillmentOrderGid, payload.userErrors);
  if (!payload.fulfillmentHold) throw new ShopifyProtocolError(operation, api.shop, `no hold and no userErrors for ${fulfillmentOrderGid}`);
  return payload.fulfillmentHold;
}

/** Releases exactly the holds named (never every hold: an empty list is refused here, not sent). */
export async function releaseHolds(api: AdminRequests, fulfillmentOrderGid: string, holdIds: readonly string[]): Promise<void> {
  const operation = 'releaseHolds';
  if (holdIds.length === 0) throw new RangeError(`${operation} names no hold of ${fulfillmentOrderGid}: Shopify would release them all`);
  const data = await api.call(operation, FULFILLMENT_ORDER_RELEASE_HOLD, { id: fulfillmentOrderGid, holdIds: [...holdIds] }, releasePayloadSchema, false);
  api.throwUserErrors(operation, fulfillmentOrderGid, data.fulfillmentOrderReleaseHold.userErrors);
}
