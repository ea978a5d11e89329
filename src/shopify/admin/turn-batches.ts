/**
 * One shop's calls gathered within one turn of the event loop and sent together once the turn's I/O callbacks have run
 * (`setImmediate`): no timer, so a lone call goes at once, and under load the calls that many jobs make in one turn go
 * as one request (issue 27). The mechanism the order reads (order-read-batches.ts) and the status writes
 * (status-write-batches.ts) share; what a batch holds and how it goes is theirs.
 */
/** A caller waiting for its part of a batch (an order's read or status write). */
export interface Waiter<T = void> {
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

export class TurnBatches<B> {
  private readonly open = new Map<string, B>();

  constructor(private readonly send: (batch: B) => Promise<void>) {}

  /** The shop's batch of this turn; one is made (`make`) and scheduled to go when the shop has none open. */
  current(shop: string, make: () => B): B {
    const open = this.open.get(shop);
    if (open) return open;
    const made = make();
    this.open.set(shop, made);
    setImmediate(() => this.go(shop, made));
    return made;
  }

  /** Sends the shop's batch now (it is full); its turn's scheduled send then finds it gone and does nothing. */
  go(shop: string, batch: B): void {
    if (this.open.get(shop) !== batch) return;
    this.open.delete(shop);
    void this.send(batch);
  }
}
