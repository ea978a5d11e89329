import { isOwnWriteEcho } from './own-writes.js';
import { readOrderJson } from '../orders/shopify-order.js';
import { moveTo, ofKind, replaceProblems } from '../orders/transitions.js';
import { createHash } from 'node:crypto';
import type { WebhookJob, WebhookJobData } from '../queue/queues.js';
import { parseJsonLossless } from '../shopify/json.js';
import { type OrderWebhook, parseOrderWebhook } from '../shopify/order-webhook.js';
import { parseFulfillmentOrderWebhook, type FulfillmentOrderTopic } from './fulfillment-order-changed.js';
import { normaliseTime, type Mutation, type OrderLink } from '../orders/model.js';
import type { BridgeDeps } from './ports.js';
import { canMove, isSubmittedStatus } from '../orders/status.js';
import { noMappingProblem, SUBMIT_TOPICS, WAIT_KINDS } from './waiting-orders.js';

export type WebhookOutcome =
  | { kind: 'scheduled'; orderId: string; submitAt: string }
  | { kind: 'recorded'; orderId: string; detail: string }
  | { kind: 'stale'; orderId: string }
  | { kind: 'cancelled-before-submission'; orderId: string }
  | { kind: 'cancel-requested'; orderId: string }
  | { kind: 'amend-requested'; orderId: string }
  | { kind: 'uninstalled'; droppedJobs: number; sessions: number }
  | { kind: 'redacted'; orders: number }
  | { kind: 'data-request'; orders: number }
  | { kind: 'own-write'; orderId: string }
  | { kind: 'rejected'; reason: string };

/**
 * A queued webhook: its body is read from the store (jobs carry ids only), handled, and deleted once handled. A body
 * that is gone (redacted meanwhile, or older than the store keeps bodies) leaves nothing to do.
 */
export async function handleQueuedWebhook(deps: BridgeDeps, data: WebhookJobData): Promise<WebhookOutcome> {
  const bodies = deps.store.webhookBodies();
  const body = data.body ?? (await bodies.get(data.shop, data.webhookId));
  if (body === undefined) return { kind: 'rejected', reason: `the body of webhook ${data.webhookId} is no longer kept (redacted, or older than 8 days)` };
  const outcome = await handleWebhook(deps, { ...data, body });
  await bodies.drop(data.shop, data.webhookId);
  return outcome;
}

/**
 * The worker's side of a Shopify webhook. Safe to run any number of times and in any order: bodies are kept by
 * `updated_at`, statuses only move forward, and jobs it schedules carry ids that make repeats no-ops.
 */
export async function handleWebhook(deps: BridgeDeps, job: WebhookJob): Promise<WebhookOutcome> {
  switch (job.topic) {
    case 'orders/create':
    case 'orders/paid':
    case 'orders/updated':
    case 'orders/cancelled':
      return handleOrderWebhook(deps, job);
    case 'app/uninstalled':
      return uninstall(deps, job.shop);
    case 'app/scopes_update':
      return scopesUpdated(deps, job);
    case 'customers/redact':
    case 'shop/redact':
      return redact(deps, job);
    case 'customers/data_request':
      return dataRequest(deps, job);
    case 'fulfillment_orders/placed_on_hold':
    case 'fulfillment_orders/hold_released':
    case 'fulfillment_orders/scheduled_fulfillment_order_ready':
      return fulfillmentOrderWebhook(deps, job, job.topic);
    default:
      return { kind: 'rejected', reason: `topic ${job.topic} is not handled` };
  }
}

/**
 * The merchant changed what the app may do (optional scopes granted or revoked): the stored session records the
 * scopes Shopify now grants, so the next embedded visit exchanges a token again when the app needs more.
 */
async function scopesUpdated(deps: BridgeDeps, job: WebhookJob): Promise<WebhookOutcome> {
  const body = JSON.parse(job.body) as { current?: unknown };
  const current = Array.isArray(body.current) ? body.current.filter((s): s is string => typeof s === 'string') : [];
  const updated = (await deps.sessions.updateScopes?.(job.shop, current)) ?? false;
  deps.logger.info({ shop: job.shop, scopes: current, updated }, 'app/scopes_update: the store granted these scopes');
  return { kind: 'recorded', orderId: job.shop, detail: `scopes now ${current.join(',') || 'none'}${updated ? '' : ' (no session to update)'}` };
}

/** Fulfillment-order webhooks go to the Shopify queue, whose worker asks the Admin API which order they concern. */
async function fulfillmentOrderWebhook(deps: BridgeDeps, job: WebhookJob, topic: FulfillmentOrderTopic): Promise<WebhookOutcome> {
  const parsed = parseFulfillmentOrderWebhook(topic, job.body);
  if (!parsed.ok) return { kind: 'rejected', reason: `${topic} webhook ${job.webhookId} from ${job.shop}: ${parsed.message}` };
  await deps.scheduler.fulfillmentOrderChanged(job.shop, parsed.change, job.webhookId);
  return { kind: 'recorded', orderId: parsed.change.orderId ?? parsed.change.fulfillmentOrderId, detail: `${topic} for ${parsed.change.fulfillmentOrderId}` };
}

async function handleOrderWebhook(deps: BridgeDeps, job: WebhookJob): Promise<WebhookOutcome> {
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
  const [isNewest] = await Promise.all([deps.store.saveOrderBody(shop, orderId, updatedAt, job.body), deps.store.markShopActive(shop)]);

  const cancelled = job.topic === 'orders/cancelled' || Boolean(order.cancelled_at);
  if (cancelled) return requestCancellation(deps, shop, order, job.topic);

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
  });
  if (!link) return { kind: 'stale', orderId };
  if (link.notInShopAt) {
    // The store's Admin API already said it has no such order: another store's body is not kept here.
    await deps.store.deleteOrderBody(shop, orderId);
    return { kind: 'rejected', reason: `${shop} has no order ${orderId} (checked with its Admin API); the body was not kept` };
  }

  if (link.status === 'pending' && link.submitAfter && (isTrigger || scheduledNow)) {
    const delayMs = Math.max(0, Date.parse(link.submitAfter) - now.getTime());
    await deps.scheduler.submit(shop, orderId, delayMs);
    return { kind: 'scheduled', orderId, submitAt: link.submitAfter };
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
      return { kind: 'amend-requested', orderId };
    }
  }
  return { kind: 'recorded', orderId, detail: settings ? `status ${link.status}` : 'no mapping file serves this shop: the order waits for one' };
}

/** "30-minute", or "5-second" for a window shorter than a minute or not a whole number of minutes. */
export function describeHoldWindow(holdMinutes: number): string {
  if (Number.isInteger(holdMinutes)) return `${holdMinutes}-minute`;
  return `${Math.round(holdMinutes * 60 * 10) / 10}-second`;
}

async function requestCancellation(deps: BridgeDeps, shop: string, order: OrderWebhook, topic: string): Promise<WebhookOutcome> {
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
  });
  if (!link) return { kind: 'recorded', orderId, detail: 'cancellation already handled' };
  if (link.status === 'cancelled') {
    // A store the app cannot reach has no tags to set: the sync would only fail and show as a failed job.
    if (await deps.connections.isConnected(shop)) await deps.scheduler.syncShopify(shop, orderId);
    return { kind: 'cancelled-before-submission', orderId };
  }
  await deps.scheduler.cancel(shop, orderId);
  return { kind: 'cancel-requested', orderId };
}

async function uninstall(deps: BridgeDeps, shop: string): Promise<WebhookOutcome> {
  const [droppedJobs, sessions] = await Promise.all([
    deps.scheduler.dropPendingForShop(shop),
    deps.sessions.deleteShopSessions(shop),
    deps.store.forgetShopActive(shop),
  ]);
  deps.logger.info({ shop, droppedJobs, sessions }, 'app uninstalled: sessions removed and pending jobs dropped');
  return { kind: 'uninstalled', droppedJobs, sessions };
}

/**
 * Redaction reaches every copy the app keeps (docs/privacy.md): order links, bodies and history, webhook bodies not
 * handled yet, data-request reports, and postbacks kept as unreadable that name the orders. Queue jobs carry ids only.
 */
async function redact(deps: BridgeDeps, job: WebhookJob): Promise<WebhookOutcome> {
  const body = parseJsonLossless(job.body) as { orders_to_redact?: (string | number)[] };
  const bodies = deps.store.webhookBodies();
  const unreadable = deps.store.unreadablePostbacks();
  if (job.topic === 'shop/redact') {
    const ids = await deps.store.orderIdsOfShop(job.shop);
    const references: string[] = [];
    for (const orderId of ids) {
      const link = await deps.store.get(job.shop, orderId);
      references.push(...[link?.sourceOrderId, link?.printOrderId].filter((r): r is string => Boolean(r)));
      await deps.store.deleteOrder(job.shop, orderId);
    }
    // This webhook's own body is among the shop's bodies: handled once this returns, it goes with them.
    await Promise.all([
      bodies.dropShop(job.shop),
      deps.store.redactDataRequests(job.shop),
      unreadable.removeMentioning(references),
      // The store's own print set-up (account, postback tokens, mapping versions) goes with the rest.
      deps.shopSettings?.redactShop(job.shop),
    ]);
    return { kind: 'redacted', orders: ids.length };
  }
  // customers/redact: the order bodies hold the customer's name, address and contact; links and history do not.
  const numericIds = (body.orders_to_redact ?? []).map((id) => String(id));
  const orderIds = numericIds.map((id) => `gid://shopify/Order/${id}`);
  const references: string[] = [];
  for (const orderId of orderIds) {
    const link = await deps.store.get(job.shop, orderId);
    references.push(...[link?.sourceOrderId, link?.printOrderId].filter((r): r is string => Boolean(r)));
    await deps.store.deleteOrderBody(job.shop, orderId);
    // A test-mode run keeps what would have been sent, the customer's address with it.
    if (link?.testRun) {
      await deps.store.update(job.shop, orderId, (c) => (c?.testRun ? { link: { ...c, testRun: { ...c.testRun, order: undefined } } } : undefined));
    }
    await deps.store.note(job.shop, orderId, { event: 'customer data redacted', source: 'shopify' });
  }
  await Promise.all([bodies.dropOrders(job.shop, numericIds), deps.store.redactDataRequests(job.shop, orderIds), unreadable.removeMentioning(references)]);
  return { kind: 'redacted', orders: orderIds.length };
}

async function dataRequest(deps: BridgeDeps, job: WebhookJob): Promise<WebhookOutcome> {
  const body = parseJsonLossless(job.body) as { orders_requested?: (string | number)[]; data_request?: { id?: unknown } };
  const orderIds = (body.orders_requested ?? []).map((id) => `gid://shopify/Order/${String(id)}`);
  const report: unknown[] = [];
  for (const orderId of orderIds) {
    const [link, stored] = await Promise.all([deps.store.get(job.shop, orderId), deps.store.getOrderBody(job.shop, orderId)]);
    if (link || stored) report.push({ orderId, link, orderBody: stored ? (JSON.parse(stored.body) as unknown) : undefined });
  }
  await deps.store.saveDataRequest(job.shop, String(body.data_request?.id ?? job.webhookId), report);
  return { kind: 'data-request', orders: report.length };
}

/** A fingerprint of the shipping address, to notice a change after submission. */
export function shippingAddressHash(order: Pick<OrderWebhook, 'shipping_address'>): string {
  const a = order.shipping_address;
  const fields = a
    ? [a.name, a.company, a.address1, a.address2, a.city, a.zip, a.province, a.province_code, a.country_code, a.phone]
    : ['(none)'];
  return createHash('sha256').update(JSON.stringify(fields.map((f) => f ?? ''))).digest('hex').slice(0, 16);
}
