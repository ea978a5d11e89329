import type { Logger } from 'pino';
import type { FlowTriggersPort, OrderStore, Scheduler } from '../bridge/ports.js';
import { ShopifyUserError } from '../shopify/admin/errors.js';
import { isFlowTriggerHandle } from './definitions.js';
import { ANNOUNCED_EVENT, announcedDetail, announcedKeys, flowEventsOf } from './trigger-events.js';
import { payloadBytes, triggerPayload } from './trigger-payloads.js';

/**
 * Announcing an order's events to Shopify Flow. It happens where the order's status is shown in Shopify (the sync
 * job, which every change of an order's status or problems asks for): the link is compared with the events already
 * announced, which the order's history records, and each new one becomes a trigger job whose id is the event. So a
 * sync repeated, run late or run twice announces an event once, and a trigger job retried is still that one event.
 * Only the triggers the store uses are announced, and only events from after the store began to use them.
 */

export interface FlowAnnounceDeps {
  store: Pick<OrderStore, 'get' | 'history' | 'note'>;
  scheduler: Pick<Scheduler, 'flowTrigger'>;
  flowTriggers: Pick<FlowTriggersPort, 'enabledOf'>;
}

/** How much of an order's history is read for the events announced: far more than an order's events ever are. */
const HISTORY_READ = 500;

export async function announceFlowEvents(deps: FlowAnnounceDeps, shop: string, orderId: string): Promise<{ announced: string[] }> {
  const enabled = await deps.flowTriggers.enabledOf(shop);
  if (enabled.size === 0) return { announced: [] };
  const link = await deps.store.get(shop, orderId);
  if (!link) return { announced: [] };
  const history = await deps.store.history(shop, orderId, HISTORY_READ);
  const done = announcedKeys(history);
  const announced: string[] = [];
  for (const event of flowEventsOf(link, history)) {
    const since = enabled.get(event.handle);
    if (!since || Date.parse(event.at) < since.getTime() || done.has(announcedDetail(event))) continue;
    // The job first: should the history line not be written, the next sync queues the same job id, which is one job.
    await deps.scheduler.flowTrigger(shop, orderId, event.handle, event.key);
    await deps.store.note(shop, orderId, { event: ANNOUNCED_EVENT, source: 'worker', detail: announcedDetail(event) });
    announced.push(announcedDetail(event));
  }
  return { announced };
}

export type FlowTriggerOutcome =
  | { kind: 'sent'; handle: string; bytes: number }
  | { kind: 'not-in-use'; handle: string }
  | { kind: 'unknown-order' }
  | { kind: 'refused'; handle: string; message: string };

export interface FlowTriggerJobDeps {
  store: Pick<OrderStore, 'get'>;
  flowTriggers: Pick<FlowTriggersPort, 'enabledOf' | 'send'>;
  logger: Logger;
}

/** A trigger job: the payload is built from the order as it is now, and sent only if the store still uses the trigger. */
export async function sendFlowTrigger(deps: FlowTriggerJobDeps, job: { shop: string; orderId: string; handle: string; event: string }): Promise<FlowTriggerOutcome> {
  if (!isFlowTriggerHandle(job.handle)) return { kind: 'refused', handle: job.handle, message: 'not a trigger of this app' };
  if (!(await deps.flowTriggers.enabledOf(job.shop)).has(job.handle)) return { kind: 'not-in-use', handle: job.handle };
  const link = await deps.store.get(job.shop, job.orderId);
  if (!link) return { kind: 'unknown-order' };
  const payload = triggerPayload(job.handle, job.event, link);
  try {
    await deps.flowTriggers.send(job.shop, job.handle, payload);
  } catch (error) {
    // Shopify refused this payload: the same one would be refused again, so the job ends here, logged.
    if (!(error instanceof ShopifyUserError)) throw error;
    deps.logger.warn({ shop: job.shop, orderId: job.orderId, handle: job.handle, err: error }, 'Shopify refused a Flow trigger');
    return { kind: 'refused', handle: job.handle, message: error.message };
  }
  return { kind: 'sent', handle: job.handle, bytes: payloadBytes(payload) };
}
