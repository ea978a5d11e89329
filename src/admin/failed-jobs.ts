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

/** Failed jobs of the queues whose jobs name an order (`shop`, `orderId` in their data). */
export function queueFailedJobs(queues: readonly Queue[]): AdminFailedJobs {
  async function list(shop?: string): Promise<OrderFailedJob[]> {
    const found: OrderFailedJob[] = [];
    for (const queue of queues) {
      const jobs = await queue.getFailed(0, SCAN_LIMIT - 1);
      for (const job of jobs) {
        if (!job) continue;
        const data = job.data as { shop?: unknown; orderId?: unknown } | undefined;
        if (typeof data?.shop !== 'string' || typeof data.orderId !== 'string') continue;
        if (shop && data.shop !== shop) continue;
        found.push({
          queue: queue.name,
          id: job.id ?? '',
          name: job.name,
          shop: data.shop,
          orderId: data.orderId,
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
