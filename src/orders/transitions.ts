import { canMove, type OrderStatus } from './status.js';
import type { Carrier, OrderLink, Problem, ShipmentLink } from './model.js';

/**
 * The changes every use case makes to an order, as pure functions: the use case decides what happened, these say what
 * that does to the record. None of them mutates its argument. The store applies the result under its compare-and-set
 * (OrderStore.update), so a change computed from a stale read is computed again, never written over a newer one.
 */

/**
 * Moves the order to `status` when the status rules allow it (`canMove`: forward only, side exits as documented);
 * otherwise the order is returned as it was, with `moved: false`. `statusAt` is when the order entered its status.
 */
export function moveTo(link: OrderLink, status: OrderStatus, at: string): { link: OrderLink; moved: boolean } {
  if (!canMove(link.status, status)) return { link, moved: false };
  return { link: { ...link, status, statusAt: at }, moved: true };
}

/** Like moveTo, but staying in `status` counts as arrived (a repeat of the same step keeps its original time). */
export function settleIn(link: OrderLink, status: OrderStatus, at: string): { link: OrderLink; moved: boolean } {
  if (link.status === status) return { link, moved: true };
  return moveTo(link, status, at);
}

/**
 * A create is (or may be) in flight: the order enters `submitting` from any status a submission may start from
 * (canMove); a repeat of the step keeps the time it first entered. Undefined when the order may not be submitted.
 */
export function beginSubmission(link: OrderLink, at: string): OrderLink | undefined {
  const { link: next, moved } = settleIn(link, 'submitting', at);
  return moved ? next : undefined;
}

/** Drops the problems `drop` selects. */
export function clearProblems(link: OrderLink, drop: (problem: Problem) => boolean): OrderLink {
  const problems = link.problems.filter((p) => !drop(p));
  return problems.length === link.problems.length ? link : { ...link, problems };
}

/** Replaces the problems `drop` selects with `problems` (the reasons shown to the merchant, newest last). */
export function replaceProblems(link: OrderLink, drop: (problem: Problem) => boolean, problems: readonly Problem[]): OrderLink {
  return { ...link, problems: [...link.problems.filter((p) => !drop(p)), ...problems] };
}

/** Problems of one of these kinds. */
export const ofKind =
  (...kinds: string[]) =>
  (problem: Problem): boolean =>
    kinds.includes(problem.kind);

/** Problems about this subject (a shipment, a line item). */
export const about =
  (subject: string) =>
  (problem: Problem): boolean =>
    problem.subject === subject;

/** The one problem of `kind` about `subject` becomes `problem` (a repeat replaces, never piles up). */
export function setProblem(link: OrderLink, problem: Problem): OrderLink {
  return replaceProblems(link, (p) => p.kind === problem.kind && p.subject === problem.subject, [problem]);
}

/** Changes one shipment; the others stay as they are. */
export function updateShipment(link: OrderLink, index: number, change: (shipment: ShipmentLink) => ShipmentLink): OrderLink {
  return { ...link, shipments: link.shipments.map((s) => (s.index === index ? change(s) : s)) };
}

export interface ShippedReport {
  trackingNumber?: string;
  carrier?: Carrier;
  at: string;
}

/**
 * The printer shipped shipment `index`: it is marked shipped with its tracking (a later report's tracking wins, the
 * first shipping time stays), and the order moves to shipped or partially shipped unless it was cancelled. `changed`
 * says whether this report told anything new (a repeat changes nothing but is still recorded in the history).
 */
export function markShipmentShipped(link: OrderLink, index: number, report: ShippedReport): { link: OrderLink; changed: boolean; moved: boolean; target: OrderStatus } {
  const before = link.shipments.find((s) => s.index === index);
  const changed = before?.status !== 'shipped' || (report.trackingNumber !== undefined && before.trackingNumber !== report.trackingNumber);
  const shipped = updateShipment(link, index, (s) => ({
    ...s,
    status: 'shipped',
    trackingNumber: report.trackingNumber ?? s.trackingNumber,
    carrier: report.carrier ?? s.carrier,
    shippedAt: s.shippedAt ?? report.at,
  }));
  const target: OrderStatus = shipped.shipments.every((s) => s.status === 'shipped') ? 'shipped' : 'partially-shipped';
  if (link.status === 'cancelled') return { link: shipped, changed, moved: false, target };
  const { link: next, moved } = moveTo(shipped, target, report.at);
  return { link: next, changed, moved, target };
}

/**
 * Shipment `index` is fulfilled in Shopify as `fulfillmentId` with `trackingNumber`: recorded, its wait for a hold
 * and its problems end. Undefined when the record says so already (nothing to write).
 */
export function markShipmentFulfilled(link: OrderLink, index: number, fulfillment: { fulfillmentId: string; trackingNumber?: string; at: string }): OrderLink | undefined {
  const shipment = link.shipments.find((s) => s.index === index);
  if (shipment?.fulfillmentId === fulfillment.fulfillmentId && shipment.fulfilledTrackingNumber === fulfillment.trackingNumber) return undefined;
  const fulfilled = updateShipment(link, index, (s) => ({
    ...s,
    fulfillmentId: fulfillment.fulfillmentId,
    fulfilledTrackingNumber: fulfillment.trackingNumber,
    appliedAt: s.appliedAt ?? fulfillment.at,
    waitingForRelease: undefined,
  }));
  return clearProblems(fulfilled, about(`shipment ${index}`));
}

/** Shipment `index`'s Shipped was carried out in Shopify without a new fulfillment (nothing was left to fulfil). */
export function markShipmentApplied(link: OrderLink, index: number, at: string): OrderLink {
  return updateShipment(link, index, (s) => ({ ...s, appliedAt: at, waitingForRelease: undefined }));
}
