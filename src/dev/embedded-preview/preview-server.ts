import { createServer, request as httpRequest, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signSessionToken } from '../admin-stand-in/index.js';
import { appBridgeStandIn } from './app-bridge-stand-in.js';
import { POLARIS_STAND_IN } from './polaris-stand-in.js';

/**
 * The embedded pages on this machine as a merchant of a store opens them in the Shopify admin, without the admin: a
 * small server in front of the app (demo and development only; the app itself has no such route) that
 * - passes every request through to the app, so links, forms and the app's own script work unchanged;
 * - in the app's pages, points the two scripts of Shopify's CDN (App Bridge, Polaris) at the stand-ins it serves
 *   itself under /_preview/ (the real App Bridge would look for an admin around the page and find none, and a
 *   reviewer may be offline); the app's CSP already allows scripts of its own origin, which this one is;
 * - signs App Bridge's session tokens for the one store, with the app's key and secret, as the admin would for a
 *   merchant of that store: the app checks them exactly as it checks Shopify's;
 * - at `/` without a query, opens the app as the admin opens `application_url` (embedded=1, shop, host).
 */

export const PREVIEW_PREFIX = '/_preview/';
const CDN_SCRIPTS: Record<string, string> = {
  'https://cdn.shopify.com/shopifycloud/app-bridge.js': `${PREVIEW_PREFIX}app-bridge.js`,
  'https://cdn.shopify.com/shopifycloud/polaris.js': `${PREVIEW_PREFIX}polaris.js`,
};
const TOKEN_PATH = `${PREVIEW_PREFIX}session-token`;

export interface EmbeddedPreviewOptions {
  /** The app's origin, e.g. http://127.0.0.1:3000. */
  appUrl: string;
  /** The store whose merchant the preview plays. */
  shop: string;
  /** The app's SHOPIFY_API_KEY and SHOPIFY_API_SECRET: the session tokens' audience and signing key. */
  apiKey: string;
  apiSecret: string;
  /** 0 or undefined: any free port. Always on 127.0.0.1: whoever reaches it is that store's merchant. */
  port?: number;
}

export interface EmbeddedPreview {
  /** The address to open: the app's home inside the (stand-in) admin. */
  url: string;
  origin: string;
  close(): Promise<void>;
}

/** The admin's `host` parameter for a store: base64url of the store's admin address, as Shopify sends it. */
export function adminHost(shop: string): string {
  return Buffer.from(`admin.shopify.com/store/${shop.replace(/\.myshopify\.com$/, '')}`).toString('base64url');
}

export async function startEmbeddedPreview(options: EmbeddedPreviewOptions): Promise<EmbeddedPreview> {
  const app = new URL(options.appUrl);
  const agent = new Agent({ keepAlive: true });
  const home = `/?${new URLSearchParams({ embedded: '1', shop: options.shop, host: adminHost(options.shop) })}`;
  const scripts: Record<string, string> = {
    [`${PREVIEW_PREFIX}app-bridge.js`]: appBridgeStandIn({ tokenUrl: TOKEN_PATH }),
    [`${PREVIEW_PREFIX}polaris.js`]: POLARIS_STAND_IN,
  };

  // The loopback names the preview answers to, filled in once it listens: a page on another site that a developer
  // visits could otherwise point a name of its own at 127.0.0.1 (DNS rebinding) and, being same-origin with the preview
  // then, fetch a session token of the store and act as its merchant.
  const ownHosts = new Set<string>();
  let ownOrigin = '';

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (!ownHosts.has((req.headers.host ?? '').toLowerCase())) {
      res.writeHead(421, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`The embedded preview answers only at ${ownOrigin}/ (the address it printed).\n`);
      return;
    }
    const origin = req.headers.origin;
    if (path === TOKEN_PATH && origin !== undefined && !ownHosts.has(origin.replace(/^http:\/\//, '').toLowerCase())) {
      res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Session tokens are for the preview\'s own pages.\n');
      return;
    }
    if (req.method === 'GET' && scripts[path] !== undefined) {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' });
      res.end(scripts[path]);
    } else if (req.method === 'GET' && path === TOKEN_PATH) {
      // A minute-long token, fresh on each call, as App Bridge's idToken() gets from the admin.
      res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-store' });
      res.end(signSessionToken({ apiKey: options.apiKey, apiSecret: options.apiSecret }, options.shop));
    } else if (req.method === 'GET' && req.url === '/') {
      res.writeHead(302, { location: home });
      res.end();
    } else {
      passThrough(req, res);
    }
  });

  function passThrough(req: IncomingMessage, res: ServerResponse): void {
    // Plain bodies (no compression) so a page's script addresses can be rewritten. The Host stays the preview's, as
    // behind any proxy that keeps it: the app's same-origin check on forms and fetches compares Origin with it.
    const headers = { ...req.headers, 'accept-encoding': 'identity' };
    const upstream = httpRequest({ host: app.hostname, port: app.port, method: req.method, path: req.url, headers, agent }, (answer) => {
      const out = { ...answer.headers };
      // A redirect to the app's own address stays in the preview.
      if (typeof out.location === 'string' && out.location.startsWith(app.origin)) out.location = out.location.slice(app.origin.length) || '/';
      if (!(answer.headers['content-type'] ?? '').startsWith('text/html')) {
        res.writeHead(answer.statusCode ?? 502, out);
        answer.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        let page = Buffer.concat(chunks).toString('utf8');
        for (const [cdn, local] of Object.entries(CDN_SCRIPTS)) page = page.split(`src="${cdn}"`).join(`src="${local}"`);
        const body = Buffer.from(page, 'utf8');
        delete out['transfer-encoding'];
        out['content-length'] = String(body.length);
        res.writeHead(answer.statusCode ?? 502, out);
        res.end(body);
      });
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (error) => {
      if (res.headersSent) return res.destroy();
      res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`The preview could not reach the app at ${app.origin}: ${error.message}\n`);
    });
    req.pipe(upstream);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  ownOrigin = origin;
  for (const name of ['127.0.0.1', 'localhost']) ownHosts.add(`${name}:${port}`);
  return {
    url: `${origin}/`,
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
