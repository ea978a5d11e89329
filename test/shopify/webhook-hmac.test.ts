import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createShopifyApi } from '../../src/shopify/shopify-api.js';
import { hmacWebhookVerifier } from '../../src/shopify/webhook-hmac.js';
import { libraryWebhookVerifier } from '../helpers/library-webhook-verifier.js';

/**
 * The app's own webhook verifier (issue 17: the library's costs a fifth of the web process under load) answers as
 * `@shopify/shopify-api`'s `webhooks.validate` does, case for case: a valid delivery, a wrong or malformed HMAC, a
 * missing HMAC, a missing body, missing headers (the same names), an HMAC of another body or with another secret.
 */
const SECRET = 'shpss_agreement_secret';
const shopify = createShopifyApi({ apiKey: 'key', apiSecret: SECRET, appUrl: 'https://app.example.com', scopes: ['read_orders'], apiVersion: '2026-01' });
const library = libraryWebhookVerifier(shopify);
const ours = hmacWebhookVerifier(SECRET);

const BODY = JSON.stringify({ id: 5500000001, name: '#1001', note: 'Zoë — ünïcode ✓' });
const sign = (body: string, secret = SECRET) => createHmac('sha256', secret).update(body, 'utf8').digest('base64');
const headers = (overrides: Record<string, string | undefined> = {}): IncomingHttpHeaders => {
  const all: Record<string, string | undefined> = {
    'x-shopify-hmac-sha256': sign(BODY),
    'x-shopify-topic': 'orders/paid',
    'x-shopify-shop-domain': 'acme.myshopify.com',
    'x-shopify-api-version': '2026-07',
    'x-shopify-webhook-id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
    'x-shopify-event-id': '98880550-7158-44d4-b7cd-2c97c8a091b5',
    'content-type': 'application/json',
    ...overrides,
  };
  return Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined)) as IncomingHttpHeaders;
};

const cases: [string, string, IncomingHttpHeaders][] = [
  ['a valid delivery', BODY, headers()],
  ['an HMAC of another body', BODY, headers({ 'x-shopify-hmac-sha256': sign(`${BODY} `) })],
  ['an HMAC with another secret', BODY, headers({ 'x-shopify-hmac-sha256': sign(BODY, 'another') })],
  ['a truncated HMAC', BODY, headers({ 'x-shopify-hmac-sha256': sign(BODY).slice(0, 20) })],
  ['an HMAC that is not base64', BODY, headers({ 'x-shopify-hmac-sha256': '%%%not-base64%%%' })],
  ['no HMAC', BODY, headers({ 'x-shopify-hmac-sha256': undefined })],
  ['no body', '', headers({ 'x-shopify-hmac-sha256': sign('') })],
  ['no topic, shop or webhook id', BODY, headers({ 'x-shopify-topic': undefined, 'x-shopify-shop-domain': undefined, 'x-shopify-webhook-id': undefined })],
  ['no API version', BODY, headers({ 'x-shopify-api-version': undefined })],
];

describe('the webhook verifier', () => {
  it.each(cases)('answers %s as the Shopify library does', async (_name, body, given) => {
    const [expected, actual] = await Promise.all([library(body, given), ours(body, given)]);
    expect(actual).toEqual(expected);
  });
});

describe('the webhook verifier on the bytes as received', () => {
  it('answers the bytes as it answers their text, and checks the bytes themselves (what Shopify signs)', async () => {
    const bytes = Buffer.from(BODY, 'utf8');
    for (const [, body, given] of cases) {
      expect(await ours(Buffer.from(body, 'utf8'), given)).toEqual(await ours(body, given));
    }
    // A byte that is not UTF-8: its text would not be what was signed; the bytes are.
    const odd = Buffer.concat([bytes.subarray(0, bytes.length - 2), Buffer.from([0xff]), bytes.subarray(bytes.length - 2)]);
    const signed = createHmac('sha256', SECRET).update(odd).digest('base64');
    expect(await ours(odd, headers({ 'x-shopify-hmac-sha256': signed }))).toMatchObject({ valid: true });
    expect(await ours(odd.toString('utf8'), headers({ 'x-shopify-hmac-sha256': signed }))).toMatchObject({ valid: false, reason: 'invalid_hmac' });
  });
});
