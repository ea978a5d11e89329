import type { OrderLink, Problem } from '../orders/model.js';
import type { OrderStatus } from '../orders/status.js';
import { html, type Html } from './html.js';
import { confirmAttributes, type Confirmation, confirmModal } from './confirm.js';
import { submitButton } from './fields.js';
import { formatTime, linkButton, type PageContext } from './page-layout.js';
import { badge, list, row, subdued, subheading, type Tone } from './parts.js';

const STATUS_TONE: Record<OrderStatus, Tone> = {
  pending: 'new',
  waiting: 'warning',
  held: 'warning',
  submitting: 'info',
  submitted: 'info',
  received: 'info',
  'print-ready': 'attention',
  'partially-shipped': 'attention',
  shipped: 'success',
  error: 'critical',
  cancelled: 'new',
  'not-printed': 'new',
};

/** Problem kinds in plain words: what happened, so the reason below reads as the detail. */
export const PROBLEM_HEADLINE: Record<string, string> = {
  mapping: 'The mapping cannot turn this order into a print order',
  validation: 'The print service found the print order invalid',
  submission: 'The print service refused the order',
  'submission-error': 'The print service could not accept the order (submission error)',
  'print-error': 'The print service could not produce the order',
  'cancel-refused': 'The print service refused the cancellation',
  fulfillment: 'The shipment could not be fulfilled in Shopify',
  'store-not-connected': 'Store not connected: nothing is sent to the printer until it is',
  'no-mapping': 'No mapping serves this store yet',
  'no-print-account': 'No print account serves this store: nothing is sent until one does',
  'test-mode': 'Test mode: checked by the print service, not created',
  'unconfirmed-postback': 'A postback the print service did not confirm (nothing changed)',
  'changed-after-submission': 'Changed in Shopify after it went to the printer',
  'shopify-hold': 'Held in Shopify: nothing is sent to the printer until the hold is released',
  'risk-recommendation': "Shopify's risk analysis: nothing is sent to the printer until you decide",
  'held-after-submission': 'Held in Shopify after it went to the printer',
};

/**
 * What ends an order's wait, as links: connecting the store (OAuth cannot run inside the Shopify admin iframe, so it
 * opens at the top level) or a mapping for it. Buttons for Retry and Resubmit come from actionButtons.
 */
export function waitLinks(ctx: PageContext, link: OrderLink): Html {
  const kinds = new Set(link.problems.map((p) => p.kind));
  const links = [
    kinds.has('store-not-connected')
      ? html`${
          ctx.embedded
            ? html`<s-button variant="primary" href="/auth?shop=${encodeURIComponent(link.shop)}" target="_top">Connect ${link.shop}</s-button>`
            : html`<a class="button primary" href="/auth?shop=${encodeURIComponent(link.shop)}" target="_top">Connect ${link.shop}</a>`
        }${ctx.viewer.kind === 'operator' ? html` ${subdued(ctx, html`or <code>print-bridge shops add ${link.shop} --token &lt;token&gt;</code>`)}` : ''}`
      : '',
    kinds.has('no-mapping') || kinds.has('mapping') ? linkButton(ctx, ctx.link('/admin/mappings'), 'Mappings and preview') : '',
    (kinds.has('test-mode') || kinds.has('no-print-account')) && ctx.setup
      ? linkButton(ctx, ctx.link('/admin/settings', ctx.viewer.kind === 'operator' ? { shop: link.shop } : {}), kinds.has('test-mode') ? 'Settings: go live' : 'Settings: connect a print account')
      : '',
  ];
  return links.some(Boolean) ? row(ctx, links, { spaced: true }) : html``;
}

export function statusBadge(status: OrderStatus, polaris = false): Html {
  // Inside the Shopify admin, a Polaris badge (its tones: info, success, warning, critical, caution, neutral).
  return badge(polaris, STATUS_TONE[status], status);
}

/** What a waiting order waits for, in a few words, beside its status. */
export function waitNote(ctx: PageContext, link: Pick<OrderLink, 'status' | 'problems'>): Html {
  if (link.status !== 'waiting') return html``;
  const kinds = new Set(link.problems.map((p) => p.kind));
  const what = kinds.has('store-not-connected')
    ? 'store not connected'
    : kinds.has('no-mapping')
      ? 'no mapping'
      : kinds.has('test-mode')
        ? 'test mode'
        : kinds.has('no-print-account')
          ? 'no print account'
          : kinds.has('shopify-hold')
            ? 'held in Shopify'
            : kinds.has('risk-recommendation')
              ? 'risk recommendation'
              : undefined;
  return what ? html` ${subdued(ctx, what)}` : html``;
}

export function orderPath(link: Pick<OrderLink, 'shop' | 'orderId'>): string {
  const tail = link.orderId.startsWith('gid://shopify/Order/') ? link.orderId.slice('gid://shopify/Order/'.length) : link.orderId;
  return `/admin/orders/${encodeURIComponent(link.shop)}/${encodeURIComponent(tail)}`;
}


export interface OrderActionsAllowed {
  resubmit: boolean;
  retry: boolean;
  cancel: boolean;
  /** Printed lines changed in Shopify after submission: the merchant may keep the order as sent. */
  keep?: boolean;
  /** The order waits for print-bridge (its edit window, its submit topic, Shopify's risk recommendation): send it now. */
  sendNow?: boolean;
}

export function actionButtons(ctx: PageContext, link: OrderLink, allowed: OrderActionsAllowed, back?: string): Html {
  const base = orderPath(link);
  // Cancelling cannot be undone: inside the Shopify admin an App Bridge modal says what happens first ("Keep" does nothing).
  const cancel: Confirmation = {
    id: `cancel-${base}`,
    title: `Cancel order ${link.orderName ?? ''}`.trim(),
    body: html`<p>print-bridge asks the print service to cancel this order and stops sending it: nothing more of it is printed or shipped by print-bridge. This cannot be undone; the order itself stays in Shopify.</p>`,
    action: 'Cancel order',
    keep: 'Keep',
  };
  const form = (action: string, label: string, options: Parameters<typeof submitButton>[2], confirmation?: Confirmation) =>
    html`<form method="post" action="${ctx.link(`${base}/${action}`)}"${confirmation ? confirmAttributes(ctx, confirmation) : ''}>${ctx.formFields}<input type="hidden" name="version" value="${link.version}">${
      back ? html`<input type="hidden" name="back" value="${back}">` : ''
    }${submitButton(ctx, label, options)}</form>${confirmation ? confirmModal(ctx, confirmation) : ''}`;
  const sendNow: Confirmation = {
    id: `send-now-${base}`,
    title: `Send order ${link.orderName ?? ''} to the printer now`.replace('  ', ' '),
    body: html`<p>print-bridge stops waiting for this order (its edit window${link.problems.some((p) => p.kind === 'risk-recommendation') ? html`, and Shopify's risk recommendation` : ''}) and sends it to the printer now. Printing cannot be undone.</p>`,
    action: 'Send now',
    keep: 'Keep waiting',
  };
  const buttons = [
    allowed.sendNow ? form('send-now', 'Send to the printer now', { primary: true }, sendNow) : '',
    allowed.resubmit ? form('resubmit', 'Resubmit with current mapping', { primary: true }) : '',
    allowed.retry ? form('retry', 'Retry', {}) : '',
    allowed.keep ? form('keep', 'Keep as sent', {}) : '',
    allowed.cancel ? form('cancel', 'Cancel order', { tone: 'critical' }, cancel) : '',
  ];
  return buttons.some(Boolean) ? row(ctx, buttons) : html``;
}

/** The order's problems under their headlines; `words` translates what was recorded (merchant-words.ts). */
export function problemList(ctx: PageContext, problems: readonly Problem[], words: (text: string | undefined) => string = (t) => t ?? ''): Html {
  const byKind = new Map<string, Problem[]>();
  for (const p of problems) byKind.set(p.kind, [...(byKind.get(p.kind) ?? []), p]);
  return html`${[...byKind].map(
    ([kind, found]) => html`${subheading(ctx, PROBLEM_HEADLINE[kind] ?? kind)}${list(
      ctx,
      found.map((p) => html`${p.subject ? html`<strong>${words(p.subject)}</strong>: ` : ''}${words(p.message)} ${subdued(ctx, `(${formatTime(p.at)})`)}`),
    )}`,
  )}`;
}
