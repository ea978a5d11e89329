import { z } from 'zod';
import type { AssignedFulfillmentOrder, FulfillmentServiceRef, RequestRejection } from '../../bridge/shopify-data.js';
import { ShopifyProtocolError } from './errors.js';
import { fulfillmentOrderLinesPage, gid, userErrorSchema, type AdminRequests } from './request.js';

/**
 * The fulfillment-service operations (fulfillment-service mode, docs/fulfillment.md): the app's service and its
 * location on a store, the fulfillment orders Shopify assigned to that location with a request pending, and the
 * answers to fulfillment and cancellation requests.
 */

/**
 * Page sizes of the assigned fulfillment orders read. Shopify refuses a query whose requested cost passes 1,000 points:
 * each fulfillment order costs about 2 + 2 per line of its page, so 10 × (2 + 2 × 30) ≈ 620 with the connection's own.
 * A fulfillment order of more lines than a page is refused plainly, never half-read (a print order short of lines).
 */
export const ASSIGNED_PAGE = 10;
export const ASSIGNED_LINES_PAGE = 30;

const serviceSchema = z.object({
  id: gid('FulfillmentService'),
  serviceName: z.string(),
  callbackUrl: z.string().nullable(),
  location: z.object({ id: gid('Location') }).nullable(),
});

const LIST_SERVICES = /* GraphQL */ `
  query PrintBridgeFulfillmentServices {
    shop { fulfillmentServices { id serviceName callbackUrl location { id } } }
  }
`;

const CREATE_SERVICE = /* GraphQL */ `
  mutation PrintBridgeFulfillmentServiceCreate($name: String!, $callbackUrl: URL!) {
    fulfillmentServiceCreate(name: $name, callbackUrl: $callbackUrl, trackingSupport: false, inventoryManagement: false) {
      fulfillmentService { id serviceName callbackUrl location { id } }
      userErrors { field message }
    }
  }
`;

const DELETE_SERVICE = /* GraphQL */ `
  mutation PrintBridgeFulfillmentServiceDelete($id: ID!, $inventoryAction: FulfillmentServiceDeleteInventoryAction) {
    fulfillmentServiceDelete(id: $id, inventoryAction: $inventoryAction) { deletedId userErrors { field message } }
  }
`;

const ASSIGNED = /* GraphQL */ `
  query PrintBridgeAssignedFulfillmentOrders($status: FulfillmentOrderAssignmentStatus!, $locationIds: [ID!], $after: String) {
    assignedFulfillmentOrders(first: ${ASSIGNED_PAGE}, after: $after, assignmentStatus: $status, locationIds: $locationIds) {
      nodes {
        id
        status
        requestStatus
        order { id name }
        lineItems(first: ${ASSIGNED_LINES_PAGE}) {
          nodes { id totalQuantity remainingQuantity lineItem { id sku } }
          pageInfo { hasNextPage }
        }
      }
      pageInfo { hasNextPage endCursor }
    }
  }
`;

const fulfillmentOrderPayload = z.object({
  fulfillmentOrder: z.object({ id: gid('FulfillmentOrder'), status: z.string(), requestStatus: z.string() }).nullable(),
  userErrors: z.array(userErrorSchema),
});

const ACCEPT_REQUEST = /* GraphQL */ `
  mutation PrintBridgeAcceptFulfillmentRequest($id: ID!, $message: String, $estimatedShippedAt: DateTime) {
    fulfillmentOrderAcceptFulfillmentRequest(id: $id, message: $message, estimatedShippedAt: $estimatedShippedAt) {
      fulfillmentOrder { id status requestStatus }
      userErrors { field message }
    }
  }
`;

const REJECT_REQUEST = /* GraphQL */ `
  mutation PrintBridgeRejectFulfillmentRequest($id: ID!, $reason: FulfillmentOrderRejectionReason, $message: String, $lineItems: [IncomingRequestLineItemInput!]) {
    fulfillmentOrderRejectFulfillmentRequest(id: $id, reason: $reason, message: $message, lineItems: $lineItems) {
      fulfillmentOrder { id status requestStatus }
      userErrors { field message }
    }
  }
`;

const ACCEPT_CANCELLATION = /* GraphQL */ `
  mutation PrintBridgeAcceptCancellationRequest($id: ID!, $message: String) {
    fulfillmentOrderAcceptCancellationRequest(id: $id, message: $message) {
      fulfillmentOrder { id status requestStatus }
      userErrors { field message }
    }
  }
`;

const REJECT_CANCELLATION = /* GraphQL */ `
  mutation PrintBridgeRejectCancellationRequest($id: ID!, $message: String) {
    fulfillmentOrderRejectCancellationRequest(id: $id, message: $message) {
      fulfillmentOrder { id status requestStatus }
      userErrors { field message }
    }
  }
`;

/** The store's fulfillment services this app may see (its own). */
export async function listFulfillmentServices(api: AdminRequests): Promise<FulfillmentServiceRef[]> {
  const data = await api.call('listFulfillmentServices', LIST_SERVICES, {}, z.object({ shop: z.object({ fulfillmentServices: z.array(serviceSchema) }) }), true);
  return data.shop.fulfillmentServices.flatMap((s) => (s.location ? [{ id: s.id, name: s.serviceName, callbackUrl: s.callbackUrl, locationId: s.location.id }] : []));
}

/** Registers the app's fulfillment service: Shopify makes its location. Not idempotent: list the services first. */
export async function createFulfillmentService(api: AdminRequests, input: { name: string; callbackUrl: string }): Promise<FulfillmentServiceRef> {
  const operation = 'createFulfillmentService';
  const data = await api.call(
    operation,
    CREATE_SERVICE,
    input,
    z.object({ fulfillmentServiceCreate: z.object({ fulfillmentService: serviceSchema.nullable(), userErrors: z.array(userErrorSchema) }) }),
    false,
  );
  api.throwUserErrors(operation, input.name, data.fulfillmentServiceCreate.userErrors);
  const service = data.fulfillmentServiceCreate.fulfillmentService;
  if (!service?.location) throw new ShopifyProtocolError(operation, api.shop, 'fulfillmentServiceCreate answered no service and no location');
  return { id: service.id, name: service.serviceName, callbackUrl: service.callbackUrl, locationId: service.location.id };
}

/** Removes the service; `KEEP` leaves its location, with the merchant's stock and fulfillment orders, to the merchant. */
export async function deleteFulfillmentService(api: AdminRequests, id: string, inventoryAction: 'KEEP' | 'DELETE' = 'KEEP'): Promise<void> {
  const operation = 'deleteFulfillmentService';
  const data = await api.call(
    operation,
    DELETE_SERVICE,
    { id, inventoryAction },
    z.object({ fulfillmentServiceDelete: z.object({ deletedId: z.string().nullable(), userErrors: z.array(userErrorSchema) }) }),
    true,
  );
  api.throwUserErrors(operation, id, data.fulfillmentServiceDelete.userErrors);
}

const assignedSchema = z.object({
  assignedFulfillmentOrders: z.object({
    nodes: z.array(
      z.object({
        id: gid('FulfillmentOrder'),
        status: z.string(),
        requestStatus: z.string(),
        order: z.object({ id: gid('Order'), name: z.string() }),
        lineItems: fulfillmentOrderLinesPage(z.object({ id: gid('LineItem'), sku: z.string().nullable() })),
      }),
    ),
    pageInfo: z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() }),
  }),
});

/**
 * Every fulfillment order assigned to the location with a request of this kind pending, page by page (the root query;
 * `shop { assignedFulfillmentOrders }` is deprecated). One callback may stand for several orders.
 */
export async function assignedFulfillmentOrders(
  api: AdminRequests,
  status: 'FULFILLMENT_REQUESTED' | 'CANCELLATION_REQUESTED',
  locationId: string,
  options: { maxPages?: number } = {},
): Promise<AssignedFulfillmentOrder[]> {
  const operation = 'assignedFulfillmentOrders';
  const out: AssignedFulfillmentOrder[] = [];
  let after: string | null = null;
  for (let page = 0; page < (options.maxPages ?? 20); page++) {
    const data: z.infer<typeof assignedSchema> = await api.call(operation, ASSIGNED, { status, locationIds: [locationId], after }, assignedSchema, true);
    for (const fo of data.assignedFulfillmentOrders.nodes) {
      if (fo.lineItems.pageInfo.hasNextPage) {
        throw new ShopifyProtocolError(operation, api.shop, `fulfillment order ${fo.id} of ${fo.order.name} has more than ${ASSIGNED_LINES_PAGE} line items, more than print-bridge reads`);
      }
      out.push({
        id: fo.id,
        status: fo.status,
        requestStatus: fo.requestStatus,
        orderId: fo.order.id,
        orderName: fo.order.name,
        lineItems: fo.lineItems.nodes.map((l) => ({ id: l.id, lineItemId: l.lineItem.id, sku: l.lineItem.sku, totalQuantity: l.totalQuantity, remainingQuantity: l.remainingQuantity })),
      });
    }
    const info = data.assignedFulfillmentOrders.pageInfo;
    if (!info.hasNextPage || !info.endCursor) return out;
    after = info.endCursor;
  }
  return out;
}

const payloadOf = (field: string) => z.object({ [field]: fulfillmentOrderPayload });

/** Tells Shopify (and the merchant) the printer has the order. Not idempotent: a repeat is refused (a userError), not doubled. */
export async function acceptFulfillmentRequest(api: AdminRequests, id: string, message: string, estimatedShippedAt?: string): Promise<{ requestStatus: string }> {
  const operation = 'acceptFulfillmentRequest';
  const field = 'fulfillmentOrderAcceptFulfillmentRequest';
  const data = await api.call(operation, ACCEPT_REQUEST, { id, message, ...(estimatedShippedAt ? { estimatedShippedAt } : {}) }, payloadOf(field), false);
  return answered(api, operation, data[field]!, id);
}

/** Returns the request to the merchant with the reason and what each line lacks. */
export async function rejectFulfillmentRequest(api: AdminRequests, id: string, rejection: RequestRejection): Promise<{ requestStatus: string }> {
  const operation = 'rejectFulfillmentRequest';
  const field = 'fulfillmentOrderRejectFulfillmentRequest';
  const lineItems = rejection.lineItems.map((l) => ({ fulfillmentOrderLineItemId: l.fulfillmentOrderLineItemId, message: l.message }));
  const variables = { id, reason: rejection.reason, message: rejection.message, ...(lineItems.length > 0 ? { lineItems } : {}) };
  const data = await api.call(operation, REJECT_REQUEST, variables, payloadOf(field), false);
  return answered(api, operation, data[field]!, id);
}

export async function acceptCancellationRequest(api: AdminRequests, id: string, message: string): Promise<{ requestStatus: string }> {
  const operation = 'acceptCancellationRequest';
  const field = 'fulfillmentOrderAcceptCancellationRequest';
  const data = await api.call(operation, ACCEPT_CANCELLATION, { id, message }, payloadOf(field), false);
  return answered(api, operation, data[field]!, id);
}

export async function rejectCancellationRequest(api: AdminRequests, id: string, message: string): Promise<{ requestStatus: string }> {
  const operation = 'rejectCancellationRequest';
  const field = 'fulfillmentOrderRejectCancellationRequest';
  const data = await api.call(operation, REJECT_CANCELLATION, { id, message }, payloadOf(field), false);
  return answered(api, operation, data[field]!, id);
}

function answered(api: AdminRequests, operation: string, payload: z.infer<typeof fulfillmentOrderPayload>, id: string): { requestStatus: string } {
  api.throwUserErrors(operation, id, payload.userErrors);
  if (!payload.fulfillmentOrder) throw new ShopifyProtocolError(operation, api.shop, `${operation} answered no fulfillment order for ${id}`);
  return { requestStatus: payload.fulfillmentOrder.requestStatus };
}
