import type { Router } from 'express';
import type { HoldPolicy } from '../bridge/shopify-holds.js';
import { chooseHoldPolicy, holdPolicyWords, holdsChoice, type HoldPolicyDeps, type HoldPolicyInForce, isRiskChoice, SOURCE_WORDS } from '../shops/hold-policy.js';
import { FULFILLMENT_HOLD_REASONS, type FulfillmentHoldReason, HOLD_REASON_WORDS } from '../shopify/hold-reasons.js';
import { submitButton } from './fields.js';
import { html, type Html } from './html.js';
import type { PageContext } from './page-layout.js';
import { badge, card, choiceList, paragraph, row } from './parts.js';
import type { AdminContext } from './router.js';
import { actorOf, formStoreOf, shopQuery } from './viewer.js';

/**
 * The Settings page's "Shopify's holds and risk" (docs/pipeline.md, "Shopify's holds and risk keep an order from the
 * printer"): what keeps the store's orders from the printer now and where that comes from, and the store's own choice,
 * `POST /admin/settings/hold-policy` with `holds=all|none|only`, `reasons` (with `only`) and `risk=cancel|investigate|none`,
 * or `clear=yes` to go back to the mapping's setting (`chooseHoldPolicy` on the viewer's store).
 */

/** What each of Shopify's reasons means, in a line, for a merchant choosing which to wait for. */
const REASON_MEANING: Record<FulfillmentHoldReason, string> = {
  AWAITING_PAYMENT: 'The payment has not cleared yet (bank transfer, payment terms, cash on delivery).',
  AWAITING_RETURN_ITEMS: 'An exchange: the new items wait until the returned ones arrive.',
  HIGH_RISK_OF_FRAUD: 'A fraud check (Shopify’s or a fraud app’s) found the order risky.',
  INCORRECT_ADDRESS: 'The shipping address needs fixing before anything ships.',
  INVENTORY_OUT_OF_STOCK: 'An item is out of stock where it ships from.',
  ONLINE_STORE_POST_PURCHASE_CROSS_SELL: 'The customer may still add items after checkout (a post-purchase offer).',
  OTHER: 'Held for another reason, given in the hold’s note.',
  UNKNOWN_DELIVERY_DATE: 'The delivery date is not known yet (a pre-order or a subscription).',
};

const SOURCE_TONE = { store: 'info', mapping: 'new', default: 'new' } as const;

export function holdPolicySection(ctx: PageContext, inForce: HoldPolicyInForce, form: (action: string, inner: Html) => Html): Html {
  const { policy, source } = inForce;
  const listed = typeof policy.waitForHolds === 'string' ? undefined : policy.waitForHolds;
  const holdsNow = listed ? 'only' : policy.waitForHolds;
  const holds = choiceList(ctx, {
    name: 'holds',
    label: 'Holds',
    choices: [
      { value: 'all', label: 'Wait for every hold (default)', details: 'Whatever the reason, an order Shopify holds is printed once the hold is released.', selected: holdsNow === 'all' },
      { value: 'only', label: 'Wait only for the holds ticked below', details: 'Orders held for any other reason are printed anyway.', selected: holdsNow === 'only' },
      { value: 'none', label: 'Never wait for holds', details: 'Orders are printed even while Shopify holds them.', selected: holdsNow === 'none' },
    ],
  });
  const reasons = choiceList(ctx, {
    name: 'reasons',
    label: 'Holds to wait for (with “only the holds ticked”)',
    multiple: true,
    choices: FULFILLMENT_HOLD_REASONS.map((r) => ({ value: r, label: HOLD_REASON_WORDS[r], details: REASON_MEANING[r], selected: listed ? listed.includes(r) : r !== 'AWAITING_PAYMENT' })),
  });
  const risk = choiceList(ctx, {
    name: 'risk',
    label: 'Risk of fraud',
    choices: [
      { value: 'cancel', label: 'Wait while Shopify recommends cancelling (default)', details: 'You cancel the order, or send it to the printer anyway from its page.', selected: policy.waitForRisk === 'cancel' },
      { value: 'investigate', label: 'Also wait while Shopify recommends investigating', details: 'For orders with a medium risk too: check them, then send them from their page.', selected: policy.waitForRisk === 'investigate' },
      { value: 'none', label: 'Never wait for the risk recommendation', details: 'Orders are printed whatever Shopify says of their risk.', selected: policy.waitForRisk === 'none' },
    ],
  });
  const reset =
    source === 'store'
      ? form(
          '/admin/settings/hold-policy',
          html`<input type="hidden" name="clear" value="yes">${paragraph(ctx, inForce.mapping ? `The mapping's setting: ${holdPolicyWords(inForce.mapping)}` : 'No mapping serves the store yet: the default would apply.', { subdued: true, small: true })}${row(ctx, submitButton(ctx, "Use the mapping's setting"), { spaced: true })}`,
        )
      : '';
  return card(
    ctx,
    { id: 'hold-policy', heading: "Shopify's holds and risk", aside: badge(ctx, SOURCE_TONE[source], SOURCE_WORDS[source]) },
    html`${paragraph(ctx, html`<span id="hold-policy-now" data-source="${source}">${holdPolicyWords(policy)}</span> (${SOURCE_WORDS[source]})`)}
${paragraph(ctx, 'Printing cannot be undone: an order Shopify holds, or advises against, waits here and goes to the printer by itself once the hold is released. Choose what your orders wait for.', { subdued: true, small: true })}
${form(
  '/admin/settings/hold-policy',
  html`${holds}${reasons}${risk}${paragraph(ctx, 'Orders waiting only for something you no longer wait for go to the printer when you save.', { subdued: true, small: true })}${row(ctx, submitButton(ctx, 'Save', { primary: true }), { spaced: true })}`,
)}${reset}`,
  );
}

export function addHoldPolicyRoute(router: Router, ctx: AdminContext, setup: HoldPolicyDeps): void {
  const { deps, respond, viewerOf } = ctx;
  router.post('/admin/settings/hold-policy', async (req, res) => {
    const viewer = viewerOf(res);
    const body = (req.body as Record<string, unknown> | undefined) ?? {};
    // A merchant's form naming another store changes neither: this choice can send orders to the printer.
    const shop = formStoreOf(viewer, body);
    if (!shop) return respond.notFound(res, viewer);
    const back = (tone: 'success' | 'warning', message: string) => respond.redirect(res, viewer, '/admin/settings', { tone, message }, shopQuery(viewer, shop));
    let policy: HoldPolicy | undefined;
    if (body.clear !== 'yes') {
      const waitForHolds = holdsChoice(typeof body.holds === 'string' ? body.holds : '', valuesOf(body.reasons));
      if (typeof waitForHolds === 'object' && 'refused' in waitForHolds) return back('warning', `Nothing was changed. ${waitForHolds.refused}`);
      if (!isRiskChoice(body.risk)) return respond.badRequest(res, viewer, 'The form is not complete; reload the page and try again.');
      policy = { waitForHolds, waitForRisk: body.risk };
    }
    const outcome = await chooseHoldPolicy(setup, shop, policy);
    deps.logger.info({ action: 'hold-policy', shop, policy: policy ?? null, source: outcome.after.source, by: actorOf(viewer) }, "Shopify's holds and risk policy chosen");
    const done = policy ? 'Saved.' : outcome.after.source === 'default' ? "The mapping's setting applies again (the default)." : "The mapping's setting applies again.";
    back('success', `${done} ${holdPolicyWords(outcome.after.policy)}${outcome.lookedAgain ? ' Orders waiting only for what no longer keeps them back go to the printer now.' : ''}`);
  });
}

/** A form's repeated field (checkboxes of one name): a string, an array of them, or nothing. */
function valuesOf(value: unknown): string[] {
  if (typeof value === 'string') return value ? value.split(',') : [];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
