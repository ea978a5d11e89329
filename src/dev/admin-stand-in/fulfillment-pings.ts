import { postSigned } from './signed-post.js';

/**
 * Shopify's callback to a fulfillment service: `POST <callbackUrl>/fulfillment_order_notification` with
 * `{"kind":"FULFILLMENT_REQUEST"}` or `{"kind":"CANCELLATION_REQUEST"}`, signed like a webhook
 * (`X-Shopify-Hmac-Sha256`: base64 HMAC-SHA256 of the raw body with the app's secret). The ping only says that
 * something waits: the service asks `assignedFulfillmentOrders` what. One ping may stand for several requests.
 */

export type PingKind = 'FULFILLMENT_REQUEST' | 'CANCELLATION_REQUEST';

export interface FulfillmentPing {
  at: string;
  shop: string;
  serviceId: string;
  /** The URL posted to; null when the service has no callback URL (nothing sent). */
  url: string | null;
  kind: PingKind;
  /** The fulfillment orders whose requests it stands for. */
  fulfillmentOrderIds: string[];
  /** HTTP status of the service's answer; 0 unreachable; null not sent (dropped, no callback URL or no app secret). */
  status: number | null;
  /** Why it was not sent. */
  notSent?: 'dropped' | 'no callback URL' | 'no app secret';
}

export class FulfillmentPings {
  private readonly sent: FulfillmentPing[] = [];
  private readonly inFlight = new Set<Promise<unknown>>();
  private dropCount = 0;

  /** `secret()`: the app's secret, read when a ping is sent (the OAuth app's, else the webhooks'). */
  constructor(private readonly secret: () => string | undefined) {}

  /** The next `n` pings are lost: logged with `notSent: 'dropped'`, never delivered. */
  dropNext(n: number): void {
    this.dropCount += Math.max(0, Math.floor(n));
  }

  pendingDrops(): number {
    return this.dropCount;
  }

  log(): FulfillmentPing[] {
    return this.sent.map((p) => ({ ...p, fulfillmentOrderIds: [...p.fulfillmentOrderIds] }));
  }

  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  clear(): void {
    this.sent.length = 0;
    this.dropCount = 0;
  }

  send(shop: string, serviceId: string, callbackUrl: string | null, kind: PingKind, fulfillmentOrderIds: string[]): void {
    const url = callbackUrl === null ? null : `${callbackUrl.replace(/\/+$/, '')}/fulfillment_order_notification`;
    const entry: FulfillmentPing = { at: new Date().toISOString(), shop, serviceId, url, kind, fulfillmentOrderIds, status: null };
    this.sent.push(entry);
    if (this.sent.length > 1000) this.sent.splice(0, this.sent.length - 1000);
    const secret = this.secret();
    if (url === null) entry.notSent = 'no callback URL';
    else if (this.dropCount > 0) {
      this.dropCount -= 1;
      entry.notSent = 'dropped';
    } else if (!secret) entry.notSent = 'no app secret';
    if (entry.notSent || url === null || !secret) return;
    const raw = JSON.stringify({ kind });
    postSigned(url, raw, secret, { 'x-shopify-shop-domain': shop }, entry, this.inFlight);
  }
}
