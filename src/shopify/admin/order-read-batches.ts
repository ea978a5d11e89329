import { orderInShop, ordersInShop } from './order-reads.js';
import { orderShows, ordersShow } from './order-status.js';
import { ORDERS_BY_ID_MAX, type AdminRequests, type BatchAnswers } from './request.js';
import { TurnBatches, type Waiter } from './turn-batches.js';

interface OpenBatch<T> {
  /** The client of the batch's first read; the others of its shop are served by it. */
  api: AdminRequests;
  waiters: Map<string, Waiter<T | null>[]>;
}

/**
 * Only ids of this shape go in a batch: a malformed id makes Shopify refuse the whole query, so it is asked alone (as
 * is one with a leading zero, which the batch's match by id would not find while the one-order read would).
 */
const ORDER_GID = /^gid:\/\/shopify\/Order\/[1-9]\d*$/;

/**
 * One read of an order, asked for many orders at once (issue 27). In a flash sale dozens of one store's orders reach
 * the same read together: every order is confirmed in its store before it is printed (DESIGN section 9), and what it
 * shows of its status is read before the status is written. The reads asked for within the same turn of the event
 * loop go as one `nodes(ids:)` request of up to 50 (TurnBatches): a lone read is not delayed, and under load, when
 * many jobs reach the read in one turn, one request (its HTTP exchange, its parse, its pacing) serves them all. Points
 * are the same, an order a point. A read made together is made at the same moment as it would have been alone, so
 * nothing it answers is older.
 *
 * Keyed by shop: the process makes a client per call (ShopifyAdminClients.forShop), each with the store's stored
 * token, and the batch asks with its first read's client; a client for a token not stored yet is never given these
 * batches (ShopifyAdminClients.forToken). A failure (throttled past the pacer's retries, Shopify unavailable, the
 * token refused) reaches every read of the batch, as it would have reached each alone.
 */
export class OrderReadBatches<T> {
  private readonly batches = new TurnBatches<OpenBatch<T>>((batch) => this.flush(batch));

  constructor(
    private readonly read: {
      /** The read of one order (a batch of one keeps it: a point, and no list to pay for). */
      one: (api: AdminRequests, orderGid: string) => Promise<T | null>;
      /**
       * The read of several orders: an answer for each id given, null where the shop has no such order, and the ids
       * whose element Shopify answered with an error of its own (read again alone).
       */
      many: (api: AdminRequests, orderGids: readonly string[]) => Promise<BatchAnswers<T>>;
    },
    private readonly max = ORDERS_BY_ID_MAX,
  ) {}

  get(api: AdminRequests, orderGid: string): Promise<T | null> {
    if (!ORDER_GID.test(orderGid)) return this.read.one(api, orderGid);
    return new Promise<T | null>((resolve, reject) => {
      const batch = this.batches.current(api.shop, () => ({ api, waiters: new Map() }));
      const waiting = batch.waiters.get(orderGid);
      if (waiting) waiting.push({ resolve, reject });
      else batch.waiters.set(orderGid, [{ resolve, reject }]);
      if (batch.waiters.size >= this.max) this.batches.go(api.shop, batch);
    });
  }

  private async flush(batch: OpenBatch<T>): Promise<void> {
    const ids = [...batch.waiters.keys()];
    let read: BatchAnswers<T>;
    try {
      read = ids.length === 1 ? { answers: new Map([[ids[0]!, await this.read.one(batch.api, ids[0]!)]]), alone: [] } : await this.read.many(batch.api, ids);
    } catch (error) {
      for (const waiters of batch.waiters.values()) for (const w of waiters) w.reject(error);
      return;
    }
    // An order Shopify answered with an error of its own (say, one the app may not read) is read again alone, so its
    // error is its own and never the others'.
    const alone = new Set(read.alone);
    for (const [id, waiters] of batch.waiters) {
      const answer: Promise<T | null> = alone.has(id) ? this.read.one(batch.api, id) : Promise.resolve(read.answers.get(id) ?? null);
      answer.then(
        (value) => waiters.forEach((w) => w.resolve(value)),
        (error: unknown) => waiters.forEach((w) => w.reject(error)),
      );
    }
  }
}

/** The process's batched order reads, shared by every client it makes (ShopifyAdminApiOptions.orderReads). */
export function orderReadBatches() {
  return {
    inShop: new OrderReadBatches({ one: orderInShop, many: ordersInShop }),
    shows: new OrderReadBatches({ one: orderShows, many: ordersShow }),
  };
}

export type OrderReads = ReturnType<typeof orderReadBatches>;
