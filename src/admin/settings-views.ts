import type { FulfillmentMode, ShopSetup } from '../shops/model.js';
import type { ChecklistItem } from '../shops/setup.js';
import { confirmAttributes, type Confirmation, confirmModal, saveBar, saveBarAttributes } from './confirm.js';
import { fulfillmentSection } from './fulfillment-settings.js';
import { dataTable, submitButton, textField } from './fields.js';
import { html, type Html, trusted } from './html.js';
import { banner, formatTime, layout, type PageContext } from './page-layout.js';

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
  const modeBadge = (mode: string) =>
    ctx.embedded ? html`<s-badge tone="${mode === 'live' ? 'success' : 'attention'}">${mode} mode</s-badge>` : html`<span class="badge ${mode === 'live' ? 'success' : 'attention'}">${mode} mode</span>`;

  const checklist = html`<div class="card" id="checklist"><h2>Getting started ${modeBadge(setup.mode)}</h2>
${
  own
    ? html`<ol class="checklist">${data.checklist.items.map(
        (i) => html`<li data-done="${String(i.done)}"><span aria-hidden="true">${i.done ? '✓' : '○'}</span> <strong>${i.label}</strong>${i.done ? html` <span class="muted small">(done)</span>` : ''}<div class="small muted">${i.detail}</div></li>`,
      )}</ol>
${
  setup.mode === 'test'
    ? data.checklist.ready
      ? html`${form(
          '/admin/settings/mode',
          html`<input type="hidden" name="mode" value="live"><label class="inline"><input type="checkbox" name="confirm" value="yes" required> I want orders created at the print service from now on (and the test orders waiting below sent, once each).</label>${submitButton(ctx, 'Go live', { primary: true })}`,
          confirmAttributes(ctx, goLive),
        )}${confirmModal(ctx, goLive)}`
      : html`<p class="muted">Go live is possible once every step above is done. Until then orders are mapped and checked by the print service, and nothing is created.</p>`
    : form('/admin/settings/mode', html`<input type="hidden" name="mode" value="test"><p class="muted">Live: orders are created at the print service.</p>${submitButton(ctx, 'Back to test mode')}`)
}`
    : html`<p>This store uses the print account of the people who run this app: orders are created at their print service (${setup.mode} mode). To use your own account, enter it below: your store then starts in test mode.</p>`
}</div>`;

  const check = setup.accountCheck;
  const account = html`<div class="card" id="account"><h2>Print account</h2>
${own ? html`<dl class="facts"><dt>Base URL</dt><dd class="mono">${own.baseUrl}</dd><dt>Orders URL</dt><dd class="mono">${own.ordersUrl ?? own.baseUrl}</dd><dt>Source account</dt><dd>${own.sourceAccount}</dd><dt>Destination</dt><dd>${own.destination ?? '— (the mapping\'s)'}</dd><dt>Connected</dt><dd>${formatTime(own.connectedAt)}</dd><dt>Access token and secret</dt><dd class="muted">stored encrypted; never shown again</dd></dl>` : ''}
${check ? banner(ctx, check.ok ? 'success' : 'critical', html`<strong>${check.ok ? 'Connection works' : 'Connection failed'}</strong> (${formatTime(check.at)}): ${check.message}`, ' id="account-check"') : ''}
${own ? html`<div class="actions" style="margin-top:12px">${form('/admin/settings/account/test', submitButton(ctx, 'Test connection'))}${form('/admin/settings/account/remove', submitButton(ctx, "Use the app's account instead", { tone: 'critical' }))}</div>
${ctx.viewer.kind === 'shop' ? html`<p class="muted small" id="account-remove-note">On the app's account the app's mapping serves your store and the mapping editor is read only; the versions you saved are kept for when you connect an account of your own again.</p>` : ''}` : ''}
<h3>${own ? 'Replace the account' : 'Connect your account'}</h3>
<p class="muted small">From your print service's account settings. The secret key signs every request; it is stored encrypted and never shown again. Saving makes one signed call first and tells you what the print service answered.</p>
${data.refused ? banner(ctx, 'critical', html`<strong>Nothing was saved.</strong> ${data.refused} The values you typed are below; enter the access token and secret key again (they are never sent back to the page).`, ' id="account-refused" role="alert"') : ''}
${form(
  '/admin/settings/account',
  html`${textField(ctx, { kind: 'url', name: 'baseUrl', label: 'Base URL', value: data.input?.baseUrl ?? own?.baseUrl, placeholder: 'https://orders.example-print.com/api' })}
${textField(ctx, { kind: 'url', name: 'ordersUrl', label: 'Orders URL (if different)', value: data.input?.ordersUrl ?? own?.ordersUrl })}
${textField(ctx, { name: 'token', label: 'Access token', value: '' })}
${textField(ctx, { kind: 'password', name: 'secret', label: 'Secret key', value: '' })}
${textField(ctx, { name: 'sourceAccount', label: 'Source account name', value: data.input?.sourceAccount ?? own?.sourceAccount })}
${textField(ctx, { name: 'destination', label: 'Destination (printer) account, optional', value: data.input?.destination ?? own?.destination })}
<div style="margin-top:12px">${submitButton(ctx, 'Save and test', { primary: true })}</div>`,
  saveBarAttributes(ctx, 'account-save-bar', data.refused ? { discard: settingsLink } : undefined),
)}${saveBar(ctx, 'account-save-bar')}</div>`;

  const fulfillment = data.fulfillment ? fulfillmentSection(ctx, data.fulfillment, form) : '';

  const postback = data.postback
    ? html`<div class="card" id="postback"><h2>Postback address</h2>
<p>Your print service tells print-bridge what happens to each order (received, print ready, shipped with tracking, errors) by calling this address. In your print service, add one trigger per event below: method <code>POST</code>, header <code>Content-Type: application/json</code>, this URL, and the event's template as the body. The address only acts on this store's orders.</p>
<pre class="mono" id="postback-url">${data.postback.url}</pre>
${form('/admin/settings/postback/rotate', html`<label class="inline"><input type="checkbox" name="confirm" value="yes" required> Issue a new address (the current one keeps working for 24 hours while you change the triggers)</label>${submitButton(ctx, 'New address')}`, confirmAttributes(ctx, rotate))}${confirmModal(ctx, rotate)}
<h3>Trigger templates</h3>
${data.postback.triggers.map((t) => html`<h3 class="small">${t.event}</h3><pre class="mono">${t.template}</pre>`)}
</div>`
    : '';

  return layout(ctx, 'Settings', 'settings', html`${checklist}${fulfillment}${account}${postback}${trusted('')}`, { problems: data.problems });
}

/** An operator's list of stores with a link to each one's settings. */
export function settingsIndexPage(ctx: PageContext, data: { setups: ShopSetup[]; problems: number }): Html {
  const rows = data.setups.map((s) => ({
    cells: [
      html`<a href="${ctx.link('/admin/settings', { shop: s.shop })}">${s.shop}</a>`,
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
