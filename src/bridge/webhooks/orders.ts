import { normaliseTime, type Mutation, type OrderLink } from '../../orders/model.js';
import { readOrderJson } from '../../orders/shopify-order.js';
import { canMove, isSubmittedStatus } from '../../orders/status.js';
import { moveTo, ofKind, replaceProblems } from '../../orders/transitions.js';
import { type OrderWebhook, parseOrderWebhook, shippingAddressHash } from '../../shopify/order-webhook.js';
import type { WebhookJob } from '../jobs.js';
import { isOwnWriteEcho } from '../own-writes.js';
import type { BridgeDeps } from '../ports.js';
import { noMappingProblem, SUBMIT_TOPICS, WAIT_KINDS } from '../waiting-orders.js';
import type { WebhookOutcome } from './outcome.js';
import { addedPrintedLines, currentQuantities, noticePrintedLineChanges } from './printed-lines-changed.js';
import { submitDueOrder } from './submit-due-order.js';

export { shippingAddressHash } from '../../shopify/order-webhook.js';

/**
 * orders/create, orders/paid, orders/updated and orders/cancelled: one use case, as the four carry the same order body.
 * The newest body is kept (by updated_at), the submission scheduled on the mapping's topic after its hold window, a
 * cancellation carried to the printer, an address change after submission sent on.
 */
export async function handleOrderWebhook(deps: BridgeDeps, job: WebhookJob): Promise<WebhookOutcome> {
  const parsed = parseOrderWebhook(job.body);
  if (!parsed.ok) {
    // A signed body we cannot read will not read better next time; the failed job shows it to an operator.
    throw Object.assign(new Error(`${job.topic} webhook ${job.webhookId} from ${job.shop} is not an order body: ${parsed.message}`), {
      retryable: false,
    });
  }
  const order = parsed.order;
  const orderId = order.admin_graphql_api_id;
  const shop = job.shop;
  const updatedAt = order.updated_at ?? order.created_at ?? job.receivedAt;
  if (job.topic === 'orders/updated') {
    // The app's own tag, note and metafield writes come back as orders/updated: nothing to store or record.
    const stored = await deps.store.getOrderBody(shop, orderId);
    if (stored && isOwnWriteEcho(readOrderJson(stored.body), parsed.raw)) return { kind: 'own-write', orderId };
  }
  const [{ newest: isNewest, link: before }] = await Promise.all([deps.store.saveOrderBodyAndRead(shop, orderId, updatedAt, job.body), deps.store.markShopActive(shop)]);
  // The store's Admin API already said it has no such order: another store's body goes before the delivery is
  // recorded, so the order's history never shows a delivery whose body is still kept (and below, should the refusal
  // land meanwhile).
  if (before?.notInShopAt) await deps.store.deleteOrderBody(shop, orderId);

  const cancelled = job.topic === 'orders/cancelled' || Boolean(order.cancelled_at);
  // Only Shopify's yes cancels an order whose body is open: no (not cancelled), and no answer either (an order Shopify
  // no longer shows the app, a store the app cannot reach), leave the printer alone.
  if (job.topic === 'orders/cancelled' && !order.cancelled_at && (await deps.shopify.orderCancelled(shop, orderId)) !== true) {
    return cancellationNotShown(deps, shop, order, job);
  }
  if (cancelled) return requestCancellation(deps, shop, order, job.topic, before);

  const settings = deps.mapping.settingsFor(shop);
  const isTrigger = settings !== undefined && job.topic === settings.on;
  const now = deps.clock();
  const at = now.toISOString();

  // What the last run of the update below did (it runs again when another writer got in first).
  let scheduledNow = false;
  let movedToWaiting = false;
  const { link } = await deps.store.update(shop, orderId, (current) => {
    scheduledNow = false;
    movedToWaiting = false;
    const base = current ?? deps.store.blank(shop, orderId);
    // The first arrival of each topic: a mapping that appears later knows whether its submit topic already came.
    const topics = base.topics?.[job.topic] ? base.topics : { ...base.topics, [job.topic]: at };
    let next: OrderLink = {
      ...base,
      orderName: order.name ?? base.orderName,
      shopifyUpdatedAt: isNewest ? normaliseTime(updatedAt) : base.shopifyUpdatedAt,
      topics,
    };
    const history: Mutation['history'] = [{ event: `${job.topic} received`, source: 'shopify' as const, detail: `webhook ${job.webhookId}` }];
    // Only once it could be due under some mapping (orders/create or orders/paid came): an orders/updated alone, for
    // an order placed before the app, is not a wait to show.
    if (!settings && next.status === 'pending' && !next.submitAfter && SUBMIT_TOPICS.some((t) => topics[t])) {
      // Nothing decides when (or whether) to send it: it waits, on the problems page, for a mapping to serve the store.
      const problem = noMappingProblem(shop, at);
      next = replaceProblems(moveTo(next, 'waiting', at).link, ofKind(problem.kind), [problem]);
      history.push({ event: 'waiting: no mapping', source: 'worker', status: 'waiting', detail: problem.message });
      movedToWaiting = true;
    }
    if (settings && next.status === 'waiting' && !next.submitAfter && next.problems.every((p) => p.kind === WAIT_KINDS.noMapping)) {
      next = { ...moveTo(next, 'pending', at).link, problems: [] };
      history.push({ event: 'no longer waiting', source: 'worker', status: 'pending', detail: `a mapping serves ${shop} now` });
    }
    // The submit topic may have come before this webhook (while no mapping served the store, or under another one).
    const dueSince = settings ? topics[settings.on] : undefined;
    if (settings && dueSince && next.status === 'pending' && !next.submitAfter) {
      next.submitAfter = new Date(Math.max(now.getTime(), Date.parse(dueSince) + settings.holdMinutes * 60_000)).toISOString();
      scheduledNow = true;
      history.push({
        event: 'submission scheduled',
        source: 'shopify',
        detail:
          settings.holdMinutes > 0
            ? `after the ${describeHoldWindow(settings.holdMinutes)} hold window, at ${next.submitAfter}`
            : 'now (no hold window)',
      });
    }
    // Every delivery is recorded: the history is where a merchant sees which webhooks arrived and when.
    return { link: next, history };
  }, before);
  if (!link) return { kind: 'stale', orderId };
  if (link.notInShopAt) {
    // The store's Admin API already said it has no such order: another store's body is not kept here (deleted above
    // when the refusal was already known before this delivery was recorded).
    if (!before?.notInShopAt) await deps.store.deleteOrderBody(shop, orderId);
    return { kind: 'rejected', reason: `${shop} has no order ${orderId} (checked with its Admin API); the body was not kept` };
  }

  // Inline submission (submit-due-order.ts): any order webhook of an order whose submit topic came may be the job that
  // submitted it and died doing so, run again by the queue; what it left is taken up here. (One that died before its
  // `submitting` write left the order pending and due: the reconciliation resumes it.)
  const inline = deps.submitDueOrdersInline === true && settings !== undefined && Boolean(link.topics?.[settings.on]);
  if (link.status === 'pending' && link.submitAfter && (isTrigger || scheduledNow)) {
    let delayMs = Math.max(0, Date.parse(link.submitAfter) - now.getTime());
    if (delayMs === 0 && inline && settings) {
      const submitted = await submitDueOrder(deps, link, isNewest ? { body: job.body, parsed } : undefined, settings);
      if ('kind' in submitted) return submitted;
      delayMs = submitted.retryInMs;
    }
    await deps.scheduler.submit(shop, orderId, delayMs);
    // Entering the hold window (the edit window): shown in Shopify as print-bridge's own hold (app-holds.ts) until it ends.
    if (scheduledNow && delayMs > 0 && (await deps.connections.isConnected(shop))) await deps.scheduler.syncShopify(shop, orderId);
    return { kind: 'scheduled', orderId, submitAt: link.submitAfter };
  }
  if (link.status === 'submitting' && inline) {
    // The create may be out: the submit job settles it, asking the print service first. Its job id makes it one job.
    await deps.scheduler.submit(shop, orderId, 0);
    return { kind: 'scheduled', orderId, submitAt: link.submitAfter ?? at };
  }
  if (isSubmittedStatus(link.status) && inline && isTrigger) {
    // The trigger again after a submission: a job that died between recording it and what follows (the status shown
    // in Shopify, the answers to Shopify's fulfillment requests) is made good by the submit job's already-submitted
    // path, which does both and sends nothing. Its job id makes repeats one job.
    await deps.scheduler.submit(shop, orderId, 0);
  }
  if (movedToWaiting && (await deps.connections.isConnected(shop))) {
    // needs-mapping in Shopify too; a store the app cannot reach has no tags to set.
    await deps.scheduler.syncShopify(shop, orderId);
  }
  if (!isNewest) return { kind: 'stale', orderId };

  if (isSubmittedStatus(link.status) && link.sentShipToHash && settings) {
    const hash = shippingAddressHash(order);
    if (hash !== link.sentShipToHash) {
      await deps.scheduler.amendShipping(shop, orderId, hash);
      await noticePrintedLineChanges(deps, link, currentQuantities(order), 'An order edit or refund');
      return { kind: 'amend-requested', orderId };
    }
  }
  const current = currentQuantities(order);
  if (await noticePrintedLineChanges(deps, link, current, 'An order edit or refund', await addedPrintedLines(deps, link, job.body, current))) {
    return { kind: 'recorded', orderId, detail: 'printed lines changed after submission: shown on the order' };
  }
  return { kind: 'recorded', orderId, detail: settings ? `status ${link.status}` : 'no mapping file serves this shop: the order waits for one' };
}

/** "30-minute", or "5-second" for a window shorter than a minute or not a whole number of minutes. */
export function describeHoldWindow(holdMinutes: number): string {
  if (Number.isInteger(holdMinutes)) return `${holdMinutes}-minute`;
  return `${Math.round(holdMinutes * 60 * 10) / 10}-second`;
}

/**
 * An `orders/cancelled` delivery whose body is an order that is not cancelled (`cancelled_at` empty), and Shopify does
 * not show the order cancelled either: the topic header is not signed, and an open order's signed body re-sent under
 * this topic would otherwise cancel its print order. Recorded on the order; nothing changes at the printer.
 */
async function cancellationNotShown(deps: BridgeDeps, shop: string, order: OrderWebhook, job: WebhookJob): Promise<WebhookOutcome> {
  const orderId = order.admin_graphql_api_id;
  const reason = `orders/cancelled for order ${order.name ?? orderId}, but neither its body nor Shopify (asked with the store's token) shows it cancelled: nothing was cancelled at the printer`;
  await deps.store.note(shop, orderId, { event: 'cancellation not confirmed by Shopify', source: 'shopify', detail: `${reason} (webhook ${job.webhookId})` });
  deps.logger.warn({ shop, orderId }, 'orders/cancelled for an order Shopify does not show cancelled; ignored');
  return { kind: 'rejected', reason };
}

async function requestCancellation(deps: BridgeDeps, shop: string, order: OrderWebhook, topic: string, before: OrderLink | null): Promise<WebhookOutcome> {
  const orderId = order.admin_graphql_api_id;
  const { link } = await deps.store.update(shop, orderId, (current) => {
    const base = current ?? { ...deps.store.blank(shop, orderId), orderName: order.name ?? undefined };
    if (base.status === 'cancelled' || base.cancelRequested) return undefined;
    const at = deps.clock().toISOString();
    const next: OrderLink = { ...base, cancelRequested: { at, by: 'shopify' } };
    // Nothing has reached the printer yet: the cancellation is complete here, and the submit job will find it.
    if (!isSubmittedStatus(base.status) && base.status !== 'submitting' && canMove(base.status, 'cancelled')) {
      return {
        link: moveTo(next, 'cancelled', at).link,
        history: [{ event: `${topic} received`, source: 'shopify', status: 'cancelled', detail: 'cancelled before submission; nothing was sent to the printer' }],
      };
    }
    return { link: next, history: [{ event: `${topic} received`, source: 'shopify', detail: 'cancellation requested at the print service' }] };
  }, before);
  if (!link) return { kind: 'recorded', orderId, detail: 'cancellation already handled' };
  if (link.status === 'cancelled') {
    // A store the app cannot reach has no tags to set: the sync would only fail and show as a failed job.
    if (await deps.connections.isConnected(shop)) await deps.scheduler.syncShopify(shop, orderId);
    return { kind: 'cancelled-before-submission', orderId };
  }
  await deps.scheduler.cancel(shop, orderId);
  return { kind: 'cancel-requested', orderId };
}
