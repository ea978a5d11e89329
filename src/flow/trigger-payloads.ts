import type { OrderLink } from '../orders/model.js';
import { CHANGED_AFTER_SUBMISSION } from '../orders/printed-lines.js';
import { HELD_AFTER_SUBMISSION } from '../bridge/held-after-submission.js';
import { WAIT_KINDS } from '../bridge/waiting-problems.js';
import { FLOW_PAYLOAD_LIMIT_BYTES, FLOW_TRIGGERS, TRIGGER_FIELDS, type FlowTriggerHandle } from './definitions.js';
import { attentionKindOf, latestShipment, statusWordOf } from './trigger-events.js';

/**
 * The payload of one trigger for `flowTriggerReceive`: the order reference (`order_id`, its gid) and the trigger's
 * fields, nothing of the customer (a workflow reads the order through the reference if it needs more). Free texts
 * (the reason, a tracking URL) are cut so that the payload stays far under Shopify's size limit whatever the order
 * holds.
 */

export type FlowPayload = Record<string, string>;

/** A text field of a payload at most this long: Flow shows them in e-mails and conditions, not whole documents. */
export const FLOW_TEXT_MAX = 1_000;
/** The reason of a held order names at most this many of its problems. */
const REASONS_SHOWN = 5;

export function cutText(text: string, max = FLOW_TEXT_MAX): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

export function triggerPayload(handle: FlowTriggerHandle, key: string, link: OrderLink): FlowPayload {
  const payload: FlowPayload = { [TRIGGER_FIELDS.orderId]: link.orderId };
  if (handle === FLOW_TRIGGERS.statusChanged) {
    const status = key.split('|')[1] as OrderLink['status'];
    const word = statusWordOf(status);
    if (word) payload[TRIGGER_FIELDS.status] = word;
    // Every text field is given (empty when the status has none), so a workflow's condition reads a value, not a gap;
    // the tracking URL is a `url` field, given only when there is one.
    const shipment = word === 'shipped' ? latestShipment(link) : undefined;
    payload[TRIGGER_FIELDS.carrier] = cutText(shipment?.carrier?.alias ?? shipment?.carrier?.code ?? '', 200);
    payload[TRIGGER_FIELDS.trackingNumber] = cutText(shipment?.trackingNumber ?? '', 200);
    if (shipment?.trackingUrl) payload[TRIGGER_FIELDS.trackingUrl] = cutText(shipment.trackingUrl);
  }
  if (handle === FLOW_TRIGGERS.needsAttention) {
    const kind = attentionKindOf(key);
    if (kind) payload[TRIGGER_FIELDS.kind] = kind;
    payload[TRIGGER_FIELDS.reason] = reasonOf(kind, link);
  }
  return withinLimit(payload);
}

/**
 * The reason a workflow reads: what kind of problem the order has and what it is about (a line item, a field), in
 * print-bridge's own words. A problem's message is not sent: it may quote what the customer typed (a name in an
 * artwork URL), and the order reference leads to the full picture.
 */
const PROBLEM_WORDS: Record<string, string> = {
  mapping: 'the mapping cannot print a line item',
  'no-mapping': 'no mapping file serves the store',
  validation: 'the print service refused the order as mapped',
  submission: 'the order could not be sent to the print service',
  'submission-error': 'the print service reported a failed submission',
  'print-error': 'the print service reported an error',
  'cancel-refused': 'the print service refused to cancel the order',
  'amend-refused': 'the print service refused a change of the address',
  [CHANGED_AFTER_SUBMISSION]: 'printed lines changed in Shopify after the order was sent (a refund or an edit)',
  [WAIT_KINDS.shopifyHold]: "Shopify holds the order's fulfillment order; nothing is printed until the hold is released",
  [WAIT_KINDS.risk]: "Shopify's risk analysis flagged the order; it is printed when sent anyway (Send to the printer now)",
  [HELD_AFTER_SUBMISSION]: 'Shopify put the order on hold after it was sent to the printer',
};

function reasonOf(kind: string | undefined, link: OrderLink): string {
  const problems = kind === 'changed after submission' ? link.problems.filter((p) => p.kind === CHANGED_AFTER_SUBMISSION) : link.problems;
  const texts = [...new Set(problems.slice(0, 50).map((p) => `${PROBLEM_WORDS[p.kind] ?? p.kind.replace(/-/g, ' ')}${p.subject ? ` (${cutText(p.subject, 120)})` : ''}`))];
  const shown = texts.slice(0, REASONS_SHOWN);
  const more = problems.length > shown.length ? ` (+${problems.length - shown.length} more)` : '';
  if (shown.length > 0) return cutText(`${shown.join('; ')}${more}`);
  return kind === 'errored at the printer' ? PROBLEM_WORDS['print-error']! : 'see the order in print-bridge';
}

export function payloadBytes(payload: FlowPayload): number {
  return Buffer.byteLength(JSON.stringify(payload), 'utf8');
}

/** A last guard: the fields are cut already, but a payload over the limit loses its free texts rather than the trigger. */
function withinLimit(payload: FlowPayload): FlowPayload {
  if (payloadBytes(payload) < FLOW_PAYLOAD_LIMIT_BYTES) return payload;
  const { [TRIGGER_FIELDS.reason]: _reason, [TRIGGER_FIELDS.trackingUrl]: _url, ...rest } = payload;
  return rest;
}
