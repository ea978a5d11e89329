import type { Logger } from 'pino';
import type { PrintEvent } from '../print-service/postback.js';
import { printEventHash } from '../print-service/postback.js';
import { type OrderRecord, printStatusWord } from '../print-service/schema.js';
import type { PrintEventJob } from './jobs.js';
import type { OrderLink } from '../orders/model.js';
import type { OrderStore } from './ports.js';
import type { PrintAccountsPort } from '../shops/print-accounts.js';
import type { OrderStatus } from '../orders/status.js';

/**
 * Postbacks can be lost (a trigger switched off, a receiver down for longer than the service retries). Orders that
 * have been silent at the printer for a while are looked up by source id, and what the service's record says is fed
 * through the same path as a postback, so the usual rules apply: idempotent, and statuses only move forward.
 */

export const WATCHED_STATUSES: readonly OrderStatus[] = ['submitted', 'received', 'print-ready', 'partially-shipped'];
const PAGE = 500;

export interface ReconcileDeps {
  store: OrderStore;
  printAccounts: Pick<PrintAccountsPort, 'forOrder'>;
  enqueueEvent: (job: PrintEventJob) => Promise<void>;
  clock: () => Date;
  logger: Logger;
}

export interface ReconcileOutcome {
  checked: number;
  events: number;
  missing: string[];
}

export async function reconcileSilentOrders(
  deps: ReconcileDeps,
  options: { silentForMs: number; limit?: number; scanLimit?: number },
): Promise<ReconcileOutcome> {
  const now = deps.clock();
  const before = now.getTime() - options.silentForMs;
  const outcome: ReconcileOutcome = { checked: 0, events: 0, missing: [] };
  const limit = options.limit ?? 200;
  for (const status of WATCHED_STATUSES) {
    // Oldest first, paging past those checked recently: a shop with many orders quietly in production for days must
    // not keep the run on the same few hundred while a newer order's lost postback is never looked for.
    const links: OrderLink[] = [];
    for (let offset = 0; links.length < limit && offset < (options.scanLimit ?? 10_000); offset += PAGE) {
      const page = await deps.store.listQuietSince(status, before, PAGE, offset);
      links.push(...page.filter((l) => l.sourceOrderId && !(l.reconciledAt && Date.parse(l.reconciledAt) > before)).slice(0, limit - links.length));
      if (page.length < PAGE) break;
    }
    for (const link of links) {
      if (!link.sourceOrderId) continue;
      outcome.checked += 1;
      const record = await (await deps.printAccounts.forOrder(link.shop, link.printAccount)).findBySourceId(link.sourceOrderId);
      const events = record ? eventsFromRecord(record, link) : [];
      if (!record) outcome.missing.push(link.sourceOrderId);
      for (const event of events) {
        // Read from the order's own account: it may act on this store's orders only.
        await deps.enqueueEvent({ event, receivedAt: now.toISOString(), hash: printEventHash(event), repairs: [], shop: link.shop });
      }
      outcome.events += events.length;
      await deps.store.update(link.shop, link.orderId, (current) =>
        current
          ? {
              link: { ...current, reconciledAt: now.toISOString() },
              history: [
                {
                  event: 'checked with the print service',
                  source: 'worker',
                  detail: record
                    ? `silent since ${link.statusAt}; the print service says ${record.status ?? 'nothing'}${events.length ? `, applying ${events.map((e) => e.kind).join(', ')}` : ''}`
                    : `silent since ${link.statusAt}; the print service has no order ${link.sourceOrderId}`,
                },
              ],
            }
          : undefined,
      );
    }
  }
  if (outcome.checked) deps.logger.info({ ...outcome, missing: outcome.missing.length }, 'silent orders checked with the print service');
  return outcome;
}

/** What a print-service order record implies, as the events its triggers would have posted. */
export function eventsFromRecord(record: OrderRecord, link: Pick<OrderLink, 'sourceOrderId'>): PrintEvent[] {
  const base = { sourceOrderId: link.sourceOrderId, printOrderId: record._id, errors: [] as string[], timestamp: stringField(record, 'updatedAt') };
  const rawErrors = (record as Record<string, unknown>).errors;
  const errors = Array.isArray(rawErrors) ? rawErrors.map(String) : [];
  const status = printStatusWord(record.status);
  const events: PrintEvent[] = [];
  if (status === 'received') events.push({ ...base, kind: 'received' });
  if (status === 'printready' || status === 'shipped') events.push({ ...base, kind: 'print-ready' });
  if (status === 'cancelled') events.push({ ...base, kind: 'cancelled' });
  if (status === 'errored') events.push({ ...base, kind: 'errored', errors });
  if (status === 'submissionerror') events.push({ ...base, kind: 'submission-error', errors });
  const shipments = (record.orderData.shipments ?? []) as { shipmentIndex?: unknown; status?: unknown; trackingNumber?: unknown; carrier?: unknown }[];
  shipments.forEach((shipment, position) => {
    if (String(shipment.status ?? '').toLowerCase() !== 'shipped') return;
    const carrier = shipment.carrier && typeof shipment.carrier === 'object' ? (shipment.carrier as { code?: unknown; service?: unknown; alias?: unknown }) : undefined;
    events.push({
      ...base,
      kind: 'shipped',
      shipmentIndex: typeof shipment.shipmentIndex === 'number' ? shipment.shipmentIndex : position,
      trackingNumber: typeof shipment.trackingNumber === 'string' && shipment.trackingNumber ? shipment.trackingNumber : undefined,
      carrier: carrier
        ? {
            code: typeof carrier.code === 'string' ? carrier.code : undefined,
            service: typeof carrier.service === 'string' ? carrier.service : undefined,
            alias: typeof carrier.alias === 'string' ? carrier.alias : undefined,
          }
        : undefined,
    });
  });
  return events;
}

function stringField(record: OrderRecord, key: string): string | undefined {
  const value = (record as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : undefined;
}

/** What the reconciliation sees of the order queue: the submit jobs that exist for an order, by state. */
export interface OrderJobView {
  state: 'waiting' | 'active' | 'delayed' | 'prioritized' | 'failed';
  /** Moves a failed job back to waiting, with its attempts reset. */
  retry(): Promise<void>;
}

export interface StuckSubmissionDeps {
  store: OrderStore;
  /** Every submit job not yet completed, by `shop|orderId`; read once per run. */
  submitJobs: () => Promise<Map<string, OrderJobView[]>>;
  /** A fresh submit job (a new generation, so a failed job with the old id does not swallow it). */
  submit: (shop: string, orderId: string) => Promise<void>;
  clock: () => Date;
  logger: Logger;
}

export interface StuckSubmissionOutcome {
  stuck: number;
  retried: number;
  rescheduled: number;
}

/**
 * Orders that should have reached the printer long ago but have no job that will take them there: their submit job
 * failed for good in a way that left no verdict on the order (a worker killed too often while holding it, a day of
 * retries exhausted). An order with a job still waiting, running or backing off is left to it; otherwise its failed
 * job is retried, or a new one is scheduled. Submission is idempotent and reconciles with the print service first, so
 * this can never create a second print order.
 */
export async function resumeStuckSubmissions(deps: StuckSubmissionDeps, options: { stuckForMs: number; limit?: number }): Promise<StuckSubmissionOutcome> {
  const now = deps.clock().getTime();
  const before = now - options.stuckForMs;
  const candidates = [
    ...(await deps.store.listQuietSince('submitting', before, options.limit ?? 500)),
    ...(await deps.store.listQuietSince('pending', before, options.limit ?? 500)).filter(
      // Pending orders wait for their submit topic or their hold window; only those whose window is over count.
      (link) => link.submitAfter !== undefined && Date.parse(link.submitAfter) < before,
    ),
  ];
  const outcome: StuckSubmissionOutcome = { stuck: 0, retried: 0, rescheduled: 0 };
  if (candidates.length === 0) return outcome;
  const jobs = await deps.submitJobs();
  for (const link of candidates) {
    const own = jobs.get(`${link.shop}|${link.orderId}`) ?? [];
    if (own.some((job) => job.state !== 'failed')) continue;
    outcome.stuck += 1;
    const failed = own.find((job) => job.state === 'failed');
    if (failed) {
      await failed.retry();
      outcome.retried += 1;
    } else {
      await deps.submit(link.shop, link.orderId);
      outcome.rescheduled += 1;
    }
    await deps.store.note(link.shop, link.orderId, {
      event: 'submission resumed',
      source: 'worker',
      detail: `${link.status} since ${link.statusAt} with no job left to finish it; ${failed ? 'its failed job was retried' : 'a new submit job was scheduled'}`,
    });
    deps.logger.warn({ shop: link.shop, orderId: link.orderId, status: link.status, retried: Boolean(failed) }, 'stuck submission resumed');
  }
  return outcome;
}
