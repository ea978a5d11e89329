import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHOP, SHOPIFY_SECRET, startHarness, type Harness } from '../helpers/harness.js';
import { signedWebhookHeaders } from '../helpers/shopify-webhooks.js';

/**
 * Issue 13 item 8: shopify.app.toml sends every webhook where the app takes it. The Shopify CLI resolves a
 * subscription's relative `uri` against `application_url` (appended to its path); an absolute `uri` stays as it is.
 */

interface AppToml {
  application_url: string;
  auth?: { redirect_urls?: string[] };
  webhooks: { api_version: string; subscriptions: { topics?: string[]; compliance_topics?: string[]; uri: string }[] };
}

const toml = parse(readFileSync(fileURLToPath(new URL('../../shopify.app.toml', import.meta.url)), 'utf8')) as unknown as AppToml;

/** The address the Shopify CLI registers for a subscription. */
function subscriptionUrl(applicationUrl: string, uri: string): URL {
  if (/^[a-z][a-z0-9+.-]*:/i.test(uri)) return new URL(uri);
  const base = applicationUrl.replace(/\/+$/, '');
  return new URL(`${base}${uri.startsWith('/') ? '' : '/'}${uri}`);
}

/** A body for each topic, as Shopify sends it (the part the app checks). */
function sampleBody(topic: string): unknown {
  if (topic.startsWith('orders/')) return { id: 820982911946154508n.toString(), admin_graphql_api_id: 'gid://shopify/Order/820982911946154508', name: '#9999', line_items: [] };
  if (topic === 'app/uninstalled') return { id: 1, name: 'Shop', domain: SHOP, myshopify_domain: SHOP };
  if (topic.startsWith('fulfillment_orders/')) return { fulfillment_order: { id: 'gid://shopify/FulfillmentOrder/1', status: 'open' } };
  if (topic === 'customers/data_request') return { shop_id: 1, shop_domain: SHOP, orders_requested: [], customer: { id: 1 }, data_request: { id: 1 } };
  if (topic === 'customers/redact') return { shop_id: 1, shop_domain: SHOP, customer: { id: 1 }, orders_to_redact: [] };
  return { shop_id: 1, shop_domain: SHOP };
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('shopify.app.toml', () => {
  it('has the site root as application_url, and the OAuth callback under it', () => {
    expect(new URL(toml.application_url).pathname).toBe('/');
    for (const redirect of toml.auth?.redirect_urls ?? []) expect(new URL(redirect).origin).toBe(new URL(toml.application_url).origin);
  });

  const subscriptions = toml.webhooks.subscriptions.flatMap((s) => [...(s.topics ?? []), ...(s.compliance_topics ?? [])].map((topic) => ({ topic, uri: s.uri })));

  it.each(subscriptions)('delivers $topic where the app takes it', async ({ topic, uri }) => {
    const target = subscriptionUrl(toml.application_url, uri);
    const raw = JSON.stringify(sampleBody(topic));
    const res = await fetch(`${h.runtime.url}${target.pathname}${target.search}`, {
      method: 'POST',
      body: raw,
      headers: signedWebhookHeaders(SHOPIFY_SECRET, raw, { topic, shop: SHOP, apiVersion: toml.webhooks.api_version }),
    });
    expect(res.status, `${topic} → ${target.pathname}`).toBe(200);
    expect(((await res.json()) as { outcome: string }).outcome).toBe('queued');
  });

  it('answers the root (the app URL Shopify opens) by sending the request on to the admin pages, query kept', async () => {
    const res = await fetch(`${h.runtime.url}/?shop=${SHOP}&host=abc`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`/admin?shop=${SHOP}&host=abc`);
  });
});
