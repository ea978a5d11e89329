import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Shopify } from '@shopify/shopify-api';
import type { WebhookVerification } from '../../src/shopify/webhook-intake.js';

/**
 * Webhook HMAC verification through the Shopify library: the reference the app's own verifier
 * (src/shopify/webhook-hmac.ts) is held to, case for case, and the verifier of tests that want the library's.
 */
export function libraryWebhookVerifier(shopify: Shopify) {
  return async (received: Buffer | string, headers: IncomingHttpHeaders): Promise<WebhookVerification> => {
    const rawBody = typeof received === 'string' ? received : received.toString('utf8');
    // The node adapter only reads headers, method and url from the request, and canonicalises every header it is
    // given (a measurable cost per webhook): give it just the Shopify headers it checks.
    const shopifyHeaders: IncomingHttpHeaders = {};
    for (const [name, value] of Object.entries(headers)) if (name.startsWith('x-shopify-')) shopifyHeaders[name] = value;
    const rawRequest = { headers: shopifyHeaders, method: 'POST', url: '/webhooks' } as unknown as IncomingMessage;
    const result = await shopify.webhooks.validate({ rawBody, rawRequest, rawResponse: {} as ServerResponse });
    if (!result.valid) {
      return {
        valid: false,
        reason: result.reason as Extract<WebhookVerification, { valid: false }>['reason'],
        missingHeaders: 'missingHeaders' in result ? (result.missingHeaders as string[]) : undefined,
      };
    }
    const topicHeader = headers['x-shopify-topic'];
    const topic = (Array.isArray(topicHeader) ? topicHeader[0] : topicHeader) ?? result.topic;
    return { valid: true, topic, shop: result.domain, webhookId: result.webhookId, apiVersion: result.apiVersion };
  };
}
