import type { Response, Router } from 'express';
import { sendOrderNow } from '../bridge/send-now.js';
import { hasProblem, WAIT_KINDS } from '../bridge/waiting-problems.js';
import { CHANGED_AFTER_SUBMISSION } from '../orders/printed-lines.js';
import { z } from 'zod';
import {
  cancelOrderByOperator,
  keepAsSent,
  type OperatorActionDeps,
  type OperatorActionInput,
  type OperatorActionOutcome,
  RESUBMITTABLE,
  RETRYABLE,
  resubmitOrder,
  retryOrder,
} from '../bridge/operator-actions.js';
import { ORDER_STATUSES, type OrderStatus } from '../orders/status.js';
import { isCurrentFailure } from './failed-jobs.js';
import type { AdminContext } from './router.js';
import { actorOf, scopeOf, type Viewer } from './viewer.js';
import { orderPage, ordersPage, problemsPage } from './order-views.js';
import { orderLinesOf } from './merchant-words.js';
import { dayAfter, readOrdersQuery } from './order-filters.js';

/** The order list, one order with its actions, and the problems page. */

const PAGE_SIZE = 25;
const ALL_COUNTS_MS = 10_000;
const PROBLEM_LIST_LIMIT = 100;

const actionForm = z.object({
  version: z.coerce.number().int().nonnegative().optional(),
  back: z.enum(['problems', 'order']).optional(),
});
const actions: Record<string, (d: OperatorActionDeps, input: OperatorActionInput) => Promise<OperatorActionOutcome>> = {
  resubmit: resubmitOrder,
  retry: retryOrder,
  cancel: cancelOrderByOperator,
  keep: keepAsSent,
  'send-now': sendOrderNow,
};

export function addOrderRoutes(router: Router, ctx: AdminContext): void {
  const { deps, respond, viewerOf } = ctx;
  // allStoreCounts' cache.
  let allCounts: { at: number; counts: Promise<Record<string, number>> } | undefined;

  router.get('/admin', async (req, res) => {
    const viewer = viewerOf(res);
    const read = readOrdersQuery(req.query);
    if (!read.ok) return respond.badRequest(res, viewer, read.reason);
    const { query } = read;
    // An embedded viewer sees its own store whatever the query says.
    const scope = scopeOf(viewer);
    const shop = scope ?? query.shop;
    const [listing, counts, problems] = await Promise.all([
      deps.store.search({ shop, status: query.status, from: query.from ? `${query.from}T00:00:00Z` : undefined, to: query.to ? dayAfter(query.to) : undefined, q: query.q, cursor: query.cursor, limit: PAGE_SIZE }),
      shop ? deps.store.countByStatusOfShop(shop, ORDER_STATUSES) : allStoreCounts(),
      ctx.problemCount(viewer),
    ]);
    const all = Object.values(counts).reduce((a, b) => a + b, 0);
    const connectUrl = scope && deps.isShopConnected && !(await deps.isShopConnected(scope)) ? `/auth?shop=${encodeURIComponent(scope)}` : undefined;
    respond.render(req, res, viewer, (page) =>
      ordersPage(page, {
        links: listing.links,
        next: listing.next,
        paged: Boolean(query.cursor),
        filters: { status: query.status, shop: scope ? undefined : query.shop, from: query.from, to: query.to, q: query.q },
        counts,
        all,
        problems,
        connectUrl,
        carriers: deps.carriers,
      }),
    );
  });

  router.get('/admin/orders/:shop/:order', async (req, res) => {
    const viewer = viewerOf(res);
    const target = orderTarget(req.params, viewer);
    const link = target && (await deps.store.get(target.shop, target.orderId));
    if (!target || !link) return respond.notFound(res, viewer);
    const [history, allFailed, problems, stored] = await Promise.all([
      deps.store.history(link.shop, link.orderId),
      deps.failedJobs.forOrder(link.shop, link.orderId),
      ctx.problemCount(viewer),
      // A merchant's page names line items by their place in the order (line item 2), read from the kept body.
      scopeOf(viewer) ? deps.store.getOrderBody(link.shop, link.orderId).catch(() => undefined) : undefined,
    ]);
    const failedJobs = allFailed.filter((j) => isCurrentFailure(j, link));
    const allowed = {
      resubmit: (RESUBMITTABLE as readonly string[]).includes(link.status),
      retry:
        link.problems.some((p) => p.kind === 'store-not-connected') ||
        (failedJobs.length > 0 ? !(RESUBMITTABLE as readonly string[]).includes(link.status) : (RETRYABLE as readonly string[]).includes(link.status)),
      cancel: !['cancelled', 'shipped', 'partially-shipped'].includes(link.status),
      keep: link.problems.some((p) => p.kind === CHANGED_AFTER_SUBMISSION),
      sendNow: (link.status === 'pending' && !link.fulfillmentRequest) || (link.status === 'waiting' && hasProblem(link, WAIT_KINDS.risk)),
    };
    const lines = orderLinesOf(stored?.body);
    respond.render(req, res, viewer, (page) => orderPage(page, { link, history, allowed, failedJobs, problems, lines, carriers: deps.carriers }));
  });

  router.post('/admin/orders/:shop/:order/:action', async (req, res) => {
    const viewer = viewerOf(res);
    const action = actions[String(req.params.action)];
    const target = orderTarget(req.params, viewer);
    if (!action || !target) return respond.notFound(res, viewer);
    const form = actionForm.safeParse(req.body);
    if (!form.success) return respond.badRequest(res, viewer, 'The form is not complete; reload the page and try again.');
    const outcome = await action(deps.actions, { ...target, expectedVersion: form.data.version, actor: actorOf(viewer) });
    if (outcome.kind === 'not-found') return respond.notFound(res, viewer);
    const tone = outcome.kind === 'done' ? 'success' : outcome.kind === 'stale' ? 'warning' : 'critical';
    respond.redirect(res, viewer, form.data.back === 'problems' ? '/admin/problems' : orderPathOf(target), { tone, message: outcome.message });
  });

  router.get('/admin/problems', async (req, res) => {
    const viewer = viewerOf(res);
    const shop = scopeOf(viewer);
    const listStatus = (status: OrderStatus) =>
      shop ? deps.store.listOfShop(shop, { status, limit: PROBLEM_LIST_LIMIT }) : deps.store.list({ status, limit: PROBLEM_LIST_LIMIT });
    const [waiting, held, errored, unconfirmed, failed, postbacks, problems] = await Promise.all([
      listStatus('waiting'),
      listStatus('held'),
      listStatus('error'),
      deps.store.listUnconfirmedPostbacks({ shop, limit: PROBLEM_LIST_LIMIT }),
      deps.failedJobs.list(shop),
      // Unreadable postbacks name no shop (they could not be read): operators only.
      shop ? undefined : deps.store.listUnreadablePostbacks({ limit: PROBLEM_LIST_LIMIT }),
      ctx.problemCount(viewer),
    ]);
    const failedJobs = await Promise.all(failed.slice(0, PROBLEM_LIST_LIMIT).map(async (j) => ({ ...j, link: await deps.store.get(j.shop, j.orderId) })));
    respond.render(req, res, viewer, (page) =>
      problemsPage(page, {
        waiting: waiting.links,
        held: held.links,
        errored: errored.links,
        unconfirmed: unconfirmed.links,
        // Held and errored orders are listed above with Resubmit; their failed submit job tells the same story.
        failedJobs: failedJobs.filter((j) => isCurrentFailure(j, j.link) && (!j.link || !(RESUBMITTABLE as readonly string[]).includes(j.link.status))),
        postbacks,
        problems,
      }),
    );
  });

  router.post('/admin/postbacks/:id/dismiss', async (req, res: Response) => {
    const viewer = viewerOf(res);
    if (viewer.session.kind !== 'operator') return respond.forbidden(res, viewer);
    const id = String(req.params.id);
    const removed = await deps.store.removeUnreadablePostback(id);
    deps.logger.info({ action: 'dismiss-postback', postbackId: id, removed, actor: actorOf(viewer) }, 'operator action');
    respond.redirect(res, viewer, '/admin/problems', removed ? { tone: 'success', message: 'The postback was dismissed.' } : { tone: 'warning', message: 'That postback was already dismissed.' });
  });

  /**
   * The status tabs over every store count the whole table (about 0.4 s at a million orders): an operator paging
   * through orders reuses counts up to ALL_COUNTS_MS old. One store's counts, and the problem count, are exact.
   */
  function allStoreCounts(): Promise<Record<string, number>> {
    const now = Date.now();
    if (!allCounts || now - allCounts.at > ALL_COUNTS_MS) {
      const counts = deps.store.countByStatus(ORDER_STATUSES);
      allCounts = { at: now, counts };
      counts.catch(() => {
        if (allCounts?.counts === counts) allCounts = undefined;
      });
    }
    return allCounts.counts;
  }
}

function orderTarget(params: Record<string, string | undefined>, viewer: Viewer): { shop: string; orderId: string } | undefined {
  const shop = String(params.shop ?? '').toLowerCase();
  const scope = scopeOf(viewer);
  if (!shop || (scope && scope !== shop)) return undefined;
  return { shop, orderId: toOrderGid(String(params.order ?? '')) };
}

function orderPathOf(target: { shop: string; orderId: string }): string {
  const tail = target.orderId.startsWith('gid://shopify/Order/') ? target.orderId.slice('gid://shopify/Order/'.length) : target.orderId;
  return `/admin/orders/${encodeURIComponent(target.shop)}/${encodeURIComponent(tail)}`;
}

/** An order in a URL is the number at the end of its gid; a full gid is accepted too. */
export function toOrderGid(value: string): string {
  const text = value.trim();
  return /^\d+$/.test(text) ? `gid://shopify/Order/${text}` : text;
}
