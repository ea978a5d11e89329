import { moveTo } from '../orders/transitions.js';
import { PrintServiceError } from '../print-service/errors.js';
import { printStatusWord } from '../print-service/schema.js';
import { submitOrder } from '../print-service/submit.js';
import { PrintRefusedError } from './errors.js';
import type { OrderLink } from '../orders/model.js';
import type { BridgeDeps } from './ports.js';
import { canMove } from '../orders/status.js';
import type { PrintOrder } from '../print-service/schema.js';
import type { SubmitShopifyOutcome } from './submit-shopify-order.js';
import { recordProblems } from './submission-problems.js';

/**
 * Sends an order recorded as `submitting` to the print service: one create, or, when an earlier attempt may have
 * reached it, get-by-source-id first (submitOrder); then records it `submitted` with the print `_id`.
 */
export async function sendPrintOrder(
  deps: BridgeDeps,
  submitting: OrderLink,
  order: PrintOrder,
  sourceOrderId: string,
  orderName: string,
  /** Creates sent before giving up (default: the client's retry policy). */
  createAttempts?: number,
): Promise<SubmitShopifyOutcome> {
  const { shop, orderId } = submitting;
  // Read from the link this run just counted itself into, not the one it started from: of two jobs that started from
  // the same link, the second to get here sees an attempt before its own and asks the print service first.
  const reconcileFirst = submitting.submitAttempts > 1;
  if (submitting.cancelRequested) {
    return settleCancelledSubmission(deps, submitting, sourceOrderId, orderName);
  }

  let printOrderId: string;
  let reconciled = false;
  try {
    const service = await deps.printAccounts.forOrder(shop, submitting.printAccount);
    const outcome = await submitOrder(service, order, { reconcileFirst, ...(createAttempts ? { maxAttempts: createAttempts } : {}) });
    if (outcome.kind === 'created') {
      printOrderId = outcome.acknowledgement._id;
    } else {
      printOrderId = outcome.order._id;
      reconciled = true;
    }
  } catch (error) {
    if (error instanceof PrintServiceError && !error.retryable) {
      const message = error.message;
      await recordProblems(deps, submitting, 'error', 'submission', [{ message }]);
      throw new PrintRefusedError(`Order ${orderName} was refused by the print service: ${message}`);
    }
    throw error;
  }

  const { link: submitted } = await deps.store.update(shop, orderId, (current) => {
    const step = current && moveTo(current, 'submitted', deps.clock().toISOString());
    if (!current || !step?.moved) {
      // A postback may already have moved it on; only fill in the ids.
      return current && !current.printOrderId ? { link: { ...current, printOrderId } } : undefined;
    }
    return {
      link: { ...step.link, printOrderId },
      history: [
        {
          event: 'submitted',
          source: 'worker',
          status: 'submitted',
          detail: reconciled
            ? `the print service already had ${sourceOrderId} (_id ${printOrderId}); nothing new was created`
            : `acknowledged as _id ${printOrderId}`,
        },
      ],
    };
  }, submitting);
  const finalLink = submitted ?? submitting;
  await deps.store.indexPrintOrderId({ ...finalLink, printOrderId });
  if (finalLink.cancelRequested) await deps.scheduler.cancel(shop, orderId);
  await markSubmittedInShopify(deps, finalLink);
  deps.logger.info({ sourceOrderId, printOrderId, reconciled }, 'order submitted to the print service');
  return { kind: 'submitted', sourceOrderId, printOrderId, reconciled };
}

/**
 * A cancellation arrived while a submission was under way (its job failing and retrying, say). Nothing new is sent:
 * if an earlier attempt's create reached the print service, that order is linked and cancelled there; if not, the
 * order is cancelled here and the print service never hears of it.
 */
async function settleCancelledSubmission(deps: BridgeDeps, link: OrderLink, sourceOrderId: string, orderName: string): Promise<SubmitShopifyOutcome> {
  const existing = link.submitAttempts > 1 ? await (await deps.printAccounts.forOrder(link.shop, link.printAccount)).findBySourceId(sourceOrderId) : null;
  const live = existing && printStatusWord(existing.status) !== 'submissionerror' ? existing : null;
  if (!live) {
    await deps.store.update(link.shop, link.orderId, (current) =>
      current && current.status === 'submitting'
        ? {
            link: moveTo(current, 'cancelled', deps.clock().toISOString()).link,
            history: [{ event: 'cancelled', source: 'worker', status: 'cancelled', detail: `cancelled while being submitted; the print service has no order ${sourceOrderId}, nothing was sent` }],
          }
        : undefined,
    );
    await deps.scheduler.syncShopify(link.shop, link.orderId);
    return { kind: 'cancelled', detail: 'cancelled while being submitted; nothing was sent' };
  }
  await deps.store.update(link.shop, link.orderId, (current) =>
    current && canMove(current.status, 'submitted')
      ? {
          link: { ...moveTo(current, 'submitted', deps.clock().toISOString()).link, printOrderId: live._id },
          history: [{ event: 'submitted', source: 'worker', status: 'submitted', detail: `an earlier attempt reached the print service as _id ${live._id}; cancelling it there` }],
        }
      : undefined,
  );
  const linked = (await deps.store.get(link.shop, link.orderId)) ?? link;
  await deps.store.indexPrintOrderId({ ...linked, printOrderId: live._id });
  await deps.scheduler.cancel(link.shop, link.orderId);
  deps.logger.info({ sourceOrderId, printOrderId: live._id }, `order ${orderName} was cancelled while being submitted; cancelling it at the print service`);
  return { kind: 'submitted', sourceOrderId, printOrderId: live._id, reconciled: true };
}

export async function markSubmittedInShopify(deps: BridgeDeps, link: OrderLink): Promise<void> {
  await deps.scheduler.syncShopify(link.shop, link.orderId);
}
