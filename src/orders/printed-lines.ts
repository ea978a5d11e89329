import type { OrderLink, Problem } from './model.js';

/**
 * What changed in Shopify about the lines already at the printer: a refund, an order edit that removed a line or
 * changed its quantity. The printer keeps what it was sent, so each is shown on the order with what the merchant can
 * do (cancel at the printer while it allows, or keep it as sent), never silently ignored.
 */
export const CHANGED_AFTER_SUBMISSION = 'changed-after-submission';

export interface PrintedLineChange {
  lineItemId: string;
  sku?: string;
  sent: number;
  /** What Shopify's order has of it now (0: removed or wholly refunded). */
  now: number;
}

/** The sent quantity of each printed line item, over every shipment. */
export function sentQuantities(link: OrderLink): Map<string, { quantity: number; sku?: string }> {
  const out = new Map<string, { quantity: number; sku?: string }>();
  for (const shipment of link.shipments) {
    for (const line of shipment.lineItems) {
      const known = out.get(line.lineItemId);
      out.set(line.lineItemId, { quantity: (known?.quantity ?? 0) + line.quantity, sku: known?.sku ?? line.sku });
    }
  }
  return out;
}

/** Printed lines whose quantity in Shopify is now below or above what was sent (`current` by line item gid). */
export function printedLineChanges(link: OrderLink, current: ReadonlyMap<string, number>): PrintedLineChange[] {
  const changes: PrintedLineChange[] = [];
  for (const [lineItemId, sent] of sentQuantities(link)) {
    const now = current.get(lineItemId) ?? 0;
    if (now !== sent.quantity) changes.push({ lineItemId, sku: sent.sku, sent: sent.quantity, now });
  }
  return changes;
}

/** The problem shown on the order, in words the merchant can act on. */
export function changedAfterSubmissionProblem(link: OrderLink, changes: readonly PrintedLineChange[], cause: string, at: string): Problem {
  const name = link.orderName ?? link.orderId;
  const what = changes
    .map((c) => `line item ${c.lineItemId.split('/').pop()} (SKU ${c.sku ?? 'none'}): ${c.sent === 0 ? `${c.now} added, not in the print order` : c.now === 0 ? `none left of the ${c.sent} sent` : `${c.now} now, ${c.sent} sent`}`)
    .join('; ');
  return {
    kind: CHANGED_AFTER_SUBMISSION,
    subject: 'line items',
    message: `${cause} after ${name} went to the printer: ${what}. The printer still has the order as sent: cancel it at the printer while it allows (Cancel order, then send it again if needed), or keep it as sent.`,
    at,
  };
}
