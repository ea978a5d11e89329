/**
 * Where an order stands between Shopify and the printer. Statuses move forward only: a late or repeated webhook or
 * postback can never take an order back to an earlier stage (`canMove` is the one rule every writer goes through).
 */
export const ORDER_STATUSES = [
  /** Known from a webhook; waiting for the submit topic or the hold window. */
  'pending',
  /** The mapping could not produce a print order; waits for a fix and a resubmit. */
  'held',
  /** A create is (or may be) in flight. */
  'submitting',
  /** The print service acknowledged the order. */
  'submitted',
  /** The print service's Order Received. */
  'received',
  'print-ready',
  'partially-shipped',
  'shipped',
  /** Refused or failed at the printer (submission error, file error) or permanently here; fixable and resubmittable. */
  'error',
  'cancelled',
] as const;

export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Rank on the main line; error and cancelled are side exits handled in canMove. */
const RANK: Record<OrderStatus, number> = {
  pending: 0,
  held: 1,
  submitting: 2,
  submitted: 3,
  received: 4,
  'print-ready': 5,
  'partially-shipped': 6,
  shipped: 7,
  error: -1,
  cancelled: -1,
};

export function isSubmittedStatus(status: OrderStatus): boolean {
  return RANK[status] >= RANK.submitted;
}

/**
 * Whether an order may move from one status to another.
 * - Forward along the main line only.
 * - `error` can be reached from anything not yet shipped or cancelled; from `error` an order moves on when it is
 *   resubmitted (`submitting`) or when the printer reports progress after all.
 * - `cancelled` is final, and a shipped order can no longer be cancelled.
 */
export function canMove(from: OrderStatus, to: OrderStatus): boolean {
  if (from === to) return false;
  if (from === 'cancelled') return false;
  if (to === 'cancelled') return from !== 'shipped';
  if (to === 'error') return from !== 'shipped' && from !== 'partially-shipped';
  if (from === 'error') return RANK[to] >= RANK.submitting;
  return RANK[to] > RANK[from];
}

export function isOrderStatus(value: string): value is OrderStatus {
  return (ORDER_STATUSES as readonly string[]).includes(value);
}
