import { orderInShop, ordersInShop, ORDERS_IN_SHOP_MAX } from './order-reads.js';
import type { AdminRequests } from './request.js';

type InShop = { createdAt: string } | null;

interface Waiter {
  resolve: (value: InShop) => void;
  reject: (error: unknown) => void;
}

interface OpenBatch {
  /** The client of the batch's first check; the others of its shop are served by it. */
  api: AdminRequests;
  waiters: Map<string, Waiter[]>;
}

/** Only ids of this shape go in a batch: a malformed id makes Shopify refuse the whole query, so it is asked alone. */
const ORDER_GID = /^gid:\/\/shopify\/Order\/\d+$/;

/**
 * Whether a shop has an order, asked for many orders at once (issue 27): every order is confirmed in its store before
 * it is printed (DESIGN section 9), and in a flash sale dozens of one store's orders reach that check together. The
 * checks asked for on one client within the same turn of the event loop go as one `nodes(ids:)` request of up to 50,
 * sent once the turn's I/O callbacks have run (`setImmediate`): no timer, so a lone check is not delayed, and under
 * load, when many jobs reach the check in one turn, one request (its HTTP exchange, its parse, its pacing) serves
 * them all. Points are the same, an order a point; the process spends one request's work instead of one an order.
 *
 * Keyed by shop: the process makes a client per call (ShopifyAdminClients.forShop), each with the store's stored
 * token, and the batch asks with its first check's client; a client for a token not stored yet is never given these
 * batches (ShopifyAdminClients.forToken). A failure (throttled past the pacer's retries, Shopify unavailable, the token refused) reaches
 * every check of the batch, as it would have reached each alone.
 */
export class OrderInShopBatches {
  private readonly open = new Map<string, OpenBatch>();

  constructor(private readonly max = ORDERS_IN_SHOP_MAX) {}

  check(api: AdminRequests, orderGid: string): Promise<InShop> {
    if (!ORDER_GID.test(orderGid)) return orderInShop(api, orderGid);
    return new Promise<InShop>((resolve, reject) => {
      let batch = this.open.get(api.shop);
      if (!batch) {
        const created: OpenBatch = { api, waiters: new Map() };
        this.open.set(api.shop, created);
        setImmediate(() => void this.flush(created));
        batch = created;
      }
      const waiting = batch.waiters.get(orderGid);
      if (waiting) waiting.push({ resolve, reject });
      else batch.waiters.set(orderGid, [{ resolve, reject }]);
      if (batch.waiters.size >= this.max) void this.flush(batch);
    });
  }

  private async flush(batch: OpenBatch): Promise<void> {
    // A batch that filled up went at once; its turn's flush finds it already gone.
    if (this.open.get(batch.api.shop) !== batch) return;
    this.open.delete(batch.api.shop);
    const ids = [...batch.waiters.keys()];
    try {
      // A lone check keeps the one-order query (a point, and no list to pay for).
      const answers = ids.length === 1 ? new Map([[ids[0]!, await orderInShop(batch.api, ids[0]!)]]) : await ordersInShop(batch.api, ids);
      for (const [id, waiters] of batch.waiters) for (const w of waiters) w.resolve(answers.get(id) ?? null);
    } catch (error) {
      for (const waiters of batch.waiters.values()) for (const w of waiters) w.reject(error);
    }
  }
}
