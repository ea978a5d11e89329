import { clearProblems, moveTo, ofKind, replaceProblems, settleIn } from '../orders/transitions.js';
import type { OrderLink, Problem } from '../orders/model.js';
import type { SubmitSettings } from './ports.js';
import { SERVICE_WAIT_EVENT } from './service-submission.js';
import type { ReexamineDeps, ReexamineVerdict, ShopConditions } from './waiting-orders.js';
import { hasProblem, RELEASED_KINDS, WAIT_KINDS } from './waiting-problems.js';

/**
 * The moves reexamineOrder (waiting-orders.ts) makes on an order: schedule its submission, release it for submission
 * now, or make it wait. Each is a compare-and-set on the order, so a second run (or a retry) moves it once.
 */

export async function schedule(deps: ReexamineDeps, link: OrderLink, settings: SubmitSettings, arrived: string, cause: string, why: string): Promise<ReexamineVerdict> {
  const now = deps.clock().getTime();
  // The hold window runs from the topic's arrival: edits and cancellations since then have already been received.
  const submitAt = new Date(Math.max(now, Date.parse(arrived) + settings.holdMinutes * 60_000)).toISOString();
  const { link: updated } = await deps.store.update(link.shop, link.orderId, (c) => {
    if (!c || (c.status !== 'pending' && c.status !== 'waiting') || c.submitAfter) return undefined;
    return {
      link: { ...clearProblems(settleIn(c, 'pending', deps.clock().toISOString()).link, (p) => RELEASED_KINDS.has(p.kind)), submitAfter: submitAt },
      history: [{ event: 'submission scheduled', source: 'worker', status: c.status === 'pending' ? undefined : 'pending', detail: `${cause}: ${why}; submission at ${submitAt}` }],
    };
  });
  if (!updated || updated.status !== 'pending' || !updated.submitAfter) return { kind: 'unchanged', message: `${link.orderName ?? link.orderId} changed meanwhile.` };
  // Generation: the version that set submitAfter, so a retry of this run queues the same job.
  await deps.scheduler.submit(link.shop, link.orderId, Math.max(0, Date.parse(updated.submitAfter) - now), updated.version);
  // Out of a wait, or into the hold window (print-bridge's own hold shows it in Shopify): either shows in Shopify.
  if (link.status === 'waiting' || Date.parse(updated.submitAfter) > now) await syncIfConnected(deps, link.shop, link.orderId, await deps.connections.isConnected(link.shop));
  return { kind: 'scheduled', message: `${link.orderName ?? link.orderId} is queued for submission at ${updated.submitAfter}.`, submitAt: updated.submitAfter };
}

/**
 * An order that was due is due again: its blocking problems go, and a submit job is queued now. The job maps the
 * order again and records whatever still holds it back.
 */
export async function release(deps: ReexamineDeps, link: OrderLink, cause: string, why: string): Promise<ReexamineVerdict> {
  const at = deps.clock().toISOString();
  const { link: updated } = await deps.store.update(link.shop, link.orderId, (c) => {
    if (!c || !['waiting', 'held', 'error'].includes(c.status)) return undefined;
    const problems = c.problems.filter((p) => !RELEASED_KINDS.has(p.kind));
    if (problems.length === c.problems.length && c.status !== 'waiting') return undefined;
    return {
      link: { ...c, problems, ...(c.status === 'waiting' ? { ...moveTo(c, 'pending', at).link, problems, submitAfter: at } : {}) },
      history: [{ event: 'released for submission', source: 'worker', status: c.status === 'waiting' ? 'pending' : undefined, detail: `${cause}: ${why}; submitting now` }],
    };
  });
  if (!updated || !['pending', 'held', 'error'].includes(updated.status)) return { kind: 'unchanged', message: `${link.orderName ?? link.orderId} changed meanwhile.` };
  await deps.scheduler.submit(link.shop, link.orderId, 0, updated.version);
  return { kind: 'released', message: `${link.orderName ?? link.orderId} was released for submission (${why}).` };
}

/**
 * A due order that waited for Shopify's fulfillment request while its store was in fulfillment-service mode
 * (service-submission.ts: it stays pending, no problem shown). Once the store is merchant-managed again it is sent now,
 * not at the hourly sweep of quiet orders. Any other due pending order has its submit job queued already: left alone.
 */
export async function releaseServiceWait(deps: ReexamineDeps, link: OrderLink, cause: string, context: ShopConditions): Promise<ReexamineVerdict> {
  const name = link.orderName ?? link.orderId;
  if ((await context.setup(link.shop)).fulfillmentLocation) return { kind: 'unchanged', message: `${name} waits for Shopify to request it of print-bridge's location.` };
  const history = await deps.store.history(link.shop, link.orderId, 20);
  if (!history.some((h) => h.event === SERVICE_WAIT_EVENT)) return { kind: 'unchanged', message: `${name} is queued for submission at ${link.submitAfter}.` };
  const at = deps.clock().toISOString();
  const { link: updated } = await deps.store.update(link.shop, link.orderId, (c) =>
    c && c.version === link.version && c.status === 'pending' && !c.fulfillmentRequest
      ? {
          link: { ...c, submitAfter: at },
          history: [{ event: 'released for submission', source: 'worker', detail: `${cause}: ${link.shop} is merchant-managed; the order no longer waits for a fulfillment request, submitting now` }],
        }
      : undefined,
  );
  if (!updated) return { kind: 'unchanged', message: `${name} changed meanwhile.` };
  await deps.scheduler.submit(link.shop, link.orderId, 0, updated.version);
  return { kind: 'released', message: `${name} was released for submission (${link.shop} is merchant-managed).` };
}

export async function moveToWaiting(deps: ReexamineDeps, link: OrderLink, problem: Problem, cause: string): Promise<ReexamineVerdict> {
  const { changed } = await deps.store.update(link.shop, link.orderId, (c) =>
    c && (c.status === 'pending' || c.status === 'waiting') && !hasProblem(c, problem.kind)
      ? {
          link: replaceProblems(settleIn(c, 'waiting', problem.at).link, ofKind(problem.kind), [problem]),
          history: [{ event: `waiting: ${problem.kind.replace(/-/g, ' ')}`, source: 'worker', status: c.status === 'waiting' ? undefined : 'waiting', detail: `${cause}: ${problem.message}` }],
        }
      : undefined,
  );
  // The wait shows in Shopify (tags, print-bridge's own hold); a store the app cannot reach has nothing to show it on.
  if (changed && problem.kind !== WAIT_KINDS.storeNotConnected) await syncIfConnected(deps, link.shop, link.orderId, await deps.connections.isConnected(link.shop));
  return { kind: 'waiting', message: `${link.orderName ?? link.orderId}: ${problem.message}` };
}

export async function syncIfConnected(deps: Pick<ReexamineDeps, 'scheduler'>, shop: string, orderId: string, connected: boolean): Promise<void> {
  // Tags need the Admin API: a sync for a store the app cannot reach would only fail.
  if (connected) await deps.scheduler.syncShopify(shop, orderId);
}
