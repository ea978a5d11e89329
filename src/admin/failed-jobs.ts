import type { Queue } from 'bullmq';
import type { FailedJob, FailedJobsPort } from '../bridge/operator-actions.js';
import { retryFailedJob } from '../queue/queues.js';

/** How many failed jobs per queue are looked at; failed jobs are kept a month, the newest matter. */
const SCAN_LIMIT = 500;

export interface OrderFailedJob extends FailedJob {
  shop: string;
  orderId: string;
}

export interface AdminFailedJobs extends FailedJobsPort {
  /** Failed jobs about orders, newest first; with a shop, only that shop's. */
  list(shop?: string): Promise<OrderFailedJob[]>;
  forOrder(shop: string, orderId: string): Promise<OrderFailedJob[]>;
}

/**
 * A failure from before the order last changed status is history (a submit that failed while the order was held,
 * which has since been resubmitted): it is in the order's history, not a problem to act on.
 */
export function isCurrentFailure(job: Pick<OrderFailedJob, 'failedAt'>, link: { statusAt: string } | undefined): boolean {
  return !link || job.failedAt >= Date.parse(link.statusAt);
}

/** Which order a job is about when its data does not say (a print event names the print order, not the Shopify one). */
export type JobOrderResolver = (data: unknown) => Promise<{ shop: string; orderId: string } | undefined>;

/**
 * Failed jobs of the queues whose jobs name an order: `shop` and `orderId` in their data, or what `resolveOrder` finds
 * for the others (the events queue's jobs, whose order is found through the print order they name).
 */
export function queueFailedJobs(queues: readonly Queue[], resolveOrder?: JobOrderResolver): AdminFailedJobs {
  async function list(shop?: string): Promise<OrderFailedJob[]> {
    const found: OrderFailedJob[] = [];
    for (const queue of queues) {
      const jobs = await queue.getFailed(0, SCAN_LIMIT - 1);
      for (const job of jobs) {
        if (!job) continue;
        const data = job.data as { shop?: unknown; orderId?: unknown } | undefined;
        const order =
          typeof data?.shop === 'string' && typeof data.orderId === 'string'
            ? { shop: data.shop, orderId: data.orderId }
            : await resolveOrder?.(job.data);
        if (!order) continue;
        if (shop && order.shop !== shop) continue;
        found.push({
          queue: queue.name,
          id: job.id ?? '',
          name: job.name,
          shop: order.shop,
          orderId: order.orderId,
          failedReason: job.failedReason || 'no reason recorded',
          failedAt: job.finishedOn ?? job.timestamp,
          retry: async () => {
            await retryFailedJob(job);
          },
        });
      }
    }
    return found.sort((a, b) => b.failedAt - a.failedAt);
  }
  return {
    list,
    async forOrder(shop: string, orderId: string): Promise<OrderFailedJob[]> {
      return (await list(shop)).filter((j) => j.orderId === orderId);
    },
  };
}
