import type { OrderLink } from './order-store.js';
import { type BridgeDeps, TAGS } from './ports.js';
import type { OrderStatus } from './status.js';

/**
 * What a Shopify order shows of its print status is derived from the link, never pushed as a sequence of changes: a
 * sync job reads the link when it runs and makes the order's tags match. Syncs can therefore be repeated, dropped in
 * favour of a later one, or run out of order, and the order still ends up right. They run on their own queue so that
 * Shopify's rate limit paces them without ever holding up a submission.
 */

const STATUS_TAGS: Record<OrderStatus, string[]> = {
  pending: [],
  // A store without a mapping: needs-mapping comes from the no-mapping problem. Not connected: no tags can be set.
  waiting: [],
  submitting: [],
  held: [TAGS.needsMapping],
  submitted: [TAGS.submitted],
  received: [TAGS.submitted, TAGS.received],
  'print-ready': [TAGS.submitted, TAGS.printReady],
  'partially-shipped': [TAGS.submitted, TAGS.partiallyShipped],
  shipped: [TAGS.submitted, TAGS.shipped],
  error: [TAGS.error],
  cancelled: [TAGS.cancelled],
  'not-printed': [TAGS.notPrinted],
};

const PROBLEM_TAGS: Record<string, string> = {
  'cancel-refused': TAGS.cancelRefused,
  'amend-refused': TAGS.error,
  'no-mapping': TAGS.needsMapping,
};

export const ALL_TAGS: readonly string[] = Object.values(TAGS);

export function desiredTags(link: OrderLink): string[] {
  const tags = new Set(STATUS_TAGS[link.status]);
  for (const problem of link.problems) {
    const tag = PROBLEM_TAGS[problem.kind];
    if (tag) tags.add(tag);
  }
  return [...tags].sort();
}

export type SyncOutcome = { kind: 'synced'; tags: string[]; version: number } | { kind: 'unknown-order' };

/** Makes the Shopify order's print-bridge tags match the link; repeats until the link stops changing under it. */
export async function syncOrderToShopify(deps: Pick<BridgeDeps, 'store' | 'shopify'>, shop: string, orderId: string): Promise<SyncOutcome> {
  let link = await deps.store.get(shop, orderId);
  if (!link) return { kind: 'unknown-order' };
  for (let round = 0; round < 5; round++) {
    const tags = desiredTags(link);
    const stale = ALL_TAGS.filter((t) => !tags.includes(t));
    if (tags.length) await deps.shopify.addTags(shop, orderId, tags);
    await deps.shopify.removeTags(shop, orderId, stale);
    const latest: OrderLink | undefined = await deps.store.get(shop, orderId);
    if (!latest || desiredTags(latest).join() === tags.join()) return { kind: 'synced', tags, version: link.version };
    link = latest;
  }
  return { kind: 'synced', tags: desiredTags(link), version: link.version };
}
