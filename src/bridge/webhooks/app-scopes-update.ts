import type { WebhookJob } from '../jobs.js';
import type { BridgeDeps } from '../ports.js';
import type { WebhookOutcome } from './outcome.js';

/**
 * The merchant changed what the app may do (optional scopes granted or revoked): the stored session records the
 * scopes Shopify now grants, so the next embedded visit exchanges a token again when the app needs more.
 *
 * The scopes are read from Shopify with the store's own token, not taken from the body: the body names no store, so
 * one store's signed body re-sent with another store's domain rewrote that store's session (security review).
 */
export async function scopesUpdated(deps: BridgeDeps, job: WebhookJob): Promise<WebhookOutcome> {
  const granted = await deps.shopify.grantedScopes(job.shop);
  if (granted === null) {
    deps.logger.warn({ shop: job.shop }, 'app/scopes_update for a store whose token Shopify refuses; nothing recorded');
    return { kind: 'rejected', reason: `app/scopes_update for ${job.shop}, but the app has no working token there to read its scopes with` };
  }
  const updated = (await deps.sessions.updateScopes?.(job.shop, granted)) ?? false;
  deps.logger.info({ shop: job.shop, scopes: granted, updated }, 'app/scopes_update: the store grants these scopes');
  return { kind: 'recorded', orderId: job.shop, detail: `scopes now ${granted.join(',') || 'none'}${updated ? '' : ' (no session to update)'}` };
}
