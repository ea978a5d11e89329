import type { Request, Response, Router } from 'express';
import type { FulfillmentModeDeps } from '../shops/fulfillment-mode.js';
import type { ShopSettingsStore } from '../shops/settings-store.js';
import {
  connectPrintAccount,
  disconnectPrintAccount,
  onboardingChecklist,
  postbackSetup,
  printAccountInput,
  setPrintMode,
  type SetupDeps,
  testPrintAccount,
} from '../shops/setup.js';
import { addFulfillmentRoute } from './fulfillment-settings.js';
import { addAppHoldsRoute } from './app-holds-settings.js';
import { addHoldPolicyRoute } from './hold-policy-settings.js';
import { holdPolicyInForce } from '../shops/hold-policy.js';
import type { AdminContext } from './router.js';
import { settingsIndexPage, settingsPage } from './settings-views.js';
import { actorOf, formStoreOf, scopeOf, shopQuery, storeOf, type Viewer } from './viewer.js';

/** What the Settings and mapping editor pages need of a store's own set-up (src/shops/). */
export interface AdminShopSetup {
  deps: SetupDeps;
  settings: Pick<ShopSettingsStore, 'get' | 'list' | 'mappingVersions' | 'mappingVersion' | 'hasPostbackToken'>;
  /** Fulfillment-service mode's choice (src/shops/fulfillment-mode.ts); without it the page has no such section. */
  fulfillmentMode?: FulfillmentModeDeps;
}

/**
 * `/admin/settings`: a merchant's own store (embedded), or any store for an operator (`?shop=`). Every form names its
 * action; the answer is the page again with what happened in plain words.
 */
export function addSettingsRoutes(router: Router, ctx: AdminContext, setup: AdminShopSetup): void {
  const { deps, respond, viewerOf } = ctx;

  router.get('/admin/settings', async (req, res) => {
    const viewer = viewerOf(res);
    const shop = storeOf(viewer, req.query.shop);
    if (!shop) {
      if (viewer.session.kind !== 'operator') return respond.notFound(res, viewer);
      const [setups, problems] = await Promise.all([setup.settings.list(), ctx.problemCount(viewer)]);
      return respond.render(req, res, viewer, (page) => settingsIndexPage(page, { setups, problems }));
    }
    await showSettings(req, res, viewer, shop);
  });

  router.post('/admin/settings/account', async (req, res) => {
    const viewer = viewerOf(res);
    const shop = storeOf(viewer, bodyOf(req).shop);
    if (!shop) return respond.notFound(res, viewer);
    const input = printAccountInput.safeParse(bodyOf(req));
    if (!input.success) {
      const message = input.error.issues.map((i) => `${fieldLabel(String(i.path[0]))}: ${i.message}`).join('; ');
      // The page again with what was typed (never the secrets) and why: nothing is lost but the secrets, and it says so.
      return showSettings(req, res, viewer, shop, { input: typedValues(bodyOf(req)), refused: `${message}.` });
    }
    const outcome = await connectPrintAccount(setup.deps, shop, input.data);
    deps.logger.info({ action: 'print-account', shop, saved: outcome.kind === 'saved', by: actorOf(viewer) }, 'print account set');
    if (outcome.kind !== 'saved') return showSettings(req, res, viewer, shop, { input: typedValues(bodyOf(req)), refused: outcome.check.message });
    respond.redirect(
      res,
      viewer,
      '/admin/settings',
      { tone: 'success', message: `Saved. ${outcome.check?.message ?? ''} ${outcome.setup.mode === 'test' ? 'Your store is in test mode: orders are checked, not created, until you go live.' : ''}`.trim() },
      shopQuery(viewer, shop),
    );
  });

  router.post('/admin/settings/account/test', async (req, res) => {
    const viewer = viewerOf(res);
    const shop = storeOf(viewer, bodyOf(req).shop);
    if (!shop) return respond.notFound(res, viewer);
    const check = await testPrintAccount(setup.deps, shop);
    respond.redirect(
      res,
      viewer,
      '/admin/settings',
      !check ? { tone: 'warning', message: 'This store has no account of its own to test.' } : { tone: check.ok ? 'success' : 'critical', message: check.message },
      shopQuery(viewer, shop),
    );
  });

  router.post('/admin/settings/account/remove', async (req, res) => {
    const viewer = viewerOf(res);
    const shop = storeOf(viewer, bodyOf(req).shop);
    if (!shop) return respond.notFound(res, viewer);
    const before = await setup.settings.get(shop);
    const after = await disconnectPrintAccount(setup.deps, shop, { merchant: scopeOf(viewer) !== undefined });
    deps.logger.info({ action: 'print-account-removed', shop, by: actorOf(viewer), mappingVersion: after.mappingVersion }, 'print account removed');
    const mapping = before.mappingVersion && !after.mappingVersion ? " The app's mapping serves it too (your saved versions are kept for when you connect your own account again)." : '';
    respond.redirect(res, viewer, '/admin/settings', { tone: 'success', message: `The store uses the app's print account again.${mapping}` }, shopQuery(viewer, shop));
  });

  router.post('/admin/settings/mode', async (req, res) => {
    const viewer = viewerOf(res);
    const body = bodyOf(req);
    const shop = formStoreOf(viewer, body);
    if (!shop) return respond.notFound(res, viewer);
    const mode = body.mode === 'live' ? 'live' : body.mode === 'test' ? 'test' : undefined;
    if (!mode) return respond.badRequest(res, viewer, 'The form is not complete; reload the page and try again.');
    if (mode === 'live' && body.confirm !== 'yes') {
      return respond.redirect(res, viewer, '/admin/settings', { tone: 'warning', message: 'Tick the box to confirm going live.' }, shopQuery(viewer, shop));
    }
    const outcome = await setPrintMode(setup.deps, shop, mode);
    deps.logger.info({ action: 'print-mode', shop, mode, outcome: outcome.kind, by: actorOf(viewer) }, 'print mode change');
    respond.redirect(
      res,
      viewer,
      '/admin/settings',
      outcome.kind === 'done'
        ? { tone: 'success', message: mode === 'live' ? 'Your store is live: orders are created at the print service, and the test orders waiting are sent now, once each.' : 'Test mode: orders are checked by the print service and not created.' }
        : { tone: 'warning', message: `Not yet: ${outcome.missing.join('; ')}.` },
      shopQuery(viewer, shop),
    );
  });

  router.post('/admin/settings/postback/rotate', async (req, res) => {
    const viewer = viewerOf(res);
    const body = bodyOf(req);
    const shop = formStoreOf(viewer, body);
    if (!shop) return respond.notFound(res, viewer);
    if (body.confirm !== 'yes') return respond.redirect(res, viewer, '/admin/settings', { tone: 'warning', message: 'Tick the box to confirm a new address.' }, shopQuery(viewer, shop));
    const result = await postbackSetup(setup.deps, shop, { rotate: true });
    deps.logger.info({ action: 'postback-rotate', shop, by: actorOf(viewer) }, 'postback token rotated');
    respond.redirect(
      res,
      viewer,
      '/admin/settings',
      { tone: 'success', message: `New postback address issued. ${result.previousValidUntil ? `The previous one works until ${result.previousValidUntil}: change the triggers before then.` : ''}`.trim() },
      shopQuery(viewer, shop),
    );
  });

  if (setup.fulfillmentMode) addFulfillmentRoute(router, ctx, setup.fulfillmentMode);
  addAppHoldsRoute(router, ctx, setup.deps);
  addHoldPolicyRoute(router, ctx, setup.deps);

  async function showSettings(req: Request, res: Response, viewer: Viewer, shop: string, typed: { input?: Record<string, string>; refused?: string } = {}): Promise<void> {
    const [checklist, problems, holdPolicy] = await Promise.all([onboardingChecklist(setup.deps, shop), ctx.problemCount(viewer), holdPolicyInForce(setup.deps, shop)]);
    // A store on its own account has its own address (made on first view); one on the app's uses the operator's.
    const postback = checklist.setup.printAccount || (await setup.settings.hasPostbackToken(shop)) ? await postbackSetup(setup.deps, shop) : undefined;
    // After the first view the address exists: the checklist says so.
    const items = checklist.items.map((i) => (i.key === 'postback' && postback ? { ...i, done: true } : i));
    respond.render(req, res, viewer, (page) =>
      settingsPage(page, {
        shop,
        setup: checklist.setup,
        checklist: { items, ready: items.every((i) => i.done) },
        postback,
        problems,
        fulfillment: setup.fulfillmentMode ? checklist.setup.fulfillment : undefined,
        holdPolicy,
        ...typed,
      }),
    );
  }
}

function bodyOf(req: Request): Record<string, unknown> {
  return (req.body as Record<string, unknown> | undefined) ?? {};
}

/** The print account form as typed, without the secrets (the page never sends them back). */
function typedValues(body: Record<string, unknown>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of ['baseUrl', 'ordersUrl', 'sourceAccount', 'destination']) if (typeof body[name] === 'string') kept[name] = body[name];
  return kept;
}

function fieldLabel(name: string): string {
  return ({ baseUrl: 'Base URL', ordersUrl: 'Orders URL', token: 'Access token', secret: 'Secret key', sourceAccount: 'Source account name', destination: 'Destination' } as Record<string, string>)[name] ?? name;
}
