import type { HistoryEntry, OrderLink } from '../orders/model.js';

/**
 * What the app records about an order in words (problems, reasons, hold messages, history lines) often carries text
 * from outside: Shopify's hold notes, the printer's error texts, a postback's fields. Every such text is cut to
 * RECORDED_TEXT_LIMIT characters where it is stored, with a visible ellipsis, so what a page later reads, translates
 * and shows has a known size however much the sender wrote (150,000 characters of hold notes once reached every view
 * of the order).
 */
export const RECORDED_TEXT_LIMIT = 2_000;

/** The text as it is stored: itself, or its first RECORDED_TEXT_LIMIT - 1 characters and "…". */
export function recordedText(text: string): string {
  if (text.length <= RECORDED_TEXT_LIMIT) return text;
  // A surrogate pair is never split in two (half a character would not show, and JSON would carry a lone half).
  const end = isHighSurrogate(text.charCodeAt(RECORDED_TEXT_LIMIT - 2)) ? RECORDED_TEXT_LIMIT - 2 : RECORDED_TEXT_LIMIT - 1;
  return `${text.slice(0, end)}…`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

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
