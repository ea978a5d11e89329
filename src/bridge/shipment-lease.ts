import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { OrderBusyError } from './errors.js';
import type { OrderLink } from '../orders/model.js';
import type { ApplyPrintEventDeps } from './apply-print-event.js';

/**
 * Runs `work` holding the order's lease. Renewed while Shopify is slow (a throttled bucket can hold a call for many
 * seconds), so the lease can be short and a dead worker's lease stops blocking the order soon.
 */
export async function withShipmentLease<T>(deps: ApplyPrintEventDeps, link: OrderLink, log: Logger, work: (leaseHeld: () => void) => Promise<T>): Promise<T> {
  const leaseMs = deps.leaseMs ?? 10_000;
  const lease = await acquireLease(deps, link, leaseMs);
  let lost = false;
  const renewal = setInterval(() => {
    const markLost = () => {
      if (!lost) log.warn({ leaseMs }, 'order lease lost while applying a shipment (event loop or Redis stalled); stopping before the next Shopify write');
      lost = true;
    };
    deps.store.renewLease(link.shop, link.orderId, lease, leaseMs).then((held) => held || markLost(), markLost);
  }, Math.max(100, Math.floor(leaseMs / 3)));
  // Another job may hold the order once the lease is gone: no Shopify write after that; the job retries.
  const leaseHeld = () => {
    if (lost) throw new OrderBusyError(`order ${link.orderId}: lease lost while applying a shipment`, leaseMs / 5);
  };
  try {
    return await work(leaseHeld);
  } finally {
    clearInterval(renewal);
    await deps.store.releaseLease(link.shop, link.orderId, lease);
  }
}

/**
 * Shipments of one order usually ship together, so their jobs meet here; waiting a moment is cheaper than a failed
 * job and a queue round trip. A lease held longer (a slow Shopify) sends the job back to the queue to retry.
 */
async function acquireLease(deps: ApplyPrintEventDeps, link: OrderLink, leaseMs: number): Promise<string> {
  const deadline = Date.now() + 2_000;
  for (;;) {
    const lease = await deps.store.tryLease(link.shop, link.orderId, leaseMs);
    if (lease) return lease;
    // Short retries outlast a dead worker's lease (leaseMs) before the job falls back to its exponential backoff.
    if (Date.now() > deadline) throw new OrderBusyError(`order ${link.orderId} is being updated by another job`, Math.max(1_000, leaseMs / 5));
    await sleep(5 + Math.random() * 20);
  }
}
