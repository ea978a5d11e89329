import type { Router } from 'express';
import { setAppHolds, type SetupDeps } from '../shops/setup.js';
import { submitButton } from './fields.js';
import { html, type Html } from './html.js';
import type { PageContext } from './page-layout.js';
import { card, paragraph, row } from './parts.js';
import type { AdminContext } from './router.js';
import { actorOf, formStoreOf, shopQuery } from './viewer.js';

/**
 * The Settings page's switch of print-bridge's own holds in Shopify (docs/pipeline.md, "print-bridge's waits in
 * Shopify"): `POST /admin/settings/app-holds` with `on=yes|no`, on the viewer's store (`setAppHolds`).
 */

export function appHoldsSection(ctx: PageContext, on: boolean, form: (action: string, inner: Html) => Html): Html {
  return card(
    ctx,
    { id: 'app-holds', heading: 'Holds while print-bridge waits' },
    html`${paragraph(
      ctx,
      on
        ? html`<span id="app-holds-now" data-on="true">On:</span> while print-bridge keeps an order back (the edit window, a mapping problem, test mode, Shopify's risk recommendation), the items it will print are on hold in Shopify with the reason, so nobody ships them by hand meanwhile. The hold goes as soon as the order goes to the printer.`
        : html`<span id="app-holds-now" data-on="false">Off:</span> print-bridge places no holds in Shopify; its waits show only in the app.`,
    )}
${form('/admin/settings/app-holds', html`<input type="hidden" name="on" value="${on ? 'no' : 'yes'}">${row(ctx, submitButton(ctx, on ? 'Turn holds off' : 'Turn holds on'), { spaced: true })}`)}`,
  );
}

export function addAppHoldsRoute(router: Router, ctx: AdminContext, setup: SetupDeps): void {
  const { deps, respond, viewerOf } = ctx;
  router.post('/admin/settings/app-holds', async (req, res) => {
    const viewer = viewerOf(res);
    const body = (req.body as Record<string, unknown> | undefined) ?? {};
    const shop = formStoreOf(viewer, body);
    if (!shop) return respond.notFound(res, viewer);
    if (body.on !== 'yes' && body.on !== 'no') return respond.badRequest(res, viewer, 'The form is not complete; reload the page and try again.');
    const on = body.on === 'yes';
    await setAppHolds(setup, shop, on);
    deps.logger.info({ action: 'app-holds', shop, on, by: actorOf(viewer) }, 'app holds switched');
    respond.redirect(
      res,
      viewer,
      '/admin/settings',
      { tone: 'success', message: on ? 'Holds are on: orders print-bridge keeps back are on hold in Shopify.' : "Holds are off: print-bridge's holds on waiting orders are released." },
      shopQuery(viewer, shop),
    );
  });
}
