import type { Logger } from 'pino';
import { flowLifecycleSchema, parseFlowBody, triggerOfCallback } from './flow-requests.js';
import type { FlowTriggerRepository } from './trigger-repository.js';

export type LifecycleOutcome =
  | { status: 200; outcome: 'recorded' | 'older' | 'unknown-trigger'; shop: string; handle?: string }
  | { status: 400; outcome: 'unreadable'; reason: string };

/**
 * A trigger's lifecycle callback (its signature already checked): records whether the store uses the trigger. Flow
 * lets a merchant enable a workflow only once the app answered 2xx, so a callback about a trigger this app does not
 * have is acknowledged (and logged) rather than refused.
 */
export async function receiveLifecycleCallback(deps: { triggers: FlowTriggerRepository; logger: Logger }, rawBody: Buffer): Promise<LifecycleOutcome> {
  const parsed = parseFlowBody(flowLifecycleSchema, rawBody);
  if (!parsed.ok) return { status: 400, outcome: 'unreadable', reason: parsed.reason };
  const callback = parsed.value;
  const handle = triggerOfCallback(callback.flow_trigger_definition_id);
  if (!handle) {
    deps.logger.warn({ shop: callback.shopify_domain, trigger: callback.flow_trigger_definition_id.slice(0, 60) }, 'Flow lifecycle callback for a trigger this app does not have; acknowledged');
    return { status: 200, outcome: 'unknown-trigger', shop: callback.shopify_domain };
  }
  const changed = await deps.triggers.record({ shop: callback.shopify_domain, handle, enabled: callback.has_enabled_flow, changedAt: new Date(callback.timestamp) });
  deps.logger.info({ shop: callback.shopify_domain, handle, enabled: callback.has_enabled_flow, changed }, changed ? 'Flow trigger use recorded' : 'Flow lifecycle callback older than the one recorded; nothing changed');
  return { status: 200, outcome: changed ? 'recorded' : 'older', shop: callback.shopify_domain, handle };
}
