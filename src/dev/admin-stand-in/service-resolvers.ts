import { GraphQLError } from 'graphql';
import {
  acceptCancellationRequest,
  acceptFulfillmentRequest,
  rejectCancellationRequest,
  rejectFulfillmentRequest,
  type RejectInput,
} from './fulfillment-requests.js';
import type { FulfillmentServiceInput, InventoryAction } from './fulfillment-services.js';
import type { FulfillmentOrderRecord, FulfillmentOrderRequestStatus, OrderRecord, Result } from './records.js';
import { connection, fulfillmentOrderView, payload, type PageArgs, type ResolverContext } from './resolvers.js';
import { fulfillmentServiceView, shopView } from './service-views.js';

/**
 * The root fields of Shopify's fulfillment-service flow: `shop { fulfillmentServices }`, `fulfillmentService(id)`,
 * `assignedFulfillmentOrders`, `fulfillmentServiceCreate`/`Delete` and the service's answers to requests
 * (fulfillment-services.ts, fulfillment-requests.ts). graphql-endpoint.ts adds them to resolvers.ts's root value.
 */

const ASSIGNMENT_STATUS: Record<string, FulfillmentOrderRequestStatus> = {
  FULFILLMENT_REQUESTED: 'SUBMITTED',
  CANCELLATION_REQUESTED: 'CANCELLATION_REQUESTED',
  FULFILLMENT_ACCEPTED: 'ACCEPTED',
  FULFILLMENT_UNSUBMITTED: 'UNSUBMITTED',
};

function numericTail(gid: string): bigint {
  const tail = gid.slice(gid.lastIndexOf('/') + 1);
  return /^\d+$/.test(tail) ? BigInt(tail) : 0n;
}

type AssignedArgs = PageArgs & {
  assignmentStatus?: string | null;
  locationIds?: string[] | null;
  sortKey?: 'ID' | 'UPDATED_AT' | null;
  before?: string | null;
  last?: number | null;
};

function fulfillmentOrderPayload(ctx: ResolverContext, result: Result<FulfillmentOrderRecord>) {
  return payload('fulfillmentOrder', result, (fo) => fulfillmentOrderView(ctx.store.findOrder(ctx.shop, fo.orderId)!, fo));
}

export const serviceRootValue = {
  shop: (_args: unknown, ctx: ResolverContext) => shopView(ctx.shop),
  fulfillmentService: (args: { id: string }, ctx: ResolverContext) => {
    const service = ctx.store.services.find(ctx.shop, args.id);
    return service ? fulfillmentServiceView(ctx.shop, service) : null;
  },
  /** The fulfillment orders at the locations of the app's fulfillment services, by where their request stands. */
  assignedFulfillmentOrders: (args: AssignedArgs, ctx: ResolverContext) => {
    if (args.last != null || args.before != null) throw new GraphQLError('The Admin API stand-in pages assignedFulfillmentOrders with first and after only.');
    const locations = new Set(ctx.store.services.list(ctx.shop).map((s) => s.locationId));
    const wanted = args.locationIds ? new Set(args.locationIds) : undefined;
    const requestStatus = args.assignmentStatus ? ASSIGNMENT_STATUS[args.assignmentStatus] : undefined;
    const found: { id: string; order: OrderRecord; fo: FulfillmentOrderRecord }[] = [];
    for (const order of ctx.store.ordersOf(ctx.shop).values()) {
      for (const fo of order.fulfillmentOrders) {
        // As on Shopify, every assigned fulfillment order except the CLOSED ones.
        if (fo.status === 'CLOSED' || !locations.has(fo.assignedLocation.id) || (wanted && !wanted.has(fo.assignedLocation.id))) continue;
        if (requestStatus && fo.requestStatus !== requestStatus) continue;
        found.push({ id: fo.id, order, fo });
      }
    }
    const byId = (a: { id: string }, b: { id: string }) => (numericTail(a.id) < numericTail(b.id) ? -1 : numericTail(a.id) > numericTail(b.id) ? 1 : 0);
    found.sort(args.sortKey === 'UPDATED_AT' ? (a, b) => Date.parse(a.fo.updatedAt) - Date.parse(b.fo.updatedAt) || byId(a, b) : byId);
    return connection(found, args, (f) => fulfillmentOrderView(f.order, f.fo));
  },

  fulfillmentServiceCreate: (args: FulfillmentServiceInput, ctx: ResolverContext) =>
    payload('fulfillmentService', ctx.store.services.create(ctx.shop, args), (s) => fulfillmentServiceView(ctx.shop, s)),
  // inventoryAction defaults to TRANSFER in Shopify's schema (graphql-js fills it in), which needs destinationLocationId.
  fulfillmentServiceDelete: (args: { id: string; inventoryAction?: InventoryAction | null; destinationLocationId?: string | null }, ctx: ResolverContext) => {
    const result = ctx.store.services.delete(ctx.shop, args.id, args.inventoryAction ?? 'TRANSFER', args.destinationLocationId);
    return result.ok ? { deletedId: result.value, userErrors: [] } : { deletedId: null, userErrors: result.userErrors };
  },
  fulfillmentOrderAcceptFulfillmentRequest: (args: { id: string; message?: string | null; estimatedShippedAt?: string | null }, ctx: ResolverContext) =>
    fulfillmentOrderPayload(ctx, acceptFulfillmentRequest(ctx.store, ctx.shop, args.id, args)),
  fulfillmentOrderRejectFulfillmentRequest: (args: RejectInput & { id: string }, ctx: ResolverContext) =>
    fulfillmentOrderPayload(ctx, rejectFulfillmentRequest(ctx.store, ctx.shop, args.id, args)),
  fulfillmentOrderAcceptCancellationRequest: (args: { id: string; message?: string | null }, ctx: ResolverContext) =>
    fulfillmentOrderPayload(ctx, acceptCancellationRequest(ctx.store, ctx.shop, args.id, args)),
  fulfillmentOrderRejectCancellationRequest: (args: { id: string; message?: string | null }, ctx: ResolverContext) =>
    fulfillmentOrderPayload(ctx, rejectCancellationRequest(ctx.store, ctx.shop, args.id, args)),
};
