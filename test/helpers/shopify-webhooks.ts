import { createHmac, randomUUID } from 'node:crypto';

/** Signs a webhook exactly as Shopify does: base64 HMAC-SHA256 of the raw body with the app's secret. */
export function signedWebhookHeaders(
  secret: string,
  body: string,
  options: { topic: string; shop?: string; webhookId?: string; apiVersion?: string; eventId?: string },
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-shopify-topic': options.topic,
    'x-shopify-shop-domain': options.shop ?? 'acme.myshopify.com',
    'x-shopify-webhook-id': options.webhookId ?? randomUUID(),
    // Shopify sends the event's id with every delivery of it (retries included).
    'x-shopify-event-id': options.eventId ?? randomUUID(),
    'x-shopify-api-version': options.apiVersion ?? '2026-01',
    'x-shopify-triggered-at': new Date().toISOString(),
    'x-shopify-hmac-sha256': createHmac('sha256', secret).update(body, 'utf8').digest('base64'),
  };
}
