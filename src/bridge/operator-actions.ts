import { clearProblems, moveTo, ofKind, replaceProblems } from '../orders/transitions.js';
import type { Logger } from 'pino';
import { printStatusWord } from '../print-service/schema.js';
import type { OrderLink } from '../orders/model.js';
import type { ConnectionsPort, MappingPort, Scheduler, OrderStore } from './ports.js';
import type { PrintAccountsPort } from '../shops/print-accounts.js';
import { canMove } from '../orders/status.js';
import { CHANGED_AFTER_SUBMISSION } from '../orders/printed-lines.js';
import { hasProblem, reexamineOrder, storeNotConnectedProblem, WAIT_KINDS } from './waiting-orders.js';

/**
 * What an operator (or a merchant on the embedded pages) can do to one order: resubmit, retry, cancel. Each action
 * is idempotent, guarded by the version of the order the person was looking at (a double click or a stale page
 * changes nothing), and leaves an entry with `source: 'operator'` in the order's history whatever its outcome.
 */

export interface OperatorActionDeps {
  store: Pick<OrderStore, 'get' | 'update' | 'note' | 'getOrderBody' | 'history' | 'listOfShop' | 'listQuietSince'>;
  mapping: MappingPort;
  printAccounts: Pick<PrintAccountsPort, 'forOrder' | 'setupOf'>;
  scheduler: Pick<Scheduler, 'submit' | 'cancel' | 'syncShopify'>;
  /** Whether the app can act for the store in Shopify; nothing of a store it cannot is sent. */
  connections: ConnectionsPort;
  /** The order's BullMQ jobs that failed for good (retry). */
  failedJobs: FailedJobsPort;
  logger: Logger;
  clock: () => Date;
}

export interface FailedJob {
  queue: string;
  id: string;
  name: string;
  failedReason: string;
  /** Epoch ms of the final failure. */
  failedAt: number;
  retry(): Promise<void>;
}

export interface FailedJobsPort {
  /** Failed jobs that act on this order, newest first. */
  forOrder(shop: string, orderId: string): Promise<FailedJob[]>;
}

export interface OperatorActionInput {
  shop: string;
  orderId: string;
  /** The order's `version` the person saw; a different current version refuses the action as stale. */
  expectedVersion?: number;
  /** Who, for the history and the log (never a secret): "operator" or the shop viewer's user. */
  actor: string;
}

export type OperatorActionOutcome =
  | { kind: 'done'; message: string }
  | { kind: 'refused'; message: string }
  | { kind: 'stale'; message: string }
  | { kind: 'not-found'; message: string };

/** Statuses a resubmit accepts: nothing usable is at the printer and the order waits for a person (or was left out). */
export const RESUBMITTABLE = ['held', 'error', 'not-printed'] as const;
/** Statuses a retry accepts: a submission that may be stuck or whose job failed for good, or an order that waits. */
export const RETRYABLE = ['pending', 'waiting', 'submitting'] as const;
const CANCELLABLE_EXCLUDED = ['cancelled', 'shipped', 'partially-shipped'];

/** Problem kinds a resubmit replaces: the next attempt reports afresh whatever still fails. */
const STALE_ON_RESUBMIT = new Set(['mapping', 'validation', 'submission', 'submission-error', 'print-error']);


/**
 * Re-maps a held or failed order with the mapping in force now and submits it again through the normal submit job.
 *
 * The printer is asked first under the sourceOrderId the current mapping gives, because a create with a
 * sourceOrderId the printer already has is a duplicate there:
 * - it has nothing, or only failed submissions (`submissionerror`, which do not block a new create): the next
 *   create is a new one. `submitAttempts` goes back to 0 so the submit job does not mistake the failed record for
 *   the order ("already submitted") and stop.
 * - it has a live order (received, printing, shipped): nothing is created; the submit job links that order.
 * - it has the order errored or cancelled: refused, because another create would be refused as a duplicate; the
 *   person is told to deal with it at the printer or to cancel.
 */
export async function resubmitOrder(deps: OperatorActionDeps, input: OperatorActionInput): Promise<OperatorActionOutcome> {
  const link = await deps.store.get(input.shop, input.orderId);
  const guard = checkGuard(link, input);
  if (guard) return guard;
  const current = link!;
  const name = current.orderName ?? current.orderId;
  if (!(RESUBMITTABLE as readonly string[]).includes(current.status)) {
    return refuse(deps, input, 'resubmit', `${name} is ${current.status}; only held or errored orders are resubmitted.`);
  }
  if (!(await deps.connections.isConnected(input.shop))) {
    return refuse(deps, input, 'resubmit', `${input.shop} is not connected: ${storeNotConnectedProblem(input.shop, '').message}`);
  }
  const stored = await deps.store.getOrderBody(input.shop, input.orderId);
  if (!stored) return refuse(deps, input, 'resubmit', `the Shopify order body of ${name} is not stored (it may have been redacted); resend its webhook.`);

  const mapped = deps.mapping.settingsFor(input.shop)
    ? await deps.mapping.map(input.shop, stored.body)
    : { ok: false as const, problems: [{ message: `no mapping file serves ${input.shop}` } as { message: string; subject?: string; mappingKind?: string }] };
  if (current.status === 'not-printed' && !mapped.ok && mapped.problems.every((p) => p.mappingKind === 'empty')) {
    return refuse(deps, input, 'resubmit', `the current mapping still finds nothing to print in ${name}: ${mapped.problems.map((p) => p.message).join('; ')}`);
  }
  const sourceOrderId = mapped.ok ? mapped.order.orderData.sourceOrderId : undefined;
  if (!mapped.ok || !sourceOrderId) {
    const problems = mapped.ok ? [{ subject: 'order.sourceOrderId', message: 'rendered empty; every order needs a sourceOrderId' }] : mapped.problems;
    const at = deps.clock().toISOString();
    const detail = problems.map((p) => (p.subject ? `${p.subject}: ${p.message}` : p.message)).join('; ');
    await deps.store.update(input.shop, input.orderId, (c) =>
      c
        ? {
            link: replaceProblems(c, ofKind('mapping'), problems.map((p) => ({ kind: 'mapping', message: p.message, subject: p.subject, at }))),
            history: [{ event: 'resubmit by operator: the current mapping still cannot map it', source: 'operator', detail: `${input.actor}: ${detail}` }],
          }
        : undefined,
    );
    log(deps, input, 'resubmit', 'still-held');
    return { kind: 'refused', message: `${name} still cannot be mapped: ${detail}` };
  }

  let freshCreate = current.submitAttempts === 0;
  let printerNote = 'nothing was sent before';
  // A mapping whose sourceOrderId template changed would look for the order under its new id only, and create it a
  // second time while the printer still holds it under the old one.
  if (current.sourceOrderId && current.sourceOrderId !== sourceOrderId && (current.submitAttempts > 0 || current.printOrderId)) {
    const previous = await (await deps.printAccounts.forOrder(current.shop, current.printAccount)).findBySourceId(current.sourceOrderId);
    if (previous && printStatusWord(previous.status) !== 'submissionerror') {
      return refuse(
        deps,
        input,
        'resubmit',
        `the print service still has this order as ${current.sourceOrderId} (_id ${previous._id}, ${previous.status ?? 'unknown status'}), and the current mapping would send it again as ${sourceOrderId}. Cancel it at the print service first, or keep the mapping's sourceOrderId as it was.`,
      );
    }
  }
  if (current.submitAttempts > 0 || current.printOrderId) {
    const existing = await (await deps.printAccounts.forOrder(current.shop, current.printAccount)).findBySourceId(sourceOrderId);
    const status = printStatusWord(existing?.status);
    if (!existing) {
      freshCreate = true;
      printerNote = `the print service has no order ${sourceOrderId}; a new one is created`;
    } else if (status === 'submissionerror') {
      freshCreate = true;
      printerNote = `the print service only has a failed submission of ${sourceOrderId} (_id ${existing._id}); a new one is created`;
    } else if (status === 'errored' || status === 'cancelled') {
      return refuse(
        deps,
        input,
        'resubmit',
        `the print service already has ${sourceOrderId} (_id ${existing._id}, ${existing.status}); another create with this sourceOrderId would be refused as a duplicate. Deal with it at the print service, or cancel the order here.`,
      );
    } else {
      freshCreate = false;
      printerNote = `the print service already has ${sourceOrderId} (_id ${existing._id}, ${existing.status ?? 'unknown status'}); it is linked, nothing new is created`;
    }
  }

  const { link: updated, changed } = await deps.store.update(input.shop, input.orderId, (c) => {
    if (!c || c.version !== current.version) return undefined;
    return {
      link: {
        ...clearProblems(c, (p) => STALE_ON_RESUBMIT.has(p.kind)),
        ...(freshCreate ? { submitAttempts: 0, printOrderId: undefined } : {}),
      },
      history: [{ event: 'resubmitted by operator', source: 'operator', detail: `${input.actor}: re-mapped with the current mapping as ${sourceOrderId}; ${printerNote}` }],
    };
  });
  if (!changed || !updated) return { kind: 'stale', message: `${name} changed meanwhile; nothing was done. Look again and repeat if still needed.` };
  // A new generation per resubmit: the job id of an earlier submit (kept after it ran) must not swallow this one.
  await deps.scheduler.submit(input.shop, input.orderId, 0, updated.version);
  log(deps, input, 'resubmit', 'done', { sourceOrderId, freshCreate });
  return { kind: 'done', message: `${name} was re-mapped and queued for submission as ${sourceOrderId} (${printerNote}).` };
}

/**
 * Runs an order's failed jobs again (a submission that gave up while the printer was unreachable, a Shopify sync
 * that ran out of attempts). An order stuck in pending or submitting without a failed job gets a new submit job.
 * Held and errored orders are resubmitted instead: that path re-maps and asks the printer first.
 */
export async function retryOrder(deps: OperatorActionDeps, input: OperatorActionInput): Promise<OperatorActionOutcome> {
  const link = await deps.store.get(input.shop, input.orderId);
  const guard = checkGuard(link, input);
  if (guard) return guard;
  const current = link!;
  const name = current.orderName ?? current.orderId;
  // An order that waits (its store, a mapping, its submit topic) is looked at again now, as the event that ends the
  // wait would; if the wait is over it goes out, else the answer says what it still waits for.
  const waits = current.status === 'waiting' || hasProblem(current, WAIT_KINDS.storeNotConnected) || (current.status === 'pending' && !current.submitAfter);
  if (waits) {
    const verdict = await reexamineOrder(deps, current, { cause: `retry by ${input.actor}`, remap: true });
    if (verdict.kind === 'released' || verdict.kind === 'scheduled') {
      await deps.store.note(input.shop, input.orderId, { event: 'retried by operator', source: 'operator', detail: `${input.actor}: ${verdict.message}` });
      log(deps, input, 'retry', 'done', { released: verdict.kind });
      return { kind: 'done', message: verdict.message };
    }
    return refuse(deps, input, 'retry', waitingMessage(current, verdict.message));
  }
  if ((RESUBMITTABLE as readonly string[]).includes(current.status)) {
    return refuse(deps, input, 'retry', `${name} is ${current.status}: use Resubmit, which re-maps it and asks the print service first.`);
  }
  // A failure from before the order's last status change is history (e.g. the submit that failed while it was held).
  const failed = (await deps.failedJobs.forOrder(input.shop, input.orderId)).filter((j) => j.failedAt >= Date.parse(current.statusAt));
  if (failed.length > 0) {
    for (const job of failed) await job.retry();
    const detail = failed.map((j) => `${j.queue}/${j.name} (${j.failedReason})`).join('; ');
    await deps.store.note(input.shop, input.orderId, { event: 'failed jobs retried by operator', source: 'operator', detail: `${input.actor}: ${detail}` });
    log(deps, input, 'retry', 'done', { jobs: failed.length });
    return { kind: 'done', message: `${failed.length} failed job(s) of ${name} run again.` };
  }
  if (!(RETRYABLE as readonly string[]).includes(current.status)) {
    return refuse(deps, input, 'retry', `${name} is ${current.status} and has no failed job; there is nothing to retry.`);
  }
  // A pending order not yet due is not stuck: sending it now would skip what the mapping asks to wait for.
  if (current.status === 'pending' && current.submitAfter && Date.parse(current.submitAfter) > deps.clock().getTime()) {
    return refuse(deps, input, 'retry', `${name} is in its hold window until ${current.submitAfter}; it is sent then.`);
  }
  const { link: updated, changed } = await deps.store.update(input.shop, input.orderId, (c) =>
    c && c.version === current.version
      ? { link: c, history: [{ event: 'submission retried by operator', source: 'operator', detail: `${input.actor}: a new submit job (the submit step asks the print service first when a create may have been sent)` }] }
      : undefined,
  );
  if (!changed || !updated) return { kind: 'stale', message: `${name} changed meanwhile; nothing was done.` };
  await deps.scheduler.submit(input.shop, input.orderId, 0, updated.version);
  log(deps, input, 'retry', 'done', { jobs: 0 });
  return { kind: 'done', message: `${name} was queued for submission again.` };
}

/**
 * An operator's cancellation. It goes through the cancel job like a Shopify cancellation (the printer decides once
 * it has the order), except for an errored order the printer only has as failed submissions: nothing is being
 * produced and the printer refuses to cancel such a record, so it is cancelled here.
 */
export async function cancelOrderByOperator(deps: OperatorActionDeps, input: OperatorActionInput): Promise<OperatorActionOutcome> {
  const link = await deps.store.get(input.shop, input.orderId);
  const guard = checkGuard(link, input);
  if (guard) return guard;
  const current = link!;
  const name = current.orderName ?? current.orderId;
  if (CANCELLABLE_EXCLUDED.includes(current.status)) {
    return refuse(deps, input, 'cancel', `${name} is ${current.status}; it can no longer be cancelled.`);
  }
  let nothingAtPrinter = false;
  if (current.status === 'error' && current.sourceOrderId) {
    const existing = await (await deps.printAccounts.forOrder(current.shop, current.printAccount)).findBySourceId(current.sourceOrderId);
    nothingAtPrinter = !existing || printStatusWord(existing.status) === 'submissionerror';
  }
  const at = deps.clock().toISOString();
  const { changed } = await deps.store.update(input.shop, input.orderId, (c) => {
    if (!c || c.version !== current.version) return undefined;
    const cancelRequested = c.cancelRequested ?? { at, by: 'operator' as const };
    if (nothingAtPrinter && canMove(c.status, 'cancelled')) {
      return {
        link: { ...moveTo(c, 'cancelled', at).link, cancelRequested },
        history: [{ event: 'cancelled by operator', source: 'operator', status: 'cancelled', detail: `${input.actor}: the print service has no live order for ${c.sourceOrderId} (only failed submissions), so nothing is produced` }],
      };
    }
    return {
      link: { ...c, cancelRequested },
      history: [{ event: 'cancellation requested by operator', source: 'operator', detail: `${input.actor}: carried to the print service by the cancel job` }],
    };
  });
  if (!changed) return { kind: 'stale', message: `${name} changed meanwhile; nothing was done.` };
  if (nothingAtPrinter) await deps.scheduler.syncShopify(input.shop, input.orderId);
  else await deps.scheduler.cancel(input.shop, input.orderId);
  log(deps, input, 'cancel', 'done', { nothingAtPrinter });
  return { kind: 'done', message: nothingAtPrinter ? `${name} was cancelled.` : `Cancellation of ${name} was requested; the print service decides.` };
}

/**
 * "Keep as sent": the merchant saw that printed lines changed in Shopify after submission (a refund or an edit) and
 * lets the printer ship what it has. The problem leaves the order; the history keeps who decided and when.
 */
export async function keepAsSent(deps: OperatorActionDeps, input: OperatorActionInput): Promise<OperatorActionOutcome> {
  const link = await deps.store.get(input.shop, input.orderId);
  const guard = checkGuard(link, input);
  if (guard) return guard;
  const name = link!.orderName ?? link!.orderId;
  if (!hasProblem(link!, CHANGED_AFTER_SUBMISSION)) return refuse(deps, input, 'keep', `${name} has no change after submission to keep.`);
  const { changed } = await deps.store.update(input.shop, input.orderId, (c) =>
    c && c.version === link!.version && hasProblem(c, CHANGED_AFTER_SUBMISSION)
      ? {
          link: clearProblems(c, ofKind(CHANGED_AFTER_SUBMISSION)),
          history: [{ event: 'kept as sent', source: 'operator', detail: `${input.actor}: the printer ships the order as it was sent, whatever changed in Shopify since` }],
        }
      : undefined,
  );
  if (!changed) return { kind: 'stale', message: `${name} changed meanwhile; nothing was done.` };
  await deps.scheduler.syncShopify(input.shop, input.orderId);
  log(deps, input, 'keep', 'done');
  return { kind: 'done', message: `${name} is kept as sent: the printer ships what it has.` };
}

/** A refusal that says what the order still waits for and what ends the wait. */
function waitingMessage(link: OrderLink, verdict: string): string {
  if (hasProblem(link, WAIT_KINDS.storeNotConnected)) return `${verdict} Connect the store (install the app, or run print-bridge shops add ${link.shop} --token <token>); the order then goes out by itself.`;
  if (hasProblem(link, WAIT_KINDS.noMapping)) return `${verdict} Add a mapping file that serves ${link.shop}; the order is then mapped and sent by itself.`;
  return `${verdict} It is sent when that webhook arrives.`;
}

export function checkGuard(link: OrderLink | undefined, input: OperatorActionInput): OperatorActionOutcome | undefined {
  if (!link) return { kind: 'not-found', message: `no order ${input.orderId} of ${input.shop}` };
  if (input.expectedVersion !== undefined && link.version !== input.expectedVersion) {
    return { kind: 'stale', message: `${link.orderName ?? link.orderId} changed since the page was loaded; nothing was done. Look again and repeat if still needed.` };
  }
  return undefined;
}

/** A refusal is recorded too: the history shows who tried what and why it did not happen. */
export async function refuse(deps: OperatorActionDeps, input: OperatorActionInput, action: string, message: string): Promise<OperatorActionOutcome> {
  await deps.store.note(input.shop, input.orderId, { event: `${action} by operator refused`, source: 'operator', detail: `${input.actor}: ${message}` });
  log(deps, input, action, 'refused');
  return { kind: 'refused', message };
}

export function log(deps: OperatorActionDeps, input: OperatorActionInput, action: string, outcome: string, extra: Record<string, unknown> = {}): void {
  deps.logger.info({ action, outcome, shop: input.shop, orderId: input.orderId, actor: input.actor, ...extra }, 'operator action');
}
