import { fail, type FulfillmentOrderRecord, type OrderRecord, type RecordLookup, type Result } from './records.js';

/**
 * Fulfillment services, as Shopify keeps them for an app (`fulfillmentServiceCreate`/`Delete`): each has its own
 * location, named after it, where the products it stocks are assigned. An order's line items whose SKU a service's
 * location stocks go to one fulfillment order assigned to that location; the rest stay at the shop's primary location.
 * The request states of those fulfillment orders are fulfillment-requests.ts's.
 */

export interface LocationRecord {
  id: string;
  name: string;
  /** The service that manages it; null for a merchant-managed location (the primary one, or one kept after a delete). */
  fulfillmentServiceId: string | null;
  isPrimary: boolean;
}

export interface FulfillmentServiceRecord {
  id: string;
  serviceName: string;
  handle: string;
  callbackUrl: string | null;
  trackingSupport: boolean;
  inventoryManagement: boolean;
  fulfillmentOrdersOptIn: boolean;
  requiresShippingMethod: boolean;
  locationId: string;
  /** The SKUs its location stocks (the control surface says which). */
  stockedSkus: string[];
}

export interface FulfillmentServiceInput {
  name: string;
  callbackUrl?: string | null;
  trackingSupport?: boolean | null;
  inventoryManagement?: boolean | null;
  fulfillmentOrdersOptIn?: boolean | null;
  requiresShippingMethod?: boolean | null;
}

export type InventoryAction = 'KEEP' | 'DELETE' | 'TRANSFER';

interface ShopServices {
  services: Map<string, FulfillmentServiceRecord>;
  locations: Map<string, LocationRecord>;
}

/** Open fulfillment orders: the ones a deleted service's location hands over. */
const MOVABLE = new Set(['OPEN', 'IN_PROGRESS', 'ON_HOLD', 'SCHEDULED']);

/** Shopify's handle of a name: lower case, runs of anything but letters and digits as one `-`. */
export function handleOf(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

export class FulfillmentServiceRegistry {
  private readonly shops = new Map<string, ShopServices>();

  constructor(private readonly records: Pick<RecordLookup, 'nextGid'> & { ordersOf(shop: string): Map<string, OrderRecord> }) {}

  private of(shop: string): ShopServices {
    const domain = shop.trim().toLowerCase();
    let entry = this.shops.get(domain);
    if (!entry) {
      entry = { services: new Map(), locations: new Map() };
      this.shops.set(domain, entry);
    }
    return entry;
  }

  /** The shop's primary location (made the first time it is needed), where every fulfillment order goes by default. */
  primaryLocation(shop: string): LocationRecord {
    const entry = this.of(shop);
    for (const location of entry.locations.values()) if (location.isPrimary) return location;
    const primary: LocationRecord = { id: this.records.nextGid('Location'), name: 'Shop location', fulfillmentServiceId: null, isPrimary: true };
    entry.locations.set(primary.id, primary);
    return primary;
  }

  list(shop: string): FulfillmentServiceRecord[] {
    return [...this.of(shop).services.values()];
  }

  find(shop: string, id: string): FulfillmentServiceRecord | undefined {
    return this.of(shop).services.get(id);
  }

  location(shop: string, id: string): LocationRecord | undefined {
    return this.of(shop).locations.get(id);
  }

  serviceAt(shop: string, locationId: string): FulfillmentServiceRecord | undefined {
    const serviceId = this.location(shop, locationId)?.fulfillmentServiceId;
    return serviceId ? this.find(shop, serviceId) : undefined;
  }

  create(shop: string, input: FulfillmentServiceInput): Result<FulfillmentServiceRecord> {
    const name = input.name.trim();
    if (name === '') return fail(['name'], "Name can't be blank");
    const handle = handleOf(name);
    const entry = this.of(shop);
    if ([...entry.services.values()].some((s) => s.handle === handle)) return fail(['name'], 'Name has already been taken');
    if (input.callbackUrl != null && !/^https?:\/\//.test(input.callbackUrl)) return fail(['callbackUrl'], 'Callback url is invalid');
    this.primaryLocation(shop);
    const location: LocationRecord = { id: this.records.nextGid('Location'), name, fulfillmentServiceId: null, isPrimary: false };
    const service: FulfillmentServiceRecord = {
      id: this.records.nextGid('FulfillmentService'),
      serviceName: name,
      handle,
      callbackUrl: input.callbackUrl ?? null,
      trackingSupport: input.trackingSupport ?? false,
      inventoryManagement: input.inventoryManagement ?? false,
      fulfillmentOrdersOptIn: input.fulfillmentOrdersOptIn ?? true,
      requiresShippingMethod: input.requiresShippingMethod ?? true,
      locationId: location.id,
      stockedSkus: [],
    };
    location.fulfillmentServiceId = service.id;
    entry.locations.set(location.id, location);
    entry.services.set(service.id, service);
    return { ok: true, value: service };
  }

  /**
   * Deletes a service. KEEP leaves its location as a merchant-managed one with its fulfillment orders (their requests
   * back to UNSUBMITTED); DELETE moves its open fulfillment orders to the primary location, TRANSFER to
   * `destinationLocationId`, and the location goes.
   */
  delete(shop: string, id: string, action: InventoryAction, destinationLocationId?: string | null): Result<string> {
    const entry = this.of(shop);
    const service = entry.services.get(id);
    if (!service) return fail(['id'], 'Fulfillment service could not be found.');
    let destination: LocationRecord | undefined;
    if (action === 'TRANSFER') {
      if (!destinationLocationId) return fail(['destinationLocationId'], 'Destination location is required when the inventory action is TRANSFER.');
      destination = entry.locations.get(destinationLocationId);
      if (!destination || destination.id === service.locationId) return fail(['destinationLocationId'], 'Destination location could not be found.');
    } else if (action === 'DELETE') {
      destination = this.primaryLocation(shop);
    }
    for (const order of this.records.ordersOf(shop).values()) {
      for (const fo of order.fulfillmentOrders) {
        if (fo.assignedLocation.id !== service.locationId) continue;
        if (MOVABLE.has(fo.status)) fo.requestStatus = 'UNSUBMITTED';
        if (destination && MOVABLE.has(fo.status)) fo.assignedLocation = { id: destination.id, name: destination.name };
      }
    }
    entry.services.delete(id);
    if (destination) entry.locations.delete(service.locationId);
    else entry.locations.get(service.locationId)!.fulfillmentServiceId = null;
    return { ok: true, value: id };
  }

  /** Says which SKUs a service's location stocks (the whole list; orders created afterwards are assigned by it). */
  stock(shop: string, serviceId: string, skus: string[]): Result<FulfillmentServiceRecord> {
    const service = this.find(shop, serviceId);
    if (!service) return fail(['serviceId'], `No fulfillment service ${serviceId} on ${shop}.`);
    service.stockedSkus = [...new Set(skus)];
    return { ok: true, value: service };
  }

  /** Removes every service of the shop and its location (the app was uninstalled). */
  removeAll(shop: string): void {
    for (const service of this.list(shop)) this.delete(shop, service.id, 'DELETE');
  }

  clear(): void {
    this.shops.clear();
  }

  /**
   * Splits a new order's fulfillment order by location: the lines whose SKU a service's location stocks go to one
   * fulfillment order per such location, the rest stay where they are. Orders without such SKUs are left as they were.
   */
  assign(order: OrderRecord): void {
    const services = this.list(order.shop).filter((s) => s.stockedSkus.length > 0);
    if (services.length === 0) return;
    const skuOf = new Map(order.lineItems.map((li) => [li.id, li.sku]));
    const result: FulfillmentOrderRecord[] = [];
    for (const fo of order.fulfillmentOrders) {
      let rest = fo.lineItems;
      const split: FulfillmentOrderRecord[] = [];
      for (const service of services) {
        const stocked = rest.filter((l) => service.stockedSkus.includes(skuOf.get(l.lineItemId) ?? ''));
        if (stocked.length === 0) continue;
        rest = rest.filter((l) => !stocked.includes(l));
        const location = this.location(order.shop, service.locationId)!;
        split.push({
          ...structuredClone(fo),
          id: rest.length === 0 && split.length === 0 ? fo.id : this.records.nextGid('FulfillmentOrder'),
          lineItems: stocked,
          status: statusOf(fo, stocked),
          assignedLocation: { id: location.id, name: location.name },
          requestStatus: statusOf(fo, stocked) === 'CLOSED' ? 'CLOSED' : 'UNSUBMITTED',
        });
      }
      if (rest.length > 0) result.push({ ...fo, lineItems: rest, status: statusOf(fo, rest) });
      result.push(...split);
    }
    order.fulfillmentOrders = result;
  }
}

function statusOf(fo: FulfillmentOrderRecord, lines: FulfillmentOrderRecord['lineItems']): FulfillmentOrderRecord['status'] {
  if (lines.every((l) => l.remainingQuantity === 0)) return 'CLOSED';
  if (fo.status === 'CANCELLED') return 'CANCELLED';
  return lines.some((l) => l.remainingQuantity < l.totalQuantity) ? 'IN_PROGRESS' : 'OPEN';
}
