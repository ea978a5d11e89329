import { type Express, type Request, type Response } from 'express';
import type { Shopify } from '@shopify/shopify-api';
import type { Logger } from 'pino';
import type { ShopSessions } from './sessions.js';

/**
 * OAuth install with an offline access token (`GET /auth?shop=...`, `GET /auth/callback`). The library sets and
 * checks the state cookie and the HMAC of the callback. The token asked for is an expiring one with a refresh token
 * (`expiring=1`): Shopify refuses non-expiring offline tokens of public apps from 1 January 2027. The session (access
 * and refresh token encrypted, expiry) lands in the database.
 */
export function mountAuthRoutes(app: Express, deps: { shopify: Shopify; sessions: ShopSessions; logger: Logger }): void {
  app.get('/auth', async (req: Request, res: Response) => {
    const shop = deps.shopify.utils.sanitizeShop(String(req.query.shop ?? ''), false);
    if (!shop) {
      res.status(400).json({ ok: false, error: 'add ?shop=<store>.myshopify.com to install the app on a store' });
      return;
    }
    await deps.shopify.auth.begin({ shop, callbackPath: '/auth/callback', isOnline: false, rawRequest: req, rawResponse: res });
  });

  app.get('/auth/callback', async (req: Request, res: Response) => {
    try {
      const { session } = await deps.shopify.auth.callback({ expiring: true, rawRequest: req, rawResponse: res });
      await deps.sessions.storeSession(session);
      deps.logger.info({ shop: session.shop }, 'app installed: offline session stored');
      const host = typeof req.query.host === 'string' ? req.query.host : undefined;
      res.redirect(host ? await deps.shopify.auth.getEmbeddedAppUrl({ rawRequest: req, rawResponse: res }) : `/admin?shop=${encodeURIComponent(session.shop)}`);
    } catch (error) {
      deps.logger.warn({ err: error }, 'OAuth callback refused');
      res.status(400).json({ ok: false, error: `installation failed: ${(error as Error).message}` });
    }
  });
}
