import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isShopDomain } from './webhook-agreement.js';

/**
 * Shopify's ping of a fulfillment service's callback (`<callbackUrl>/fulfillment_order_notification`): a body of
 * `{"kind":"FULFILLMENT_REQUEST"}` or `{"kind":"CANCELLATION_REQUEST"}`, the store in `X-Shopify-Shop-Domain` and the
 * HMAC-SHA256 of the raw body with the app's secret in `X-Shopify-Hmac-Sha256`. It names no order: the app reads the
 * pending requests itself. Nothing is trusted before the HMAC is checked (constant time).
 */
export type FulfillmentCallbackKind = 'FULFILLMENT_REQUEST' | 'CANCELLATION_REQUEST';

export type FulfillmentCallbackVerification =
  | { valid: true; shop: string; kind: FulfillmentCallbackKind }
  | { valid: false; status: 400 | 401; reason: string };

const KINDS: ReadonlySet<string> = new Set(['FULFILLMENT_REQUEST', 'CANCELLATION_REQUEST']);

export function fulfillmentCallbackVerifier(secret: string): (rawBody: string, headers: IncomingHttpHeaders) => FulfillmentCallbackVerification {
  const key: KeyObject = createSecretKey(Buffer.from(secret, 'utf8'));
  return (rawBody, headers) => {
    const given = first(headers['x-shopify-hmac-sha256']);
    if (!given || !rawBody.length) return { valid: false, status: 401, reason: 'missing HMAC or body' };
    const expected = createHmac('sha256', key).update(rawBody, 'utf8').digest();
    const received = Buffer.from(given, 'base64');
    if (received.length !== expected.length || !timingSafeEqual(received, expected)) return { valid: false, status: 401, reason: 'invalid HMAC' };
    const shop = first(headers['x-shopify-shop-domain'])?.trim().toLowerCase();
    if (!shop || !isShopDomain(shop)) return { valid: false, status: 400, reason: 'X-Shopify-Shop-Domain is missing or not a shop domain' };
    let kind: unknown;
    try {
      kind = (JSON.parse(rawBody) as { kind?: unknown } | null)?.kind;
    } catch {
      return { valid: false, status: 400, reason: 'the body is not JSON' };
    }
    if (typeof kind !== 'string' || !KINDS.has(kind)) return { valid: false, status: 400, reason: 'kind must be FULFILLMENT_REQUEST or CANCELLATION_REQUEST' };
    return { valid: true, shop, kind: kind as FulfillmentCallbackKind };
  };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export interface FulfillmentCallbackDeps {
  verify: (rawBody: string, headers: IncomingHttpHeaders) => FulfillmentCallbackVerification;
  /** Whether the store is installed and in fulfillment-service mode (shops/fulfillment-mode.ts acceptsFulfillmentPings). */
  acceptsPings: (shop: string) => Promise<boolean>;
  /** Queues the read of the store's requests (one running and one pending per store: queue/scheduler.ts). */
  enqueue: (shop: string, kind: FulfillmentCallbackKind) => Promise<void>;
}

export type FulfillmentCallbackOutcome =
  | { status: 200; outcome: 'queued' | 'ignored'; shop: string }
  | { status: 400 | 401; outcome: 'refused'; reason: string }
  | { status: 503; outcome: 'not-queued'; shop: string; error: unknown };

/**
 * A ping, checked and queued. The signed body is the same for every store and every time, so a valid HMAC says only
 * that Shopify once sent that body: a ping naming a store that is not installed or not in service mode is answered 200
 * (Shopify would only ping again) and dropped before anything is queued or kept, and a store's own pings are read at
 * most once per FULFILLMENT_READ_INTERVAL_MS (queue/read-interval.ts).
 */
export async function receiveFulfillmentCallback(deps: FulfillmentCallbackDeps, rawBody: string, headers: IncomingHttpHeaders): Promise<FulfillmentCallbackOutcome> {
  const verified = deps.verify(rawBody, headers);
  if (!verified.valid) return { status: verified.status, outcome: 'refused', reason: verified.reason };
  try {
    if (!(await deps.acceptsPings(verified.shop))) return { status: 200, outcome: 'ignored', shop: verified.shop };
    await deps.enqueue(verified.shop, verified.kind);
  } catch (error) {
    return { status: 503, outcome: 'not-queued', shop: verified.shop, error };
  }
  return { status: 200, outcome: 'queued', shop: verified.shop };
}
