import { createSecretKey, type KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { toGid } from '../shopify/gid.js';
import { isShopDomain } from '../shopify/webhook-agreement.js';
import { bodySignatureMatches } from '../shopify/webhook-hmac.js';
import { FLOW_TRIGGERS, isFlowTriggerHandle, type FlowTriggerHandle } from './definitions.js';

/**
 * What Shopify Flow posts to the app: an action's run (to a `runtime_url`) and a trigger's lifecycle callback. Both are
 * signed like webhooks, `X-Shopify-Hmac-Sha256` being the HMAC-SHA256 of the raw body with the app's secret; nothing
 * of a body is read before its signature is checked, and the store a request acts on is the one its signed body names.
 */

export type FlowSignature = (rawBody: Buffer, headers: IncomingHttpHeaders) => boolean;

export function flowSignatureCheck(secret: string): FlowSignature {
  const key: KeyObject = createSecretKey(Buffer.from(secret, 'utf8'));
  return (rawBody, headers) => {
    const given = headers['x-shopify-hmac-sha256'];
    return rawBody.length > 0 && bodySignatureMatches(key, rawBody, Array.isArray(given) ? given[0] : given);
  };
}

const shopDomain = z.string().refine(isShopDomain, 'must be a store’s myshopify.com domain');

/** Flow writes an order reference as the order's gid; a bare number (older payloads) is read as the same order. */
const orderReference = z.union([z.string(), z.number().int().nonnegative()]).transform((value, ctx) => {
  const id = toGid('Order', String(value));
  if (!id) {
    ctx.addIssue({ code: 'custom', message: 'must be an order gid (gid://shopify/Order/<id>)' });
    return z.NEVER;
  }
  return id;
});

/** The body of an action's run, as Flow's action endpoint documentation gives it. */
export const flowActionRequestSchema = z.object({
  shop_id: z.union([z.string(), z.number()]).optional(),
  shopify_domain: shopDomain,
  /** The same on every delivery of one run (Flow resends on 202, timeouts and 5xx). */
  action_run_id: z.string().min(1).max(200),
  action_definition_id: z.string().optional(),
  handle: z.string().optional(),
  properties: z.looseObject({ order_id: orderReference }),
});
export type FlowActionRequest = z.infer<typeof flowActionRequestSchema>;

/** The body of a trigger's lifecycle callback: whether the store has an enabled workflow that starts with it. */
export const flowLifecycleSchema = z.object({
  flow_trigger_definition_id: z.string().min(1),
  has_enabled_flow: z.boolean(),
  shop_id: z.union([z.string(), z.number()]).optional(),
  shopify_domain: shopDomain,
  /** When Flow made the callback; a newer one takes precedence over an older one that arrives later. */
  timestamp: z.iso.datetime({ offset: true }),
});
export type FlowLifecycleCallback = z.infer<typeof flowLifecycleSchema>;

const TITLES: Record<string, FlowTriggerHandle> = {
  'Print order sent': FLOW_TRIGGERS.sent,
  'Print status changed': FLOW_TRIGGERS.statusChanged,
  'Print order needs attention': FLOW_TRIGGERS.needsAttention,
};

/**
 * The trigger a callback is about. Flow names it by the extension's handle; callbacks of triggers made in the Partner
 * Dashboard named them by title, which is read too.
 */
export function triggerOfCallback(definitionId: string): FlowTriggerHandle | undefined {
  if (isFlowTriggerHandle(definitionId)) return definitionId;
  return TITLES[definitionId];
}

/** Parses a JSON body with `schema`; the reason is zod's first issue, safe to show (it quotes no value). */
export function parseFlowBody<T>(schema: z.ZodType<T>, rawBody: Buffer): { ok: true; value: T } | { ok: false; reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return { ok: false, reason: 'the body is not JSON' };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, reason: `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'not understood'}` };
}
