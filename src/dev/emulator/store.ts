import type { ShippingUpdate } from '../../print-service/schema.js';
import type { EmulatorAccount } from './accounts.js';

/**
 * The emulator's memory: every order by `_id`, each account's orders in creation order (lists read them backwards,
 * newest first) and each account's orders by `sourceOrderId`. Nothing here knows about HTTP or processing.
 */

export type OrderStatus =
  | 'submitted'
  | 'received'
  | 'printready'
  | 'shipped'
  | 'errored'
  | 'cancelled'
  | 'submissionerror';

export const ORDER_STATUSES: readonly OrderStatus[] = [
  'submitted',
  'received',
  'printready',
  'shipped',
  'errored',
  'cancelled',
  'submissionerror',
];

/** The record as get, list and cancel return it (docs/print-service-api.md, "order record"). */
export interface OrderRecord {
  _id: string;
  status: OrderStatus;
  sourceAccountId: string;
  sourceAccountName: string;
  createdAt: string;
  updatedAt: string;
  url: string;
  errors: string[];
  destination: Record<string, unknown>;
  orderData: Record<string, unknown> & { shipments?: unknown };
}

export interface ShipmentRecord extends Record<string, unknown> {
  shipmentIndex: number;
  status: 'pending' | 'shipped';
  trackingNumber?: string;
  carrier?: { alias?: string; code?: string; service?: string };
  shippedAt?: string;
}

export interface StoredOrder {
  readonly record: OrderRecord;
  /** Creation order across the whole emulator; decides which of two same-sourceOrderId orders came first. */
  readonly seq: number;
  readonly account: EmulatorAccount;
  readonly sourceOrderId: string | undefined;
  /** The body exactly as received, served at `url`. */
  readonly original: string;
  /** The next automatic processing step, if one is scheduled. */
  timer?: NodeJS.Timeout;
  /** The processing step in progress (file fetching is asynchronous). */
  busy?: Promise<void>;
  /**
   * Shipping updates made before the submission checks, by shipment index: the checks rebuild the shipments from
   * the schema (which knows no carrier code or tracking number), so they are applied again afterwards.
   */
  amendments?: Map<number, ShippingUpdate[]>;
}

export class EmulatorStore {
  private readonly orders = new Map<string, StoredOrder>();
  private readonly byAccount = new Map<string, StoredOrder[]>();
  private readonly bySource = new Map<string, Map<string, StoredOrder[]>>();
  private seq = 0;

  add(input: Omit<StoredOrder, 'seq'>): StoredOrder {
    const order: StoredOrder = { ...input, seq: ++this.seq };
    this.orders.set(order.record._id, order);
    const accountId = order.account.accountId;
    let list = this.byAccount.get(accountId);
    if (!list) this.byAccount.set(accountId, (list = []));
    list.push(order);
    if (order.sourceOrderId !== undefined) {
      let index = this.bySource.get(accountId);
      if (!index) this.bySource.set(accountId, (index = new Map()));
      const same = index.get(order.sourceOrderId);
      if (same) same.push(order);
      else index.set(order.sourceOrderId, [order]);
    }
    return order;
  }

  get(id: string): StoredOrder | undefined {
    return this.orders.get(id.toLowerCase());
  }

  get size(): number {
    return this.orders.size;
  }

  /** One page of an account's orders, newest first, and the account's total. */
  list(accountId: string, page: number, pagesize: number): { data: StoredOrder[]; count: number } {
    const all = this.byAccount.get(accountId) ?? [];
    const data: StoredOrder[] = [];
    const start = all.length - 1 - (page - 1) * pagesize;
    for (let i = start; i >= 0 && data.length < pagesize; i--) data.push(all[i] as StoredOrder);
    return { data, count: all.length };
  }

  /** Every order of every account, newest first (for the test hooks). */
  all(): StoredOrder[] {
    return [...this.orders.values()].sort((a, b) => b.seq - a.seq);
  }

  /** Every order of the account with that sourceOrderId, oldest first. */
  withSourceOrderId(accountId: string, sourceOrderId: string): readonly StoredOrder[] {
    return this.bySource.get(accountId)?.get(sourceOrderId) ?? [];
  }

  /**
   * The order get-by-source-id answers: the first one that did not end in a submission error (a later duplicate is
   * only a submission-error record), or, when every one did, the latest of those so the caller can see why.
   */
  findBySourceOrderId(accountId: string, sourceOrderId: string): StoredOrder | undefined {
    const same = this.withSourceOrderId(accountId, sourceOrderId);
    return same.find((o) => o.record.status !== 'submissionerror') ?? same[same.length - 1];
  }

  clear(): StoredOrder[] {
    const removed = [...this.orders.values()];
    this.orders.clear();
    this.byAccount.clear();
    this.bySource.clear();
    return removed;
  }
}
