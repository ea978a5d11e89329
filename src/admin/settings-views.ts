import type { FulfillmentMode, ShopSetup } from '../shops/model.js';
import type { ChecklistItem } from '../shops/setup.js';
import { confirmAttributes, type Confirmation, confirmModal, saveBar, saveBarAttributes } from './confirm.js';
import { fulfillmentSection } from './fulfillment-settings.js';
import { appHoldsSection } from './app-holds-settings.js';
import { holdPolicySection } from './hold-policy-settings.js';
import type { HoldPolicyInForce } from '../shops/hold-policy.js';
import { dataTable, submitButton, textField } from './fields.js';
import { html, type Html, trusted } from './html.js';
import { banner, formatTime, layout, type PageContext } from './page-layout.js';
import { badge, card, checkbox, facts, list, paragraph, row, subdued, subheading, textLink } from './parts.js';

/**
 * A store's own set-up (issue 16): the onboarding checklist and Go live, the print account with Test connection,
 * and the postback address with the trigger set-up to paste into the print service.
 */

export interface SettingsView {
  shop: string;
  setup: ShopSetup;
  checklist: { items: ChecklistItem[]; ready: boolean };
  postback: { url: string; triggers: { event: string; url: string; method: string; headers: Record<string, string>; template: string }[] } | undefined;
  /** Form values to keep after a refused save (never the secret). */
  input?: Record<string, string | undefined>;
  /** Why the print account form was refused: shown beside the form, which keeps `input`. */
  refused?: string;
  problems: number;
  /** The store's fulfillment mode; undefined when the app cannot change it here (no section then). */
  fulfillment?: FulfillmentMode;
  /** Which of Shopify's holds and risk keep the store's orders back, and why; undefined: no such section. */
  holdPolicy?: HoldPolicyInForce;
}

export function settingsPage(ctx: PageContext, data: SettingsView): Html {
  const { setup } = data;
  const own = setup.printAccount;
  const shopField = ctx.viewer.kind === 'operator' ? html`<input type="hidden" name="shop" value="${data.shop}">` : '';
  const form = (action: string, inner: Html | string, attributes: Html | string = ''): Html =>
    html`<form method="post" action="${ctx.link(action)}"${attributes}>${ctx.formFields}${shopField}${inner}</form>`;
  // Going live and a new postback address cannot be taken back: inside the admin a modal says what happens first.
  const goLive: Confirmation = {
    id: 'confirm-go-live',
    title: 'Go live',
    body: html`<p>From now on every paid order is created at your print service, printed and shipped (and billed by your print service). The test orders waiting below are sent now, once each. Orders already sent stay sent if you go back to test mode later.</p>`,
    action: 'Go live',
    field: { name: 'confirm', value: 'yes' },
  };
  const rotate: Confirmation = {
    id: 'confirm-new-postback-address',
    title: 'Issue a new postback address',
    body: html`<p>A new address replaces the one below. The current one keeps working for 24 hours only: change the triggers at your print service before then, or its updates (received, shipped, tracking) stop reaching print-bridge.</p>`,
    action: 'Issue a new address',
    field: { name: 'confirm', value: 'yes' },
  };
  const settingsLink = ctx.link('/admin/settings', ctx.viewer.kind === 'operator' ? { shop: data.shop } : {});
  const modeBadge = (mode: string) => badge(ctx, mode === 'live' ? 'success' : 'attention', `${mode} mode`);

  const checklist = card(
    ctx,
    { id: 'checklist', heading: 'Getting started', aside: modeBadge(setup.mode) },
    html`${
  own
    ? html`${list(
        ctx,
        data.checklist.items.map((i) => ({
          attributes: `data-done="${String(i.done)}"`,
          content: html`<span aria-hidden="true">${i.done ? '✓' : '○'}</span> <strong>${i.label}</strong>${i.done ? html` ${subdued(ctx, '(done)')}` : ''}<div>${subdued(ctx, i.detail)}</div>`,
        })),
        { ordered: true, className: 'checklist' },
      )}
${
  setup.mode === 'test'
    ? data.checklist.ready
      ? html`${form(
          '/admin/settings/mode',
          html`<input type="hidden" name="mode" value="live">${checkbox(ctx, { name: 'confirm', value: 'yes', required: true, label: 'I want orders created at the print service from now on (and the test orders waiting below sent, once each).' })}${submitButton(ctx, 'Go live', { primary: true })}`,
          confirmAttributes(ctx, goLive),
        )}${confirmModal(ctx, goLive)}`
      : paragraph(ctx, 'Go live is possible once every step above is done. Until then orders are mapped and checked by the print service, and nothing is created.', { subdued: true })
    : form('/admin/settings/mode', html`<input type="hidden" name="mode" value="test">${paragraph(ctx, 'Live: orders are created at the print service.', { subdued: true })}${submitButton(ctx, 'Back to test mode')}`)
}`
    : paragraph(ctx, `This store uses the print account of the people who run this app: orders are created at their print service (${setup.mode} mode). To use your own account, enter it below: your store then starts in test mode.`)
}`,
  );

  const check = setup.accountCheck;
  const accountFacts = own
    ? facts(ctx, [
        ['Base URL', own.baseUrl, { mono: true }],
        ['Orders URL', own.ordersUrl ?? own.baseUrl, { mono: true }],
        ['Source account', own.sourceAccount],
        ['Destination', own.destination ?? "— (the mapping's)"],
        ['Connected', formatTime(own.connectedAt)],
        ['Access token and secret', subdued(ctx, 'stored encrypted; never shown again', false)],
      ])
    : '';
  const account = card(ctx, { id: 'account', heading: 'Print account' }, html`${accountFacts}
${check ? banner(ctx, check.ok ? 'success' : 'critical', html`<strong>${check.ok ? 'Connection works' : 'Connection failed'}</strong> (${formatTime(check.at)}): ${check.message}`, ' id="account-check"') : ''}
${own ? html`${row(ctx, html`${form('/admin/settings/account/test', submitButton(ctx, 'Test connection'))}${form('/admin/settings/account/remove', submitButton(ctx, "Use the app's account instead", { tone: 'critical' }))}`, { spaced: true })}
${ctx.viewer.kind === 'shop' ? paragraph(ctx, "On the app's account the app's mapping serves your store and the mapping editor is read only; the versions you saved are kept for when you connect an account of your own again.", { subdued: true, small: true, id: 'account-remove-note' }) : ''}` : ''}
${subheading(ctx, own ? 'Replace the account' : 'Connect your account')}
${paragraph(ctx, "From your print service's account settings. The secret key signs every request; it is stored encrypted and never shown again. Saving makes one signed call first and tells you what the print service answered.", { subdued: true, small: true })}
${data.refused ? banner(ctx, 'critical', html`<strong>Nothing was saved.</strong> ${data.refused} The values you typed are below; enter the access token and secret key again (they are never sent back to the page).`, ' id="account-refused" role="alert"') : ''}
${form(
  '/admin/settings/account',
  html`${textField(ctx, { kind: 'url', name: 'baseUrl', label: 'Base URL', value: data.input?.baseUrl ?? own?.baseUrl, placeholder: 'https://orders.example-print.com/api' })}
${textField(ctx, { kind: 'url', name: 'ordersUrl', label: 'Orders URL (if different)', value: data.input?.ordersUrl ?? own?.ordersUrl })}
${textField(ctx, { name: 'token', label: 'Access token', value: '' })}
${textField(ctx, { kind: 'password', name: 'secret', label: 'Secret key', value: '' })}
${textField(ctx, { name: 'sourceAccount', label: 'Source account name', value: data.input?.sourceAccount ?? own?.sourceAccount })}
${textField(ctx, { name: 'destination', label: 'Destination (printer) account, optional', value: data.input?.destination ?? own?.destination })}
${row(ctx, submitButton(ctx, 'Save and test', { primary: true }), { spaced: true })}`,
  saveBarAttributes(ctx, 'account-save-bar', data.refused ? { discard: settingsLink } : undefined),
)}${saveBar(ctx, 'account-save-bar')}`);

  const fulfillment = data.fulfillment ? fulfillmentSection(ctx, data.fulfillment, form) : '';
  const appHolds = appHoldsSection(ctx, data.setup.appHolds !== false, form);
  const holdPolicy = data.holdPolicy ? holdPolicySection(ctx, data.holdPolicy, form) : '';

  const postback = data.postback
    ? card(
        ctx,
        { id: 'postback', heading: 'Postback address' },
        html`${paragraph(ctx, html`Your print service tells print-bridge what happens to each order (received, print ready, shipped with tracking, errors) by calling this address. In your print service, add one trigger per event below: method <code>POST</code>, header <code>Content-Type: application/json</code>, this URL, and the event's template as the body. The address only acts on this store's orders.`)}
<pre class="mono" id="postback-url">${data.postback.url}</pre>
${form('/admin/settings/postback/rotate', html`${checkbox(ctx, { name: 'confirm', value: 'yes', required: true, label: 'Issue a new address (the current one keeps working for 24 hours while you change the triggers)' })}${submitButton(ctx, 'New address')}`, confirmAttributes(ctx, rotate))}${confirmModal(ctx, rotate)}
${subheading(ctx, 'Trigger templates')}
${data.postback.triggers.map((t) => html`${ctx.embedded ? html`<s-text type="strong">${t.event}</s-text>` : html`<h3 class="small">${t.event}</h3>`}<pre class="mono">${t.template}</pre>`)}`,
      )
    : '';

  return layout(ctx, 'Settings', 'settings', html`${checklist}${fulfillment}${holdPolicy}${appHolds}${account}${postback}${trusted('')}`, { problems: data.problems });
}

/** An operator's list of stores with a link to each one's settings. */
export function settingsIndexPage(ctx: PageContext, data: { setups: ShopSetup[]; problems: number }): Html {
  const rows = data.setups.map((s) => ({
    cells: [
      textLink(ctx, ctx.link('/admin/settings', { shop: s.shop }), s.shop),
      s.printAccount ? `own: ${s.printAccount.sourceAccount}` : "the app's (PRINT_API_*)",
      s.mode,
      s.mappingVersion ? `own, version ${s.mappingVersion}` : 'files',
    ],
  }));
  const body = html`<div class="card"><h2>Stores with a set-up of their own</h2>
<form method="get" action="/admin/settings" class="filters">${textField(ctx, { name: 'shop', label: 'Store', placeholder: 'acme.myshopify.com' })}${submitButton(ctx, 'Open')}</form>
${rows.length ? dataTable(ctx, ['Store', 'Account', 'Mode', 'Mapping'], rows) : html`<p class="muted">None yet: every store uses the app's account, live, and the mapping files.</p>`}
</div>`;
  return layout(ctx, 'Settings', 'settings', body, { problems: data.problems });
}
