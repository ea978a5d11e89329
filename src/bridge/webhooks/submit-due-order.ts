import type { OrderLink } from '../../orders/model.js';
import { MappingProblemsError, OrderUnconfirmedError, PrintRefusedError, retryHintOf } from '../errors.js';
import type { BridgeDeps, SubmitSettings } from '../ports.js';
import { type KnownOrder, submitShopifyOrder } from '../submit-shopify-order.js';
import type { WebhookOutcome } from './outcome.js';

/**
 * An order due now is submitted within the webhook job that found it due (BridgeDeps.submitDueOrdersInline, issue 27:
 * a submit job, a read of the order and of its body, and a parse of the body less per order).
 *
 * Only the plain case runs here, and it fails fast: one create, no wait between tries (a printer's brownout would
 * otherwise hold the webhook queue's slots, shared by every store's cancellations, uninstalls and redactions). A store
 * in test mode, a mapping that validates first, or anything that may pass with time is left to the submit job, which
 * has the retries, the backoff and the reconciliation by sourceOrderId. A refusal that will not pass and is already
 * recorded on the order (held for the mapping, refused by the printer, unconfirmable) ends here: a submit job would
 * only do the same work to fail the same way. Any other permanent failure goes to the submit job too, which fails with
 * it where an operator sees it, as before.
 */
export async function submitDueOrder(
  deps: BridgeDeps,
  link: OrderLink,
  body: KnownOrder['body'],
  settings: SubmitSettings,
): Promise<WebhookOutcome | { retryInMs: number }> {
  if (settings.validate) return { retryInMs: 0 };
  try {
    const setup = await deps.printAccounts.setupOf(link.shop);
    if (setup.account === 'none' || setup.mode === 'test') return { retryInMs: 0 };
    const outcome = await submitShopifyOrder(deps, link.shop, link.orderId, { link, body }, { createAttempts: 1 });
    return { kind: 'submission', orderId: link.orderId, outcome: outcome.kind };
  } catch (error) {
    if (RECORDED_REFUSALS.some((kind) => error instanceof kind)) {
      deps.logger.warn({ shop: link.shop, orderId: link.orderId, reason: (error as Error).message }, 'order not submitted; the reason is on the order');
      return { kind: 'not-submitted', orderId: link.orderId, reason: (error as Error).message };
    }
    deps.logger.debug({ shop: link.shop, orderId: link.orderId, err: error }, 'inline submission did not complete; the submit job takes it');
    // The wait the failure asked for (another job holds the order, Shopify does not show it yet, the printer's
    // Retry-After), else at once.
    const hint = retryHintOf(error);
    const wait = hint.retryInMs ?? hint.retryAfterMs ?? 0;
    return { retryInMs: wait > 0 ? wait : 0 };
  }
}

/** Permanent refusals the submission records on the order (a problem with what to do) before it throws them. */
const RECORDED_REFUSALS = [MappingProblemsError, PrintRefusedError, OrderUnconfirmedError] as const;
