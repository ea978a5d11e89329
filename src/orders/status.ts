/**
 * Where an order stands between Shopify and the printer. Statuses move forward only: a late or repeated webhook or
 * postback can never take an order back to an earlier stage (`canMove` is the one rule every writer goes through).
 */
export const ORDER_STATUSES = [
  /** Known from a webhook; waiting for the submit topic or the hold window. */
  'pending',
  /**
   * Kept back by something outside the order that ends by itself: the store is not connected (no Admin API access),
   * or no mapping serves the store. The reason is among the order's problems; it goes out once that changes.
   */
  'waiting',
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
  /** Final: nothing of the order is for the printer (gift cards only, already fulfilled in Shopify, all lines ignored). */
  'not-printed',
] as const;

export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Rank on the main line; error, cancelled and not-printed are side exits handled in canMove. */
const RANK: Record<OrderStatus, number> = {
  pending: 0,
  // Same rank as pending: both are waits before anything is mapped for the printer, and an order moves between them
  // as its outside condition comes and goes (a mapping appears while the order still waits for its payment).
  waiting: 0,
  held: 1,
  submitting: 2,
  submitted: 3,
  received: 4,
  'print-ready': 5,
  'partially-shipped': 6,
  shipped: 7,
  error: -1,
  cancelled: -1,
  'not-printed': -1,
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
 * - `pending` and `waiting` move into each other (same rank); nothing else moves back to either.
 * - `not-printed` is reached only before anything was sent (or from `error`, on a resubmit that finds nothing to
 *   print); from it an order is only cancelled or resubmitted (`submitting`).
 */
export function canMove(from: OrderStatus, to: OrderStatus): boolean {
  if (from === to) return false;
  if (from === 'cancelled') return false;
  if (to === 'cancelled') return from !== 'shipped';
  if (to === 'not-printed') return from === 'error' || (RANK[from] >= 0 && RANK[from] < RANK.submitting);
  if (from === 'not-printed') return to === 'submitting';
  if (RANK[from] === 0 && RANK[to] === 0) return true;
  if (to === 'error') return from !== 'shipped' && from !== 'partially-shipped';
  if (from === 'error') return RANK[to] >= RANK.submitting;
  return RANK[to] > RANK[from];
}

export function isOrderStatus(value: string): value is OrderStatus {
  return (ORDER_STATUSES as readonly string[]).includes(value);
}
