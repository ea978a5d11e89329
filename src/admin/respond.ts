import type { Request, Response } from 'express';
import { z } from 'zod';
import { html, type Html } from './html.js';
import type { SessionSigner } from './session.js';
import { linkFor, scopeOf, type Viewer } from './viewer.js';
import { layout, messagePage, type PageContext } from './page-layout.js';
import { card, paragraph } from './parts.js';

/**
 * How the admin pages answer: pages with their security headers, redirects after a form (a JSON `{location}` for the
 * embedded script's fetch), refusals in plain words (JSON `{error}` for the script), and signed flash messages.
 */

const flashSchema = z.object({ tone: z.enum(['success', 'critical', 'warning']), message: z.string().max(2000) });
export type Flash = z.infer<typeof flashSchema>;

export interface Responder {
  render(req: Request, res: Response, viewer: Viewer, page: (ctx: PageContext) => Html): void;
  /** After a form: to `path` with an optional message. */
  redirect(res: Response, viewer: Viewer, path: string, flash?: Flash, query?: Record<string, string | undefined>): void;
  refuse(res: Response, viewer: Viewer | undefined, status: number, title: string, message: string): void;
  notFound(res: Response, viewer: Viewer | undefined): void;
  forbidden(res: Response, viewer?: Viewer): void;
  badRequest(res: Response, viewer: Viewer | undefined, message: string): void;
  pageHeaders(res: Response, embeddedShop: string | undefined): void;
}

export function createResponder(deps: { signer: SessionSigner; apiKey?: string; setup?: boolean }): Responder {
  const { signer } = deps;

  function pageHeaders(res: Response, embeddedShop: string | undefined): void {
    // Embedded: App Bridge and Polaris come from Shopify's CDN (scripts, their styles and fonts), our one script from
    // this origin, and App Bridge talks to this app and to the admin. Elsewhere only the app's own scripts (the mapping
    // editor), never an inline one.
    const scripts = embeddedShop
      ? "script-src 'self' https://cdn.shopify.com; connect-src 'self' https://*.shopify.com; font-src https://cdn.shopify.com; style-src 'unsafe-inline' https://cdn.shopify.com"
      : "script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'";
    const frames = embeddedShop ? `frame-ancestors https://${embeddedShop} https://admin.shopify.com` : "frame-ancestors 'none'";
    res.set('Content-Security-Policy', `default-src 'none'; img-src 'self' data:; form-action 'self'; base-uri 'none'; ${scripts}; ${frames}`);
  }

  /**
   * A flash is sealed for the store it was said to (or the operator): a message, with an order name a store chose, in
   * one store's redirect link would otherwise show as the app's own words on another store's page.
   */
  function flashPurpose(viewer: Viewer): string {
    const shop = scopeOf(viewer);
    return shop ? `flash:shop:${shop}` : 'flash:operator';
  }

  function openFlash(viewer: Viewer, value: unknown): Flash | undefined {
    const text = signer.unseal(flashPurpose(viewer), typeof value === 'string' ? value : undefined);
    if (!text) return undefined;
    try {
      return flashSchema.parse(JSON.parse(text));
    } catch {
      return undefined;
    }
  }

  function contextOf(viewer: Viewer, flash?: Flash): PageContext {
    const shop = scopeOf(viewer);
    return {
      viewer: shop ? { kind: 'shop', shop } : { kind: 'operator' },
      link: (path, query) => linkFor(viewer, path, query),
      formFields: html`<input type="hidden" name="_csrf" value="${signer.csrfToken(viewer.session)}">`,
      embedded: shop && deps.apiKey ? { apiKey: deps.apiKey } : undefined,
      setup: deps.setup,
      flash,
    };
  }

  function refuse(res: Response, viewer: Viewer | undefined, status: number, title: string, message: string): void {
    if (viewer?.bearer) {
      res.status(status).json({ error: message });
      return;
    }
    const shop = viewer ? scopeOf(viewer) : undefined;
    pageHeaders(res, shop);
    // Inside the Shopify admin a refusal is an embedded page like the others: App Bridge, Polaris, the navigation.
    if (viewer && shop && deps.apiKey) {
      const ctx = contextOf(viewer);
      sendHtml(res, status, layout(ctx, title, '', card(ctx, {}, paragraph(ctx, message, { id: 'refusal' }))));
      return;
    }
    sendHtml(res, status, messagePage(title, message));
  }

  return {
    pageHeaders,
    refuse,
    render(req, res, viewer, page) {
      const ctx = contextOf(viewer, openFlash(viewer, req.query.flash));
      pageHeaders(res, scopeOf(viewer));
      sendHtml(res, 200, page(ctx));
    },
    redirect(res, viewer, path, flash, query = {}) {
      // Signed, so a crafted link cannot put words in the app's mouth.
      const sealed = flash ? signer.seal(flashPurpose(viewer), JSON.stringify(flash), 60_000) : undefined;
      const location = linkFor(viewer, path, { ...query, flash: sealed });
      if (viewer.bearer) res.status(200).json({ location });
      else res.redirect(303, location);
    },
    notFound(res, viewer) {
      refuse(res, viewer, 404, 'Not found', 'There is no such page or order (or it belongs to another store).');
    },
    forbidden(res, viewer) {
      refuse(res, viewer, 403, 'Operators only', 'This page is for the people who run the app.');
    },
    badRequest(res, viewer, message) {
      refuse(res, viewer, 400, 'Not understood', message);
    },
  };
}

export function sendHtml(res: Response, status: number, page: Html): void {
  res.status(status).type('html').send(page.value);
}
