import { createHmac, randomUUID } from 'node:crypto';
import { SHOPIFY_SECRET } from './bench-support.js';

/** Headers of a webhook signed as Shopify signs it (base64 HMAC-SHA256 of the raw body). */
export function signedHeaders(body: string, topic: string, shop: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-shopify-topic': topic,
    'x-shopify-shop-domain': shop,
    'x-shopify-webhook-id': randomUUID(),
    'x-shopify-api-version': '2026-01',
    'x-shopify-hmac-sha256': createHmac('sha256', SHOPIFY_SECRET).update(body, 'utf8').digest('base64'),
  };
}
