import type { LeftToMerchant } from '../bridge/requests-left-to-merchant.js';
import type { AssignedFulfillmentOrders, FulfillmentServiceRef } from '../bridge/shopify-data.js';
import type { FulfillmentServiceStore } from './fulfillment-services.js';
import type { FulfillmentMode, FulfillmentServiceRecord } from './model.js';

/**
 * A store's choice between merchant-managed fulfillment (the default: the app fulfils the merchant's fulfillment
 * orders from the mapping) and fulfillment-service mode (the app is a Shopify fulfillment service: printed products
 * are stocked at its location and Shopify sends it requests). docs/fulfillment.md says when to pick which.
 * Idempotent: choosing service twice keeps one service; after an uninstall (which removes it) a new one is made.
 */

/** The name merchants see on the location and in the fulfillment order's "Fulfilled by". */
export const FULFILLMENT_SERVICE_NAME = 'print-bridge';

export interface FulfillmentModeDeps {
  services: Pick<FulfillmentServiceStore, 'get' | 'setService' | 'setMerchant'>;
  /** The store's Admin API, as far as the choice needs it. */
  shopify(shop: string): Promise<{
    listFulfillmentServices(): Promise<FulfillmentServiceRef[]>;
    createFulfillmentService(input: { name: string; callbackUrl: string }): Promise<FulfillmentServiceRef>;
    deleteFulfillmentService(id: string, inventoryAction: 'KEEP'): Promise<void>;
    assignedFulfillmentOrders(status: 'FULFILLMENT_REQUESTED' | 'CANCELLATION_REQUESTED', locationId: string): Promise<AssignedFulfillmentOrders>;
  }>;
  /** APP_URL: Shopify pings `APP_URL/fulfillment_service/fulfillment_order_notification`. */
  appUrl: string;
  /** Reads the requests already waiting (a store switched to service mode may have some). */
  takeRequests(shop: string): Promise<void>;
  /**
   * Looks again at the store's waiting orders (the queue's reexamine job): switched back to merchant-managed, the
   * orders that waited for a fulfillment request are due, and are sent now rather than at the hourly sweep.
   */
  reexamine(shop: string, cause: string): Promise<void>;
  /**
   * Closes the orders whose requests were still unanswered as not printed, theirs to fulfil (bridge's
   * requests-left-to-merchant.ts), before the re-examination could send them.
   */
  leaveToMerchant(shop: string, open: AssignedFulfillmentOrders, locationId: string): Promise<LeftToMerchant>;
  /** Forgets this process's cached set-up of the store (PrintAccounts), so its next order sees the new mode. */
  invalidate?(shop: string): void;
  clock: () => Date;
}

export interface FulfillmentModeOutcome {
  mode: FulfillmentMode;
  service?: FulfillmentServiceRecord;
  /** What happened, in words for the operator or the merchant. */
  message: string;
}

/**
 * Whether Shopify's fulfillment-service pings for this store are acted on: the store is installed (an offline session)
 * and in service mode with its service. Any other store's ping is dropped (shopify/fulfillment-callback.ts).
 */
export async function acceptsFulfillmentPings(
  deps: { services: Pick<FulfillmentServiceStore, 'get'>; installed: (shop: string) => Promise<boolean> },
  shop: string,
): Promise<boolean> {
  const setting = await deps.services.get(shop);
  return setting.mode === 'service' && setting.service !== undefined && (await deps.installed(shop));
}

export function callbackUrlOf(appUrl: string): string {
  return `${appUrl.replace(/\/+$/, '')}/fulfillment_service`;
}

export async function chooseFulfillmentMode(deps: FulfillmentModeDeps, shop: string, mode: FulfillmentMode): Promise<FulfillmentModeOutcome> {
  return mode === 'service' ? becomeService(deps, shop) : becomeMerchant(deps, shop);
}

async function becomeService(deps: FulfillmentModeDeps, shop: string): Promise<FulfillmentModeOutcome> {
  const callbackUrl = callbackUrlOf(deps.appUrl);
  const api = await deps.shopify(shop);
  const current = await deps.services.get(shop);
  const existing = await api.listFulfillmentServices();
  // The one already recorded, else one of the app's with the same callback (a create whose answer was lost): adopted,
  // never a second one.
  const own = existing.find((s) => s.id === current.service?.id) ?? existing.find((s) => s.callbackUrl === callbackUrl || s.name === FULFILLMENT_SERVICE_NAME);
  const service = own ?? (await api.createFulfillmentService({ name: FULFILLMENT_SERVICE_NAME, callbackUrl }));
  const record: FulfillmentServiceRecord = {
    id: service.id,
    locationId: service.locationId,
    callbackUrl: service.callbackUrl ?? callbackUrl,
    createdAt: current.service?.id === service.id ? current.service.createdAt : deps.clock().toISOString(),
  };
  await deps.services.setService(shop, record);
  deps.invalidate?.(shop);
  await deps.takeRequests(shop);
  return {
    mode: 'service',
    service: record,
    message: own
      ? `${shop} is in fulfillment-service mode with its existing "${service.name}" service (location ${service.locationId}).`
      : `${shop} is in fulfillment-service mode: the "${service.name}" fulfillment service and its location (${service.locationId}) were created. Assign the printed products to that location in Shopify (docs/fulfillment.md); orders print when Shopify requests them.`,
  };
}

async function becomeMerchant(deps: FulfillmentModeDeps, shop: string): Promise<FulfillmentModeOutcome> {
  const current = await deps.services.get(shop);
  if (!current.service) {
    await deps.services.setMerchant(shop);
    deps.invalidate?.(shop);
    return { mode: 'merchant', message: `${shop} is merchant-managed: print-bridge fulfils the store's own fulfillment orders from the mapping.` };
  }
  const api = await deps.shopify(shop);
  const service = current.service;
  const stillThere = (await api.listFulfillmentServices()).some((s) => s.id === service.id);
  // Read before the removal and never guessed: an order requested of the location that the re-examination took for
  // one that merely waited would be printed while the merchant is told it is theirs. A failed read changes nothing.
  const open = stillThere ? await api.assignedFulfillmentOrders('FULFILLMENT_REQUESTED', service.locationId) : { fulfillmentOrders: [], unreadable: [] };
  // KEEP: the location, with the merchant's stock and its fulfillment orders, stays the merchant's.
  if (stillThere) await api.deleteFulfillmentService(service.id, 'KEEP');
  const left = await deps.leaveToMerchant(shop, open, service.locationId);
  await deps.services.setMerchant(shop);
  deps.invalidate?.(shop);
  await deps.reexamine(shop, 'merchant-managed mode chosen');
  const pending =
    left.left.length > 0
      ? ` ${left.left.length} order(s) with a fulfillment request not yet answered stay at that location as the merchant's to fulfil; print-bridge does not print them: ${names(left.left)}.`
      : '';
  const sent =
    left.alreadySent.length > 0
      ? ` ${left.alreadySent.length} order(s) with a request not yet answered were already on their way to the printer and are printed as they ship: ${names(left.alreadySent)}.`
      : '';
  return {
    mode: 'merchant',
    message: `${shop} is merchant-managed again: the print-bridge fulfillment service was removed and its location kept with its stock (KEEP). Orders already accepted are still printed and fulfilled as they ship.${pending}${sent}`,
  };
}

/** Order names for the message: every one up to a screenful, then how many more. */
function names(list: string[], most = 20): string {
  return list.length <= most ? list.join(', ') : `${list.slice(0, most).join(', ')} and ${list.length - most} more`;
}
