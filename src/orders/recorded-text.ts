import type { OrderLink } from './model.js';

/**
 * What the app records about an order in words (problems, reasons, hold messages, history lines) often carries text
 * from outside: Shopify's hold notes, the printer's error texts, a postback's fields. Every such text is cut to
 * RECORDED_TEXT_LIMIT characters where it is stored (src/storage/recorded-text.ts), with a visible ellipsis, so what a
 * page later reads, translates and shows has a known size however much the sender wrote (150,000 characters of hold
 * notes once reached every view of the order).
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

/** Where a recorded text of an order stands (mapRecordedTexts). */
export type RecordedTextField = 'problem' | 'problem-subject' | 'not-printed-reason' | 'test-run-problem' | 'hold-wait' | 'answer-refused' | 'rejection' | 'app-hold';

/**
 * The order with every text the app recorded about it in words passed through `edit`, each with where it stands:
 * problems and their subjects, why it is not printed, the test run's problems, a shipment's hold wait, Shopify's
 * refusal of an answer, the rejection sent to Shopify, and the notes of the app's own hold in Shopify (and why Shopify
 * refused it). The one list of those places: the store bounds them
 * (src/storage/recorded-text.ts), redaction replaces those that may quote the customer (bridge/webhooks/redact.ts).
 */
export function mapRecordedTexts(link: OrderLink, edit: (text: string, field: RecordedTextField) => string): OrderLink {
  const optional = (text: string | undefined, field: RecordedTextField) => (text === undefined ? undefined : edit(text, field));
  const request = link.fulfillmentRequest;
  return {
    ...link,
    problems: link.problems.map((p) => ({ ...p, message: edit(p.message, 'problem'), subject: optional(p.subject, 'problem-subject') })),
    notPrintedReason: optional(link.notPrintedReason, 'not-printed-reason'),
    testRun: link.testRun ? { ...link.testRun, problems: link.testRun.problems.map((p) => edit(p, 'test-run-problem')) } : undefined,
    appHold: link.appHold ? { ...link.appHold, notes: edit(link.appHold.notes, 'app-hold'), refused: optional(link.appHold.refused, 'app-hold') } : undefined,
    shipments: link.shipments.map((s) => (s.waitingForRelease ? { ...s, waitingForRelease: { ...s.waitingForRelease, message: edit(s.waitingForRelease.message, 'hold-wait') } } : s)),
    fulfillmentRequest: request
      ? {
          ...request,
          fulfillmentOrders: request.fulfillmentOrders.map((fo) => ({ ...fo, answerRefused: optional(fo.answerRefused, 'answer-refused') })),
          rejection: request.rejection
            ? { ...request.rejection, message: edit(request.rejection.message, 'rejection'), lineItems: request.rejection.lineItems.map((l) => ({ ...l, message: edit(l.message, 'rejection') })) }
            : undefined,
        }
      : undefined,
  };
}
