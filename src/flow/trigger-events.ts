import type { HistoryEntry, OrderLink, ShipmentLink } from '../orders/model.js';
import { CHANGED_AFTER_SUBMISSION } from '../orders/printed-lines.js';
import { HELD_AFTER_SUBMISSION } from '../bridge/held-after-submission.js';
import { WAIT_KINDS } from '../bridge/waiting-problems.js';
import { isSubmittedStatus, type OrderStatus } from '../orders/status.js';
import { FLOW_TRIGGERS, type AttentionKind, type FlowStatusWord, type FlowTriggerHandle } from './definitions.js';

/**
 * The Flow events an order's link shows, each named by a key that stays the same for as long as the event is the
 * same (the status and when the order reached it; the problem and when it was raised): announcing an event is
 * idempotent by its key, whichever job looks at the order and however often.
 *
 * - print-order-sent: the order reached the printer (submitted, or any later printer status) — once per order.
 * - print-status-changed: received, print ready, shipped (a shipment of it, with its carrier and tracking), cancelled.
 * - print-order-needs-attention: held (the reasons: a mapping problem, Shopify's hold or risk recommendation, a hold placed
 *   in Shopify after submission), errored at the printer, changed in Shopify after submission.
 */
export interface FlowEvent {
  handle: FlowTriggerHandle;
  key: string;
  /** When it happened: a trigger enabled after it does not announce it. */
  at: string;
}

const WAITS_FOR_A_PERSON: ReadonlySet<string> = new Set([WAIT_KINDS.shopifyHold, WAIT_KINDS.risk, HELD_AFTER_SUBMISSION]);


const STATUS_WORDS: Partial<Record<OrderStatus, FlowStatusWord>> = {
  received: 'received',
  'print-ready': 'print ready',
  'partially-shipped': 'shipped',
  shipped: 'shipped',
  cancelled: 'cancelled',
};

export function flowEventsOf(link: OrderLink, history: readonly HistoryEntry[]): FlowEvent[] {
  const events: FlowEvent[] = [];
  const reachedPrinter = firstAtPrinter(link, history);
  if (reachedPrinter) events.push({ handle: FLOW_TRIGGERS.sent, key: 'sent', at: reachedPrinter });
  if (STATUS_WORDS[link.status]) events.push({ handle: FLOW_TRIGGERS.statusChanged, key: `status|${link.status}|${link.statusAt}`, at: link.statusAt });
  if (link.status === 'held') events.push({ handle: FLOW_TRIGGERS.needsAttention, key: `attention|held|${link.statusAt}`, at: link.statusAt });
  if (link.status === 'error') events.push({ handle: FLOW_TRIGGERS.needsAttention, key: `attention|errored|${link.statusAt}`, at: link.statusAt });
  // Kept from the printer by Shopify's judgement (a hold, a risk recommendation the merchant must overrule), or held in
  // Shopify after the printer got it: a person decides, so a workflow hears of it as held.
  for (const problem of link.problems.filter((p) => WAITS_FOR_A_PERSON.has(p.kind) && (link.status === 'waiting' || p.kind === HELD_AFTER_SUBMISSION)).slice(0, 1)) {
    events.push({ handle: FLOW_TRIGGERS.needsAttention, key: `attention|held|${problem.at}`, at: problem.at });
  }
  for (const problem of link.problems.filter((p) => p.kind === CHANGED_AFTER_SUBMISSION).slice(0, 1)) {
    events.push({ handle: FLOW_TRIGGERS.needsAttention, key: `attention|changed|${problem.at}`, at: problem.at });
  }
  return events;
}

/** When the order first reached the printer: its oldest such status in the history, else its current status's time. */
function firstAtPrinter(link: OrderLink, history: readonly HistoryEntry[]): string | undefined {
  const reached = history.filter((e) => e.status && isSubmittedStatus(e.status)).map((e) => e.at);
  if (reached.length > 0) return reached.reduce((a, b) => (a < b ? a : b));
  if (isSubmittedStatus(link.status)) return link.statusAt;
  // Cancelled or errored after the printer had it: it did reach the printer.
  return link.printOrderId && (link.status === 'cancelled' || link.status === 'error') ? link.statusAt : undefined;
}

/** What a shipped event tells a workflow: the most recently shipped shipment of the order. */
export function latestShipment(link: OrderLink): ShipmentLink | undefined {
  return link.shipments.filter((s) => s.status === 'shipped').sort((a, b) => (a.shippedAt ?? '').localeCompare(b.shippedAt ?? '') || a.index - b.index).at(-1);
}

export function statusWordOf(status: OrderStatus): FlowStatusWord | undefined {
  return STATUS_WORDS[status];
}

export function attentionKindOf(key: string): AttentionKind | undefined {
  const kind = key.split('|')[1];
  if (kind === 'held') return 'held';
  if (kind === 'errored') return 'errored at the printer';
  if (kind === 'changed') return 'changed after submission';
  return undefined;
}

/** The history line that records an event as announced: its detail is what `announcedKeys` reads back. */
export const ANNOUNCED_EVENT = 'announced to Shopify Flow';

export function announcedDetail(event: Pick<FlowEvent, 'handle' | 'key'>): string {
  return `${event.handle} ${event.key}`;
}

export function announcedKeys(history: readonly HistoryEntry[]): Set<string> {
  return new Set(history.filter((e) => e.event === ANNOUNCED_EVENT && e.detail).map((e) => e.detail!));
}
