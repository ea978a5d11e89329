import { clearProblems, moveTo, ofKind, replaceProblems } from '../orders/transitions.js';
import type { PrintEvent } from '../print-service/postback.js';
import type { OrderLink, Problem } from '../orders/model.js';
import { isSettling, syncOrderToShopify } from './shopify-sync.js';
import type { OrderStatus } from '../orders/status.js';
import type { ApplyPrintEventDeps, ApplyPrintEventOutcome } from './apply-print-event.js';
import { describe, eventTime } from './print-event-history.js';

/**
 * The print events that move the order's status (received, print ready, errored, a submission error, cancelled), and
 * how the order shows its status in Shopify after any event.
 */

export const DUPLICATE_SUBMISSION = /duplicate|already exists/i;

/** Moves the status when it is forward, records the event either way. */
async function moveStatus(
  deps: ApplyPrintEventDeps,
  link: OrderLink,
  event: PrintEvent,
  status: OrderStatus,
  change: (current: OrderLink, moved: boolean) => OrderLink = (c) => c,
): Promise<{ link: OrderLink; moved: boolean; from: OrderStatus }> {
  let moved = false;
  let from: OrderStatus = link.status;
  const at = eventTime(deps, event);
  const { link: stored } = await deps.store.update(link.shop, link.orderId, (current) => {
    if (!current) return undefined;
    from = current.status;
    // `error` is the one side exit an order can leave (canMove), so there the order of events matters: an event the
    // printer sent before the current status was reached cannot move the order in or out of error.
    const older = event.timestamp !== undefined && Date.parse(event.timestamp) < Date.parse(current.statusAt);
    const allowed = !(older && (current.status === 'error' || status === 'error'));
    const step = allowed ? moveTo(current, status, at) : { link: current, moved: false };
    moved = step.moved;
    return {
      link: change(step.link, moved),
      history: [
        {
          event: `print service: ${event.kind}${moved ? '' : ` (kept ${current.status})`}`,
          source: 'print-service',
          status: moved ? status : undefined,
          detail: describe(event) || undefined,
        },
      ],
    };
  });
  return { link: stored ?? link, moved, from };
}

/**
 * The order shows its print status in Shopify (tags and metafield) by the rule every writer uses (shopify-sync.ts),
 * so events in any order, repeats and other jobs' syncs all converge. With `showStatusLater` it is left to a sync job,
 * where the events of one order close together are shown once.
 */
export async function showInShopify(deps: ApplyPrintEventDeps, link: OrderLink): Promise<void> {
  if (deps.showStatusLater) {
    await deps.showStatusLater(link.shop, link.orderId, { settling: isSettling(link.status) });
    return;
  }
  await syncOrderToShopify({ store: deps.store, shopify: deps.shopify }, link.shop, link.orderId);
}

export async function progress(
  deps: ApplyPrintEventDeps,
  link: OrderLink,
  event: PrintEvent,
  status: 'received' | 'print-ready',
): Promise<ApplyPrintEventOutcome> {
  const result = await moveStatus(deps, link, event, status, (c, moved) =>
    // Progress at the printer clears what its earlier failure reported.
    moved ? clearProblems(c, ofKind('print-error', 'submission-error')) : c,
  );
  await showInShopify(deps, result.link);
  return { kind: 'status', status: result.link.status, moved: result.moved };
}

export async function failure(deps: ApplyPrintEventDeps, link: OrderLink, event: PrintEvent): Promise<ApplyPrintEventOutcome> {
  const messages = event.errors.length > 0 ? event.errors : [event.kind === 'errored' ? 'the print service reported the order errored' : 'the print service reported a submission error'];
  if (event.kind === 'submission-error' && messages.some((m) => DUPLICATE_SUBMISSION.test(m))) {
    // A resubmission the printer refused because it has the order: the order is there, nothing failed.
    const detail = `the print service already has ${event.sourceOrderId ?? link.sourceOrderId}: ${messages.join('; ')}`;
    await deps.store.note(link.shop, link.orderId, { event: 'print service: duplicate submission refused (already there)', source: 'print-service', detail });
    return { kind: 'already-there', detail };
  }
  const kind = event.kind === 'errored' ? 'print-error' : 'submission-error';
  const at = eventTime(deps, event);
  const problems: Problem[] = messages.map((message) => ({ kind, message, at }));
  // A problem belongs to the error status it comes with: an "errored" that cannot move the order (it shipped
  // meanwhile, or the event is older than the current status) is kept in the history only, never as a stale problem.
  const result = await moveStatus(deps, link, event, 'error', (c, moved) =>
    moved || c.status === 'error' ? replaceProblems(c, ofKind(kind), problems) : c,
  );
  if (result.moved) await showInShopify(deps, result.link);
  return { kind: 'status', status: result.link.status, moved: result.moved };
}

export async function cancelled(deps: ApplyPrintEventDeps, link: OrderLink, event: PrintEvent): Promise<ApplyPrintEventOutcome> {
  const ours = link.cancelRequested !== undefined && link.cancelRequested.by !== 'print-service';
  const at = eventTime(deps, event);
  const result = await moveStatus(deps, link, event, 'cancelled', (c) => ({
    ...c,
    cancelRequested: c.cancelRequested ?? { at, by: 'print-service' },
  }));
  if (!result.moved && result.link.status !== 'cancelled') {
    return { kind: 'unchanged', detail: `a ${result.link.status} order cannot be cancelled; the event is in the history` };
  }
  await showInShopify(deps, result.link);
  await deps.shopify.appendOrderNote(
    link.shop,
    link.orderId,
    ours
      ? `print-bridge: the print service confirmed the cancellation of ${link.sourceOrderId ?? 'this order'}.`
      : `print-bridge: ${link.sourceOrderId ?? 'this order'} was cancelled at the print service; nothing will be fulfilled by print-bridge.`,
  );
  return { kind: 'status', status: result.link.status, moved: result.moved };
}
