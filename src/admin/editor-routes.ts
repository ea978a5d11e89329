import { readFileSync } from 'node:fs';
import { diffLines } from 'diff';
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { formatMappingProblem } from '../mapping/errors.js';
import type { LoadedMapping } from '../mapping/load.js';
import type { MapOptions } from '../mapping/map-order.js';
import type { MappingRenderer } from '../mapping/render-task.js';
import type { MappingRegistry } from '../mapping/registry.js';
import { parseShopifyOrderJson, unwrapOrder } from '../mapping/shopify-order.js';
import { loadStoreMapping } from '../mapping/store-mapping.js';
import { OPERATOR_AUTHOR, type MappingVersion } from '../shops/model.js';
import { merchantMayEditMapping, merchantPushMapping, merchantRollbackMapping, pushMapping, rollbackMapping } from '../shops/setup.js';
import { editorPage, versionDiffPage } from './editor-views.js';
import { operatorTextForStore, withoutOtherStores } from './merchant-mapping.js';
import type { AdminContext } from './router.js';
import type { AdminShopSetup } from './settings-routes.js';
import { actorOf, scopeOf, shopQuery, storeOf, type Viewer } from './viewer.js';

/** What the editor needs beyond the store's set-up: the registry (what serves the store now) and its latest orders. */
export interface AdminEditorDeps {
  registry: Pick<MappingRegistry, 'forShop' | 'mapOptions'>;
  /** Where previews render (the app's render pool): never on the web process's own thread. */
  renderer: MappingRenderer;
  /** The store's newest orders as webhook bodies, read through the Admin API. */
  latestOrders(shop: string, count: number): Promise<{ name: string; orderId: string; body: string }[]>;
}

const PREVIEW_ORDERS = 5;
const MAX_TEXT = 200_000;
const textForm = z.object({ yaml: z.string().max(MAX_TEXT), note: z.string().max(500).optional() });

/** A mapping to start from when a store has neither a version of its own nor a file naming it. */
export const STARTER_MAPPING = `shops: ["*"]
destination: my-printer
submit:
  on: orders/paid
  holdMinutes: 30
  validate: true
shipments:
  carrier: { alias: standard }
products:
  - match: { sku: "PRINT-*" }
    sku: "{{ line.sku }}"
    components:
      - code: cover
        path: "{{ line.properties._artwork_url }}"
unmapped: hold
`;

/** Why a merchant whose store prints on the operator's account can look at the mapping but not change it. */
export const READ_ONLY_REASON =
  "Your store prints on the print account of the people who run this app, so their mapping decides what is sent for your orders (and what they are billed for): you can see it and preview your latest orders with it, but not change it. To edit a mapping of your own, connect your own print account in Settings.";

export function addEditorRoutes(router: Router, ctx: AdminContext, setup: AdminShopSetup, editor: AdminEditorDeps): void {
  const { respond, viewerOf, deps } = ctx;

  router.get('/admin/mappings/editor', async (req, res) => {
    const viewer = viewerOf(res);
    const shop = storeOf(viewer, req.query.shop);
    if (!shop) return respond.redirect(res, viewer, '/admin/settings', { tone: 'warning', message: 'Choose a store first (the editor edits one store\'s mapping).' });
    await showEditor(req, res, viewer, shop, {});
  });

  // The live check as the merchant types: the same checks as `mappings check`, with line and column.
  router.post('/admin/mappings/check', (req, res) => {
    const viewer = viewerOf(res);
    const shop = storeOf(viewer, bodyOf(req).shop) ?? 'preview.myshopify.com';
    const form = textForm.safeParse(req.body);
    if (!form.success) return res.status(400).json({ error: `The text is too long (at most ${MAX_TEXT} characters).` });
    const loaded = loadStoreMapping(form.data.yaml, shop);
    res.json({
      problems: loaded.ok ? loaded.mapping.warnings.map((p) => ({ ...pos(p), message: p.message, severity: 'warning' })) : loaded.problems.map((p) => ({ ...pos(p), message: p.message, severity: p.severity ?? 'error' })),
    });
  });

  // What the store's latest real orders would be sent as with the text being edited (nothing is saved or sent).
  router.post('/admin/mappings/draft-preview', async (req, res) => {
    const viewer = viewerOf(res);
    const shop = storeOf(viewer, bodyOf(req).shop);
    if (!shop) return res.status(404).json({ error: 'Choose a store first.' });
    const form = textForm.safeParse(req.body);
    if (!form.success) return res.status(400).json({ error: 'The text is too long.' });
    const loaded = loadStoreMapping(form.data.yaml, shop);
    if (!loaded.ok) return res.json({ problems: loaded.problems.map((p) => `line ${p.line}, column ${p.col}: ${p.message}`), orders: [] });
    let orders: Awaited<ReturnType<AdminEditorDeps['latestOrders']>>;
    try {
      orders = await editor.latestOrders(shop, PREVIEW_ORDERS);
    } catch (error) {
      deps.logger.warn({ shop, err: { name: (error as Error).name, message: (error as Error).message } }, 'mapping preview: could not read the latest orders');
      return res.json({ problems: [`Shopify did not give the store's latest orders: ${(error as Error).message}`], orders: [] });
    }
    res.json({
      problems: [],
      // Each order renders in the app's render threads, stopped at its budget: a slow draft never holds this process.
      orders: await Promise.all(orders.map(async (o) => ({ name: o.name, orderId: o.orderId, ...(await previewOne(editor.renderer, o.body, loaded.mapping, shop, editor.registry.mapOptions)) }))),
    });
  });

  router.post('/admin/mappings/save', async (req, res) => {
    const viewer = viewerOf(res);
    const shop = storeOf(viewer, bodyOf(req).shop);
    if (!shop) return respond.notFound(res, viewer);
    if (!(await mayEdit(viewer, shop))) return refuseReadOnly(res, viewer, shop, 'save');
    const form = textForm.safeParse(req.body);
    if (!form.success) return respond.badRequest(res, viewer, `The mapping is too long (at most ${MAX_TEXT} characters).`);
    // A merchant's save is checked again where it is made (the account may have gone since the check above).
    const outcome = scopeOf(viewer)
      ? await merchantPushMapping(setup.deps, shop, form.data.yaml, actorOf(viewer), form.data.note)
      : await pushMapping(setup.deps, shop, form.data.yaml, actorOf(viewer), form.data.note);
    if (outcome.kind === 'operator-account') return refuseReadOnly(res, viewer, shop, 'save');
    if (outcome.kind === 'problems') {
      // The page again with the text as typed and the problems at their lines: nothing was stored.
      return showEditor(req, res, viewer, shop, { text: form.data.yaml, note: form.data.note, problems: outcome.problems.map((p) => ({ ...pos(p), message: p.message })) });
    }
    deps.logger.info({ action: 'mapping-save', shop, version: outcome.version, by: actorOf(viewer) }, 'mapping version saved');
    respond.redirect(res, viewer, '/admin/mappings/editor', { tone: 'success', message: `Saved as version ${outcome.version}: the next orders use it, and orders held for their mapping are looked at again.` }, shopQuery(viewer, shop));
  });

  router.post('/admin/mappings/rollback', async (req, res) => {
    const viewer = viewerOf(res);
    const shop = storeOf(viewer, bodyOf(req).shop);
    const version = Number(bodyOf(req).version);
    if (!shop) return respond.notFound(res, viewer);
    if (!(await mayEdit(viewer, shop))) return refuseReadOnly(res, viewer, shop, 'rollback');
    if (!Number.isInteger(version) || version < 1) return respond.notFound(res, viewer);
    const outcome = scopeOf(viewer) ? await merchantRollbackMapping(setup.deps, shop, version) : await rollbackMapping(setup.deps, shop, version);
    if (outcome.kind === 'operator-account') return refuseReadOnly(res, viewer, shop, 'rollback');
    if (outcome.kind === 'unknown') return respond.notFound(res, viewer);
    deps.logger.info({ action: 'mapping-rollback', shop, version, outcome: outcome.kind, by: actorOf(viewer) }, 'mapping rollback');
    respond.redirect(
      res,
      viewer,
      '/admin/mappings/editor',
      outcome.kind === 'saved'
        ? { tone: 'success', message: `Version ${version} is your mapping again; the next orders use it.` }
        : { tone: 'critical', message: `Version ${version} no longer passes the checks: ${outcome.problems.map((p) => `line ${p.line}: ${p.message}`).join('; ')}` },
      shopQuery(viewer, shop),
    );
  });

  router.get('/admin/mappings/versions/:version', async (req, res) => {
    const viewer = viewerOf(res);
    const shop = storeOf(viewer, req.query.shop);
    const number = Number(req.params.version);
    const version = shop && Number.isInteger(number) ? await setup.settings.mappingVersion(shop, number) : undefined;
    if (!shop || !version) return respond.notFound(res, viewer);
    const previous = number > 1 ? await setup.settings.mappingVersion(shop, number - 1) : undefined;
    // Both sides as the viewer may see them: a merchant's diff shows nothing their editor would not.
    const changes = diffLines(previous ? versionText(viewer, shop, previous) : '', versionText(viewer, shop, version));
    const problemsCount = await ctx.problemCount(viewer);
    const shown = { ...version, yaml: '', note: version.note === undefined ? undefined : visibleNote(viewer, shop, version.note) };
    respond.render(req, res, viewer, (page) => versionDiffPage(page, { shop, version: shown, previous: previous?.version, changes, problemsCount }));
  });

  /** The operator may change any store's mapping; a merchant only that of a store on its own print account. */
  async function mayEdit(viewer: Viewer, shop: string): Promise<boolean> {
    return !scopeOf(viewer) || merchantMayEditMapping(await setup.settings.get(shop));
  }

  function refuseReadOnly(res: Response, viewer: Viewer, shop: string, action: 'save' | 'rollback'): void {
    deps.logger.warn({ action: `mapping-${action}`, shop, by: actorOf(viewer), outcome: 'operator-account' }, "mapping change refused: the store prints on the operator's account");
    respond.refuse(res, viewer, 403, 'Read only', `Nothing was changed. ${READ_ONLY_REASON}`);
  }

  async function showEditor(req: Request, res: Response, viewer: Viewer, shop: string, draft: { text?: string; note?: string; problems?: { line: number; col: number; message: string }[] }): Promise<void> {
    const [current, versions, problemsCount] = await Promise.all([setup.settings.get(shop), setup.settings.mappingVersions(shop), ctx.problemCount(viewer)]);
    const merchant = scopeOf(viewer) !== undefined;
    const readOnly = merchant && !merchantMayEditMapping(current) ? READ_ONLY_REASON : undefined;
    let text = draft.text;
    let source: string;
    if (current.mappingVersion) {
      const stored = await setup.settings.mappingVersion(shop, current.mappingVersion);
      text ??= stored ? versionText(viewer, shop, stored) : '';
      source = stored?.author === OPERATOR_AUTHOR ? `Version ${current.mappingVersion}, stored for your store by the people who run this app, is in use.` : `Your version ${current.mappingVersion} is in use.`;
    } else {
      const file = editor.registry.forShop(shop)?.file;
      const fileText = file ? readText(file) : undefined;
      // A merchant never gets the operator's file as it is (it may serve other stores and carry the operator's notes):
      // only what serves their store, which is also where a store on its own account starts its own version from.
      const shown = fileText !== undefined && merchant ? operatorTextForStore(fileText, shop) : fileText;
      text ??= shown ?? (readOnly ? '' : STARTER_MAPPING);
      source = shown
        ? merchant
          ? "The app's mapping serves your store today (shown as it applies to your store)."
          : "The server's mapping file serves this store today; edit it here to make a version of the store's own."
        : readOnly
          ? "The app's mapping cannot be shown just now."
          : 'No mapping serves your store yet: start from this example.';
      if (shown && !readOnly) source += ' Edit it here to make a version of your own.';
    }
    const shownVersions = merchant ? versions.map((v) => ({ ...v, note: v.note === undefined ? undefined : visibleNote(viewer, shop, v.note) })) : versions;
    respond.render(req, res, viewer, (page) =>
      editorPage(page, { shop, text: text ?? '', source, currentVersion: current.mappingVersion, versions: shownVersions, problems: draft.problems, note: draft.note, problemsCount, readOnly }),
    );
  }
}

/**
 * A stored version as the viewer may see it: the operator sees it as it is; a merchant sees a version the operator
 * stored as it applies to their store (no comments, no other store), and their own versions without other stores'
 * domains (a version saved before the editor filtered may hold some).
 */
function versionText(viewer: Viewer, shop: string, version: MappingVersion): string {
  if (!scopeOf(viewer)) return version.yaml;
  if (version.author === OPERATOR_AUTHOR) return operatorTextForStore(version.yaml, shop) ?? '';
  return withoutOtherStores(version.yaml, shop);
}

function visibleNote(viewer: Viewer, shop: string, note: string): string {
  return scopeOf(viewer) ? withoutOtherStores(note, shop) : note;
}

async function previewOne(
  renderer: MappingRenderer,
  body: string,
  mapping: LoadedMapping,
  shop: string,
  options: MapOptions,
): Promise<{ ok: true; order: unknown; notes: string[] } | { ok: false; problems: string[] }> {
  let order: unknown;
  try {
    order = unwrapOrder(parseShopifyOrderJson(body));
  } catch (error) {
    return { ok: false, problems: [`The order could not be read: ${(error as Error).message}`] };
  }
  const result = await renderer.map({ shop, mapping, body: order, options });
  if (!result.ok) return { ok: false, problems: result.problems.map(formatMappingProblem) };
  return { ok: true, order: result.order, notes: [...result.ignored, ...result.skipped].map((l) => `${l.lineItem.sku ?? l.lineItem.id}: ${l.reason}`) };
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function pos(p: { line: number; col: number }) {
  return { line: p.line, col: p.col };
}

function bodyOf(req: Request): Record<string, unknown> {
  return (req.body as Record<string, unknown> | undefined) ?? {};
}
