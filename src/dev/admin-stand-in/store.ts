import { FulfillmentServiceRegistry } from './fulfillment-services.js';
import * as fulfillments from './fulfillments.js';
import * as metafields from './metafields.js';
import * as orderEdits from './order-edits.js';
import {
  shopifyTimestamp,
  type FulfillmentInput,
  type FulfillmentOrderRecord,
  type FulfillmentRecord,
  type MetafieldInput,
  type MetafieldRecord,
  type OrderRecord,
  type OrderSnapshot,
  type RecordLookup,
  type Result,
  type TrackingInput,
} from './records.js';

/**
 * The stand-in's in-memory shops, their access tokens and orders (records.ts), with the rules Shopify applies to the
 * mutations print-bridge sends: fulfillments (fulfillments.ts), tags, note, email and cancelling (order-edits.ts),
 * metafields (metafields.ts).
 */

/**
 * The query Shopify writes after the number of some types' ids, part of the id as every answer gives it: a fulfillment
 * service is `gid://shopify/FulfillmentService/53834285194?id=true` in Shopify's own answers. Minted the same way here
 * so that the app meets ids as Shopify writes them.
 */
const ID_QUERY: Readonly<Record<string, string>> = { FulfillmentService: '?id=true' };

export class StandInStore implements RecordLookup {
  private readonly shops = new Map<string, Map<string, OrderRecord>>();
  private readonly tokens = new Map<string, string>();
  // Above 2^53 on purpose: every generated id exercises the exact-gid path of the client.
  private counter = 9_007_199_254_741_000n;
  /** The shops' locations and the app's fulfillment services (fulfillment-services.ts). */
  readonly services = new FulfillmentServiceRegistry(this);

  constructor(private readonly clock: () => Date = () => new Date()) {}

  now(): string {
    return shopifyTimestamp(this.clock());
  }

  nextGid(kind: string): string {
    this.counter += 1n;
    return `gid://shopify/${kind}/${this.counter.toString()}${ID_QUERY[kind] ?? ''}`;
  }

  registerShop(shop: string, accessToken: string): void {
    const domain = normalizeShop(shop);
    this.tokens.set(domain, accessToken);
    if (!this.shops.has(domain)) this.shops.set(domain, new Map());
  }

  accessTokenFor(shop: string): string | undefined {
    return this.tokens.get(normalizeShop(shop));
  }

  shopDomains(): string[] {
    return [...this.shops.keys()];
  }

  /** Forgets orders; with `shops`, forgets registered shops and tokens too. */
  reset(options: { shops?: boolean } = {}): void {
    this.services.clear();
    if (options.shops) {
      this.shops.clear();
      this.tokens.clear();
      return;
    }
    for (const orders of this.shops.values()) orders.clear();
  }

  ordersOf(shop: string): Map<string, OrderRecord> {
    const domain = normalizeShop(shop);
    let orders = this.shops.get(domain);
    if (!orders) {
      orders = new Map();
      this.shops.set(domain, orders);
    }
    return orders;
  }

  addOrder(order: OrderRecord): void {
    this.ordersOf(order.shop).set(order.id, order);
  }

  findOrder(shop: string, id: string): OrderRecord | undefined {
    return this.shops.get(normalizeShop(shop))?.get(id);
  }

  findFulfillmentOrder(shop: string, id: string): { order: OrderRecord; fo: FulfillmentOrderRecord } | undefined {
    for (const order of this.shops.get(normalizeShop(shop))?.values() ?? []) {
      const fo = order.fulfillmentOrders.find((f) => f.id === id);
      if (fo) return { order, fo };
    }
    return undefined;
  }

  findFulfillment(shop: string, id: string): { order: OrderRecord; fulfillment: FulfillmentRecord } | undefined {
    for (const order of this.shops.get(normalizeShop(shop))?.values() ?? []) {
      const fulfillment = order.fulfillments.find((f) => f.id === id);
      if (fulfillment) return { order, fulfillment };
    }
    return undefined;
  }

  isServiceLocation(shop: string, locationId: string): boolean {
    return this.services.serviceAt(normalizeShop(shop), locationId) !== undefined;
  }

  snapshot(order: OrderRecord): OrderSnapshot {
    return { ...structuredClone(order), displayFulfillmentStatus: fulfillments.displayFulfillmentStatus(order) };
  }

  createFulfillment(shop: string, input: FulfillmentInput, source: FulfillmentRecord['source']): Result<FulfillmentRecord> {
    return fulfillments.createFulfillment(this, shop, input, source);
  }

  updateTracking(shop: string, fulfillmentId: string, tracking: TrackingInput, notifyCustomer: boolean): Result<FulfillmentRecord> {
    return fulfillments.updateTracking(this, shop, fulfillmentId, tracking, notifyCustomer);
  }

  addTags(shop: string, id: string, tags: string[]): Result<OrderRecord> {
    return orderEdits.addTags(this, shop, id, tags);
  }

  removeTags(shop: string, id: string, tags: string[]): Result<OrderRecord> {
    return orderEdits.removeTags(this, shop, id, tags);
  }

  setMetafields(shop: string, inputs: MetafieldInput[]): Result<MetafieldRecord[]> {
    return metafields.setMetafields(this, shop, inputs);
  }

  updateOrder(shop: string, input: orderEdits.OrderUpdateInput): Result<OrderRecord> {
    return orderEdits.updateOrder(this, shop, input);
  }

  cancelOrder(shop: string, id: string): Result<OrderRecord> {
    return orderEdits.cancelOrder(this, shop, id);
  }
}

export function normalizeShop(shop: string): string {
  return shop.trim().toLowerCase();
}
