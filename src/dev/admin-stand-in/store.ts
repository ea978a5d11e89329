/**
 * The stand-in's in-memory shops, orders and fulfillment records, with the rules Shopify applies to the mutations
 * print-bridge sends. Records are plain JSON so the control surface can show them as they are. Every id is a gid
 * string: ids above 2^53 must never pass through a JS number.
 */

export type FulfillmentOrderStatus = 'OPEN' | 'IN_PROGRESS' | 'CLOSED' | 'CANCELLED' | 'ON_HOLD' | 'SCHEDULED';

/** Shopify's FulfillmentHoldReason values. */
export const FULFILLMENT_HOLD_REASONS = [
  'AWAITING_PAYMENT',
  'AWAITING_RETURN_ITEMS',
  'HIGH_RISK_OF_FRAUD',
  'INCORRECT_ADDRESS',
  'INVENTORY_OUT_OF_STOCK',
  'ONLINE_STORE_POST_PURCHASE_CROSS_SELL',
  'OTHER',
  'UNKNOWN_DELIVERY_DATE',
] as const;
export type FulfillmentHoldReason = (typeof FULFILLMENT_HOLD_REASONS)[number];

export interface FulfillmentHoldRecord {
  id: string;
  reason: FulfillmentHoldReason;
  reasonNotes: string | null;
  handle: string;
}
export type DisplayFulfillmentStatus = 'UNFULFILLED' | 'PARTIALLY_FULFILLED' | 'FULFILLED';

export interface LineItemRecord {
  id: string;
  name: string;
  title: string;
  sku: string | null;
  variantTitle: string | null;
  vendor: string | null;
  quantity: number;
  currentQuantity: number;
  requiresShipping: boolean;
}

export interface FulfillmentOrderLineItemRecord {
  id: string;
  lineItemId: string;
  totalQuantity: number;
  remainingQuantity: number;
}

export interface FulfillmentOrderRecord {
  id: string;
  orderId: string;
  status: FulfillmentOrderStatus;
  createdAt: string;
  updatedAt: string;
  lineItems: FulfillmentOrderLineItemRecord[];
  /** Holds in force (status ON_HOLD while there is one); see holds.ts. */
  fulfillmentHolds: FulfillmentHoldRecord[];
  /** When a SCHEDULED fulfillment order becomes ready (OPEN). */
  fulfillAt: string | null;
}

export interface TrackingInfoRecord {
  company: string | null;
  number: string | null;
  url: string | null;
}

export interface CustomerNotification {
  at: string;
  reason: 'fulfillment-created' | 'tracking-updated';
  trackingNumbers: string[];
}

export interface FulfillmentLineItemRecord {
  id: string;
  lineItemId: string;
  fulfillmentOrderId: string;
  fulfillmentOrderLineItemId: string;
  quantity: number;
}

export interface FulfillmentRecord {
  id: string;
  orderId: string;
  name: string;
  status: 'SUCCESS' | 'CANCELLED';
  createdAt: string;
  updatedAt: string;
  trackingInfo: TrackingInfoRecord[];
  lineItems: FulfillmentLineItemRecord[];
  /** Who made it: the app through the Admin API, or a merchant in Shopify admin (the control surface). */
  source: 'api' | 'merchant';
  /** What `notifyCustomer` asked for when it was created; Shopify itself does not show this, the stand-in does. */
  notifyCustomer: boolean;
  customerNotifications: CustomerNotification[];
}

export interface MetafieldRecord {
  id: string;
  ownerId: string;
  namespace: string;
  key: string;
  type: string;
  value: string;
  createdAt: string;
  updatedAt: string;
}

export interface OrderRecord {
  id: string;
  shop: string;
  name: string;
  email: string | null;
  createdAt: string;
  updatedAt: string;
  cancelledAt: string | null;
  note: string | null;
  tags: string[];
  lineItems: LineItemRecord[];
  fulfillmentOrders: FulfillmentOrderRecord[];
  fulfillments: FulfillmentRecord[];
  metafields: MetafieldRecord[];
  /** The REST body the order was seeded from: the GraphQL fields the stand-in has no record field for are read from it. */
  restBody?: Record<string, unknown>;
}

export interface UserError {
  field: string[] | null;
  message: string;
  code?: string;
  elementIndex?: number;
}

export interface TrackingInput {
  company?: string | null;
  number?: string | null;
  url?: string | null;
  numbers?: string[] | null;
  urls?: string[] | null;
}

export interface FulfillmentInput {
  lineItemsByFulfillmentOrder: {
    fulfillmentOrderId: string;
    fulfillmentOrderLineItems?: { id: string; quantity: number }[] | null;
  }[];
  trackingInfo?: TrackingInput | null;
  notifyCustomer?: boolean | null;
}

export interface MetafieldInput {
  ownerId: string;
  namespace?: string | null;
  key: string;
  type?: string | null;
  value: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; userErrors: UserError[] };

/** Order snapshot shown by the control surface and returned by the programmatic API. */
export type OrderSnapshot = OrderRecord & { displayFulfillmentStatus: DisplayFulfillmentStatus };

/** Shopify's own timestamps have whole seconds. */
export function shopifyTimestamp(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const METAFIELD_TYPES = new Set([
  'single_line_text_field',
  'multi_line_text_field',
  'json',
  'number_integer',
  'boolean',
  'date_time',
  'url',
]);

export class StandInStore {
  private readonly shops = new Map<string, Map<string, OrderRecord>>();
  private readonly tokens = new Map<string, string>();
  // Above 2^53 on purpose: every generated id exercises the exact-gid path of the client.
  private counter = 9_007_199_254_741_000n;

  constructor(private readonly clock: () => Date = () => new Date()) {}

  now(): string {
    return shopifyTimestamp(this.clock());
  }

  nextGid(kind: string): string {
    this.counter += 1n;
    return `gid://shopify/${kind}/${this.counter.toString()}`;
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

  snapshot(order: OrderRecord): OrderSnapshot {
    return { ...structuredClone(order), displayFulfillmentStatus: displayFulfillmentStatus(order) };
  }

  createFulfillment(shop: string, input: FulfillmentInput, source: FulfillmentRecord['source']): Result<FulfillmentRecord> {
    const groups = input.lineItemsByFulfillmentOrder;
    if (groups.length === 0) {
      return fail(['fulfillment', 'lineItemsByFulfillmentOrder'], 'Line items by fulfillment order must not be empty.');
    }
    const errors: UserError[] = [];
    let order: OrderRecord | undefined;
    // Planned changes are checked in full before any is applied: a fulfillment is all or nothing.
    const planned: { fo: FulfillmentOrderRecord; line: FulfillmentOrderLineItemRecord; quantity: number }[] = [];
    groups.forEach((group, groupIndex) => {
      const field = ['fulfillment', 'lineItemsByFulfillmentOrder', String(groupIndex)];
      const found = this.findFulfillmentOrder(shop, group.fulfillmentOrderId);
      if (!found) {
        errors.push({ field: [...field, 'fulfillmentOrderId'], message: 'Fulfillment order does not exist.' });
        return;
      }
      if (order && order.id !== found.order.id) {
        errors.push({ field, message: 'All fulfillment orders must belong to the same order.' });
        return;
      }
      order = found.order;
      const fo = found.fo;
      if (fo.status !== 'OPEN' && fo.status !== 'IN_PROGRESS') {
        errors.push({
          field: [...field, 'fulfillmentOrderId'],
          message: `Fulfillment order ${fo.id} has an unfulfillable status= ${fo.status.toLowerCase()}.`,
        });
        return;
      }
      const requested =
        group.fulfillmentOrderLineItems && group.fulfillmentOrderLineItems.length > 0
          ? group.fulfillmentOrderLineItems
          : fo.lineItems.filter((l) => l.remainingQuantity > 0).map((l) => ({ id: l.id, quantity: l.remainingQuantity }));
      requested.forEach((item, itemIndex) => {
        const itemField = [...field, 'fulfillmentOrderLineItems', String(itemIndex)];
        const line = fo.lineItems.find((l) => l.id === item.id);
        if (!line) {
          errors.push({ field: [...itemField, 'id'], message: `Fulfillment order line item ${item.id} does not belong to fulfillment order ${fo.id}.` });
          return;
        }
        const alreadyPlanned = planned.filter((p) => p.line === line).reduce((sum, p) => sum + p.quantity, 0);
        if (!Number.isInteger(item.quantity) || item.quantity <= 0 || item.quantity + alreadyPlanned > line.remainingQuantity) {
          errors.push({
            field: [...itemField, 'quantity'],
            message: `Invalid fulfillment order line item quantity requested: ${item.quantity} of ${line.id}, ${line.remainingQuantity - alreadyPlanned} remaining.`,
          });
          return;
        }
        planned.push({ fo, line, quantity: item.quantity });
      });
    });
    if (errors.length > 0) return { ok: false, userErrors: errors };
    if (!order || planned.length === 0) return fail(['fulfillment'], 'Nothing to fulfill: every line item is already fulfilled.');

    const at = this.now();
    for (const p of planned) p.line.remainingQuantity -= p.quantity;
    for (const fo of new Set(planned.map((p) => p.fo))) {
      fo.status = fo.lineItems.every((l) => l.remainingQuantity === 0) ? 'CLOSED' : 'IN_PROGRESS';
      fo.updatedAt = at;
    }
    const notifyCustomer = input.notifyCustomer ?? false;
    const trackingInfo = trackingFromInput(input.trackingInfo);
    const fulfillment: FulfillmentRecord = {
      id: this.nextGid('Fulfillment'),
      orderId: order.id,
      name: `${order.name}-F${order.fulfillments.length + 1}`,
      status: 'SUCCESS',
      createdAt: at,
      updatedAt: at,
      trackingInfo,
      lineItems: planned.map((p) => ({
        id: this.nextGid('FulfillmentLineItem'),
        lineItemId: p.line.lineItemId,
        fulfillmentOrderId: p.fo.id,
        fulfillmentOrderLineItemId: p.line.id,
        quantity: p.quantity,
      })),
      source,
      notifyCustomer,
      customerNotifications: notifyCustomer
        ? [{ at, reason: 'fulfillment-created', trackingNumbers: numbersOf(trackingInfo) }]
        : [],
    };
    order.fulfillments.push(fulfillment);
    order.updatedAt = at;
    return { ok: true, value: fulfillment };
  }

  updateTracking(shop: string, fulfillmentId: string, tracking: TrackingInput, notifyCustomer: boolean): Result<FulfillmentRecord> {
    const found = this.findFulfillment(shop, fulfillmentId);
    if (!found) return fail(['fulfillmentId'], 'Fulfillment does not exist.');
    const { order, fulfillment } = found;
    if (fulfillment.status === 'CANCELLED') return fail(['fulfillmentId'], 'Cannot update tracking of a cancelled fulfillment.');
    const at = this.now();
    fulfillment.trackingInfo = trackingFromInput(tracking);
    fulfillment.updatedAt = at;
    if (notifyCustomer) {
      fulfillment.customerNotifications.push({ at, reason: 'tracking-updated', trackingNumbers: numbersOf(fulfillment.trackingInfo) });
    }
    order.updatedAt = at;
    return { ok: true, value: fulfillment };
  }

  addTags(shop: string, id: string, tags: string[]): Result<OrderRecord> {
    const order = this.findOrder(shop, id);
    if (!order) return fail(['id'], `Order ${id} does not exist.`);
    const before = order.tags.length;
    for (const tag of splitTags(tags)) {
      if (!order.tags.some((t) => t.toLowerCase() === tag.toLowerCase())) order.tags.push(tag);
    }
    if (order.tags.length !== before) order.updatedAt = this.now();
    return { ok: true, value: order };
  }

  removeTags(shop: string, id: string, tags: string[]): Result<OrderRecord> {
    const order = this.findOrder(shop, id);
    if (!order) return fail(['id'], `Order ${id} does not exist.`);
    const remove = new Set(splitTags(tags).map((t) => t.toLowerCase()));
    const kept = order.tags.filter((t) => !remove.has(t.toLowerCase()));
    if (kept.length !== order.tags.length) {
      order.tags = kept;
      order.updatedAt = this.now();
    }
    return { ok: true, value: order };
  }

  setMetafields(shop: string, inputs: MetafieldInput[]): Result<MetafieldRecord[]> {
    if (inputs.length > 25) return fail(['metafields'], 'Exceeded the maximum of 25 metafields per request.', 'LESS_THAN_OR_EQUAL_TO');
    const errors: UserError[] = [];
    const owners: OrderRecord[] = [];
    inputs.forEach((input, index) => {
      const field = (name: string) => ['metafields', String(index), name];
      const order = this.findOrder(shop, input.ownerId);
      if (!order) {
        errors.push({ field: field('ownerId'), message: 'Owner does not exist.', code: 'INVALID', elementIndex: index });
        return;
      }
      owners[index] = order;
      const namespace = resolveAppNamespace(input.namespace ?? '');
      if (namespace.length < 3 || namespace.length > 255 || !/^[A-Za-z0-9_-]+$/.test(namespace)) {
        errors.push({ field: field('namespace'), message: 'Namespace must be 3 to 255 letters, digits, - or _.', code: 'INVALID', elementIndex: index });
      }
      if (input.key.length < 2 || input.key.length > 64 || !/^[A-Za-z0-9_-]+$/.test(input.key)) {
        errors.push({ field: field('key'), message: 'Key must be 2 to 64 letters, digits, - or _.', code: 'INVALID', elementIndex: index });
      }
      const existing = order.metafields.find((m) => m.namespace === namespace && m.key === input.key);
      const type = input.type ?? existing?.type;
      if (!type) {
        errors.push({ field: field('type'), message: "Type can't be blank.", code: 'BLANK', elementIndex: index });
        return;
      }
      if (!METAFIELD_TYPES.has(type)) {
        errors.push({ field: field('type'), message: `Type '${type}' is not supported by the stand-in.`, code: 'INVALID_TYPE', elementIndex: index });
        return;
      }
      if (existing && existing.type !== type) {
        errors.push({
          field: field('type'),
          message: `Type '${type}' must be consistent with the existing metafield's type '${existing.type}'.`,
          code: 'INVALID_TYPE',
          elementIndex: index,
        });
        return;
      }
      const problem = metafieldValueProblem(type, input.value);
      if (problem) errors.push({ field: field('value'), message: problem, code: 'INVALID_VALUE', elementIndex: index });
    });
    if (errors.length > 0) return { ok: false, userErrors: errors };
    const at = this.now();
    const saved = inputs.map((input, index) => {
      const order = owners[index]!;
      const namespace = resolveAppNamespace(input.namespace!);
      const existing = order.metafields.find((m) => m.namespace === namespace && m.key === input.key);
      if (existing) {
        if (existing.value !== input.value) {
          existing.value = input.value;
          existing.updatedAt = at;
          order.updatedAt = at;
        }
        return existing;
      }
      const created: MetafieldRecord = {
        id: this.nextGid('Metafield'),
        ownerId: order.id,
        namespace,
        key: input.key,
        type: input.type!,
        value: input.value,
        createdAt: at,
        updatedAt: at,
      };
      order.metafields.push(created);
      order.updatedAt = at;
      return created;
    });
    return { ok: true, value: saved };
  }

  updateOrder(shop: string, input: { id: string; note?: string | null; tags?: string[] | null; email?: string | null }): Result<OrderRecord> {
    const order = this.findOrder(shop, input.id);
    if (!order) return fail(['id'], 'Order does not exist');
    if (input.note !== undefined) order.note = input.note;
    if (input.tags !== undefined && input.tags !== null) order.tags = [...new Set(splitTags(input.tags))];
    if (input.email !== undefined) order.email = input.email;
    order.updatedAt = this.now();
    return { ok: true, value: order };
  }

  cancelOrder(shop: string, id: string): Result<OrderRecord> {
    const order = this.findOrder(shop, id);
    if (!order) return fail(['id'], 'Order does not exist');
    if (order.cancelledAt) return fail(['id'], 'Order has already been cancelled');
    const at = this.now();
    order.cancelledAt = at;
    order.updatedAt = at;
    for (const fo of order.fulfillmentOrders) {
      if (fo.status === 'OPEN' || fo.status === 'IN_PROGRESS' || fo.status === 'ON_HOLD' || fo.status === 'SCHEDULED') {
        fo.status = 'CANCELLED';
        fo.fulfillmentHolds = [];
        fo.updatedAt = at;
      }
    }
    return { ok: true, value: order };
  }
}

export function normalizeShop(shop: string): string {
  return shop.trim().toLowerCase();
}

export function displayFulfillmentStatus(order: OrderRecord): DisplayFulfillmentStatus {
  const lines = order.fulfillmentOrders.flatMap((fo) => fo.lineItems);
  const total = lines.reduce((s, l) => s + l.totalQuantity, 0);
  const remaining = lines.reduce((s, l) => s + l.remainingQuantity, 0);
  if (total > 0 && remaining === 0) return 'FULFILLED';
  if (remaining < total) return 'PARTIALLY_FULFILLED';
  return 'UNFULFILLED';
}

/** Shopify accepts one comma-separated string as well as a list. */
function splitTags(tags: string[]): string[] {
  return tags
    .flatMap((t) => t.split(','))
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
}

function trackingFromInput(input: TrackingInput | null | undefined): TrackingInfoRecord[] {
  if (!input) return [];
  const company = input.company ?? null;
  if (input.numbers && input.numbers.length > 0) {
    return input.numbers.map((number, i) => ({ company, number, url: input.urls?.[i] ?? null }));
  }
  const number = input.number ?? null;
  const url = input.url ?? null;
  if (company === null && number === null && url === null) return [];
  return [{ company, number, url }];
}

function numbersOf(tracking: TrackingInfoRecord[]): string[] {
  return tracking.map((t) => t.number).filter((n): n is string => n !== null);
}

function metafieldValueProblem(type: string, value: string): string | undefined {
  switch (type) {
    case 'single_line_text_field':
      return /[\r\n]/.test(value) ? 'Value must be a single line of text.' : undefined;
    case 'json':
      try {
        JSON.parse(value);
        return undefined;
      } catch {
        return 'Value must be valid JSON.';
      }
    case 'number_integer':
      return /^-?\d+$/.test(value) ? undefined : 'Value must be an integer.';
    case 'boolean':
      return value === 'true' || value === 'false' ? undefined : "Value must be 'true' or 'false'.";
    case 'date_time':
      return Number.isNaN(Date.parse(value)) ? 'Value must be an ISO 8601 date and time.' : undefined;
    case 'url':
      return URL.canParse(value) ? undefined : 'Value must be a URL.';
    default:
      return undefined;
  }
}

function fail<T>(field: string[] | null, message: string, code?: string): Result<T> {
  return { ok: false, userErrors: [{ field, message, ...(code ? { code } : {}) }] };
}

/**
 * The namespace Shopify gives the calling app's own metafields: `$app` (and `$app:sub`) resolve to `app--<app id>`,
 * as they do in Shopify, on writes and on reads.
 */
export const STAND_IN_APP_NAMESPACE = 'app--31337';

export function resolveAppNamespace(namespace: string): string {
  if (namespace === '$app') return STAND_IN_APP_NAMESPACE;
  if (namespace.startsWith('$app:')) return `${STAND_IN_APP_NAMESPACE}--${namespace.slice('$app:'.length)}`;
  return namespace;
}
