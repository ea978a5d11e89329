import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Queue } from 'bullmq';
import express, { type Request, type Response, Router } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { isShopDomain } from '../shopify/webhook-agreement.js';
import type { OperatorActionDeps } from '../bridge/operator-actions.js';
import type { CarrierNames } from '../bridge/ports.js';
import type { PostgresOrderStore } from '../storage/order-store.js';
import { bouncePage, EMBEDDED_SCRIPT, EMBEDDED_SCRIPT_ETAG } from './embedded-script.js';
import type { AdminFailedJobs } from './failed-jobs.js';
import type { AdminMappingPort } from './mappings.js';
import { addMappingRoutes } from './mapping-routes.js';
import { addOrderRoutes } from './order-routes.js';
import { addPrivacyRoutes } from './privacy-routes.js';
import { addEditorRoutes, type AdminEditorDeps } from './editor-routes.js';
import { editorBundle } from './editor-bundle.js';
import { addSettingsRoutes, type AdminShopSetup } from './settings-routes.js';
import { createResponder, type Responder, sendHtml } from './respond.js';
import { equalText, OPERATOR_SESSION_MS, SessionSigner } from './session.js';
import { type LoginGuard, MemoryLoginGuard } from './login-guard.js';
import { BOUNCE_PATH, createViewerResolver, type EmbeddedAuth, isPageLoad, scopeOf, type Viewer } from './viewer.js';
import { loginPage } from './page-layout.js';

export type { EmbeddedAuth } from './viewer.js';
export { toOrderGid } from './order-routes.js';

/**
 * The merchant and operator pages under /admin (docs/admin.md). Two ways in (viewer.ts):
 * - operators log in with ADMIN_TOKEN and get a signed HttpOnly cookie; they see every shop and the queue dashboard;
 * - a merchant opens the app inside Shopify admin; every request proves itself with App Bridge's session token (in the
 *   URL of a page load, as a bearer token on the page script's form posts); that viewer sees their own shop only.
 * Every POST needs a same-origin Origin when the browser sends one, and the operator's CSRF token or a bearer token.
 * The routes live by subject in order-routes.ts, mapping-routes.ts and privacy-routes.ts.
 */

export type AdminStore = Pick<
  PostgresOrderStore,
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
  | 'listUnconfirmedPostbacks'
  | 'countUnconfirmedPostbacks'
  | 'note'
  | 'dataRequests'
>;

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
  /** Stores' own set-up: the Settings page and the mapping editor (issue 16); without it they are off. */
  shopSetup?: AdminShopSetup & { editor: AdminEditorDeps };
  /**
   * The carrier company the mapping's `tracking` table names for a printer's carrier code: merchant pages show the
   * company, not the code. A lookup only; the tracking page shown is the one kept with the shipment.
   */
  carriers?: CarrierNames;
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

const loginForm = z.object({ token: z.string().min(1).max(1000) });

/** What the route modules share: the dependencies, how to answer, and who is asking. */
export interface AdminContext {
  deps: AdminDeps;
  respond: Responder;
  viewerOf(res: Response): Viewer;
  /** Orders that need someone (waiting, held, errored) plus, for operators, unreadable postbacks: the nav's count. */
  problemCount(viewer: Viewer): Promise<number>;
}

export function createAdminRouter(deps: AdminDeps): Router {
  const clock = deps.clock ?? (() => new Date());
  const signer = new SessionSigner(deps.sessionSecrets.filter(Boolean), clock);
  const secureCookies = deps.appUrl?.startsWith('https:') ?? false;
  const appOrigin = deps.appUrl ? new URL(deps.appUrl).origin : undefined;
  const respond = createResponder({ signer, apiKey: deps.embedded?.apiKey, setup: Boolean(deps.shopSetup) });
  // Guessing the token is slowed down per client address and overall (login-guard.ts; shared through Redis).
  const guard = deps.loginGuard ?? new MemoryLoginGuard(clock);
  const resolveViewer = createViewerResolver({ signer, guard, embedded: deps.embedded, cookie: (req) => cookieValue(req, SESSION_COOKIE), logger: deps.logger, clock });
  const viewerOf = (res: Response) => res.locals.viewer as Viewer;
  const context: AdminContext = { deps, respond, viewerOf, problemCount };
  const router = Router();
  const forms = express.urlencoded({ extended: false, limit: '2mb', parameterLimit: 50 });

  router.use(['/admin', BOUNCE_PATH], (_req, res, next) => {
    res.set({ 'Referrer-Policy': 'same-origin', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' });
    next();
  });

  // ---- what loads without a session: the bounce page and the embedded pages' script -----------------------------
  router.get(BOUNCE_PATH, (req, res) => {
    if (!deps.embedded) return respond.notFound(res, undefined);
    const shop = typeof req.query.shop === 'string' ? req.query.shop.toLowerCase() : '';
    respond.pageHeaders(res, isShopDomain(shop) ? shop : undefined);
    res.status(200).type('html').send(bouncePage(deps.embedded.apiKey));
  });

  router.get('/admin/assets/embedded.js', (req, res) => {
    // The same script for everyone: cacheable, revalidated by its hash.
    res.set({ 'Cache-Control': 'public, max-age=300', ETag: EMBEDDED_SCRIPT_ETAG });
    if (req.get('if-none-match') === EMBEDDED_SCRIPT_ETAG) return res.status(304).end();
    res.type('text/javascript').send(EMBEDDED_SCRIPT);
  });

  router.get('/admin/assets/editor.js', async (_req, res) => {
    try {
      const code = await editorBundle();
      res.set('Cache-Control', 'public, max-age=300').type('text/javascript').send(code);
    } catch (error) {
      deps.logger.error({ err: error }, 'the mapping editor bundle is not available');
      res.status(503).type('text/plain').send('the mapping editor is not built: run npm run build');
    }
  });

  // ---- operator login -------------------------------------------------------------------------------------------
  router.get('/admin/login', (_req, res) => {
    respond.pageHeaders(res, undefined);
    sendHtml(res, 200, loginPage({ enabled: Boolean(deps.adminToken) }));
  });

  router.post('/admin/login', forms, async (req, res) => {
    respond.pageHeaders(res, undefined);
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
    const found = await resolveViewer(req);
    if (found.kind === 'bounce') return res.redirect(302, found.url);
    if (found.kind === 'none') {
      const page = isPageLoad(req);
      if (page && !req.query.id_token) return res.redirect(303, '/admin/login');
      return respond.refuse(res, undefined, 401, 'Not signed in', page ? 'This link has expired or is not valid. Open the app again from your Shopify admin.' : 'Sign in first.');
    }
    const viewer = found.viewer;
    res.locals.viewer = viewer;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      if (!sameOrigin(req)) return refuseOrigin(req, res, viewer);
      // The dashboard's own JSON API cannot carry our token; SameSite=Lax plus the Origin check above protect it.
      const isDashboardApi = req.path.startsWith('/queues/');
      // A bearer session token is sent only by the app's own script (App Bridge): it is its own proof of origin. An
      // embedded viewer has no other way to send a form (no cookie, nothing in the page), so its CSRF token alone is
      // never enough.
      const csrfOk =
        viewer.bearer ||
        (viewer.session.kind === 'operator' &&
          (isDashboardApi ? Boolean(req.get('origin')) || sameOriginReferer(req) : signer.checkCsrf(viewer.session, (req.body as Record<string, unknown> | undefined)?._csrf)));
      if (!csrfOk) {
        deps.logger.warn({ route: req.path, ip: req.ip }, 'admin request without a valid CSRF token refused');
        return respond.refuse(res, viewer, 403, 'Refused', 'The form was not sent from this app (missing or wrong CSRF token). Reload the page and try again.');
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

  addOrderRoutes(router, context);
  if (deps.shopSetup) {
    addSettingsRoutes(router, context, deps.shopSetup);
    addEditorRoutes(router, context, deps.shopSetup, deps.shopSetup.editor);
  }
  addMappingRoutes(router, context);
  addPrivacyRoutes(router, context);

  // ---- the queue dashboard, operators only -------------------------------------------------------------------
  const board = new ExpressAdapter();
  board.setBasePath('/admin/queues');
  // @bull-board/api and @bull-board/express are pinned to one version in package.json: two copies of the api would
  // make the adapter's type another package's.
  createBullBoard({ queues: deps.queues.map((q) => new BullMQAdapter(q)), serverAdapter: board, options: { uiConfig: { boardTitle: 'print-bridge queues' } } });
  router.use(
    '/admin/queues',
    (_req, res, next) => {
      if (viewerOf(res).session.kind !== 'operator') return respond.forbidden(res, viewerOf(res));
      next();
    },
    keepDashboardLocal,
    board.getRouter() as express.RequestHandler,
  );

  router.use('/admin', (_req, res) => respond.notFound(res, viewerOf(res)));

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

  async function problemCount(viewer: Viewer): Promise<number> {
    const shop = scopeOf(viewer);
    const kinds = ['waiting', 'held', 'error'] as const;
    const counts = shop ? await deps.store.countByStatusOfShop(shop, kinds) : await deps.store.countByStatus(kinds);
    const [postbacks, unconfirmed] = await Promise.all([shop ? 0 : deps.store.countUnreadablePostbacks(), deps.store.countUnconfirmedPostbacks(shop)]);
    return (counts.waiting ?? 0) + (counts.held ?? 0) + (counts.error ?? 0) + postbacks + unconfirmed;
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

  function refuseOrigin(req: Request, res: Response, viewer?: Viewer): void {
    deps.logger.warn({ route: req.path, origin: req.get('origin') }, 'admin request from another origin refused');
    respond.refuse(res, viewer, 403, 'Refused', 'This request did not come from this app.');
  }
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
