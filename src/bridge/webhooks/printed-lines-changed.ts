import { z } from 'zod';
import type { OrderLink } from '../../orders/model.js';
import { CHANGED_AFTER_SUBMISSION, changedAfterSubmissionProblem, printedLineChanges, sentQuantities, type PrintedLineChange } from '../../orders/printed-lines.js';
import { shopifyId } from '../../orders/shopify-order.js';
import { ofKind, replaceProblems } from '../../orders/transitions.js';
import { parseJsonLossless } from '../../shopify/json.js';
import { lineItemGid, type OrderWebhook } from '../../shopify/order-webhook.js';
import type { WebhookJob } from '../jobs.js';
import type { BridgeDeps } from '../ports.js';
import type { WebhookOutcome } from './outcome.js';

/**
 * A refund (`refunds/create`) or an order edit (`orders/updated`, `orders/edited`) that touches lines already at the
 * printer: shown on the order (a problem with what the merchant can do) and in Shopify's tags, in both fulfillment
 * modes. Only while the printer may still act on it: once everything shipped there is nothing left to change.
 */
const PRINTER_AT_WORK = new Set(['submitted', 'received', 'print-ready', 'partially-shipped']);

/** What the order has of each line item now: Shopify's `current_quantity` (after edits and refunds). */
export function currentQuantities(order: OrderWebhook): Map<string, number> {
  const refunded = new Map<string, number>();
  for (const refund of (order as { refunds?: { refund_line_items?: { line_item_id?: unknown; quantity?: unknown }[] }[] }).refunds ?? []) {
    for (const r of refund.refund_line_items ?? []) {
      const id = `gid://shopify/LineItem/${String(r.line_item_id)}`;
      if (typeof r.quantity === 'number') refunded.set(id, (refunded.get(id) ?? 0) + r.quantity);
    }
  }
  const out = new Map<string, number>();
  for (const line of order.line_items) {
    const gid = lineItemGid(line);
    out.set(gid, line.current_quantity ?? Math.max(0, line.quantity - (refunded.get(gid) ?? 0)));
  }
  return out;
}

/**
 * Lines an edit added that the store's mapping prints (it would have sent them, had they been there): the print order
 * already sent cannot grow. Merchant-managed mode only: in service mode an added line comes as a request of its own.
 * Only asked when the order has a line the print order lacks, so most updates cost no mapping.
 */
export async function addedPrintedLines(deps: BridgeDeps, link: OrderLink, body: string, current: ReadonlyMap<string, number>): Promise<PrintedLineChange[]> {
  if (!PRINTER_AT_WORK.has(link.status) || link.fulfillmentRequest) return [];
  const sent = sentQuantities(link);
  if (![...current].some(([id, quantity]) => quantity > 0 && !sent.has(id))) return [];
  const mapped = await deps.mapping.map(link.shop, body).catch((error: Error) => {
    deps.logger.warn({ shop: link.shop, orderId: link.orderId, err: error }, 'could not map the edited order to look for added printed lines');
    return undefined;
  });
  if (!mapped?.ok) return [];
  const added = new Map<string, PrintedLineChange>();
  for (const shipment of mapped.shipments) {
    for (const line of shipment.lineItems) {
      if (sent.has(line.lineItemId)) continue;
      const known = added.get(line.lineItemId);
      added.set(line.lineItemId, { lineItemId: line.lineItemId, sku: line.sku, sent: 0, now: (known?.now ?? 0) + line.quantity });
    }
  }
  return [...added.values()];
}

/** How many refund ids an order keeps (OrderLink.refundIds): far more refunds than one order ever has. */
const REFUND_IDS_KEPT = 100;

/**
 * Records the changes of printed lines on the order; nothing when there are none or the printer is done with it.
 * `refundId`: the refund that caused them, taken in once: recorded with the problem, and a refund already recorded
 * changes nothing (the merchant may have kept the order as sent since).
 */
export async function noticePrintedLineChanges(
  deps: BridgeDeps,
  link: OrderLink,
  current: ReadonlyMap<string, number>,
  cause: string,
  added: readonly PrintedLineChange[] = [],
  refundId?: string,
): Promise<boolean> {
  if (!PRINTER_AT_WORK.has(link.status)) return false;
  const changes = [...printedLineChanges(link, current), ...added];
  if (changes.length === 0) return false;
  const at = deps.clock().toISOString();
  let raised = false;
  await deps.store.update(link.shop, link.orderId, (fresh) => {
    raised = false;
    if (!fresh || !PRINTER_AT_WORK.has(fresh.status)) return undefined;
    if (refundId !== undefined && fresh.refundIds?.includes(refundId)) return undefined;
    const taken = refundId === undefined ? fresh : { ...fresh, refundIds: [...(fresh.refundIds ?? []), refundId].slice(-REFUND_IDS_KEPT) };
    const problem = changedAfterSubmissionProblem(fresh, changes, cause, at);
    if (fresh.problems.some((p) => p.kind === CHANGED_AFTER_SUBMISSION && p.message === problem.message)) return taken === fresh ? undefined : { link: taken };
    raised = true;
    return {
      link: replaceProblems(taken, ofKind(CHANGED_AFTER_SUBMISSION), [problem]),
      history: [{ event: 'printed lines changed in Shopify', source: 'shopify', detail: problem.message }],
    };
  });
  if (raised) await deps.scheduler.syncShopify(link.shop, link.orderId);
  return raised;
}

const refundSchema = z
  .object({
    /** The refund's own id: the same on every delivery of it, whatever the webhook id. */
    id: shopifyId.optional(),
    order_id: shopifyId,
    refund_line_items: z.array(z.object({ line_item_id: shopifyId, quantity: z.number().int().min(0) }).loose()).default([]),
  })
  .loose();

/** `refunds/create`: a refund of printed items, after they went to the printer. */
export async function handleRefundWebhook(deps: BridgeDeps, job: WebhookJob): Promise<WebhookOutcome> {
  let parsed;
  try {
    parsed = refundSchema.safeParse(parseJsonLossless(job.body));
  } catch (error) {
    return { kind: 'rejected', reason: `the refund body is not JSON: ${(error as Error).message}` };
  }
  if (!parsed.success) return { kind: 'rejected', reason: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  const orderId = `gid://shopify/Order/${String(parsed.data.order_id)}`;
  const link = await deps.store.get(job.shop, orderId);
  if (!link) return { kind: 'recorded', orderId, detail: 'an order print-bridge never had' };
  const refundId = parsed.data.id === undefined ? undefined : String(parsed.data.id);
  if (refundId !== undefined && link.refundIds?.includes(refundId)) return { kind: 'recorded', orderId, detail: `refund ${refundId} was taken in before` };
  // What this refund leaves of each printed line, from what was sent (an earlier refund's problem is replaced by this).
  const current = new Map([...sentQuantities(link)].map(([id, sent]) => [id, sent.quantity]));
  for (const r of parsed.data.refund_line_items) {
    const id = `gid://shopify/LineItem/${String(r.line_item_id)}`;
    if (current.has(id)) current.set(id, Math.max(0, current.get(id)! - r.quantity));
  }
  const noticed = await noticePrintedLineChanges(deps, link, current, 'A refund', [], refundId);
  return { kind: 'recorded', orderId, detail: noticed ? 'printed lines refunded after submission: shown on the order' : 'no printed line refunded while the printer works on it' };
}
