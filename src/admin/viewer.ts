import type { Request } from 'express';
import type { Logger } from 'pino';
import { OPERATOR_AUTHOR } from '../shops/model.js';
import { isShopDomain } from '../shopify/webhook-agreement.js';
import type { LoginGuard } from './login-guard.js';
import type { SessionSigner} from './session.js';
import { type AdminSession, SHOP_SESSION_MS } from './session.js';

/**
 * Who is asking, for every /admin request. Two ways in:
 * - an operator logged in with ADMIN_TOKEN carries a signed HttpOnly cookie;
 * - a merchant inside the Shopify admin proves each request with App Bridge's session token (a JWT Shopify signs with
 *   the app's secret, valid one minute): as `Authorization: Bearer` on the page's own fetches (forms), and as the
 *   `id_token` query parameter on page loads. Nothing of ours travels in URLs: a page load without a fresh token goes
 *   through the bounce page, where App Bridge fetches one and reloads (Shopify's template does the same).
 */

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

export interface Viewer {
  session: AdminSession;
  /** Embedded viewers: the admin's `host` parameter, kept in the app's links so App Bridge can find its admin. */
  host?: string;
  /** Authenticated by App Bridge's bearer session token: sent only by the app's own script, so it proves origin. */
  bearer?: boolean;
}

export type ViewerResult =
  | { kind: 'viewer'; viewer: Viewer }
  /** An embedded page load whose session token is missing or expired: App Bridge fetches a fresh one. */
  | { kind: 'bounce'; url: string }
  | { kind: 'none' };

export const BOUNCE_PATH = '/auth/session-token';
/** App Bridge reloads the page at this parameter's URL with a fresh `id_token` added. */
export const RELOAD_PARAM = 'shopify-reload';

export interface ViewerDeps {
  signer: SessionSigner;
  guard: LoginGuard;
  embedded?: EmbeddedAuth;
  cookie(req: Request): string | undefined;
  logger: Logger;
  clock: () => Date;
}

export function createViewerResolver(deps: ViewerDeps): (req: Request) => Promise<ViewerResult> {
  return async (req) => {
    const bearer = /^Bearer ([A-Za-z0-9_.-]+)$/.exec(req.get('authorization') ?? '')?.[1];
    const idToken = bearer ?? (typeof req.query.id_token === 'string' ? req.query.id_token : undefined);
    const host = hostParam(req.query.host);
    if (idToken) {
      const viewer = await embeddedViewer(idToken, host);
      if (viewer) return { kind: 'viewer', viewer: bearer ? { ...viewer, bearer: true } : viewer };
      // A page load whose token merely expired (a reload, a bookmarked link) gets a fresh one; a forged one does not.
      if (!bearer && isPageLoad(req) && tokenExpired(idToken, deps.clock())) return bounceOrNone(req);
      return { kind: 'none' };
    }
    const session = deps.signer.verify(deps.cookie(req));
    if (session?.kind === 'operator' && !(await deps.guard.isRevoked(session.sid))) return { kind: 'viewer', viewer: { session } };
    return isPageLoad(req) ? bounceOrNone(req) : { kind: 'none' };
  };

  function bounceOrNone(req: Request): ViewerResult {
    const shop = typeof req.query.shop === 'string' ? req.query.shop.toLowerCase() : '';
    if (!deps.embedded || req.query.embedded !== '1' || !isShopDomain(shop)) return { kind: 'none' };
    const target = new URL(req.originalUrl, 'http://app.invalid');
    target.searchParams.delete('id_token');
    const bounce = new URLSearchParams({ shop, embedded: '1' });
    const host = hostParam(req.query.host);
    if (host) bounce.set('host', host);
    bounce.set(RELOAD_PARAM, `${target.pathname}${target.search}`);
    return { kind: 'bounce', url: `${BOUNCE_PATH}?${bounce}` };
  }

  async function embeddedViewer(idToken: string, host: string | undefined): Promise<Viewer | undefined> {
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
      // The session lives for this request only (its CSRF token, its actor in the history); the next request brings a
      // new session token.
      const { session } = deps.signer.create({ kind: 'shop', shop, user: typeof payload.sub === 'string' ? payload.sub : undefined }, SHOP_SESSION_MS);
      return { session, host };
    } catch (error) {
      deps.logger.warn({ route: 'admin', err: { name: (error as Error).name } }, 'embedded session token refused');
      return undefined;
    }
  }
}

/** A GET for a page (not the dashboard's JSON API, not a script's fetch). */
export function isPageLoad(req: Request): boolean {
  return req.method === 'GET' && !`${req.baseUrl}${req.path}`.startsWith('/admin/queues/api') && req.accepts(['html', 'json']) === 'html';
}

/** The admin's `host` (base64url of the admin's address); anything else is dropped, never echoed into pages. */
function hostParam(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{1,500}={0,2}$/.test(value) ? value : undefined;
}

/**
 * Whether a JWT's `exp` has passed, read without verifying: only to choose between a bounce (get a fresh token) and a
 * refusal. Nothing is granted on this reading.
 */
function tokenExpired(token: string, now: Date): boolean {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' && payload.exp * 1000 <= now.getTime();
  } catch {
    return false;
  }
}

/** The store a request is about: an embedded viewer's own, whatever it names; an operator's choice (a store domain). */
export function storeOf(viewer: Viewer, named: unknown): string | undefined {
  const scope = scopeOf(viewer);
  if (scope) return scope;
  const shop = typeof named === 'string' ? named.trim().toLowerCase() : '';
  return isShopDomain(shop) ? shop : undefined;
}

/**
 * The store a form changes: the operator's `shop`, or the merchant's own, where a form naming another store is refused
 * (undefined: answer 404), not turned into a change of their own.
 */
export function formStoreOf(viewer: Viewer, body: Record<string, unknown>): string | undefined {
  const scope = scopeOf(viewer);
  const named = typeof body.shop === 'string' ? body.shop.trim().toLowerCase() : '';
  if (scope !== undefined && named !== '' && named !== scope) return undefined;
  return storeOf(viewer, body.shop);
}

/** The query that keeps an operator on the store they chose (an embedded viewer's store is implied). */
export function shopQuery(viewer: Viewer, shop: string): Record<string, string | undefined> {
  return scopeOf(viewer) ? {} : { shop };
}

/** The shop an embedded viewer is scoped to; undefined for an operator. */
export function scopeOf(viewer: Viewer): string | undefined {
  return viewer.session.kind === 'shop' ? viewer.session.shop : undefined;
}

export function actorOf(viewer: Viewer): string {
  return viewer.session.kind === 'operator' ? OPERATOR_AUTHOR : `${viewer.session.shop} user ${viewer.session.user ?? 'unknown'}`;
}

/**
 * A link inside the app for this viewer. An embedded viewer's links keep `shop`, `host` and `embedded=1` (no secret):
 * the app's script adds a fresh session token when one is followed, and a load without one goes through the bounce.
 */
export function linkFor(viewer: Viewer, path: string, query: Record<string, string | number | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value));
  const shop = scopeOf(viewer);
  if (shop) {
    params.set('shop', shop);
    if (viewer.host) params.set('host', viewer.host);
    params.set('embedded', '1');
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}
