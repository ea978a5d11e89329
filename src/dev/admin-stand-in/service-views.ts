import type { FulfillmentServiceRecord, LocationRecord } from './fulfillment-services.js';
import type { FulfillmentOrderRecord } from './records.js';
import type { ResolverContext } from './resolvers.js';

/** The GraphQL views of locations and fulfillment services (resolvers.ts's style: properties and field methods). */

export function locationView(shop: string, location: LocationRecord) {
  return {
    __typename: 'Location',
    id: location.id,
    name: location.name,
    isActive: true,
    isPrimary: location.isPrimary,
    isFulfillmentService: location.fulfillmentServiceId !== null,
    shipsInventory: true,
    fulfillmentService: (_args: unknown, ctx: ResolverContext) => {
      const service = location.fulfillmentServiceId ? ctx.store.services.find(shop, location.fulfillmentServiceId) : undefined;
      return service ? fulfillmentServiceView(shop, service) : null;
    },
  };
}

export function fulfillmentServiceView(shop: string, service: FulfillmentServiceRecord) {
  return {
    __typename: 'FulfillmentService',
    id: service.id,
    serviceName: service.serviceName,
    handle: service.handle,
    callbackUrl: service.callbackUrl,
    trackingSupport: service.trackingSupport,
    inventoryManagement: service.inventoryManagement,
    fulfillmentOrdersOptIn: service.fulfillmentOrdersOptIn,
    requiresShippingMethod: service.requiresShippingMethod,
    type: 'THIRD_PARTY',
    location: (_args: unknown, ctx: ResolverContext) => {
      const location = ctx.store.services.location(shop, service.locationId);
      return location ? locationView(shop, location) : null;
    },
  };
}

/** `FulfillmentOrder.assignedLocation`: the name it had when assigned; `location` null once the location is gone. */
export function assignedLocationView(shop: string, fo: FulfillmentOrderRecord) {
  return {
    __typename: 'FulfillmentOrderAssignedLocation',
    name: fo.assignedLocation.name,
    countryCode: 'US',
    address1: null,
    address2: null,
    city: null,
    province: null,
    zip: null,
    phone: null,
    location: (_args: unknown, ctx: ResolverContext) => {
      const location = ctx.store.services.location(shop, fo.assignedLocation.id);
      return location ? locationView(shop, location) : null;
    },
  };
}

/**
 * `shop`: only `fulfillmentServices` is answered; any other field of Shop is an error naming it (as for every field
 * the stand-in does not answer), rather than a made-up value.
 */
export function shopView(shop: string) {
  const answered = {
    __typename: 'Shop',
    fulfillmentServices: (_args: unknown, ctx: ResolverContext) => ctx.store.services.list(shop).map((s) => fulfillmentServiceView(shop, s)),
  };
  return new Proxy(answered, {
    get(target, prop, receiver) {
      if (typeof prop !== 'string' || prop in target || prop === 'then' || prop === 'toJSON') return Reflect.get(target, prop, receiver) as unknown;
      throw new Error(`Field '${prop}' of the shop is not answered by the Admin API stand-in.`);
    },
  });
}
