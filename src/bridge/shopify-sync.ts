import type { StatusChange, StatusShown } from './shopify-data.js';
import type { OrderLink } from '../orders/model.js';
import { canonical } from './own-writes.js';
import { type StatusShowing, TAGS, type OrderStore } from './ports.js';
import type { OrderStatus } from '../orders/status.js';
import { syncAppHolds, type AppHoldDeps, type AppHoldOutcome } from './app-holds.js';

/**
 * What a Shopify order shows of its print status (its print-bridge tags and the `$app:print_status` metafield) is
 * derived from the link, never pushed as a sequence of changes: a sync reads the link when it runs and makes the order
 * show it. Syncs can therefore be repeated, dropped in favour of a later one, or run out of order, and the order still
 * ends up right. They run on their own queue so that Shopify's rate limit paces them without ever holding up a
 * submission.
 *
 * Shopify's query budget is the scarce thing (issue 17): a sync reads what the order shows (about 2 points) and writes
 * only what differs, every write of it in one request, and nothing at all when the order already shows the status.
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

/**
 * Statuses the printer usually moves on from within minutes: received (print-ready follows), partially shipped (the
 * order's other parcels follow). Showing one costs Shopify writes that the next status undoes, so a print event
 * leaving one of them asks for a later sync (Scheduler.syncShopify `settling`).
 */
const SETTLING: ReadonlySet<OrderStatus> = new Set<OrderStatus>(['received', 'partially-shipped']);

export function isSettling(status: OrderStatus): boolean {
  return SETTLING.has(status);
}

/** Statuses before the order reached the printer leave the metafield alone: nothing about the print to show yet. */
const UNSHOWN: ReadonlySet<OrderStatus> = new Set<OrderStatus>(['pending', 'waiting', 'submitting']);

const PROBLEM_TAGS: Record<string, string> = {
  'cancel-refused': TAGS.cancelRefused,
  'amend-refused': TAGS.error,
  'no-mapping': TAGS.needsMapping,
};

export const ALL_TAGS: readonly string[] = Object.values(TAGS);
const OURS = new Set(ALL_TAGS.map((t) => t.toLowerCase()));

export function desiredTags(link: OrderLink): string[] {
  const tags = new Set(STATUS_TAGS[link.status]);
  for (const problem of link.problems) {
    const tag = PROBLEM_TAGS[problem.kind];
    if (tag) tags.add(tag);
  }
  return [...tags].sort();
}

export interface PrintStatusValue {
  status: OrderStatus;
  at: string;
  sourceOrderId: string | null;
  printOrderId: string | null;
}

/** The `$app:print_status` value of a link; undefined while the order has not reached the printer. */
export function statusValue(link: OrderLink): PrintStatusValue | undefined {
  if (UNSHOWN.has(link.status)) return undefined;
  return { status: link.status, at: link.statusAt, sourceOrderId: link.sourceOrderId ?? null, printOrderId: link.printOrderId ?? null };
}

/**
 * What must be written for the order to show the link, given what it shows: tags are compared as Shopify does (case
 * aside); only the app's own tags are ever removed; the metafield is written when its value differs. Undefined when the
 * order shows the link already.
 */
export function statusChange(link: OrderLink, shown: StatusShown): StatusChange | undefined {
  const wanted = desiredTags(link);
  const wantedLower = new Set(wanted.map((t) => t.toLowerCase()));
  const has = new Set(shown.tags.map((t) => t.toLowerCase()));
  const addTags = wanted.filter((t) => !has.has(t.toLowerCase()));
  const removeTags = shown.tags.filter((t) => OURS.has(t.toLowerCase()) && !wantedLower.has(t.toLowerCase()));
  const value = statusValue(link);
  const status = value !== undefined && canonical(value) !== canonical(shown.status ?? null) ? value : undefined;
  if (addTags.length === 0 && removeTags.length === 0 && status === undefined) return undefined;
  return { addTags, removeTags, ...(status !== undefined ? { status } : {}) };
}

/** Whether two links show the same in Shopify (same tags, same metafield value). */
function showsSame(a: OrderLink, b: OrderLink): boolean {
  return desiredTags(a).join() === desiredTags(b).join() && canonical(statusValue(a) ?? null) === canonical(statusValue(b) ?? null);
}

export type SyncOutcome =
  | { kind: 'synced'; tags: string[]; version: number; wrote: boolean; hold?: AppHoldOutcome }
  | { kind: 'unknown-order' }
  | { kind: 'not-in-shopify' };

/**
 * Makes the Shopify order show the link; repeats until the link stops changing under it. Every writer re-reads the
 * link after writing, so a writer of an older status that wrote last sees the newer link and writes again: the order
 * converges on the newest link although each sync skips what the order showed when it read.
 */
export async function syncOrderToShopify(
  deps: { store: Pick<OrderStore, 'get'>; shopify: StatusShowing; holds?: AppHoldDeps },
  shop: string,
  orderId: string,
): Promise<SyncOutcome> {
  const outcome = await syncStatus(deps, shop, orderId);
  // print-bridge's own hold follows the same link (app-holds.ts): placed while it keeps the order back, released after.
  if (outcome.kind !== 'synced' || !deps.holds) return outcome;
  return { ...outcome, hold: await syncAppHolds(deps.holds, shop, orderId) };
}

async function syncStatus(deps: { store: Pick<OrderStore, 'get'>; shopify: StatusShowing }, shop: string, orderId: string): Promise<SyncOutcome> {
  let link = await deps.store.get(shop, orderId);
  if (!link) return { kind: 'unknown-order' };
  let shown: StatusShown | undefined;
  let wrote = false;
  for (let round = 0; round < 5; round++) {
    shown ??= (await deps.shopify.orderShows(shop, orderId)) ?? undefined;
    if (!shown) return { kind: 'not-in-shopify' };
    const change = statusChange(link, shown);
    // The order shows this link already: a newer link's writer syncs after it, reading the order after its change.
    if (!change) return { kind: 'synced', tags: desiredTags(link), version: link.version, wrote };
    await deps.shopify.showStatus(shop, orderId, change);
    wrote = true;
    const latest: OrderLink | undefined = await deps.store.get(shop, orderId);
    if (!latest || showsSame(latest, link)) return { kind: 'synced', tags: desiredTags(link), version: link.version, wrote };
    link = latest;
    // Someone may have written meanwhile: what the order shows is read again.
    shown = undefined;
  }
  return { kind: 'synced', tags: desiredTags(link), version: link.version, wrote };
}
