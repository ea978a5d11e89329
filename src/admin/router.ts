import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import express, { type Request, type Response, Router } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { dataRequestsPage } from './privacy-views.js';
import { isShopDomain } from '../shopify/webhook-agreement.js';
import {
  cancelOrderByOperator,
  type OperatorActionDeps,
  type OperatorActionInput,
  type OperatorActionOutcome,
  RESUBMITTABLE,
  RETRYABLE,
  resubmitOrder,
  retryOrder,
} from '../bridge/operator-actions.js';
import type { OrderStore } from '../bridge/order-store.js';
import { ORDER_STATUSES, type OrderStatus } from '../bridge/status.js';
import { type AdminFailedJobs, isCurrentFailure } from './failed-jobs.js';
import { html, type Html } from './html.js';
import type { AdminMappingPort } from './mappings.js';
import { type AdminSession, equalText, OPERATOR_SESSION_MS, SessionSigner, SHOP_SESSION_MS } from './session.js';
import { type LoginGuard, MemoryLoginGuard } from './login-guard.js';
import { loginPage, mappingsPage, messagePage, orderPage, ordersPage, type PageContext, problemsPage } from './views.js';

/**
 * The merchant and operator pages under /admin (docs/admin.md). Two ways in:
 * - operators log in with ADMIN_TOKEN and get a signed HttpOnly cookie; they see every shop and the queue dashboard;
 * - a merchant opens the app inside Shopify admin, which loads it with a session token (`id_token`) that the Shopify
 *   library verifies; that viewer sees their own shop only, and the session travels in links and forms, not cookies.
 * Every POST needs the session's CSRF token and, when the browser sends one, a same-origin Origin.
 */

export type AdminStore = Pick<
  OrderStore,
  | 'get'
  | 'list'
  | 'search'
  | 'listOfShop'
  | 'countByStatus'
  | 'countByStatusOfShop'
  | 'history'
  | 'getOrderBody'
  | 'listUnreadablePostbacks'
  | 'removeUnreadablePostback'
  | 'countUnreadablePostbacks'
  | 'note'
  | 'dataRequests'
>;

export interface EmbeddedAuth {
  apiKey: string;
  /** The library's `shopify.session.decodeSessionToken`: verifies signature, expiry and audience. */
  decodeSessionToken(token: string): Promise<{ dest?: unknown; sub?: unknown }>;
  /**
   * Managed install: with a verified session token in hand, makes sure the app holds an offline access token for the
   * store (token exchange on the first visit, or after a scope change). A failure is logged and shown, never fatal.
   */
  ensureInstalled?(shop: string, sessionToken: string): Promise<void>;
}

export interface AdminDeps {
  store: AdminStore;
  actions: OperatorActionDeps;
  failedJobs: AdminFailedJobs;
  mappings: AdminMappingPort;
  /** Queues shown on the operators' dashboard. */
  queues: readonly Queue[];
  /** Operator login; without it only embedded access works. */
  adminToken?: string;
  /** Login failures and logouts shared by every web process (RedisLoginGuard); default: this process's memory. */
  loginGuard?: LoginGuard;
  /** Embedded access from Shopify admin; without it only operators get in. */
  embedded?: EmbeddedAuth;
  /** Whether the app holds an Admin API token for the shop (else the embedded page offers to connect it). */
  isShopConnected?: (shop: string) => Promise<boolean>;
  /** Secrets the session key derives from (ADMIN_TOKEN, SHOPIFY_API_SECRET). */
  sessionSecrets: string[];
  /** The app's public URL: Secure cookies when https, and an accepted Origin. */
  appUrl?: string;
  logger: Logger;
  clock?: () => Date;
}

export const SESSION_COOKIE = 'pb_admin';
const PAGE_SIZE = 25;
const ALL_COUNTS_MS = 10_000;
const PROBLEM_LIST_LIMIT = 100;

const loginForm = z.object({ token: z.string().min(1).max(1000) });
const actionForm = z.object({
  version: z.coerce.number().int().nonnegative().optional(),
  back: z.enum(['problems', 'order']).optional(),
});
const previewForm = z.object({
  shop: z.string().trim().toLowerCase().max(255).optional(),
  orderId: z.string().trim().max(200).optional(),
  body: z.string().max(2_000_000).optional(),
});
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)));
/** Nonsense in the query is dropped (the first page of everything), never an error page. */
const ordersQuery = z.object({
  status: z.enum(ORDER_STATUSES).optional().catch(undefined),
  shop: z.string().trim().toLowerCase().refine(isShopDomain).optional().catch(undefined),
  from: day.optional().catch(undefined),
  to: day.optional().catch(undefined),
  q: z.string().trim().max(200).optional().catch(undefined).transform((v) => v || undefined),
  cursor: z.string().max(500).optional().catch(undefined),
});
const flashSchema = z.object({ tone: z.enum(['success', 'critical', 'warning']), message: z.string().max(2000) });

interface Viewer {
  session: AdminSession;
  /** The signed session, when it travels in the URL and forms (embedded viewers). */
  carried?: string;
  /** Authenticated by App Bridge's bearer session token: no cookie or URL token a page of another site could use. */
  bearer?: boolean;
}

export function createAdminRouter(deps: AdminDeps): Router {
  // allStoreCounts' cache (declared before any code that returns).
  let allCounts: { at: number; counts: Promise<Record<string, number>> } | undefined;
  const clock = deps.clock ?? (() => new Date());
  const signer = new SessionSigner(deps.sessionSecrets.filter(Boolean), clock);
  const secureCookies = deps.appUrl?.startsWith('https:') ?? false;
  const appOrigin = deps.appUrl ? new URL(deps.appUrl).origin : undefined;
  const router = Router();
  const forms = express.urlencoded({ extended: false, limit: '2mb', parameterLimit: 50 });

  router.use('/admin', (_req, res, next) => {
    res.set({ 'Referrer-Policy': 'same-origin', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' });
    next();
  });

  // ---- operator login -------------------------------------------------------------------------------------------
  router.get('/admin/login', (_req, res) => {
    pageHeaders(res, undefined);
    sendHtml(res, 200, loginPage({ enabled: Boolean(deps.adminToken) }));
  });

  // Guessing the token is slowed down per client address and overall (login-guard.ts; shared through Redis).
  const guard = deps.loginGuard ?? new MemoryLoginGuard(clock);
  router.post('/admin/login', forms, async (req, res) => {
    pageHeaders(res, undefined);
    if (!sameOrigin(req)) return refuseOrigin(req, res);
    if (!deps.adminToken) return sendHtml(res, 403, loginPage({ enabled: false }));
    const client = req.ip ?? 'unknown';
    const wait = await guard.blockedFor(client);
    if (wait > 0) {
      res.set('Retry-After', String(wait));
      return sendHtml(res, 429, loginPage({ enabled: true, error: 'Too many wrong tokens; try again later.' }));
    }
    const parsed = loginForm.safeParse(req.body);
    if (!parsed.success || !equalText(parsed.data.token, deps.adminToken)) {
      await guard.fail(client);
      deps.logger.warn({ route: 'admin/login', ip: client }, 'operator login refused');
      return sendHtml(res, 401, loginPage({ enabled: true, error: 'That token is not right.' }));
    }
    await guard.succeed(client);
    const { token } = signer.create({ kind: 'operator' }, OPERATOR_SESSION_MS);
    res.cookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure: secureCookies, path: '/admin', maxAge: OPERATOR_SESSION_MS });
    deps.logger.info({ route: 'admin/login', ip: req.ip }, 'operator logged in');
    res.redirect(303, '/admin');
  });

  // ---- everything else needs a session ------------------------------------------------------------------------
  router.use('/admin', forms, async (req, res, next) => {
    const viewer = await resolveViewer(req);
    if (!viewer) {
      const wantsPage = req.method === 'GET' && !req.path.startsWith('/queues/api') && (req.accepts(['html', 'json']) === 'html');
      if (wantsPage && !req.query.id_token && !req.query.s) return res.redirect(303, '/admin/login');
      pageHeaders(res, undefined);
      return sendHtml(res, 401, messagePage('Not signed in', wantsPage ? 'This link has expired or is not valid. Open the app again from your Shopify admin.' : 'Sign in first.'));
    }
    res.locals.viewer = viewer;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      if (!sameOrigin(req)) return refuseOrigin(req, res);
      // The dashboard's own JSON API cannot carry our token; SameSite=Lax plus the Origin check above protect it.
      const isDashboardApi = req.path.startsWith('/queues/');
      // A bearer session token is sent only by the app's own script (App Bridge): it is its own proof of origin.
      const csrfOk =
        viewer.bearer ||
        (isDashboardApi ? Boolean(req.get('origin')) || sameOriginReferer(req) : signer.checkCsrf(viewer.session, (req.body as Record<string, unknown> | undefined)?._csrf));
      if (!csrfOk) {
        deps.logger.warn({ route: req.path, ip: req.ip }, 'admin request without a valid CSRF token refused');
        pageHeaders(res, undefined);
        return sendHtml(res, 403, messagePage('Refused', 'The form was not sent from this app (missing or wrong CSRF token). Reload the page and try again.'));
      }
    }
    next();
  });

  router.post('/admin/logout', async (_req, res) => {
    // The cookie is cleared, and the session itself ends: a copy of the cookie no longer works anywhere.
    const { session } = viewerOf(res);
    if (session.kind === 'operator') await guard.revoke(session.sid, session.exp);
    res.clearCookie(SESSION_COOKIE, { path: '/admin' });
    res.redirect(303, '/admin/login');
  });

  router.get('/admin', async (req, res) => {
    const viewer = viewerOf(res);
    const query = ordersQuery.parse(req.query);
    // An embedded viewer sees its own store whatever the query says.
    const shop = scopeOf(viewer) ?? query.shop;
    const to = query.to ? new Date(Date.parse(`${query.to}T00:00:00Z`) + 86_400_000).toISOString() : undefined;
    const [listing, counts, problems] = await Promise.all([
      deps.store.search({ shop, status: query.status, from: query.from ? `${query.from}T00:00:00Z` : undefined, to, q: query.q, cursor: query.cursor, limit: PAGE_SIZE }),
      shop ? deps.store.countByStatusOfShop(shop, ORDER_STATUSES) : allStoreCounts(),
      problemCount(viewer),
    ]);
    const all = Object.values(counts).reduce((a, b) => a + b, 0);
    const connectUrl = scopeOf(viewer) && deps.isShopConnected && !(await deps.isShopConnected(scopeOf(viewer)!)) ? `/auth?shop=${encodeURIComponent(scopeOf(viewer)!)}` : undefined;
    render(req, res, viewer, (ctx) =>
      ordersPage(ctx, {
        links: listing.links,
        next: listing.next,
        paged: Boolean(query.cursor),
        filters: { status: query.status, shop: scopeOf(viewer) ? undefined : query.shop, from: query.from, to: query.to, q: query.q },
        counts,
        all,
        problems,
        connectUrl,
      }),
    );
  });

  router.get('/admin/orders/:shop/:order', async (req, res) => {
    const viewer = viewerOf(res);
    const target = orderTarget(req, viewer);
    const link = target && (await deps.store.get(target.shop, target.orderId));
    if (!target || !link) return notFound(req, res, viewer);
    const [history, allFailed, problems] = await Promise.all([
      deps.store.history(link.shop, link.orderId),
      deps.failedJobs.forOrder(link.shop, link.orderId),
      problemCount(viewer),
    ]);
    const failedJobs = allFailed.filter((j) => isCurrentFailure(j, link));
    const allowed = {
      resubmit: (RESUBMITTABLE as readonly string[]).includes(link.status),
      retry:
        link.problems.some((p) => p.kind === 'store-not-connected') ||
        (failedJobs.length > 0 ? !(RESUBMITTABLE as readonly string[]).includes(link.status) : (RETRYABLE as readonly string[]).includes(link.status)),
      cancel: !['cancelled', 'shipped', 'partially-shipped'].includes(link.status),
    };
    render(req, res, viewer, (ctx) => orderPage(ctx, { link, history, allowed, failedJobs, problems }));
  });

  const actions: Record<string, (d: OperatorActionDeps, input: OperatorActionInput) => Promise<OperatorActionOutcome>> = {
    resubmit: resubmitOrder,
    retry: retryOrder,
    cancel: cancelOrderByOperator,
  };
  router.post('/admin/orders/:shop/:order/:action', async (req, res) => {
    const viewer = viewerOf(res);
    const action = actions[String(req.params.action)];
    const target = orderTarget(req, viewer);
    if (!action || !target) return notFound(req, res, viewer);
    const form = actionForm.safeParse(req.body);
    if (!form.success) return badRequest(res, 'The form is not complete; reload the page and try again.');
    const outcome = await action(deps.actions, { ...target, expectedVersion: form.data.version, actor: actorOf(viewer) });
    if (outcome.kind === 'not-found') return notFound(req, res, viewer);
    const tone = outcome.kind === 'done' ? 'success' : outcome.kind === 'stale' ? 'warning' : 'critical';
    const back = form.data.back === 'problems' ? '/admin/problems' : orderPathOf(target);
    res.redirect(303, linkFor(viewer, back, { flash: sealFlash({ tone, message: outcome.message }) }));
  });

  router.get('/admin/problems', async (req, res) => {
    const viewer = viewerOf(res);
    const shop = scopeOf(viewer);
    const listStatus = (status: OrderStatus) =>
      shop ? deps.store.listOfShop(shop, { status, limit: PROBLEM_LIST_LIMIT }) : deps.store.list({ status, limit: PROBLEM_LIST_LIMIT });
    const [waiting, held, errored, failed, postbacks, problems] = await Promise.all([
      listStatus('waiting'),
      listStatus('held'),
      listStatus('error'),
      deps.failedJobs.list(shop),
      // Unreadable postbacks name no shop (they could not be read): operators only.
      shop ? undefined : deps.store.listUnreadablePostbacks({ limit: PROBLEM_LIST_LIMIT }),
      problemCount(viewer),
    ]);
    const failedJobs = await Promise.all(
      failed.slice(0, PROBLEM_LIST_LIMIT)
        .map(async (j) => ({ ...j, link: await deps.store.get(j.shop, j.orderId) })),
    );
    render(req, res, viewer, (ctx) =>
      problemsPage(ctx, {
        waiting: waiting.links,
        held: held.links,
        errored: errored.links,
        // Held and errored orders are listed above with Resubmit; their failed submit job tells the same story.
        failedJobs: failedJobs.filter((j) => isCurrentFailure(j, j.link) && (!j.link || !(RESUBMITTABLE as readonly string[]).includes(j.link.status))),
        postbacks,
        problems,
      }),
    );
  });

  router.post('/admin/postbacks/:id/dismiss', async (req, res) => {
    const viewer = viewerOf(res);
    if (viewer.session.kind !== 'operator') return forbidden(res);
    const id = String(req.params.id);
    const removed = await deps.store.removeUnreadablePostback(id);
    deps.logger.info({ action: 'dismiss-postback', postbackId: id, removed, actor: actorOf(viewer) }, 'operator action');
    res.redirect(
      303,
      linkFor(viewer, '/admin/problems', {
        flash: sealFlash(removed ? { tone: 'success', message: 'The postback was dismissed.' } : { tone: 'warning', message: 'That postback was already dismissed.' }),
      }),
    );
  });

  // Customer data requests: the list, and each report as a JSON download (a store's own only).
  router.get('/admin/privacy', async (req, res) => {
    const viewer = viewerOf(res);
    const [requests, problems] = await Promise.all([deps.store.dataRequests().list(scopeOf(viewer)), problemCount(viewer)]);
    render(req, res, viewer, (ctx) => dataRequestsPage(ctx, { requests, problems }));
  });

  router.get('/admin/privacy/:shop/:request/report.json', async (req, res) => {
    const viewer = viewerOf(res);
    const shop = String(req.params.shop);
    const scope = scopeOf(viewer);
    const report = scope && scope !== shop ? undefined : await deps.store.dataRequests().get(shop, String(req.params.request));
    if (report === undefined) return notFound(req, res, viewer);
    deps.logger.info({ route: 'admin/privacy', shop, request: req.params.request, by: actorOf(viewer) }, 'customer data request report downloaded');
    const name = `print-bridge-data-request-${shop}-${String(req.params.request)}.json`.replace(/[^\w.-]/g, '_');
    res.set({ 'Content-Type': 'application/json; charset=utf-8', 'Content-Disposition': `attachment; filename="${name}"` });
    res.status(200).send(JSON.stringify({ shop, requestId: String(req.params.request), report }, null, 2));
  });

  router.get('/admin/mappings', async (req, res) => {
    const viewer = viewerOf(res);
    const problems = await problemCount(viewer);
    render(req, res, viewer, (ctx) => mappingsPage(ctx, { ...mappingsView(viewer), problems_count: problems }));
  });

  router.post('/admin/mappings/preview', async (req, res) => {
    const viewer = viewerOf(res);
    const form = previewForm.safeParse(req.body);
    if (!form.success) return badRequest(res, 'The preview form is not complete.');
    const scope = scopeOf(viewer);
    const input = form.data;
    let preview;
    if (input.orderId) {
      const shop = scope ?? input.shop;
      if (!shop) {
        preview = { ok: false as const, problems: ['Give the store domain with an order id.'] };
      } else {
        const orderId = toOrderGid(input.orderId);
        const stored = await deps.store.getOrderBody(shop, orderId);
        preview = stored
          ? deps.mappings.preview(stored.body, shop)
          : { ok: false as const, shop, problems: [`The app has no stored body for order ${orderId} of ${shop}.`] };
      }
    } else if (input.body?.trim()) {
      preview = deps.mappings.preview(input.body, scope ?? input.shop);
    } else {
      preview = { ok: false as const, problems: ['Give an order id or paste an order body.'] };
    }
    const problems = await problemCount(viewer);
    render(req, res, viewer, (ctx) => mappingsPage(ctx, { ...mappingsView(viewer), preview, input, problems_count: problems }));
  });

  // ---- the queue dashboard, operators only -------------------------------------------------------------------
  const board = new ExpressAdapter();
  board.setBasePath('/admin/queues');
  // @bull-board/api and @bull-board/express are pinned to one version in package.json: two copies of the api would
  // make the adapter's type another package's.
  createBullBoard({ queues: deps.queues.map((q) => new BullMQAdapter(q)), serverAdapter: board, options: { uiConfig: { boardTitle: 'print-bridge queues' } } });
  router.use(
    '/admin/queues',
    (_req, res, next) => {
      if (viewerOf(res).session.kind !== 'operator') return forbidden(res);
      next();
    },
    keepDashboardLocal,
    board.getRouter() as express.RequestHandler,
  );

  router.use('/admin', (req, res) => notFound(req, res, viewerOf(res)));

  return router;

  // ---- helpers -------------------------------------------------------------------------------------------------

  /**
   * bull-board's page links Google Fonts: an operator's browser would tell Google about every visit, and the page
   * waits on the internet. The link is taken out of the rendered page (it falls back to the system font), and the
   * Content-Security-Policy keeps the dashboard to this origin whatever a later version adds.
   */
  function keepDashboardLocal(_req: Request, res: Response, next: express.NextFunction): void {
    res.set('Content-Security-Policy', "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'");
    const render = res.render.bind(res);
    res.render = ((view: string, options?: object) =>
      render(view, options ?? {}, (error: Error | null, html: string) => {
        if (error) return next(error);
        res.send(html.replace(/<link[^>]*\/\/fonts\.(googleapis|gstatic)\.com[^>]*>/g, ''));
      })) as typeof res.render;
    next();
  }

  async function resolveViewer(req: Request): Promise<Viewer | undefined> {
    const body = req.body as Record<string, unknown> | undefined;
    const carried = typeof req.query.s === 'string' ? req.query.s : typeof body?._s === 'string' ? body._s : undefined;
    if (carried) {
      const session = signer.verify(carried);
      return session?.kind === 'shop' ? { session, carried } : undefined;
    }
    // App Bridge sends its session token as a bearer token on the app's own fetches; Shopify adds it to the URL of
    // the embedded app's first load.
    const bearer = /^Bearer ([A-Za-z0-9_.-]+)$/.exec(req.get('authorization') ?? '')?.[1];
    const idToken = bearer ?? (typeof req.query.id_token === 'string' ? req.query.id_token : undefined);
    if (idToken) {
      const viewer = await embeddedViewer(idToken);
      return viewer && bearer ? { ...viewer, bearer: true } : viewer;
    }
    const session = signer.verify(cookieValue(req, SESSION_COOKIE));
    if (session?.kind !== 'operator' || (await guard.isRevoked(session.sid))) return undefined;
    return { session };
  }

  async function embeddedViewer(idToken: string): Promise<Viewer | undefined> {
    if (!deps.embedded) return undefined;
    try {
      const payload = await deps.embedded.decodeSessionToken(idToken);
      const shop = typeof payload.dest === 'string' ? new URL(payload.dest).hostname.toLowerCase() : undefined;
      if (!shop) return undefined;
      if (deps.embedded.ensureInstalled) {
        await deps.embedded.ensureInstalled(shop, idToken).catch((error: Error) => {
          deps.logger.error({ route: 'admin', shop, err: { name: error.name, message: error.message } }, 'token exchange failed: Admin API calls for this store will fail until it succeeds');
        });
      }
      const { session, token } = signer.create({ kind: 'shop', shop, user: typeof payload.sub === 'string' ? payload.sub : undefined }, SHOP_SESSION_MS);
      return { session, carried: token };
    } catch (error) {
      deps.logger.warn({ route: 'admin', err: { name: (error as Error).name } }, 'embedded session token refused');
      return undefined;
    }
  }

  /** Origin (or, without it, nothing) must be this app: the request's own host or APP_URL. */
  function sameOrigin(req: Request): boolean {
    const origin = req.get('origin');
    if (!origin || origin === 'null') return origin !== 'null';
    const own = `${req.protocol}://${req.get('host') ?? ''}`;
    return origin === own || origin === appOrigin;
  }

  function sameOriginReferer(req: Request): boolean {
    const referer = req.get('referer');
    if (!referer) return false;
    try {
      const origin = new URL(referer).origin;
      return origin === `${req.protocol}://${req.get('host') ?? ''}` || origin === appOrigin;
    } catch {
      return false;
    }
  }

  function refuseOrigin(req: Request, res: Response): void {
    deps.logger.warn({ route: req.path, origin: req.get('origin') }, 'admin request from another origin refused');
    sendHtml(res, 403, messagePage('Refused', 'This request did not come from this app.'));
  }

  function viewerOf(res: Response): Viewer {
    return res.locals.viewer as Viewer;
  }

  function scopeOf(viewer: Viewer): string | undefined {
    return viewer.session.kind === 'shop' ? viewer.session.shop : undefined;
  }

  function actorOf(viewer: Viewer): string {
    return viewer.session.kind === 'operator' ? 'operator' : `${viewer.session.shop} user ${viewer.session.user ?? 'unknown'}`;
  }

  function orderTarget(req: Request, viewer: Viewer): { shop: string; orderId: string } | undefined {
    const shop = String(req.params.shop ?? '').toLowerCase();
    const scope = scopeOf(viewer);
    if (!shop || (scope && scope !== shop)) return undefined;
    return { shop, orderId: toOrderGid(String(req.params.order ?? '')) };
  }

  function orderPathOf(target: { shop: string; orderId: string }): string {
    const tail = target.orderId.startsWith('gid://shopify/Order/') ? target.orderId.slice('gid://shopify/Order/'.length) : target.orderId;
    return `/admin/orders/${encodeURIComponent(target.shop)}/${encodeURIComponent(tail)}`;
  }

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

  async function problemCount(viewer: Viewer): Promise<number> {
    const shop = scopeOf(viewer);
    const kinds = ['waiting', 'held', 'error'] as const;
    const counts = shop ? await deps.store.countByStatusOfShop(shop, kinds) : await deps.store.countByStatus(kinds);
    const postbacks = shop ? 0 : await deps.store.countUnreadablePostbacks();
    return (counts.waiting ?? 0) + (counts.held ?? 0) + (counts.error ?? 0) + postbacks;
  }

  function mappingsView(viewer: Viewer) {
    const shop = scopeOf(viewer);
    return { files: deps.mappings.files(shop), problems: deps.mappings.problems(shop), warnings: deps.mappings.warnings(shop) };
  }

  function linkFor(viewer: Viewer, path: string, query: Record<string, string | number | undefined> = {}): string {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value));
    if (viewer.carried) params.set('s', viewer.carried);
    const text = params.toString();
    return text ? `${path}?${text}` : path;
  }

  function sealFlash(flash: z.infer<typeof flashSchema>): string {
    // Signed so a crafted link cannot put words in the app's mouth.
    return signer.seal('flash', JSON.stringify(flash), 60_000);
  }

  function openFlash(value: unknown): z.infer<typeof flashSchema> | undefined {
    const text = signer.unseal('flash', typeof value === 'string' ? value : undefined);
    if (!text) return undefined;
    try {
      return flashSchema.parse(JSON.parse(text));
    } catch {
      return undefined;
    }
  }

  function render(req: Request, res: Response, viewer: Viewer, page: (ctx: PageContext) => Html): void {
    const shop = scopeOf(viewer);
    const ctx: PageContext = {
      viewer: shop ? { kind: 'shop', shop } : { kind: 'operator' },
      link: (path, query) => linkFor(viewer, path, query),
      formFields: html`<input type="hidden" name="_csrf" value="${signer.csrfToken(viewer.session)}">${viewer.carried ? html`<input type="hidden" name="_s" value="${viewer.carried}">` : ''}`,
      embedded: shop && deps.embedded ? { apiKey: deps.embedded.apiKey } : undefined,
      flash: openFlash(req.query.flash),
    };
    pageHeaders(res, shop);
    sendHtml(res, 200, page(ctx));
  }

  function notFound(_req: Request, res: Response, viewer: Viewer | undefined): void {
    pageHeaders(res, viewer ? scopeOf(viewer) : undefined);
    sendHtml(res, 404, messagePage('Not found', 'There is no such page or order (or it belongs to another store).'));
  }

  function forbidden(res: Response): void {
    pageHeaders(res, undefined);
    sendHtml(res, 403, messagePage('Operators only', 'This page is for the people who run the app.'));
  }

  function badRequest(res: Response, message: string): void {
    pageHeaders(res, undefined);
    sendHtml(res, 400, messagePage('Not understood', message));
  }

  /** No scripts on our pages, except App Bridge inside Shopify admin, whose frame may embed them. */
  function pageHeaders(res: Response, embeddedShop: string | undefined): void {
    // Embedded: App Bridge and Polaris come from Shopify's CDN (scripts, their styles and fonts), and App Bridge talks
    // to this app and to the admin.
    const scripts = embeddedShop
      ? "script-src https://cdn.shopify.com; connect-src 'self' https://*.shopify.com; font-src https://cdn.shopify.com; style-src 'unsafe-inline' https://cdn.shopify.com"
      : "script-src 'none'; style-src 'unsafe-inline'";
    const frames = embeddedShop ? `frame-ancestors https://${embeddedShop} https://admin.shopify.com` : "frame-ancestors 'none'";
    res.set('Content-Security-Policy', `default-src 'none'; img-src 'self' data:; form-action 'self'; base-uri 'none'; ${scripts}; ${frames}`);
  }
}

function sendHtml(res: Response, status: number, page: Html): void {
  res.status(status).type('html').send(page.value);
}

/** An order in a URL is the number at the end of its gid; a full gid is accepted too. */
export function toOrderGid(value: string): string {
  const text = value.trim();
  return /^\d+$/.test(text) ? `gid://shopify/Order/${text}` : text;
}

function cookieValue(req: Request, name: string): string | undefined {
  const header = req.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

