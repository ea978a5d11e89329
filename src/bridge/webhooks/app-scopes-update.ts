import type { WebhookJob } from '../jobs.js';
import type { BridgeDeps } from '../ports.js';
import type { WebhookOutcome } from './outcome.js';

/**
 * The merchant changed what the app may do (optional scopes granted or revoked): the stored session records the
 * scopes Shopify now grants, so the next embedded visit exchanges a token again when the app needs more.
 */
export async function scopesUpdated(deps: BridgeDeps, job: WebhookJob): Promise<WebhookOutcome> {
  const body = JSON.parse(job.body) as { current?: unknown };
  const current = Array.isArray(body.current) ? body.current.filter((s): s is string => typeof s === 'string') : [];
  const updated = (await deps.sessions.updateScopes?.(job.shop, current)) ?? false;
  deps.logger.info({ shop: job.shop, scopes: current, updated }, 'app/scopes_update: the store granted these scopes');
  return { kind: 'recorded', orderId: job.shop, detail: `scopes now ${current.join(',') || 'none'}${updated ? '' : ' (no session to update)'}` };
}
