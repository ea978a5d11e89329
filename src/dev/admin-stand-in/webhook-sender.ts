import { randomUUID } from 'node:crypto';
import { DEFAULT_SHOPIFY_API_VERSION } from '../../config.js';
import type { FulfillmentOrderTopic, FulfillmentOrderWebhook } from './holds.js';
import { postSigned } from './signed-post.js';

/** The delivery of the stand-in's fulfillment-order webhooks (holds.ts, moves.ts) to the app, signed as Shopify signs them. */

export interface WebhookTarget {
  /** Where Shopify would deliver: the app's `/webhooks`. */
  url: string;
  /** The app's client secret (SHOPIFY_API_SECRET): bodies are signed with it as Shopify does. */
  secret: string;
  apiVersion?: string;
}

export interface SentWebhook {
  at: string;
  topic: FulfillmentOrderTopic;
  shop: string;
  webhookId: string;
  body: Record<string, unknown>;
  /** HTTP status of the app's answer, 0 when it could not be reached, null when sending is off. */
  status: number | null;
}

/**
 * Delivers the fulfillment-order webhooks to the app, signed with its secret, as Shopify would. Sending can be turned
 * off (`paused`) to play a webhook Shopify failed to deliver; what would have been sent is still logged.
 */
export class StandInWebhooks {
  private target: WebhookTarget | undefined;
  private paused = false;
  private readonly sent: SentWebhook[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(target?: WebhookTarget) {
    this.target = target;
  }

  configure(target: WebhookTarget | undefined, options: { paused?: boolean } = {}): void {
    this.target = target;
    if (options.paused !== undefined) this.paused = options.paused;
  }

  pause(paused: boolean): void {
    this.paused = paused;
  }

  /** The secret webhooks are signed with (the app's), when a target is configured. */
  secret(): string | undefined {
    return this.target?.secret;
  }

  log(): SentWebhook[] {
    return this.sent.map((s) => ({ ...s }));
  }

  /** Resolves once every delivery started so far has had its answer. */
  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  send(webhook: FulfillmentOrderWebhook): void {
    const entry: SentWebhook = { at: new Date().toISOString(), topic: webhook.topic, shop: webhook.shop, webhookId: randomUUID(), body: webhook.body, status: null };
    this.sent.push(entry);
    if (this.sent.length > 1000) this.sent.splice(0, this.sent.length - 1000);
    const target = this.target;
    if (!target || this.paused) return;
    const raw = JSON.stringify(webhook.body);
    postSigned(
      target.url,
      raw,
      target.secret,
      {
        'x-shopify-topic': webhook.topic,
        'x-shopify-shop-domain': webhook.shop,
        'x-shopify-webhook-id': entry.webhookId,
        'x-shopify-event-id': randomUUID(),
        'x-shopify-api-version': target.apiVersion ?? DEFAULT_SHOPIFY_API_VERSION,
        'x-shopify-triggered-at': entry.at,
      },
      entry,
      this.inFlight,
    );
  }
}
