import { moveTo, ofKind, replaceProblems } from '../orders/transitions.js';
import { isServiceError } from '../print-service/client.js';
import { PrintServiceBadRequestError, PrintServiceNotFoundError } from '../print-service/errors.js';
import { OrderBusyError } from './errors.js';
import type { OrderLink } from '../orders/model.js';
import type { BridgeDeps } from './ports.js';
import { pastShopifysWindow } from '../orders/model.js';
import { canMove, isSubmittedStatus } from '../orders/status.js';

export type CancelOutcome =
  | { kind: 'cancelled'; atPrinter: boolean }
  | { kind: 'already-cancelled' }
  | { kind: 'refused'; reason: string };

/**
 * Carries a Shopify cancellation to the printer. Before submission nothing needs sending; while a create is in
 * flight the job waits (retries) for it to settle; after, the print service decides, and a refusal (already printing,
 * shipped) is shown on the Shopify order as a tag and a note.
 */
export async function cancelPrintOrder(deps: BridgeDeps, shop: string, orderId: string): Promise<CancelOutcome> {
  const link = await deps.store.get(shop, orderId);
  const outcome = await cancelOnce(deps, shop, orderId, link);
  // In fulfillment-service mode a cancellation request (recorded before this job was queued) waits for this outcome
  // for its answer (fulfillment-requests.ts).
  if (link?.fulfillmentRequest?.fulfillmentOrders.some((fo) => fo.cancellation === 'requested')) await deps.scheduler.answerFulfillmentRequests(shop, orderId);
  return outcome;
}

async function cancelOnce(deps: BridgeDeps, shop: string, orderId: string, link: OrderLink | undefined): Promise<CancelOutcome> {
  if (!link || link.status === 'cancelled') return { kind: 'already-cancelled' };
  if (link.status === 'submitting') {
    throw new OrderBusyError(`Order ${link.orderName ?? orderId} is being submitted; the cancellation waits for the submission to settle.`);
  }
  if (!isSubmittedStatus(link.status) && !link.printOrderId) {
    await markCancelled(deps, shop, orderId, 'cancelled before submission; nothing was sent to the printer');
    return { kind: 'cancelled', atPrinter: false };
  }
  if (!link.sourceOrderId) return { kind: 'refused', reason: 'no sourceOrderId recorded' };
  if (!(await isOrderOfShop(deps, link))) return refuseNotInShop(deps, shop, orderId, 'cancellation');

  try {
    await (await deps.printAccounts.forOrder(link.shop, link.printAccount)).cancel(link.sourceOrderId);
  } catch (error) {
    if (isServiceError(error, 'OrderAlreadyCancelled')) {
      await markCancelled(deps, shop, orderId, 'the print service already had it cancelled');
      return { kind: 'cancelled', atPrinter: true };
    }
    if (error instanceof PrintServiceBadRequestError || error instanceof PrintServiceNotFoundError) {
      const reason = error instanceof PrintServiceBadRequestError ? error.serviceError.message : error.message;
      await deps.store.update(shop, orderId, (current) =>
        current
          ? {
              link: replaceProblems(current, ofKind('cancel-refused'), [
                { kind: 'cancel-refused', message: `The print service refused the cancellation: ${reason}`, at: deps.clock().toISOString() },
              ]),
              history: [{ event: 'cancellation refused by the print service', source: 'print-service', detail: reason }],
            }
          : undefined,
      );
      await deps.scheduler.syncShopify(shop, orderId);
      await deps.scheduler.noteShopify(shop, orderId, `print-bridge: the print service refused the cancellation (${reason}). The order may still be produced and shipped.`);
      return { kind: 'refused', reason };
    }
    throw error;
  }
  await markCancelled(deps, shop, orderId, `cancelled at the print service (${link.sourceOrderId})`);
  return { kind: 'cancelled', atPrinter: true };
}

async function markCancelled(deps: BridgeDeps, shop: string, orderId: string, detail: string): Promise<void> {
  await deps.store.update(shop, orderId, (current) =>
    current && canMove(current.status, 'cancelled')
      ? {
          link: moveTo(current, 'cancelled', deps.clock().toISOString()).link,
          history: [{ event: 'cancelled', source: 'worker', status: 'cancelled', detail }],
        }
      : undefined,
  );
  await deps.scheduler.syncShopify(shop, orderId);
}

/**
 * A webhook's shop header is not signed: a cancellation or address change acts at the printer only for an order of
 * the store. One confirmed at its submission is; one sent before the app confirmed orders is asked about, unless it is
 * older than Shopify lets the app see (it was printed for this store then, and cancelling it is what the store asks).
 */
export async function isOrderOfShop(deps: BridgeDeps, link: OrderLink): Promise<boolean> {
  if (link.shopConfirmedAt) return true;
  if (await deps.shopify.orderInShop(link.shop, link.orderId)) return true;
  return pastShopifysWindow(Date.parse(link.createdAt), deps.clock().getTime());
}

/** Recorded on the order; nothing changes at the printer (DESIGN section 9). */
export async function refuseNotInShop(deps: BridgeDeps, shop: string, orderId: string, what: 'cancellation' | 'address change'): Promise<{ kind: 'refused'; reason: string }> {
  const reason = `${shop}'s Shopify admin has no order ${orderId}; the ${what} was not sent to the printer`;
  await deps.store.note(shop, orderId, { event: `${what} refused: not an order of this store`, source: 'worker', detail: reason });
  deps.logger.warn({ shop, orderId }, `${what} for an order the store does not have; refused, nothing sent`);
  return { kind: 'refused', reason };
}
