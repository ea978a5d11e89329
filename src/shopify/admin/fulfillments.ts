import { z } from 'zod';
import type { CreateFulfillmentInput, FulfillmentSummary, OrderForFulfillment, TrackingInfo } from '../../bridge/shopify-data.js';
import { ShopifyProtocolError } from './errors.js';
import { STATUS_METAFIELD } from './order-status.js';
import { fulfillmentOrderLinesPage, gid, pageInfoSchema, parseJsonValue, userErrorSchema, type AdminRequests } from './request.js';

/**
 * The fulfillment operations: the order with what fulfilling it needs (fulfillment orders, their lines and holds, the
 * fulfillments made), the order a fulfillment order belongs to, a fulfillment of given lines, and its tracking.
 */

/**
 * Page sizes of the order read. Shopify admits a query only when the shop's bucket holds its requested cost (every
 * page full), so these set how much of the bucket one read needs before it may start, not what it costs: 540 of the
 * single-query limit of 1000 and of a standard shop's 2,000 points, where an order of two lines, one fulfillment order
 * and two fulfillments costs about 25 once Shopify has refunded the rest. An order one location fulfills is read whole
 * up to 25 line items, as before; beyond a page the read refuses (see getOrderForFulfillment).
 */
const FULFILLMENT_ORDERS_PAGE = 5;
const FULFILLMENT_ORDER_LINES_PAGE = 25;
// A print order has a fulfillment per shipment; the list only serves to find one an earlier attempt created, oldest
// first. One that is not read is still counted in the fulfillment orders' remaining quantities, so it is never
// fulfilled twice.
const FULFILLMENTS_PAGE = 5;
const FULFILLMENT_LINES_PAGE = 25;

const trackingInfoSchema = z.object({ company: z.string().nullable(), number: z.string().nullable(), url: z.string().nullable() });

const lineItemSchema = z.object({
  id: gid('LineItem'),
  sku: z.string().nullable(),
  name: z.string(),
  quantity: z.number().int(),
  currentQuantity: z.number().int(),
  unfulfilledQuantity: z.number().int(),
});

const fulfillmentSchema = z.object({
  id: gid('Fulfillment'),
  name: z.string(),
  status: z.string(),
  createdAt: z.string(),
  trackingInfo: z.array(trackingInfoSchema),
  fulfillmentLineItems: z.object({
    nodes: z.array(z.object({ id: z.string(), quantity: z.number().int(), lineItem: z.object({ id: gid('LineItem') }) })),
    pageInfo: pageInfoSchema,
  }),
});

const fulfillmentHoldSchema = z.object({
  id: gid('FulfillmentHold'),
  reason: z.string(),
  reasonNotes: z.string().nullable(),
  displayReason: z.string(),
  handle: z.string().nullable(),
  heldByRequestingApp: z.boolean(),
});

const fulfillmentOrderOrderSchema = z.object({
  fulfillmentOrder: z.object({ id: gid('FulfillmentOrder'), status: z.string(), orderId: gid('Order') }).nullable(),
});

const orderForFulfillmentSchema = z.object({
  order: z
    .object({
      id: gid('Order'),
      name: z.string(),
      tags: z.array(z.string()),
      note: z.string().nullable(),
      cancelledAt: z.string().nullable(),
      updatedAt: z.string(),
      displayFulfillmentStatus: z.string(),
      fulfillmentOrders: z.object({
        nodes: z.array(
          z.object({
            id: gid('FulfillmentOrder'),
            status: z.string(),
            fulfillAt: z.string().nullable(),
            fulfillmentHolds: z.array(fulfillmentHoldSchema),
            lineItems: fulfillmentOrderLinesPage(lineItemSchema),
          }),
        ),
        pageInfo: pageInfoSchema,
      }),
      fulfillments: z.array(fulfillmentSchema),
      statusMetafield: z.object({ value: z.string(), updatedAt: z.string() }).nullable(),
    })
    .nullable(),
});

const fulfillmentPayloadSchema = z.object({
  fulfillment: z.object({ id: gid('Fulfillment'), name: z.string(), status: z.string(), trackingInfo: z.array(trackingInfoSchema) }).nullable(),
  userErrors: z.array(userErrorSchema),
});

// The line items come with the fulfillment order lines: each line's lineItem object is paid for anyway and scalars
// cost nothing, so the order's own lineItems connection (52 points requested) is not read.
const ORDER_FOR_FULFILLMENT = /* GraphQL */ `
  query PrintBridgeOrderForFulfillment($id: ID!) {
    order(id: $id) {
      id
      name
      tags
      note
      cancelledAt
      updatedAt
      displayFulfillmentStatus
      fulfillmentOrders(first: ${FULFILLMENT_ORDERS_PAGE}) {
        nodes {
          id
          status
          fulfillAt
          fulfillmentHolds { id reason reasonNotes displayReason handle heldByRequestingApp }
          lineItems(first: ${FULFILLMENT_ORDER_LINES_PAGE}) {
            nodes { id totalQuantity remainingQuantity lineItem { id sku name quantity currentQuantity unfulfilledQuantity } }
            pageInfo { hasNextPage }
          }
        }
        pageInfo { hasNextPage }
      }
      fulfillments(first: ${FULFILLMENTS_PAGE}) {
        id
        name
        status
        createdAt
        trackingInfo(first: 5) { company number url }
        fulfillmentLineItems(first: ${FULFILLMENT_LINES_PAGE}) {
          nodes { id quantity lineItem { id } }
          pageInfo { hasNextPage }
        }
      }
      statusMetafield: metafield(namespace: "${STATUS_METAFIELD.namespace}", key: "${STATUS_METAFIELD.key}") { value updatedAt }
    }
  }
`;

const FULFILLMENT_ORDER_ORDER = /* GraphQL */ `
  query PrintBridgeFulfillmentOrderOrder($id: ID!) {
    fulfillmentOrder(id: $id) { id status orderId }
  }
`;

const FULFILLMENT_CREATE = /* GraphQL */ `
  mutation PrintBridgeFulfillmentCreate($fulfillment: FulfillmentInput!) {
    fulfillmentCreate(fulfillment: $fulfillment) {
      fulfillment { id name status trackingInfo { company number url } }
      userErrors { field message }
    }
  }
`;

const FULFILLMENT_TRACKING_UPDATE = /* GraphQL */ `
  mutation PrintBridgeFulfillmentTrackingInfoUpdate($fulfillmentId: ID!, $trackingInfoInput: FulfillmentTrackingInput!, $notifyCustomer: Boolean) {
    fulfillmentTrackingInfoUpdate(fulfillmentId: $fulfillmentId, trackingInfoInput: $trackingInfoInput, notifyCustomer: $notifyCustomer) {
      fulfillment { id name status trackingInfo { company number url } }
      userErrors { field message }
    }
  }
`;

/** The order with what fulfilling it needs, or null when the shop has no such order. */
export async function getOrderForFulfillment(api: AdminRequests, orderGid: string): Promise<OrderForFulfillment | null> {
  const operation = 'getOrderForFulfillment';
  const data = await api.call(operation, ORDER_FOR_FULFILLMENT, { id: orderGid }, orderForFulfillmentSchema, true);
  const order = data.order;
  if (!order) return null;
  const truncated = [
    order.fulfillmentOrders.pageInfo.hasNextPage && `more than ${FULFILLMENT_ORDERS_PAGE} fulfillment orders`,
    order.fulfillmentOrders.nodes.some((fo) => fo.lineItems.pageInfo.hasNextPage) &&
      `a fulfillment order with more than ${FULFILLMENT_ORDER_LINES_PAGE} line items`,
    order.fulfillments.some((f) => f.fulfillmentLineItems.pageInfo.hasNextPage) &&
      `a fulfillment with more than ${FULFILLMENT_LINES_PAGE} line items`,
  ].filter((t): t is string => typeof t === 'string');
  if (truncated.length > 0) {
    // Acting on part of an order could fulfill the wrong items; refuse plainly instead.
    throw new ShopifyProtocolError(operation, api.shop, `order ${order.id} has ${truncated.join(' and ')}, more than print-bridge reads`);
  }
  return {
    id: order.id,
    name: order.name,
    tags: order.tags,
    note: order.note,
    cancelledAt: order.cancelledAt,
    updatedAt: order.updatedAt,
    displayFulfillmentStatus: order.displayFulfillmentStatus,
    lineItems: distinctLineItems(order.fulfillmentOrders.nodes.flatMap((fo) => fo.lineItems.nodes.map((l) => l.lineItem))),
    fulfillmentOrders: order.fulfillmentOrders.nodes.map((fo) => ({
      id: fo.id,
      status: fo.status,
      fulfillAt: fo.fulfillAt,
      holds: fo.fulfillmentHolds,
      lineItems: fo.lineItems.nodes.map((l) => ({
        id: l.id,
        lineItemId: l.lineItem.id,
        sku: l.lineItem.sku,
        totalQuantity: l.totalQuantity,
        remainingQuantity: l.remainingQuantity,
      })),
    })),
    fulfillments: order.fulfillments.map((f) => ({
      id: f.id,
      name: f.name,
      status: f.status,
      createdAt: f.createdAt,
      trackingInfo: f.trackingInfo,
      lineItems: f.fulfillmentLineItems.nodes.map((l) => ({ lineItemId: l.lineItem.id, quantity: l.quantity })),
    })),
    moreFulfillments: order.fulfillments.length >= FULFILLMENTS_PAGE,
    status: order.statusMetafield ? { value: parseJsonValue(order.statusMetafield.value), updatedAt: order.statusMetafield.updatedAt } : null,
  };
}

/**
 * The order a fulfillment order belongs to, with its status; null when the shop has no such fulfillment order. The
 * fulfillment-order webhooks name only the fulfillment order.
 */
export async function getFulfillmentOrderOrder(api: AdminRequests, fulfillmentOrderGid: string): Promise<{ orderId: string; status: string } | null> {
  const data = await api.call('getFulfillmentOrderOrder', FULFILLMENT_ORDER_ORDER, { id: fulfillmentOrderGid }, fulfillmentOrderOrderSchema, true);
  return data.fulfillmentOrder ? { orderId: data.fulfillmentOrder.orderId, status: data.fulfillmentOrder.status } : null;
}

/**
 * One fulfillment of exactly these fulfillment order line items. Not idempotent: after an answer whose outcome is
 * unknown (500, dropped connection), re-read the order before sending it again.
 */
export async function createFulfillment(api: AdminRequests, input: CreateFulfillmentInput): Promise<FulfillmentSummary> {
  const operation = 'createFulfillment';
  const tracking = trackingInput(input.trackingInfo);
  const variables = {
    fulfillment: {
      lineItemsByFulfillmentOrder: input.fulfillmentOrders.map((fo) => ({
        fulfillmentOrderId: fo.fulfillmentOrderId,
        fulfillmentOrderLineItems: fo.lineItems.map((l) => ({ id: l.id, quantity: l.quantity })),
      })),
      ...(tracking ? { trackingInfo: tracking } : {}),
      notifyCustomer: input.notifyCustomer,
    },
  };
  const data = await api.call(operation, FULFILLMENT_CREATE, variables, fulfillmentCreateSchema, false);
  return fulfillmentOf(api, operation, input.orderGid, data.fulfillmentCreate);
}

export async function updateFulfillmentTracking(api: AdminRequests, fulfillmentGid: string, trackingInfo: TrackingInfo, notifyCustomer: boolean): Promise<FulfillmentSummary> {
  const operation = 'updateFulfillmentTracking';
  const variables = { fulfillmentId: fulfillmentGid, trackingInfoInput: trackingInput(trackingInfo) ?? {}, notifyCustomer };
  const data = await api.call(
    operation,
    FULFILLMENT_TRACKING_UPDATE,
    variables,
    trackingUpdateSchema,
    true,
  );
  return fulfillmentOf(api, operation, fulfillmentGid, data.fulfillmentTrackingInfoUpdate);
}

const fulfillmentCreateSchema = z.object({ fulfillmentCreate: fulfillmentPayloadSchema });
const trackingUpdateSchema = z.object({ fulfillmentTrackingInfoUpdate: fulfillmentPayloadSchema });

function fulfillmentOf(api: AdminRequests, operation: string, subject: string, payload: z.infer<typeof fulfillmentPayloadSchema>): FulfillmentSummary {
  api.throwUserErrors(operation, subject, payload.userErrors);
  if (!payload.fulfillment) throw new ShopifyProtocolError(operation, api.shop, `no fulfillment and no userErrors for ${subject}`);
  return payload.fulfillment;
}

function trackingInput(tracking: TrackingInfo | undefined): { company?: string; number: string; url?: string } | undefined {
  const number = tracking?.number?.trim();
  if (!tracking || !number) return undefined;
  return {
    number,
    ...(tracking.company ? { company: tracking.company } : {}),
    ...(tracking.url ? { url: tracking.url } : {}),
  };
}

/** A line item split across fulfillment orders (e.g. two locations) is listed once. */
function distinctLineItems(lineItems: z.infer<typeof lineItemSchema>[]): z.infer<typeof lineItemSchema>[] {
  return [...new Map(lineItems.map((l) => [l.id, l])).values()];
}
