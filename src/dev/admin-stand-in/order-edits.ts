import { checkOrderMetafields } from './metafields.js';
import { fail, type MetafieldInput, type OrderRecord, type RecordLookup, type Result } from './records.js';

/** What the app or a merchant changes on an order itself: its tags, note and email, and cancelling it. */

export function addTags(records: RecordLookup, shop: string, id: string, tags: string[]): Result<OrderRecord> {
  const order = records.findOrder(shop, id);
  if (!order) return fail(['id'], `Order ${id} does not exist.`);
  const before = order.tags.length;
  for (const tag of splitTags(tags)) {
    if (!order.tags.some((t) => t.toLowerCase() === tag.toLowerCase())) order.tags.push(tag);
  }
  if (order.tags.length !== before) order.updatedAt = records.now();
  return { ok: true, value: order };
}

export function removeTags(records: RecordLookup, shop: string, id: string, tags: string[]): Result<OrderRecord> {
  const order = records.findOrder(shop, id);
  if (!order) return fail(['id'], `Order ${id} does not exist.`);
  const remove = new Set(splitTags(tags).map((t) => t.toLowerCase()));
  const kept = order.tags.filter((t) => !remove.has(t.toLowerCase()));
  if (kept.length !== order.tags.length) {
    order.tags = kept;
    order.updatedAt = records.now();
  }
  return { ok: true, value: order };
}

/** The part of Shopify's `OrderInput` the stand-in answers. */
export interface OrderUpdateInput {
  id: string;
  note?: string | null;
  tags?: string[] | null;
  email?: string | null;
  metafields?: Omit<MetafieldInput, 'ownerId'>[] | null;
}

/**
 * `orderUpdate` as Shopify does it: `tags` is "a new list of tags for the order" and overwrites the existing tags
 * (a tag not in the list is gone, whoever added it); `metafields` are added to the existing metafields (an upsert by
 * namespace and key, the others kept); all or nothing.
 */
export function updateOrder(records: RecordLookup, shop: string, input: OrderUpdateInput): Result<OrderRecord> {
  const order = records.findOrder(shop, input.id);
  if (!order) return fail(['id'], 'Order does not exist');
  const metafields = input.metafields ? checkOrderMetafields(records, shop, order, input.metafields) : undefined;
  if (metafields && !metafields.ok) return metafields;
  if (input.note !== undefined) order.note = input.note;
  if (input.tags !== undefined && input.tags !== null) order.tags = dedupeTags(splitTags(input.tags));
  if (input.email !== undefined) order.email = input.email;
  metafields?.value();
  order.updatedAt = records.now();
  return { ok: true, value: order };
}

/** Shopify keeps one of tags that differ only in case (the first). */
function dedupeTags(tags: string[]): string[] {
  const seen = new Set<string>();
  return tags.filter((t) => {
    const key = t.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function cancelOrder(records: RecordLookup, shop: string, id: string): Result<OrderRecord> {
  const order = records.findOrder(shop, id);
  if (!order) return fail(['id'], 'Order does not exist');
  if (order.cancelledAt) return fail(['id'], 'Order has already been cancelled');
  const at = records.now();
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

/** Shopify accepts one comma-separated string as well as a list. */
function splitTags(tags: string[]): string[] {
  return tags
    .flatMap((t) => t.split(','))
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
}
