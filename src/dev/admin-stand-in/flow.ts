import { createHmac, randomUUID } from 'node:crypto';
import { FLOW_TRIGGER_HANDLES, FLOW_PAYLOAD_LIMIT_BYTES, flowActionPath, FLOW_LIFECYCLE_PATH, type FlowActionName } from '../../flow/definitions.js';
import type { UserError } from './records.js';
import { normalizeShop } from './store.js';

/**
 * Shopify Flow, as far as print-bridge meets it: `flowTriggerReceive` (each call recorded per shop for tests to read,
 * refused as Shopify refuses a payload over its size limit or a handle the app has no trigger for), and Flow's
 * requests to the app, signed as Flow signs them (the HMAC-SHA256 of the body with the app's secret): a trigger's
 * lifecycle callback and an action's run.
 */

export interface FlowTriggerCall {
  at: string;
  shop: string;
  handle: string;
  payload: unknown;
  /** The bytes of the payload's JSON, as Shopify measures it against its limit. */
  payloadBytes: number;
  userErrors: UserError[];
}

export interface FlowLifecycleInput {
  /** The app's origin (`http://127.0.0.1:PORT`). */
  appUrl: string;
  shop: string;
  handle: string;
  enabled: boolean;
  /** Flow's time of the callback; now by default. */
  timestamp?: string;
}

export interface FlowActionInput {
  appUrl: string;
  shop: string;
  action: FlowActionName;
  orderId: string;
  /** The run's id; a new one by default (the same one again: Flow resending a run). */
  actionRunId?: string;
  /** The raw body instead of the one built from the fields above (a test of altered bodies). */
  rawBody?: string;
  /** The secret to sign with instead of the app's; null: no signature header. */
  secret?: string | null;
}

export interface FlowAnswer {
  status: number;
  body: unknown;
  /** The body sent, as signed. */
  sent: string;
}

export class StandInFlow {
  private readonly calls: FlowTriggerCall[] = [];

  constructor(
    private readonly appSecret: () => string | undefined,
    private readonly handles: ReadonlySet<string> = new Set(FLOW_TRIGGER_HANDLES),
  ) {}

  /** `flowTriggerReceive(handle, payload)`; Shopify's `body` argument (deprecated) is not answered here. */
  receive(shop: string, args: { handle?: string | null; payload?: unknown; body?: string | null }): { userErrors: UserError[] } {
    const handle = args.handle ?? '';
    const json = JSON.stringify(args.payload ?? null);
    const payloadBytes = Buffer.byteLength(json, 'utf8');
    const userErrors: UserError[] = [];
    if (args.body != null) userErrors.push({ field: ['body'], message: 'the stand-in answers only the handle and payload arguments' });
    else if (!args.handle || args.payload == null) userErrors.push({ field: ['handle'], message: '`handle` and `payload` arguments are required' });
    else if (payloadBytes > FLOW_PAYLOAD_LIMIT_BYTES) {
      userErrors.push({ field: ['body'], message: `Errors validating schema:\n  Properties size exceeds the limit of ${FLOW_PAYLOAD_LIMIT_BYTES} bytes.\n` });
    } else if (!this.handles.has(handle)) userErrors.push({ field: ['body'], message: `Errors validating schema:\n  Invalid handle '${handle}'.\n` });
    this.calls.push({ at: new Date().toISOString(), shop: normalizeShop(shop), handle, payload: structuredClone(args.payload ?? null), payloadBytes, userErrors });
    if (this.calls.length > 1000) this.calls.shift();
    return { userErrors };
  }

  /** The calls of a shop (every shop's without one), oldest first, refused ones included. */
  triggerCalls(shop?: string): FlowTriggerCall[] {
    const domain = shop === undefined ? undefined : normalizeShop(shop);
    return structuredClone(this.calls.filter((c) => domain === undefined || c.shop === domain));
  }

  clear(): void {
    this.calls.length = 0;
  }

  sendLifecycle(input: FlowLifecycleInput): Promise<FlowAnswer> {
    const body = JSON.stringify({
      flow_trigger_definition_id: input.handle,
      has_enabled_flow: input.enabled,
      shop_id: 1,
      shopify_domain: normalizeShop(input.shop),
      timestamp: input.timestamp ?? new Date().toISOString(),
    });
    return this.post(`${input.appUrl}${FLOW_LIFECYCLE_PATH}`, body, undefined);
  }

  sendAction(input: FlowActionInput): Promise<FlowAnswer> {
    const body =
      input.rawBody ??
      JSON.stringify({
        shop_id: '1',
        shopify_domain: normalizeShop(input.shop),
        action_run_id: input.actionRunId ?? randomUUID(),
        action_definition_id: input.action,
        handle: input.action,
        properties: { order_id: input.orderId },
      });
    return this.post(`${input.appUrl}${flowActionPath(input.action)}`, body, input.secret);
  }

  private async post(url: string, body: string, secret: string | null | undefined): Promise<FlowAnswer> {
    const key = secret === undefined ? this.appSecret() : secret;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (key !== null) {
      if (key === undefined) throw new Error('the stand-in knows no app secret to sign Flow requests with (configureApp, or webhooks with a secret)');
      headers['x-shopify-hmac-sha256'] = createHmac('sha256', key).update(body, 'utf8').digest('base64');
    }
    const res = await fetch(url, { method: 'POST', body, headers, signal: AbortSignal.timeout(10_000) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Kept as text.
    }
    return { status: res.status, body: parsed, sent: body };
  }
}
