import { claimNamespace } from '../orders/model.js';
import { beginSubmission, clearProblems, moveTo, ofKind } from '../orders/transitions.js';
import { PrintServiceBadRequestError } from '../print-service/errors.js';
import { parseOrderWebhook, type ParsedOrderWebhook } from '../shopify/order-webhook.js';
import { MappingProblemsError, OrderBusyError, OrderDataMissingError, PrintRefusedError } from './errors.js';
import { shippingAddressHash } from '../shopify/order-webhook.js';
import type { OrderLink } from '../orders/model.js';
import type { BridgeDeps } from './ports.js';
import { canMove, isSubmittedStatus } from '../orders/status.js';
import { noMappingProblem, noPrintAccountProblem, storeNotConnectedProblem } from './waiting-orders.js';
import type { PrintSetup } from '../shops/print-accounts.js';
import { confirmOrderOfShop, isFullyFulfilled, markNotPrinted, recordWait, refuseOrderNotInShop } from './submission-checks.js';
import { isWaitKind, recordProblems } from './submission-problems.js';
import { testRun } from './submit-test-mode.js';
import { markSubmittedInShopify, sendPrintOrder } from './send-print-order.js';
import { pendingRequests } from '../orders/service-request.js';
import { awaitFulfillmentRequest, bodyToMap, rejectPendingRequests } from './service-submission.js';
import { shopifyWait, waitForShopify } from './shopify-wait.js';
import { resolveHoldPolicy } from './shopify-holds.js';
import { waitsForShopify } from './waiting-problems.js';

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
export async function submitShopifyOrder(deps: BridgeDeps, shop: string, orderId: string, known?: KnownOrder, options: SubmitRunOptions = {}): Promise<SubmitShopifyOutcome> {
  // One submit job at a time per order: two at once (a release after a mapping fix and a Retry, a resubmit and the
  // reconciliation) would each ask the printer while the other's create is in flight, find nothing, and both create.
  const key = `${orderId}#submit`;
  const lease = await deps.store.tryLease(shop, key, SUBMIT_LEASE_MS);
  if (!lease) throw new OrderBusyError(`order ${orderId} of ${shop} is being submitted by another job`, 2_000);
  const renew = setInterval(() => void deps.store.renewLease(shop, key, lease, SUBMIT_LEASE_MS).catch(() => undefined), SUBMIT_LEASE_MS / 3);
  try {
    return await submitOnce(deps, shop, orderId, known, options);
  } finally {
    clearInterval(renew);
    await deps.store.releaseLease(shop, key, lease).catch(() => undefined);
  }
}

/**
 * What the caller already holds of the order (the webhook job that found it due: issue 27), so the submission does not
 * read it again. The link is only a first guess: every write is compare-and-set on its version. The body is given only
 * when it is the newest stored one (the caller just stored it as the newest).
 */
export interface KnownOrder {
  link: OrderLink;
  body?: { body: string; parsed: ParsedOrderWebhook };
}

export interface SubmitRunOptions {
  /** Creates sent before giving up (default: the client's retry policy); the inline submission sends one. */
  createAttempts?: number;
}

/** How long a submit job's hold on its order lasts unrenewed: a dead worker's hold keeps the next job out this long. */
const SUBMIT_LEASE_MS = 15_000;

async function submitOnce(deps: BridgeDeps, shop: string, orderId: string, known?: KnownOrder, options: SubmitRunOptions = {}): Promise<SubmitShopifyOutcome> {
  const link = known?.link.shop === shop && known.link.orderId === orderId ? known.link : await deps.store.get(shop, orderId);
  if (!link) throw new OrderDataMissingError(shop, orderId, 'the app has no record of this order');
  if (link.status === 'cancelled') return { kind: 'cancelled', detail: 'the order was cancelled before submission; nothing was sent' };
  if (isSubmittedStatus(link.status)) {
    await markSubmittedInShopify(deps, link);
    if (pendingRequests(link.fulfillmentRequest).length > 0) await deps.scheduler.answerFulfillmentRequests(shop, orderId);
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
    // An order waiting for Shopify reads its store's set-up afresh: the store may have just stopped waiting for that
    // hold, in another process (the Settings page), and a read this process kept would send it back to wait for hours.
    setup = await deps.printAccounts.setupOf(shop, waitsForShopify(link) ? { fresh: true } : undefined);
    if (setup.account === 'none') return recordWait(deps, link, noPrintAccountProblem(shop, at), true);
    if (setup.fulfillmentLocation && pendingRequests(link.fulfillmentRequest).length === 0) return awaitFulfillmentRequest(deps, link);
  }

  const stored = known?.body ?? (await deps.store.getOrderBody(shop, orderId));
  if (!stored) throw new OrderDataMissingError(shop, orderId, 'the order body is not stored (it may have been redacted)');
  const parsedBody = known?.body?.parsed ?? parseOrderWebhook(stored.body);
  const orderName = link.orderName ?? orderId;
  // Read before every attempt that may send: the order's store is confirmed once, but its holds come and go.
  const confirmed = link.status === 'submitting' ? undefined : await confirmOrderOfShop(deps, link, parsedBody.ok ? parsedBody.order.created_at : undefined);
  if (confirmed === 'refused') return refuseOrderNotInShop(deps, link);
  const confirmedAt = link.shopConfirmedAt ?? confirmed?.at;
  const settings = deps.mapping.settingsFor(shop);
  if (link.status !== 'submitting' && parsedBody.ok && isFullyFulfilled(parsedBody.order)) {
    return markNotPrinted(deps, link, 'every line item is already fulfilled in Shopify (fulfillable quantity 0 on each), so nothing was sent to the printer');
  }
  const mapped = settings
    ? await deps.mapping.map(shop, bodyToMap(link, stored.body))
    : { ok: false as const, problems: [{ mappingKind: 'no-mapping', message: `no mapping file serves ${shop} (add its domain to a file's shops, or a "*" file)` }] };

  if (!mapped.ok && link.status !== 'submitting') await rejectPendingRequests(deps, link, 'mapping', mapped.problems);
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
    await rejectPendingRequests(deps, link, 'mapping', hostProblems);
    await recordProblems(deps, link, 'held', 'mapping', hostProblems);
    throw new MappingProblemsError(orderName, hostProblems);
  }
  // Shopify's holds and risk recommendation, in merchant-managed mode: in service mode Shopify requests no held
  // fulfillment order of the app, and what it requests is the merchant's decision to fulfil.
  if (confirmed && settings && !setup?.fulfillmentLocation) {
    const printedLines = mapped.shipments.flatMap((s) => s.lineItems.map((l) => l.lineItemId));
    const { policy } = resolveHoldPolicy(setup?.holdPolicy, settings.holdPolicy);
    const wait = await shopifyWait(deps, link, confirmed.standing, policy, printedLines);
    if (wait) return waitForShopify(deps, link, wait);
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
  if (setup && setup.account !== 'none' && setup.mode === 'test') {
    const outcome = await testRun(deps, link, setup.service, order, orderName);
    await rejectPendingRequests(deps, link, 'test-mode', []);
    return outcome;
  }

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
    await rejectPendingRequests(deps, link, 'mapping', problems);
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
        await rejectPendingRequests(deps, link, 'validation', problems);
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
    return submitOnce(deps, shop, orderId, undefined, options);
  }
  const sent = await sendPrintOrder(deps, submitting, order, sourceOrderId, orderName, options.createAttempts);
  // The print service has the order: Shopify's requests for it are accepted now (fulfillment-requests.ts).
  if (submitting.fulfillmentRequest) await deps.scheduler.answerFulfillmentRequests(shop, orderId);
  return sent;
}

async function setStatus(deps: BridgeDeps, link: OrderLink, status: 'cancelled', detail: string): Promise<void> {
  await deps.store.update(link.shop, link.orderId, (current) =>
    current && canMove(current.status, status)
      ? { link: moveTo(current, status, deps.clock().toISOString()).link, history: [{ event: status, source: 'worker', status, detail }] }
      : undefined,
  );
  await deps.scheduler.syncShopify(link.shop, link.orderId);
}
