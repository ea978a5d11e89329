import type { Router } from 'express';
import { chooseFulfillmentMode, type FulfillmentModeDeps } from '../shops/fulfillment-mode.js';
import type { FulfillmentMode } from '../shops/model.js';
import {
  ShopifyAdminError,
  ShopifyBudgetWaitError,
  ShopifyThrottledError,
  ShopifyUnauthorizedError,
  ShopifyUnavailableError,
  ShopifyUserError,
} from '../shopify/admin/errors.js';
import { ShopNotInstalledError, ShopTokenRefreshError } from '../shopify/sessions.js';
import { confirmAttributes, type Confirmation, confirmModal } from './confirm.js';
import { submitButton } from './fields.js';
import { html, type Html, trusted } from './html.js';
import type { PageContext } from './page-layout.js';
import { card, checkbox, list, paragraph, row } from './parts.js';
import type { AdminContext } from './router.js';
import { actorOf, formStoreOf, shopQuery } from './viewer.js';

/**
 * The Settings page's "How printed items reach the printer" (fulfillment-service mode, docs/fulfillment.md): the
 * store's mode in a merchant's words and the way to change it, `POST /admin/settings/fulfillment` with
 * `mode=service|merchant` (merchant needs `confirm=yes`). The change is `chooseFulfillmentMode` on the viewer's store.
 */

/**
 * Where each choice is explained: docs/fulfillment.md's sections. The app serves no documentation, so the page names
 * the document and section (no link that would lead nowhere).
 */
export const FULFILLMENT_DOC = {
  merchant: { file: 'docs/fulfillment.md', section: 'Merchant-managed fulfillment (the default)' },
  service: { file: 'docs/fulfillment.md', section: 'Fulfillment-service mode' },
} as const;

const CHOICES: Record<FulfillmentMode, { title: string; now: string; what: string }> = {
  merchant: {
    title: 'print-bridge fulfils my orders (default)',
    now: 'print-bridge fulfils your orders: every paid order is sent to the printer from the mapping, and marked fulfilled in Shopify as it ships.',
    what: 'Orders stay at your own locations; print-bridge sends what the mapping prints as soon as an order is paid and fulfils those items as they ship.',
  },
  service: {
    title: 'print-bridge is a fulfillment service (Shopify sends it requests)',
    now: 'print-bridge is your fulfillment service: Shopify sends it a request for the items stocked at its "print-bridge" location, and only those are printed.',
    what: 'Shopify routes the products you stock at the "print-bridge" location to it and asks it to fulfil them; print-bridge accepts or rejects each request, and other items stay yours to ship.',
  },
};

/** The section; `form(action, inner)` is the page's own form (CSRF field, and the store for an operator). */
export function fulfillmentSection(ctx: PageContext, mode: FulfillmentMode, form: (action: string, inner: Html, attributes?: Html) => Html): Html {
  // Back to merchant-managed removes the fulfillment service: inside the admin a modal says what happens first.
  const back: Confirmation = {
    id: 'confirm-merchant-fulfillment',
    title: "Remove print-bridge's fulfillment service",
    body: html`<p>print-bridge removes its fulfillment service from your store. Its location and your stock there stay yours; fulfillment requests not yet answered stay for you to fulfil, and print-bridge no longer prints them. From then on print-bridge sends every paid order from the mapping again.</p>`,
    action: 'Remove the fulfillment service',
    field: { name: 'confirm', value: 'yes' },
  };
  const choice = (option: FulfillmentMode) => {
    const { title, what } = CHOICES[option];
    const current = option === mode;
    const action = current
      ? paragraph(ctx, html`<strong>This is how your store works now.</strong>`, { small: true })
      : option === 'service'
        ? form('/admin/settings/fulfillment', html`<input type="hidden" name="mode" value="service">${row(ctx, submitButton(ctx, 'Make print-bridge my fulfillment service'), { spaced: true })}`)
        : html`${form(
            '/admin/settings/fulfillment',
            html`<input type="hidden" name="mode" value="merchant">${checkbox(ctx, {
              name: 'confirm',
              value: 'yes',
              required: true,
              label: "Remove print-bridge's fulfillment service. Its location and your stock there stay yours; requests not yet answered stay for you to fulfil, and print-bridge no longer prints them.",
            })}${row(ctx, submitButton(ctx, 'Let print-bridge fulfil my orders', { tone: 'critical' }), { spaced: true })}`,
            confirmAttributes(ctx, back),
          )}${confirmModal(ctx, back)}`;
    const ref = html`More: <cite>${FULFILLMENT_DOC[option].file}</cite>, section “${FULFILLMENT_DOC[option].section}”.`;
    return {
      attributes: `data-mode="${option}" data-current="${String(current)}"`,
      content: html`<strong>${title}</strong>
<div${ctx.embedded ? '' : trusted(' class="small"')}>${what} ${ctx.embedded ? html`<s-text color="subdued" data-doc-ref>${ref}</s-text>` : html`<span class="muted doc-ref">${ref}</span>`}</div>${action}`,
    };
  };
  return card(
    ctx,
    { id: 'fulfillment', heading: 'How printed items reach the printer' },
    html`<p id="fulfillment-now" data-mode="${mode}">${CHOICES[mode].now}</p>
${list(ctx, [choice('merchant'), choice('service')], { className: 'choices' })}`,
  );
}

/** The route; mounted by addSettingsRoutes when the app passes FulfillmentModeDeps. */
export function addFulfillmentRoute(router: Router, ctx: AdminContext, fulfillment: FulfillmentModeDeps): void {
  const { deps, respond, viewerOf } = ctx;
  router.post('/admin/settings/fulfillment', async (req, res) => {
    const viewer = viewerOf(res);
    const body = (req.body as Record<string, unknown> | undefined) ?? {};
    // A merchant changes their own store only: a form naming another store is refused, not turned into their own.
    const shop = formStoreOf(viewer, body);
    if (!shop) return respond.notFound(res, viewer);
    const mode = body.mode === 'service' || body.mode === 'merchant' ? body.mode : undefined;
    if (!mode) return respond.badRequest(res, viewer, 'The form is not complete; reload the page and try again.');
    if (mode === 'merchant' && body.confirm !== 'yes') {
      return respond.redirect(res, viewer, '/admin/settings', { tone: 'warning', message: "Tick the box to confirm removing print-bridge's fulfillment service." }, shopQuery(viewer, shop));
    }
    try {
      const outcome = await chooseFulfillmentMode(fulfillment, shop, mode);
      deps.logger.info({ action: 'fulfillment-mode', shop, mode: outcome.mode, by: actorOf(viewer) }, 'fulfillment mode chosen');
      respond.redirect(res, viewer, '/admin/settings', { tone: 'success', message: outcome.message }, shopQuery(viewer, shop));
    } catch (error) {
      deps.logger.warn({ action: 'fulfillment-mode', shop, mode, by: actorOf(viewer), err: error }, 'fulfillment mode not changed');
      respond.redirect(res, viewer, '/admin/settings', { tone: 'critical', message: `Nothing was changed: ${fulfillmentErrorWords(error)}` }, shopQuery(viewer, shop));
    }
  });
}

/** Why the change failed, in words a merchant can act on. */
export function fulfillmentErrorWords(error: unknown): string {
  if (error instanceof ShopNotInstalledError || error instanceof ShopTokenRefreshError || error instanceof ShopifyUnauthorizedError) {
    return "your store's Shopify Admin API did not accept print-bridge's access. Open print-bridge again from your Shopify admin (or reinstall it), then try again.";
  }
  if (error instanceof ShopifyUserError) {
    return `Shopify refused it: ${error.userErrors.map((e) => e.message).join('; ')}.`;
  }
  if (error instanceof ShopifyUnavailableError || error instanceof ShopifyThrottledError || error instanceof ShopifyBudgetWaitError) {
    return "your store's Shopify Admin API did not answer in time. Try again in a minute.";
  }
  if (error instanceof ShopifyAdminError) return "your store's Shopify Admin API gave an answer print-bridge could not use. Try again; if it persists, contact the people who run this app.";
  return 'something went wrong on our side. Try again; if it persists, contact the people who run this app.';
}
