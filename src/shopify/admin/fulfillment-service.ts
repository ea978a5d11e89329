import { z } from 'zod';
import type { AssignedFulfillmentOrder, AssignedFulfillmentOrders, FulfillmentServiceRef, RequestRejection, UnreadableFulfillmentOrder } from '../../bridge/shopify-data.js';
import { LINE_ITEMS_MAX_PAGES, LINE_ITEMS_PAGE } from '../order-as-webhook-body.js';
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
 * A fulfillment order with more lines reads the rest by its id, `FO_LINES_PAGE` at a time (Shopify's most, 250 lines
 * for about 500 points), so a large cart is read whole.
 */
export const ASSIGNED_PAGE = 10;
export const ASSIGNED_LINES_PAGE = 30;
export const FO_LINES_PAGE = 250;
/** As many lines as an order read takes (order-as-webhook-body.ts): a fulfillment order beyond it is named, not half-read. */
export const FO_LINES_MAX = LINE_ITEMS_PAGE * LINE_ITEMS_MAX_PAGES;

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

const FO_LINE_FIELDS = 'nodes { id totalQuantity remainingQuantity lineItem { id sku } } pageInfo { hasNextPage endCursor }';

const ASSIGNED = /* GraphQL */ `
  query PrintBridgeAssignedFulfillmentOrders($status: FulfillmentOrderAssignmentStatus!, $locationIds: [ID!], $after: String) {
    assignedFulfillmentOrders(first: ${ASSIGNED_PAGE}, after: $after, assignmentStatus: $status, locationIds: $locationIds) {
      nodes {
        id
        status
        requestStatus
        order { id name }
        lineItems(first: ${ASSIGNED_LINES_PAGE}) { ${FO_LINE_FIELDS} }
      }
      pageInfo { hasNextPage endCursor }
    }
  }
`;

const FO_LINES = /* GraphQL */ `
  query PrintBridgeFulfillmentOrderLines($id: ID!, $after: String) {
    fulfillmentOrder(id: $id) {
      lineItems(first: ${FO_LINES_PAGE}, after: $after) { ${FO_LINE_FIELDS} }
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

// The lines as the fulfillment read pages them, with the cursor the rest is read from.
const linesPageSchema = fulfillmentOrderLinesPage(z.object({ id: gid('LineItem'), sku: z.string().nullable() })).extend({
  pageInfo: z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() }),
});

const assignedNodeSchema = z.object({
  id: gid('FulfillmentOrder'),
  status: z.string(),
  requestStatus: z.string(),
  order: z.object({ id: gid('Order'), name: z.string() }),
  lineItems: linesPageSchema,
});

/** What can still be told of a node that does not parse whole: which fulfillment order, of which order. */
const nodeNamesSchema = z.object({
  id: z.string(),
  order: z.object({ id: z.string().optional(), name: z.string().optional() }).nullish(),
});

// Each node is parsed on its own: one fulfillment order of a shape print-bridge cannot use is that one's problem.
const assignedSchema = z.object({
  assignedFulfillmentOrders: z.object({
    nodes: z.array(z.unknown()),
    pageInfo: z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable() }),
  }),
});

const foLinesSchema = z.object({ fulfillmentOrder: z.object({ lineItems: linesPageSchema }).nullable() });

type LinesPage = z.infer<typeof linesPageSchema>;

/**
 * Every fulfillment order assigned to the location with a request of this kind pending, page by page (the root query;
 * `shop { assignedFulfillmentOrders }` is deprecated), each with all its lines. One callback may stand for several
 * orders. A fulfillment order that cannot be read whole is returned as unreadable with the reason, and the others are
 * read on: one store's odd order never keeps its other requests from being taken.
 */
export async function assignedFulfillmentOrders(
  api: AdminRequests,
  status: 'FULFILLMENT_REQUESTED' | 'CANCELLATION_REQUESTED',
  locationId: string,
  options: { maxPages?: number } = {},
): Promise<AssignedFulfillmentOrders> {
  const operation = 'assignedFulfillmentOrders';
  const out: AssignedFulfillmentOrders = { fulfillmentOrders: [], unreadable: [] };
  let after: string | null = null;
  for (let page = 0; page < (options.maxPages ?? 20); page++) {
    const data: z.infer<typeof assignedSchema> = await api.call(operation, ASSIGNED, { status, locationIds: [locationId], after }, assignedSchema, true);
    for (const node of data.assignedFulfillmentOrders.nodes) {
      const read = await readNode(api, node);
      if (!read) continue;
      if ('reason' in read) out.unreadable.push(read);
      else out.fulfillmentOrders.push(read);
    }
    const info = data.assignedFulfillmentOrders.pageInfo;
    if (!info.hasNextPage || !info.endCursor) return out;
    after = info.endCursor;
  }
  return out;
}

/** One node of the read, with the rest of its lines; undefined for one gone meanwhile (its request went with it). */
async function readNode(api: AdminRequests, node: unknown): Promise<AssignedFulfillmentOrder | UnreadableFulfillmentOrder | undefined> {
  const parsed = assignedNodeSchema.safeParse(node);
  if (!parsed.success) {
    const names = nodeNamesSchema.safeParse(node);
    const detail = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    // Without an id nothing can answer it: it is listed with the reason (logged), and Shopify keeps the request.
    const named = names.success ? names.data : undefined;
    return { id: named?.id, orderId: named?.order?.id, orderName: named?.order?.name, reason: `Shopify's answer for it was not usable (${detail})` };
  }
  const fo = parsed.data;
  const lines: LinesPage['nodes'] = [...fo.lineItems.nodes];
  let info = fo.lineItems.pageInfo;
  while (info.hasNextPage) {
    if (lines.length >= FO_LINES_MAX || !info.endCursor) {
      return { id: fo.id, orderId: fo.order.id, orderName: fo.order.name, reason: `it has more than ${FO_LINES_MAX} line items, more than print-bridge reads of one order` };
    }
    let next: z.infer<typeof foLinesSchema>;
    try {
      next = await api.call('fulfillmentOrderLines', FO_LINES, { id: fo.id, after: info.endCursor }, foLinesSchema, true);
    } catch (error) {
      // A store-wide answer (closed, frozen, a refused token) or one worth trying again stops the read; an answer
      // about this fulfillment order alone makes it unreadable.
      if (!(error instanceof ShopifyProtocolError) || !error.unreadableAnswer) throw error;
      return { id: fo.id, orderId: fo.order.id, orderName: fo.order.name, reason: `its line items could not be read (${error.message})` };
    }
    if (!next.fulfillmentOrder) return undefined;
    lines.push(...next.fulfillmentOrder.lineItems.nodes);
    info = next.fulfillmentOrder.lineItems.pageInfo;
  }
  return {
    id: fo.id,
    status: fo.status,
    requestStatus: fo.requestStatus,
    orderId: fo.order.id,
    orderName: fo.order.name,
    lineItems: lines.map((l) => ({ id: l.id, lineItemId: l.lineItem.id, sku: l.lineItem.sku, totalQuantity: l.totalQuantity, remainingQuantity: l.remainingQuantity })),
  };
}

/**
 * The line items (their LineItem gids) on one fulfillment order, every page; null when the shop has no such
 * fulfillment order. Read when one of an order's fulfillment orders is held, to know whether it holds lines the app
 * would print.
 */
export async function fulfillmentOrderLineItemIds(api: AdminRequests, fulfillmentOrderId: string): Promise<string[] | null> {
  const ids: string[] = [];
  let after: string | null = null;
  do {
    const page: z.infer<typeof foLinesSchema> = await api.call('fulfillmentOrderLines', FO_LINES, { id: fulfillmentOrderId, after }, foLinesSchema, true);
    if (!page.fulfillmentOrder) return null;
    ids.push(...page.fulfillmentOrder.lineItems.nodes.map((l) => l.lineItem.id));
    const info = page.fulfillmentOrder.lineItems.pageInfo;
    after = info.hasNextPage && ids.length < FO_LINES_MAX ? info.endCursor : null;
  } while (after);
  return ids;
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
