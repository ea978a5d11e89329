import type { Router } from 'express';
import type { AdminContext } from './router.js';
import { dataRequestsPage } from './privacy-views.js';
import { actorOf, scopeOf } from './viewer.js';

/** Customer data requests: the list, and each report as a JSON download (a store's own only). */
export function addPrivacyRoutes(router: Router, ctx: AdminContext): void {
  const { deps, respond, viewerOf } = ctx;

  router.get('/admin/privacy', async (req, res) => {
    const viewer = viewerOf(res);
    const [requests, problems] = await Promise.all([deps.store.dataRequests().list(scopeOf(viewer)), ctx.problemCount(viewer)]);
    respond.render(req, res, viewer, (page) => dataRequestsPage(page, { requests, problems }));
  });

  router.get('/admin/privacy/:shop/:request/report.json', async (req, res) => {
    const viewer = viewerOf(res);
    const shop = String(req.params.shop);
    const scope = scopeOf(viewer);
    const report = scope && scope !== shop ? undefined : await deps.store.dataRequests().get(shop, String(req.params.request));
    if (report === undefined) return respond.notFound(res, viewer);
    deps.logger.info({ route: 'admin/privacy', shop, request: req.params.request, by: actorOf(viewer) }, 'customer data request report downloaded');
    const name = `print-bridge-data-request-${shop}-${String(req.params.request)}.json`.replace(/[^\w.-]/g, '_');
    res.set({ 'Content-Type': 'application/json; charset=utf-8', 'Content-Disposition': `attachment; filename="${name}"` });
    res.status(200).send(JSON.stringify({ shop, requestId: String(req.params.request), report }, null, 2));
  });
}
