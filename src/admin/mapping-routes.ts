import type { Router } from 'express';
import { z } from 'zod';
import { toOrderGid } from './order-routes.js';
import type { AdminContext } from './router.js';
import { scopeOf, type Viewer } from './viewer.js';
import { mappingsPage } from './mapping-views.js';

/** The mapping files that serve the viewer's stores, their problems, and a preview of an order through them. */

const previewForm = z.object({
  shop: z.string().trim().toLowerCase().max(255).optional(),
  orderId: z.string().trim().max(200).optional(),
  body: z.string().max(2_000_000).optional(),
});

export function addMappingRoutes(router: Router, ctx: AdminContext): void {
  const { deps, respond, viewerOf } = ctx;

  router.get('/admin/mappings', async (req, res) => {
    const viewer = viewerOf(res);
    const problems = await ctx.problemCount(viewer);
    respond.render(req, res, viewer, (page) => mappingsPage(page, { ...mappingsView(viewer), problems_count: problems }));
  });

  router.post('/admin/mappings/preview', async (req, res) => {
    const viewer = viewerOf(res);
    const form = previewForm.safeParse(req.body);
    if (!form.success) return respond.badRequest(res, viewer, 'The preview form is not complete.');
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
          ? await deps.mappings.preview(stored.body, shop)
          : { ok: false as const, shop, problems: [`The app has no stored body for order ${orderId} of ${shop}.`] };
      }
    } else if (input.body?.trim()) {
      preview = await deps.mappings.preview(input.body, scope ?? input.shop);
    } else {
      preview = { ok: false as const, problems: ['Give an order id or paste an order body.'] };
    }
    const problems = await ctx.problemCount(viewer);
    // The preview is the answer to the form itself (no redirect): the script shows it as the page.
    respond.render(req, res, viewer, (page) => mappingsPage(page, { ...mappingsView(viewer), preview, input, problems_count: problems }));
  });

  function mappingsView(viewer: Viewer) {
    const shop = scopeOf(viewer);
    return { files: deps.mappings.files(shop), problems: deps.mappings.problems(shop), warnings: deps.mappings.warnings(shop) };
  }
}
