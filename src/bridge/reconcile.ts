import type { Logger } from 'pino';
import type { PrintEvent } from '../print-service/postback.js';
import { printEventHash } from '../print-service/postback.js';
import type { OrderRecord } from '../print-service/schema.js';
import type { PrintEventJob } from '../queue/queues.js';
import type { OrderLink, OrderStore } from './order-store.js';
import type { PrintServicePort } from './ports.js';
import type { OrderStatus } from './status.js';

/**
 * Postbacks can be lost (a trigger switched off, a receiver down for longer than the service retries). Orders that
 * have been silent at the printer for a while are looked up by source id, and what the service's record says is fed
 * through the same path as a postback, so the usual rules apply: idempotent, and statuses only move forward.
 */

export const WATCHED_STATUSES: readonly OrderStatus[] = ['submitted', 'received', 'print-ready', 'partially-shipped'];

export interface ReconcileDeps {
  store: OrderStore;
  printService: Pick<PrintServicePort, 'findBySourceId'>;
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
  options: { silentForMs: number; limit?: number },
): Promise<ReconcileOutcome> {
  const now = deps.clock();
  const before = now.getTime() - options.silentForMs;
  const outcome: ReconcileOutcome = { checked: 0, events: 0, missing: [] };
  for (const status of WATCHED_STATUSES) {
    const links = await deps.store.listQuietSince(status, before, options.limit ?? 200);
    for (const link of links) {
      if (!link.sourceOrderId) continue;
      if (link.reconciledAt && Date.parse(link.reconciledAt) > before) continue;
      outcome.checked += 1;
      const record = await deps.printService.findBySourceId(link.sourceOrderId);
      const events = record ? eventsFromRecord(record, link) : [];
      if (!record) outcome.missing.push(link.sourceOrderId);
      for (const event of events) {
        await deps.enqueueEvent({ event, receivedAt: now.toISOString(), hash: printEventHash(event), repairs: [] });
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
  const status = (record.status ?? '').toLowerCase().replace(/[\s_-]/g, '');
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
