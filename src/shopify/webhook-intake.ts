import { setTimeout as sleep } from 'node:timers/promises';
import type { IncomingHttpHeaders } from 'node:http';
import type { WebhookJob } from '../queue/queues.js';
import { checkWebhookAgreement, isShopDomain } from './webhook-agreement.js';

/** The topics the app subscribes to (shopify.app.toml) and acts on. */
export const HANDLED_TOPICS = [
  'orders/create',
  'orders/paid',
  'orders/updated',
  'orders/cancelled',
  // A refund of printed items after submission is shown on the order with what the merchant can do (issue 25).
  'refunds/create',
  'app/uninstalled',
  // The merchant granted or revoked optional scopes: the stored session records them (a new exchange follows if needed).
  'app/scopes_update',
  'customers/data_request',
  'customers/redact',
  'shop/redact',
  // Holds and scheduled fulfillment orders: a shipment Shopify held is fulfilled with its tracking once released.
  'fulfillment_orders/placed_on_hold',
  'fulfillment_orders/hold_released',
  'fulfillment_orders/scheduled_fulfillment_order_ready',
  // A fulfillment order moved to another location: followed in fulfillment-service mode.
  'fulfillment_orders/moved',
] as const;
export type HandledTopic = (typeof HANDLED_TOPICS)[number];

export function isHandledTopic(topic: string): topic is HandledTopic {
  return (HANDLED_TOPICS as readonly string[]).includes(topic);
}

export type WebhookVerification =
  | { valid: true; topic: string; shop: string; webhookId: string; apiVersion?: string }
  | { valid: false; reason: 'invalid_hmac' | 'missing_hmac' | 'missing_body' | 'missing_headers'; missingHeaders?: string[] };

/** A delivery's hold on its webhook's seen-keys (OrderStore.claimWebhook). */
export interface WebhookClaim {
  /** The job is queued: the keys count as seen for the retention window (8 days). */
  confirm: () => Promise<unknown>;
  /** The job could not be queued: the keys are free again, so Shopify's retry is taken in. */
  release: () => Promise<unknown>;
}

export interface WebhookIntakeDeps {
  /** `rawBody` as received: the bytes (the HMAC is over them) or their text. */
  verify: (rawBody: Buffer | string, headers: IncomingHttpHeaders) => Promise<WebhookVerification>;
  /**
   * Claims all the keys at once, atomically (one Redis round trip): of any number of concurrent deliveries exactly one
   * gets the claim; `pending` for the others while it is queueing, undefined once it is seen (the retention window).
   * The store may keep the body with a winning claim in the same round trip (the app's does); `enqueue` must then not
   * keep it again.
   */
  claim: (keys: string[], body: { shop: string; webhookId: string; body: Buffer | string }) => Promise<WebhookClaim | 'pending' | undefined>;
  /** Resolves once the job is in Redis. */
  enqueue: (job: WebhookJob) => Promise<unknown>;
  clock?: () => Date;
}

export type IntakeResult =
  | { status: 200; outcome: 'queued' | 'duplicate' | 'ignored'; topic?: string; webhookId?: string }
  | { status: 400; outcome: 'bad-body' | 'bad-headers'; message: string }
  | { status: 401; outcome: 'unauthorized'; message: string }
  | { status: 503; outcome: 'unavailable'; message: string };

/**
 * `POST /webhooks`: verify, claim (deduplicate), enqueue, answer. The 2xx goes out only after the job is durably in Redis;
 * when Redis cannot take it the answer is 503 so Shopify delivers again. Nothing slow happens here: no Admin API
 * call, no print-service call.
 */
export async function acceptWebhook(deps: WebhookIntakeDeps, received: Buffer | string, headers: IncomingHttpHeaders): Promise<IntakeResult> {
  // The bytes go to the HMAC and to Redis as they came (issue 27: encoding a 13 KB text back into bytes for the socket
  // was a tenth of intake); the text is made once, for the JSON reading and the job.
  const verification = await deps.verify(received, headers);
  if (!verification.valid) {
    if (verification.reason === 'missing_headers') {
      return { status: 400, outcome: 'bad-headers', message: `missing headers: ${verification.missingHeaders?.join(', ')}` };
    }
    if (verification.reason === 'missing_body') return { status: 400, outcome: 'bad-body', message: 'empty body' };
    return { status: 401, outcome: 'unauthorized', message: 'HMAC signature missing or wrong' };
  }
  let rawBody: string;
  try {
    // Shopify sends UTF-8; anything else would be kept as text other than what was signed.
    rawBody = typeof received === 'string' ? received : UTF8.decode(received);
  } catch {
    return { status: 400, outcome: 'bad-body', message: 'the body is not UTF-8' };
  }
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return { status: 400, outcome: 'bad-body', message: 'the body is not JSON' };
  }
  const topic = verification.topic.toLowerCase();
  // The HMAC covers the body, not the topic and shop headers: they must agree with it before anything happens.
  if (!isShopDomain(verification.shop)) {
    return { status: 401, outcome: 'unauthorized', message: 'the shop header is not a *.myshopify.com domain' };
  }
  if (!isHandledTopic(topic)) return { status: 200, outcome: 'ignored', topic, webhookId: verification.webhookId };
  const agreement = checkWebhookAgreement(topic, verification.shop, body);
  if (!agreement.ok) return { status: 401, outcome: 'unauthorized', message: `the body does not agree with the headers: ${agreement.reason}` };

  // Shopify's recommendation: an event delivered again (a retry, or a second delivery with a new webhook id) keeps its
  // X-Shopify-Event-Id. Scoped by topic, so two topics one change fires are never taken for each other.
  const eventId = headerValue(headers, 'x-shopify-event-id');
  const seenKeys = [verification.webhookId, ...(eventId && /^[\w-]{1,100}$/.test(eventId) ? [`event:${topic}:${eventId}`] : [])];
  // One atomic claim instead of a look and a later mark: 20 parallel deliveries of one webhook used to all find it
  // unseen and several were queued (issue 22). The claim costs the round trip the look did.
  let claim: WebhookClaim | 'pending' | undefined;
  try {
    // A delivery that meets another still being queued waits for its outcome: a 200 now would be a lost webhook if
    // that other enqueue failed (it answers 503 and gives the claim up, but Shopify took this 200 for delivered).
    const kept = { shop: verification.shop, webhookId: verification.webhookId, body: received };
    for (let waited = 0; (claim = await deps.claim(seenKeys, kept)) === 'pending' && waited < PENDING_WAIT_MS; waited += PENDING_POLL_MS) {
      await sleep(PENDING_POLL_MS);
    }
  } catch (error) {
    return { status: 503, outcome: 'unavailable', message: `could not queue the webhook: ${(error as Error).message}` };
  }
  if (claim === 'pending') return { status: 503, outcome: 'unavailable', message: 'another delivery of this webhook is being queued; deliver it again' };
  if (!claim) return { status: 200, outcome: 'duplicate', topic, webhookId: verification.webhookId };
  try {
    await deps.enqueue({
      topic,
      shop: verification.shop,
      webhookId: verification.webhookId,
      apiVersion: verification.apiVersion,
      receivedAt: (deps.clock?.() ?? new Date()).toISOString(),
      body: rawBody,
    });
  } catch (error) {
    // Given up before answering 503, so Shopify's retry of this delivery is taken in rather than called a duplicate.
    // A release that fails as well (Redis gone) runs out with the claim's short pending lifetime.
    try {
      await claim.release();
    } catch {
      // nothing more to do: the 503 goes out either way
    }
    return { status: 503, outcome: 'unavailable', message: `could not queue the webhook: ${(error as Error).message}` };
  }
  // The answer does not wait for the confirmation: the job is what makes the webhook durable, and a confirmation that
  // fails only lets the claim run out, after which a later duplicate meets the queue's own job id (wh|<webhook id>).
  const confirmed = claim;
  void Promise.resolve()
    .then(() => confirmed.confirm())
    .catch(() => undefined);
  return { status: 200, outcome: 'queued', topic, webhookId: verification.webhookId };
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** How long a delivery waits for another delivery of the same webhook to be queued, and how often it looks. */
const PENDING_WAIT_MS = 2_000;
const PENDING_POLL_MS = 20;

/** The header names Shopify uses, read case-insensitively. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
