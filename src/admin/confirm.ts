import { html, type Html } from './html.js';
import type { PageContext } from './page-layout.js';

/**
 * App Bridge idioms of the embedded pages (issue 26), drawn by the server and driven by the embedded script
 * (embedded-script.ts): a confirmation modal (`<ui-modal>`) before a destructive or irreversible form is sent, and a
 * save bar (`<ui-save-bar>`) over a form with unsaved changes. Outside the Shopify admin (no App Bridge, no script)
 * nothing of this is drawn: the form posts as it is, and the server's own checks (the confirm box) stay.
 */

export interface Confirmation {
  /** The modal's id: unique in the page (`[A-Za-z0-9-]`). */
  id: string;
  title: string;
  /** What will happen, in words. */
  body: Html;
  /** The button that does it (critical). */
  action: string;
  /** The button that does nothing: "Keep" for an order, "Cancel" elsewhere. */
  keep?: string;
  /**
   * A confirm box the no-script page needs (`name=value` the server checks): the script hides the box (the checkbox
   * of that name and its label) and sends the value once the modal is confirmed.
   */
  field?: { name: string; value: string };
}

/** The form's attributes that tie it to its modal (nothing outside the admin). */
export function confirmAttributes(ctx: PageContext, confirmation: Confirmation): Html {
  if (!ctx.embedded) return html``;
  const field = confirmation.field ? html` data-confirm-field="${confirmation.field.name}" data-confirm-value="${confirmation.field.value}"` : '';
  return html` data-confirm="${safeId(confirmation.id)}"${field}`;
}

/** The modal itself (App Bridge shows it in the admin; its buttons are handled by the embedded script). */
export function confirmModal(ctx: PageContext, confirmation: Confirmation): Html {
  if (!ctx.embedded) return html``;
  return html`<ui-modal id="${safeId(confirmation.id)}">${confirmation.body}<ui-title-bar title="${confirmation.title}"><button variant="primary" tone="critical" data-confirm-yes>${confirmation.action}</button><button data-confirm-keep>${confirmation.keep ?? 'Cancel'}</button></ui-title-bar></ui-modal>`;
}

/** A save bar for the form whose attributes `saveBarAttributes` gives. */
export function saveBar(ctx: PageContext, id: string): Html {
  if (!ctx.embedded) return html``;
  return html`<ui-save-bar id="${safeId(id)}"><button variant="primary" data-save-bar-save>Save</button><button data-save-bar-discard>Discard</button></ui-save-bar>`;
}

/**
 * The form's attributes that tie it to its save bar. `unsaved`: the page shows values that are not stored (a refused
 * save): the bar shows from the start, and Discard loads `discard` (the page as stored).
 */
export function saveBarAttributes(ctx: PageContext, id: string, unsaved?: { discard: string }): Html {
  if (!ctx.embedded) return html``;
  return html` data-save-bar="${safeId(id)}"${unsaved ? html` data-unsaved="true" data-discard="${unsaved.discard}"` : ''}`;
}

function safeId(id: string): string {
  return id.replace(/[^A-Za-z0-9-]/g, '-');
}
