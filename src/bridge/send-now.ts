import { clearProblems, moveTo, ofKind } from '../orders/transitions.js';
import { isSubmittedStatus } from '../orders/status.js';
import { checkGuard, log, refuse, resubmitOrder, retryOrder, type OperatorActionDeps, type OperatorActionInput, type OperatorActionOutcome } from './operator-actions.js';
import { hasProblem, WAIT_KINDS } from './waiting-problems.js';

/**
 * "Send to the printer now": the merchant ends print-bridge's own wait for an order (its edit window, the submit topic
 * not come yet, Shopify's risk recommendation) and it goes out at once; a risk recommendation it was shown is passed for
 * good (`sendAnyway`), while one not read yet (an order sent in its edit window) is still waited on.
 * Shopify's holds are not print-bridge's to pass: they are released in Shopify, and the order then goes out by itself.
 * A held or errored order is resubmitted; one that waits for its store or a mapping is looked at again. Idempotent:
 * an order already sent answers so, and nothing is sent twice (the submit job settles by source id).
 */
export async function sendOrderNow(deps: OperatorActionDeps, input: OperatorActionInput): Promise<OperatorActionOutcome> {
  const link = await deps.store.get(input.shop, input.orderId);
  const guard = checkGuard(link, input);
  if (guard) return guard;
  const current = link!;
  const name = current.orderName ?? current.orderId;
  if (current.status === 'submitting' || isSubmittedStatus(current.status)) return { kind: 'done', message: `${name} is already at the printer (${current.status}).` };
  if (current.status === 'cancelled' || current.status === 'not-printed') return refuse(deps, input, 'send now', `${name} is ${current.status}; there is nothing to send.`);
  if (current.status === 'held' || current.status === 'error') return resubmitOrder(deps, input);
  if (hasProblem(current, WAIT_KINDS.shopifyHold)) {
    const hold = current.problems.find((p) => p.kind === WAIT_KINDS.shopifyHold)!;
    return refuse(deps, input, 'send now', `${name} is held in Shopify (${hold.message.replace(/\. Nothing was sent.*$/, '')}). Release the hold in Shopify: the order then goes to the printer by itself.`);
  }
  if (hasProblem(current, WAIT_KINDS.testMode)) return refuse(deps, input, 'send now', `${input.shop} is in test mode: nothing is created at the printer until the store goes live (Settings → Go live).`);
  // Waits that end by themselves when the store is connected, a mapping serves it or an account is set: looked at now.
  if (current.status === 'waiting' && !hasProblem(current, WAIT_KINDS.risk)) return retryOrder(deps, input);

  const at = deps.clock().toISOString();
  const { link: updated, changed } = await deps.store.update(input.shop, input.orderId, (c) => {
    if (!c || c.version !== current.version || (c.status !== 'pending' && c.status !== 'waiting')) return undefined;
    const waited = c.status === 'waiting' ? 'Shopify\'s risk recommendation' : c.submitAfter && Date.parse(c.submitAfter) > Date.parse(at) ? `the edit window (until ${c.submitAfter})` : 'its submit topic';
    // Only a risk recommendation the merchant was shown is passed for good: the risk of an order sent in its edit window
    // (a person in a hurry, a workflow sending every order) is not known yet, and is still waited on when it is read.
    const overruled = c.status === 'waiting' ? { sendAnyway: { at, by: input.actor } } : {};
    return {
      link: { ...clearProblems(c.status === 'waiting' ? moveTo(c, 'pending', at).link : c, ofKind(WAIT_KINDS.risk)), submitAfter: at, ...overruled },
      history: [{ event: 'sent now', source: 'operator', status: c.status === 'waiting' ? 'pending' : undefined, detail: `${input.actor}: no longer waits for ${waited}; submitting now` }],
    };
  });
  if (!changed || !updated) return { kind: 'stale', message: `${name} changed meanwhile; nothing was done. Look again and repeat if still needed.` };
  await deps.scheduler.submit(input.shop, input.orderId, 0, updated.version);
  log(deps, input, 'send now', 'done');
  return { kind: 'done', message: `${name} goes to the printer now.` };
}
