import { claimNamespace, ORDERS_VISIBLE_DAYS, pastShopifysWindow } from '../orders/model.js';
import { beginSubmission, clearProblems, moveTo, ofKind, replaceProblems, settleIn } from '../orders/transitions.js';
import { PrintServiceBadRequestError, PrintServiceError } from '../print-service/errors.js';
import { printStatusWord } from '../print-service/schema.js';
import { submitOrder } from '../print-service/submit.js';
import { type OrderWebhook, parseOrderWebhook } from '../shopify/order-webhook.js';
import { MappingProblemsError, OrderBusyError, OrderDataMissingError, OrderNotInShopYetError, OrderUnconfirmedError, PrintRefusedError } from './errors.js';
import { shippingAddressHash } from './webhooks/orders.js';
import type { OrderLink, Problem } from '../orders/model.js';
import type { BridgeDeps } from './ports.js';
import { canMove, isSubmittedStatus } from '../orders/status.js';
import { noMappingProblem, noPrintAccountProblem, storeNotConnectedProblem, testModeProblem, WAIT_KINDS } from './waiting-orders.js';
import type { PrintSetup } from '../shops/print-accounts.js';
import type { PrintServicePort } from './ports.js';
import type { PrintOrder } from '../print-service/schema.js';

export type SubmitShopifyOutcome =
  | { kind: 'submitted'; sourceOrderId: string; printOrderId: string; reconciled: boolean }
  | { kind: 'already-submitted'; sourceOrderId?: string; printOrderId?: string }
  | { kind: 'cancelled'; detail: string }
  /** Kept back until its store is connected or a mapping serves it; released by `reexamineWaitingOrders`. */
  | { kind: 'waiting'; reason: string }
  | { kind: 'not-printed'; reason: string };

/**
 * Maps the newest stored version of a Shopify order and submits it exactly once. Each step records what it did
 * before the next begins, so a job that dies anywhere and runs again picks up where it was: a create that may have
 * been sent is reconciled with get-by-source-id, never repeated blindly.
 */
export async function submitShopifyOrder(deps: BridgeDeps, shop: string, orderId: string): Promise<SubmitShopifyOutcome> {
  // One submit job at a time per order: two at once (a release after a mapping fix and a Retry, a resubmit and the
  // reconciliation) would each ask the printer while the other's create is in flight, find nothing, and both create.
  const key = `${orderId}#submit`;
  const lease = await deps.store.tryLease(shop, key, SUBMIT_LEASE_MS);
  if (!lease) throw new OrderBusyError(`order ${orderId} of ${shop} is being submitted by another job`, 2_000);
  const renew = setInterval(() => void deps.store.renewLease(shop, key, lease, SUBMIT_LEASE_MS).catch(() => undefined), SUBMIT_LEASE_MS / 3);
  try {
    return await submitOnce(deps, shop, orderId);
  } finally {
    clearInterval(renew);
    await deps.store.releaseLease(shop, key, lease).catch(() => undefined);
  }
}

/** How long a submit job's hold on its order lasts unrenewed: a dead worker's hold keeps the next job out this long. */
const SUBMIT_LEASE_MS = 15_000;

async function submitOnce(deps: BridgeDeps, shop: string, orderId: string): Promise<SubmitShopifyOutcome> {
  const link = await deps.store.get(shop, orderId);
  if (!link) throw new OrderDataMissingError(shop, orderId, 'the app has no record of this order');
  if (link.status === 'cancelled') return { kind: 'cancelled', detail: 'the order was cancelled before submission; nothing was sent' };
  if (isSubmittedStatus(link.status)) {
    await markSubmittedInShopify(deps, link);
    return { kind: 'already-submitted', sourceOrderId: link.sourceOrderId, printOrderId: link.printOrderId };
  }
  if (link.cancelRequested && link.status !== 'submitting') {
    await setStatus(deps, link, 'cancelled', 'cancelled in Shopify before submission; nothing was sent to the printer');
    return { kind: 'cancelled', detail: 'cancelled before submission' };
  }

  // A create that may have been sent is settled whatever changed since; anything else is sent only for a store the
  // app can act for (DESIGN section 9) and under a mapping that serves it.
  let setup: PrintSetup | undefined;
  if (link.status !== 'submitting') {
    const at = deps.clock().toISOString();
    if (!(await deps.connections.isConnected(shop))) return recordWait(deps, link, storeNotConnectedProblem(shop, at), false);
    if (!deps.mapping.settingsFor(shop)) return recordWait(deps, link, noMappingProblem(shop, at), true);
    setup = await deps.printAccounts.setupOf(shop);
    if (setup.account === 'none') return recordWait(deps, link, noPrintAccountProblem(shop, at), true);
  }

  const stored = await deps.store.getOrderBody(shop, orderId);
  if (!stored) throw new OrderDataMissingError(shop, orderId, 'the order body is not stored (it may have been redacted)');
  const parsedBody = parseOrderWebhook(stored.body);
  const orderName = link.orderName ?? orderId;
  const confirmedAt = link.shopConfirmedAt ?? (link.status === 'submitting' ? undefined : await confirmOrderOfShop(deps, link, parsedBody.ok ? parsedBody.order.created_at : undefined));
  if (confirmedAt === 'refused') return refuseOrderNotInShop(deps, link);
  const settings = deps.mapping.settingsFor(shop);
  if (link.status !== 'submitting' && parsedBody.ok && isFullyFulfilled(parsedBody.order)) {
    return markNotPrinted(deps, link, 'every line item is already fulfilled in Shopify (fulfillable quantity 0 on each), so nothing was sent to the printer');
  }
  const mapped = settings
    ? await deps.mapping.map(shop, stored.body)
    : { ok: false as const, problems: [{ mappingKind: 'no-mapping', message: `no mapping file serves ${shop} (add its domain to a file's shops, or a "*" file)` }] };

  if (!mapped.ok && link.status !== 'submitting' && mapped.problems.length > 0 && mapped.problems.every((p) => p.mappingKind === 'empty')) {
    return markNotPrinted(deps, link, mapped.problems.map((p) => p.message).join('; '));
  }
  if (!mapped.ok) {
    await recordProblems(deps, link, 'held', 'mapping', mapped.problems);
    throw new MappingProblemsError(orderName, mapped.problems);
  }
  // A public host name that resolves inside a network is held like any mapping problem (src/mapping/artwork-hosts.ts).
  const hostProblems = await deps.artworkHosts.problems(mapped.order, mapped.itemSubjects);
  if (hostProblems.length > 0) {
    await recordProblems(deps, link, 'held', 'mapping', hostProblems);
    throw new MappingProblemsError(orderName, hostProblems);
  }
  // The store's account names its printer: it wins over the mapping's destination (the account decides where it may send).
  const order = setup && setup.account !== 'none' && setup.destination ? { ...mapped.order, destination: { ...mapped.order.destination, name: setup.destination } } : mapped.order;
  const sourceOrderId = order.orderData.sourceOrderId;
  if (!sourceOrderId) {
    const problems = [{ subject: 'order.sourceOrderId', message: 'rendered empty; every order needs a sourceOrderId' }];
    await recordProblems(deps, link, 'held', 'mapping', problems);
    throw new MappingProblemsError(orderName, problems);
  }

  // Test mode creates nothing, so it claims nothing: a store trying its mapping can never hold back another's orders.
  if (setup && setup.account !== 'none' && setup.mode === 'test') return testRun(deps, link, setup.service, order, orderName);

  // The id must be this order's alone on the account it goes out with before anything reaches the printer.
  // The account the order goes out with: a create that may be out keeps its first attempt's; otherwise the store's now.
  const accountOf = (l: OrderLink) => (l.status === 'submitting' ? l.printAccount : setup && setup.account !== 'none' ? setup.account : l.printAccount);
  const claim = await deps.store.claimSourceOrderId(shop, orderId, sourceOrderId, claimNamespace(shop, accountOf(link)));
  if (!claim.ok) {
    // The owner is named only when it is this store's own order: another store's name is not this merchant's to see.
    const other = claim.owner.shop === shop ? `another order of this store (${claim.owner.orderId})` : 'another order on the same print account';
    if (claim.owner.shop !== shop) deps.logger.warn({ shop, orderId, sourceOrderId, owner: claim.owner }, 'sourceOrderId already claimed by another store\'s order on the same print account; held');
    const problems = [
      {
        subject: 'order.sourceOrderId',
        message: `${sourceOrderId} already belongs to ${other}; the mapping's sourceOrderId must be unique per store and order (include {{ shop.handle }} and {{ order.order_number }}), then resubmit`,
      },
    ];
    await recordProblems(deps, link, 'held', 'source-order-id', problems);
    throw new MappingProblemsError(orderName, problems);
  }

  if (settings?.validate && setup && setup.account !== 'none') {
    try {
      await setup.service.validate(order);
    } catch (error) {
      if (error instanceof PrintServiceBadRequestError) {
        const problems = error.serviceError.validations?.length
          ? error.serviceError.validations.map((v) => ({ subject: v.path, message: v.message }))
          : [{ message: error.serviceError.message }];
        await recordProblems(deps, link, 'error', 'validation', problems);
        throw new PrintRefusedError(`The print service found order ${orderName} invalid: ${problems.map((p) => p.message).join('; ')}`);
      }
      throw error;
    }
  }

  // Recorded before the create: if this process dies after sending, the next run knows to ask first.
  const { link: submitting } = await deps.store.update(shop, orderId, (current) => {
    if (!current || current.status === 'cancelled' || isSubmittedStatus(current.status)) return undefined;
    const begun = beginSubmission(current, deps.clock().toISOString());
    if (!begun) return undefined;
    return {
      link: {
        ...begun,
        sourceOrderId,
        submitAttempts: current.submitAttempts + 1,
        shipments: mapped.shipments.map((s) => ({ index: s.index, lineItems: s.lineItems, status: 'pending' as const })),
        sentShipToHash: parsedBody.ok ? shippingAddressHash(parsedBody.order) : undefined,
        // The account of this first attempt stays the order's: a retry, a cancel and the reconciliation use it.
        printAccount: accountOf(current),
        shopConfirmedAt: current.shopConfirmedAt ?? confirmedAt,
        problems: clearProblems(current, (p) => ofKind('mapping', 'validation', 'source-order-id')(p) || isWaitKind(p.kind)).problems,
      },
      history:
        current.status === 'submitting'
          ? [{ event: 'submission retried', source: 'worker' as const, detail: `attempt ${current.submitAttempts + 1}; asking the print service first` }]
          : [{ event: 'submitting', source: 'worker' as const, status: 'submitting' as const, detail: `as ${sourceOrderId}${mapped.leftOut.length ? `; left out: ${mapped.leftOut.map((l) => `${l.lineItemId} (${l.reason})`).join(', ')}` : ''}` }],
    };
  }, link);
  if (!submitting || submitting.status !== 'submitting') {
    return submitOnce(deps, shop, orderId);
  }
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
    const outcome = await submitOrder(service, order, { reconcileFirst });
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

async function markSubmittedInShopify(deps: BridgeDeps, link: OrderLink): Promise<void> {
  await deps.scheduler.syncShopify(link.shop, link.orderId);
}

async function setStatus(deps: BridgeDeps, link: OrderLink, status: 'cancelled', detail: string): Promise<void> {
  await deps.store.update(link.shop, link.orderId, (current) =>
    current && canMove(current.status, status)
      ? { link: moveTo(current, status, deps.clock().toISOString()).link, history: [{ event: status, source: 'worker', status, detail }] }
      : undefined,
  );
  await deps.scheduler.syncShopify(link.shop, link.orderId);
}

/** Keeps the reasons on the order for the merchant, and has the Shopify order tagged so the problem shows there too. */
export async function recordProblems(
  deps: BridgeDeps,
  link: OrderLink,
  status: 'held' | 'error',
  kind: string,
  problems: readonly { message: string; subject?: string }[],
): Promise<void> {
  const at = deps.clock().toISOString();
  const entries: Problem[] = problems.map((p) => ({ kind, message: p.message, subject: p.subject, at }));
  await deps.store.update(link.shop, link.orderId, (current) => {
    if (!current) return undefined;
    const { link: settled, moved } = settleIn(current, status, at);
    return {
      // Reaching this step means the store is connected and a mapping serves it: those waits are over.
      link: replaceProblems(settled, (p) => p.kind === kind || isWaitKind(p.kind), entries),
      history: [
        {
          event: kind === 'mapping' ? 'held: mapping problems' : `${kind} failed`,
          source: 'worker',
          status: moved ? status : undefined,
          detail: problems.map((p) => (p.subject ? `${p.subject}: ${p.message}` : p.message)).join('; '),
        },
      ],
    };
  });
  await deps.scheduler.syncShopify(link.shop, link.orderId);
}

function isWaitKind(kind: string): boolean {
  return (Object.values(WAIT_KINDS) as string[]).includes(kind);
}

/**
 * The order waits for something outside it (its store connected, a mapping for its store). A pending order moves to
 * `waiting`; a held or errored one (resubmitted meanwhile) keeps its status and gains the reason. Either way the job
 * ends without error: nothing failed, and `reexamineWaitingOrders` releases the order when the condition is gone.
 */
async function recordWait(deps: BridgeDeps, link: OrderLink, problem: Problem, syncTags: boolean): Promise<SubmitShopifyOutcome> {
  const { changed } = await deps.store.update(link.shop, link.orderId, (current) => {
    if (!current || isSubmittedStatus(current.status) || current.status === 'cancelled' || current.status === 'submitting' || current.status === 'not-printed') return undefined;
    const { link: next, moved } = moveTo(current, 'waiting', problem.at);
    const known = current.problems.some((p) => p.kind === problem.kind);
    if (known && (!moved || current.status === 'waiting')) return undefined;
    return {
      link: replaceProblems(next, ofKind(problem.kind), [problem]),
      history: [{ event: `waiting: ${problem.kind.replace(/-/g, ' ')}`, source: 'worker', status: moved ? 'waiting' : undefined, detail: `nothing was sent to the printer: ${problem.message}` }],
    };
  });
  if (changed && syncTags) await deps.scheduler.syncShopify(link.shop, link.orderId);
  deps.logger.info({ shop: link.shop, orderId: link.orderId, reason: problem.kind }, 'order waits; nothing sent to the printer');
  return { kind: 'waiting', reason: problem.kind };
}

/** How long after an order was placed Shopify's Admin API may not show it yet (asked again meanwhile). */
const ORDER_VISIBLE_WITHIN_MS = 120_000;

/**
 * The shop header of a webhook is not signed (DESIGN section 9): the order is this store's only if the store's own
 * Admin API shows it. Returns when it did; `refused` for an order the store does not have (another store's body under
 * this store's domain). Moments after an order was placed Shopify is asked again; an order older than Shopify lets
 * the app see cannot be confirmed and is held with the reason (never refused for good: its body is kept).
 */
async function confirmOrderOfShop(deps: BridgeDeps, link: OrderLink, createdAt: string | null | undefined): Promise<string | 'refused'> {
  const orderName = link.orderName ?? link.orderId;
  if (await deps.shopify.orderInShop(link.shop, link.orderId)) return deps.clock().toISOString();
  const placedAt = Date.parse(createdAt ?? '');
  const age = Number.isFinite(placedAt) ? deps.clock().getTime() - placedAt : Number.NaN;
  if (age < ORDER_VISIBLE_WITHIN_MS) throw new OrderNotInShopYetError(link.shop, orderName);
  if (pastShopifysWindow(placedAt, deps.clock().getTime())) {
    const problems = [{ message: `Shopify shows the app only the last ${ORDERS_VISIBLE_DAYS} days of orders, so it could not confirm that order ${orderName} is ${link.shop}'s; nothing was sent to the printer` }];
    await recordProblems(deps, link, 'held', 'order-unconfirmed', problems);
    throw new OrderUnconfirmedError(orderName, problems[0]!.message);
  }
  return 'refused';
}

/**
 * The store has no such order: never printed, recorded on the link with the reason, and the body (another store's
 * customer and address) deleted. Nothing is written in Shopify: the store has no order to write to.
 */
async function refuseOrderNotInShop(deps: BridgeDeps, link: OrderLink): Promise<SubmitShopifyOutcome> {
  const reason = `${link.shop}'s Shopify admin has no order ${link.orderId}: the webhook was not this store's (a signed body of another store re-sent with this store's domain). Nothing was sent to the printer and the body was not kept.`;
  await deps.store.update(link.shop, link.orderId, (current) => {
    if (!current || current.notInShopAt) return undefined;
    const at = deps.clock().toISOString();
    const { link: next, moved } = moveTo(current, 'not-printed', at);
    return {
      link: { ...clearProblems(next, (p) => isWaitKind(p.kind)), notPrintedReason: moved ? reason : current.notPrintedReason, notInShopAt: at },
      history: [{ event: 'refused: not an order of this store', source: 'worker', status: moved ? 'not-printed' : undefined, detail: reason }],
    };
  });
  await deps.store.deleteOrderBody(link.shop, link.orderId);
  deps.logger.warn({ shop: link.shop, orderId: link.orderId }, 'order webhook for an order the store does not have (replayed under another store\'s domain?); refused, nothing sent');
  return { kind: 'not-printed', reason };
}

/** Nothing of the order is for the printer: a final state with the reason, not a problem to fix. */
async function markNotPrinted(deps: BridgeDeps, link: OrderLink, reason: string): Promise<SubmitShopifyOutcome> {
  const { changed } = await deps.store.update(link.shop, link.orderId, (current) =>
    current && canMove(current.status, 'not-printed')
      ? {
          link: {
            ...clearProblems(moveTo(current, 'not-printed', deps.clock().toISOString()).link, (p) => p.kind === 'mapping' || isWaitKind(p.kind)),
            notPrintedReason: reason,
          },
          history: [{ event: 'not printed', source: 'worker', status: 'not-printed', detail: reason }],
        }
      : undefined,
  );
  if (changed) await deps.scheduler.syncShopify(link.shop, link.orderId);
  deps.logger.info({ shop: link.shop, orderId: link.orderId, reason }, 'nothing to print; nothing sent');
  return { kind: 'not-printed', reason };
}

/**
 * Shopify already has the whole order fulfilled (by the merchant, another app or an earlier print): every line item
 * says `fulfillable_quantity` 0. Bodies without the field (older payloads, tests) are never taken for fulfilled.
 */
export function isFullyFulfilled(order: OrderWebhook): boolean {
  const lines = order.line_items as (OrderWebhook['line_items'][number] & { fulfillable_quantity?: unknown })[];
  if ((order as { fulfillment_status?: unknown }).fulfillment_status === 'fulfilled') return true;
  return lines.length > 0 && lines.every((l) => l.fulfillable_quantity === 0);
}

/**
 * Test mode: the mapped order is validated at the print service (never created), and the order waits with what would
 * have been sent and the service's verdict, until the store goes live. Run again, it records the newest verdict.
 */
async function testRun(deps: BridgeDeps, link: OrderLink, service: PrintServicePort, order: PrintOrder, orderName: string): Promise<SubmitShopifyOutcome> {
  let problems: { subject?: string; message: string }[] = [];
  try {
    await service.validate(order);
  } catch (error) {
    if (!(error instanceof PrintServiceBadRequestError)) throw error;
    problems = error.serviceError.validations?.length
      ? error.serviceError.validations.map((v) => ({ subject: v.path, message: v.message }))
      : [{ message: error.serviceError.message }];
  }
  const at = deps.clock().toISOString();
  const valid = problems.length === 0;
  // Recorded first: whoever sees the test run on the order sees the checklist's step done too.
  if (valid) await deps.printAccounts.recordTestValidated?.(link.shop);
  const wait = testModeProblem(link.shop, at, valid);
  const validation = problems.map((p) => ({ kind: 'validation', subject: p.subject, message: p.message, at }));
  await deps.store.update(link.shop, link.orderId, (current) => {
    if (!current || isSubmittedStatus(current.status) || current.status === 'cancelled' || current.status === 'submitting' || current.status === 'not-printed') return undefined;
    const { link: next, moved } = moveTo(current, 'waiting', at);
    return {
      link: { ...replaceProblems(next, ofKind(WAIT_KINDS.testMode, 'validation', 'mapping'), [wait, ...validation]), testRun: { at, valid, order, problems: problems.map((p) => (p.subject ? `${p.subject}: ${p.message}` : p.message)) } },
      history: [
        {
          event: 'waiting: test mode',
          source: 'worker',
          status: moved ? 'waiting' : undefined,
          detail: valid
            ? `the print service found ${order.orderData.sourceOrderId ?? orderName} valid; nothing was created`
            : `the print service refused it, nothing was created: ${problems.map((p) => (p.subject ? `${p.subject}: ${p.message}` : p.message)).join('; ')}`,
        },
      ],
    };
  });
  deps.logger.info({ shop: link.shop, orderId: link.orderId, valid }, 'test mode: order validated at the print service, nothing created');
  return { kind: 'waiting', reason: WAIT_KINDS.testMode };
}
