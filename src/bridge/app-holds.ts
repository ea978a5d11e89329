import type { Logger } from 'pino';
import type { OrderLink } from '../orders/model.js';
import { readOrderJson } from '../orders/shopify-order.js';
import { ShopifyUserError } from '../shopify/admin-api.js';
import { appHoldNotes, storeTimeOf, type StoreTime } from './app-hold-notes.js';
import { appHoldChanges, noChanges, printedLineItemIds } from './app-hold-plan.js';
import type { OrderStore } from './ports.js';
import type { FulfillmentOrderHolds } from './shopify-data.js';

/**
 * print-bridge's own waits shown in Shopify as a fulfillment hold of the app's (handle `print-bridge`, reason OTHER,
 * the wait in `reasonNotes`) on the fulfillment orders it will print, in merchant-managed stores whose switch is on
 * (`shops holds DOMAIN on|off`, default on). Run with each sync of the order (shopify-sync.ts), so it follows every
 * change of the link: derived from the link when it runs (app-hold-notes.ts), compared with what Shopify shows
 * (app-hold-plan.ts), and only the difference written. Repeated, it places nothing twice: Shopify is read first, and a
 * hold already there with the same notes is left as it is.
 */

export interface AppHoldsPort {
  /** Whether the store shows print-bridge's waits as holds: its switch is on and it is merchant-managed. */
  shown(shop: string): Promise<boolean>;
  /** The order's fulfillment orders with their holds; null when the store has no such order. */
  read(shop: string, orderId: string): Promise<FulfillmentOrderHolds[] | null>;
  place(shop: string, fulfillmentOrderId: string, reasonNotes: string): Promise<{ id: string }>;
  /** Releases exactly the holds named. */
  release(shop: string, fulfillmentOrderId: string, holdIds: readonly string[]): Promise<void>;
}

export interface AppHoldDeps {
  store: Pick<OrderStore, 'get' | 'update' | 'getOrderBody'>;
  appHolds: AppHoldsPort;
  clock: () => Date;
  logger: Logger;
}

export type AppHoldOutcome =
  /** Nothing to hold and nothing of the app's held: Shopify was not asked. */
  | { kind: 'none' }
  | { kind: 'in-line'; notes?: string }
  | { kind: 'changed'; notes?: string; placed: number; released: number }
  /** Shopify refused the hold (FULFILLMENT_ORDER_HOLD_LIMIT_REACHED): recorded, not asked again for these notes. */
  | { kind: 'refused'; message: string }
  | { kind: 'not-in-shopify' };

/** Refusals that say the hold cannot be placed however often it is asked. */
const REFUSED_FOR_GOOD = 'FULFILLMENT_ORDER_HOLD_LIMIT_REACHED';

export async function syncAppHolds(deps: AppHoldDeps, shop: string, orderId: string): Promise<AppHoldOutcome> {
  let placed = 0;
  let released = 0;
  // Each round reads the link and the fulfillment orders afresh: a hold another writer placed or a link that moved
  // meanwhile is taken as it is then. Five rounds settle any race this can meet; a later sync finishes the rest.
  for (let round = 0; round < 5; round++) {
    const link = await deps.store.get(shop, orderId);
    if (!link) return { kind: 'none' };
    // Whether the link calls for a hold at all is known from it alone: most syncs (an order at the printer, without a
    // hold of the app's) end here, with no read of the store's switch or of the order's body.
    const wanted = appHoldNotes(link, deps.clock()) !== undefined;
    if (!wanted && !link.appHold) return round === 0 ? { kind: 'none' } : { kind: 'changed', placed, released };
    const notes = wanted && (await deps.appHolds.shown(shop)) ? appHoldNotes(link, deps.clock(), await storeTime(deps, link)) : undefined;
    if (notes === undefined && !link.appHold) return round === 0 ? { kind: 'none' } : { kind: 'changed', placed, released };
    if (notes !== undefined && link.appHold?.refused && link.appHold.notes === notes) return { kind: 'refused', message: link.appHold.refused };
    const fulfillmentOrders = await deps.appHolds.read(shop, orderId);
    if (!fulfillmentOrders) return { kind: 'not-in-shopify' };
    const changes = appHoldChanges(notes, printedLineItemIds(link), fulfillmentOrders);
    if (noChanges(changes)) {
      await recordHold(deps, link, notes);
      return placed + released > 0 ? { kind: 'changed', notes, placed, released } : { kind: 'in-line', notes };
    }
    // Recorded before it is placed: a job that dies after Shopify's answer still knows there is a hold to release.
    if (changes.place.length > 0) await recordHold(deps, link, notes);
    let settled = true;
    for (const change of changes.release) {
      settled = (await attempt(() => deps.appHolds.release(shop, change.fulfillmentOrderId, change.holdIds))) && settled;
      released += change.holdIds.length;
    }
    for (const change of changes.place) {
      const refusal = await attemptPlace(deps, shop, change.fulfillmentOrderId, change.reasonNotes);
      if (refusal === undefined) {
        placed += 1;
        continue;
      }
      if (refusal.code === REFUSED_FOR_GOOD) {
        await recordRefusal(deps, link, change.reasonNotes, refusal.message);
        deps.logger.warn({ shop, orderId, fulfillmentOrderId: change.fulfillmentOrderId, refusal: refusal.message }, "Shopify refused print-bridge's hold");
        return { kind: 'refused', message: refusal.message };
      }
      // A hold of ours already there (DUPLICATE_FULFILLMENT_HOLD_HANDLE: a retry after an unknown outcome, another
      // job), or a fulfillment order that moved on: the next round reads what Shopify holds now.
      settled = false;
    }
    if (settled) {
      const latest = await deps.store.get(shop, orderId);
      const still = latest && (await deps.appHolds.shown(shop)) ? appHoldNotes(latest, deps.clock(), await storeTime(deps, latest)) : undefined;
      if (latest && still === notes) {
        if (notes === undefined) await recordHold(deps, latest, undefined);
        return { kind: 'changed', notes, placed, released };
      }
    }
  }
  return { kind: 'changed', placed, released };
}

/** The store's zone, for "until 14:30 (store time)": Shopify writes the order's `created_at` with the store's offset. */
async function storeTime(deps: AppHoldDeps, link: OrderLink): Promise<StoreTime | undefined> {
  if (link.status !== 'pending' || !link.submitAfter) return undefined;
  const stored = await deps.store.getOrderBody(link.shop, link.orderId);
  if (!stored) return undefined;
  try {
    const createdAt = (readOrderJson(stored.body) as { created_at?: unknown }).created_at;
    return storeTimeOf(typeof createdAt === 'string' ? createdAt : undefined);
  } catch {
    return undefined;
  }
}

async function attempt(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    // Shopify refused the release (the hold is gone already, the fulfillment order moved on): read again.
    if (error instanceof ShopifyUserError) return false;
    throw error;
  }
}

async function attemptPlace(deps: AppHoldDeps, shop: string, fulfillmentOrderId: string, notes: string): Promise<{ code: string; message: string } | undefined> {
  try {
    await deps.appHolds.place(shop, fulfillmentOrderId, notes);
    return undefined;
  } catch (error) {
    if (!(error instanceof ShopifyUserError)) throw error;
    const first = error.userErrors[0];
    return { code: first?.code ?? '', message: first?.message ?? error.message };
  }
}

/** The link's record of the app's hold: its notes while one is wanted, none once none is left in Shopify. */
async function recordHold(deps: AppHoldDeps, link: OrderLink, notes: string | undefined): Promise<void> {
  if (notes === undefined ? !link.appHold : link.appHold?.notes === notes && !link.appHold.refused) return;
  await deps.store.update(link.shop, link.orderId, (current) => {
    if (!current) return undefined;
    if (notes === undefined) {
      if (!current.appHold) return undefined;
      const { appHold: _gone, ...rest } = current;
      return { link: rest, history: [{ event: "print-bridge's hold released in Shopify", source: 'worker' }] };
    }
    if (current.appHold?.notes === notes && !current.appHold.refused) return undefined;
    return {
      link: { ...current, appHold: { notes, at: deps.clock().toISOString() } },
      history: [{ event: "print-bridge's hold in Shopify", source: 'worker', detail: notes }],
    };
  }, link);
}

async function recordRefusal(deps: AppHoldDeps, link: OrderLink, notes: string, message: string): Promise<void> {
  await deps.store.update(link.shop, link.orderId, (current) =>
    current
      ? {
          link: { ...current, appHold: { notes, at: deps.clock().toISOString(), refused: message } },
          history: [{ event: "Shopify refused print-bridge's hold", source: 'worker', detail: message }],
        }
      : undefined,
  );
}
