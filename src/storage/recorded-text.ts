import type { HistoryEntry, OrderLink } from '../orders/model.js';
import { RECORDED_TEXT_LIMIT, recordedText } from '../orders/recorded-text.js';

/** The order store bounds every recorded text of a link and its history as it writes them (src/orders/recorded-text.ts). */

const optional = (text: string | undefined): string | undefined => (text === undefined ? undefined : recordedText(text));

/** The link with its recorded texts bounded; the same object when none is over the limit. */
export function boundedLink(link: OrderLink): OrderLink {
  if (!overLimit(link)) return link;
  const request = link.fulfillmentRequest;
  return {
    ...link,
    notPrintedReason: optional(link.notPrintedReason),
    problems: link.problems.map((p) => ({ ...p, message: recordedText(p.message), subject: optional(p.subject) })),
    shipments: link.shipments.map((s) => (s.waitingForRelease ? { ...s, waitingForRelease: { ...s.waitingForRelease, message: recordedText(s.waitingForRelease.message) } } : s)),
    testRun: link.testRun ? { ...link.testRun, problems: link.testRun.problems.map(recordedText) } : undefined,
    fulfillmentRequest: request
      ? {
          ...request,
          fulfillmentOrders: request.fulfillmentOrders.map((fo) => ({ ...fo, answerRefused: optional(fo.answerRefused) })),
          rejection: request.rejection
            ? { ...request.rejection, message: recordedText(request.rejection.message), lineItems: request.rejection.lineItems.map((l) => ({ ...l, message: recordedText(l.message) })) }
            : undefined,
        }
      : undefined,
  };
}

/** A history entry with its event and detail bounded. */
export function boundedHistoryEntry<T extends Omit<HistoryEntry, 'at'>>(entry: T): T {
  return entry.event.length > RECORDED_TEXT_LIMIT || (entry.detail?.length ?? 0) > RECORDED_TEXT_LIMIT
    ? { ...entry, event: recordedText(entry.event), detail: optional(entry.detail) }
    : entry;
}

/** Whether any recorded text of the link is over the limit (most writes: none, and nothing is copied). */
function overLimit(link: OrderLink): boolean {
  const over = (text: string | undefined) => (text?.length ?? 0) > RECORDED_TEXT_LIMIT;
  const request = link.fulfillmentRequest;
  return (
    over(link.notPrintedReason) ||
    link.problems.some((p) => over(p.message) || over(p.subject)) ||
    link.shipments.some((s) => over(s.waitingForRelease?.message)) ||
    (link.testRun?.problems.some(over) ?? false) ||
    (request?.fulfillmentOrders.some((fo) => over(fo.answerRefused)) ?? false) ||
    over(request?.rejection?.message) ||
    (request?.rejection?.lineItems.some((l) => over(l.message)) ?? false)
  );
}
