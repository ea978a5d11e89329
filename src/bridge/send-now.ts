import { resubmitOrder, retryOrder, type OperatorActionDeps, type OperatorActionInput, type OperatorActionOutcome } from './operator-actions.js';

/**
 * "Send to the printer now". Temporary: a held order is resubmitted with the current mapping and any other order
 * goes through the retry (a waiting order is looked at again, a stuck one gets a new submit job).
 */
export async function sendOrderNow(deps: OperatorActionDeps, input: OperatorActionInput): Promise<OperatorActionOutcome> {
  const link = await deps.store.get(input.shop, input.orderId);
  if (!link) return { kind: 'not-found', message: `no order ${input.orderId} of ${input.shop}` };
  return link.status === 'held' ? resubmitOrder(deps, input) : retryOrder(deps, input);
}
