import type { OrderLink } from '../orders/model.js';
import { onlyRequestedLines, pendingRequests, requestedQuantities, type PlannedRejection } from '../orders/service-request.js';
import type { BridgeDeps } from './ports.js';

/**
 * What submission does differently for a store in fulfillment-service mode (docs/fulfillment.md): nothing is printed
 * before Shopify requests it of the app's location; only the requested lines are mapped; and what cannot be printed is
 * rejected back to the merchant with what to fix, instead of waiting silently.
 */

/** The history event of an order waiting for Shopify's fulfillment request (released by waiting-moves.ts). */
export const SERVICE_WAIT_EVENT = 'waiting for a fulfillment request';

/** In service mode an order waits for Shopify's request: noted once on the order, nothing sent, no problem shown. */
export async function awaitFulfillmentRequest(deps: BridgeDeps, link: OrderLink): Promise<{ kind: 'waiting'; reason: string }> {
  const reason = 'no fulfillment request';
  const history = await deps.store.history(link.shop, link.orderId, 20);
  if (!history.some((h) => h.event === SERVICE_WAIT_EVENT)) {
    await deps.store.note(link.shop, link.orderId, {
      event: SERVICE_WAIT_EVENT,
      source: 'worker',
      detail: "the store is in fulfillment-service mode: nothing is printed until Shopify requests it of print-bridge's location",
    });
  }
  return { kind: 'waiting', reason };
}

/** The body the mapping sees: in service mode, only the lines requested of the app's location. */
export function bodyToMap(link: OrderLink, body: string): string {
  return link.fulfillmentRequest ? onlyRequestedLines(body, requestedQuantities(link.fulfillmentRequest)) : body;
}

/**
 * Plans the rejection of the order's pending requests for these problems and asks for it to be sent. The reason is the
 * one Shopify shows the merchant: an unknown SKU, a bad address, a product the mapping cannot print, or test mode.
 */
export async function rejectPendingRequests(
  deps: BridgeDeps,
  link: OrderLink,
  cause: 'mapping' | 'validation' | 'test-mode',
  problems: { message: string; subject?: string; mappingKind?: string }[],
): Promise<void> {
  if (pendingRequests(link.fulfillmentRequest).length === 0) return;
  const rejection = plannedRejection(link, cause, problems);
  await deps.store.update(link.shop, link.orderId, (current) =>
    current?.fulfillmentRequest && pendingRequests(current.fulfillmentRequest).length > 0
      ? {
          link: { ...current, fulfillmentRequest: { ...current.fulfillmentRequest, rejection } },
          history: [{ event: 'fulfillment request to be rejected', source: 'worker', detail: `${rejection.reason}: ${rejection.message}` }],
        }
      : undefined,
  );
  await deps.scheduler.answerFulfillmentRequests(link.shop, link.orderId);
}

export function plannedRejection(
  link: OrderLink,
  cause: 'mapping' | 'validation' | 'test-mode',
  problems: { message: string; subject?: string; mappingKind?: string }[],
): PlannedRejection {
  const name = link.orderName ?? link.orderId;
  if (cause === 'test-mode') {
    return {
      reason: 'OTHER',
      message: `print-bridge is in test mode for this store: ${name} was checked with the print service but not printed. Go live on print-bridge's Settings page, then request fulfillment again.`,
      lineItems: [],
    };
  }
  const lines = (pendingRequests(link.fulfillmentRequest).flatMap((fo) => fo.lineItems));
  const lineMessages: { fulfillmentOrderLineItemId: string; message: string }[] = [];
  for (const line of lines) {
    const numeric = line.lineItemId.split('/').pop();
    const own = problems.filter((p) => p.subject && (p.subject.includes(`line item ${numeric} `) || p.subject.includes(line.lineItemId)));
    if (own.length > 0) lineMessages.push({ fulfillmentOrderLineItemId: line.id, message: truncate(own.map((p) => p.message).join('; ')) });
  }
  const kinds = new Set(problems.map((p) => p.mappingKind));
  const reason: PlannedRejection['reason'] = kinds.has('address')
    ? 'INCORRECT_ADDRESS'
    : kinds.has('unmapped')
      ? 'INVALID_SKU'
      : cause === 'mapping'
        ? 'INELIGIBLE_PRODUCT'
        : /address|postcode|zip|country|city/i.test(problems.map((p) => `${p.subject ?? ''} ${p.message}`).join(' '))
          ? 'INCORRECT_ADDRESS'
          : 'OTHER';
  const what = problems.map((p) => (p.subject ? `${p.subject}: ${p.message}` : p.message)).join('; ');
  const fix = reason === 'INCORRECT_ADDRESS' ? 'Correct the shipping address' : "Fix the store's mapping in print-bridge (Mapping page)";
  return { reason, message: truncate(`print-bridge cannot print ${name}: ${what}. ${fix}, then request fulfillment again.`), lineItems: lineMessages };
}

/** Shopify shows these messages as written; a bounded length keeps a long list of problems readable. */
function truncate(text: string, max = 1000): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
