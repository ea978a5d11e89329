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
  webhooks: { api_version: string; subscriptions: { topics?: string[]; compliance_topics?: string[]; uri: string; filter?: string }[] };
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
  if (topic === 'refunds/create') return { id: 890088186047892319n.toString(), order_id: 820982911946154508n.toString(), refund_line_items: [{ line_item_id: 866550311766439020n.toString(), quantity: 1 }] };
  if (topic === 'app/scopes_update') return { id: 1, previous: ['read_orders'], current: ['read_orders', 'write_orders'], updated_at: '2026-11-24T00:00:00Z' };
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

  it('subscribes orders/updated with a filter (no edits of fulfilled orders) and asks for the scopes the app uses', async () => {
    const updated = toml.webhooks.subscriptions.filter((s) => s.topics?.includes('orders/updated'));
    expect(updated).toEqual([expect.objectContaining({ topics: ['orders/updated'], filter: '-fulfillment_status:fulfilled' })]);
    const { DEFAULT_SHOPIFY_SCOPES } = await import('../../src/config.js');
    const { readFileSync } = await import('node:fs');
    const { parse } = await import('smol-toml');
    const scopes = (parse(readFileSync(new URL('../../shopify.app.toml', import.meta.url), 'utf8')) as { access_scopes: { scopes: string } }).access_scopes.scopes;
    expect(scopes.split(',').sort()).toEqual(DEFAULT_SHOPIFY_SCOPES.split(',').sort());
    expect(scopes).toContain('write_assigned_fulfillment_orders');
  });

  it('subscribes on the Admin API version the app calls and the stand-in holds Shopify’s schema of', async () => {
    const { DEFAULT_SHOPIFY_API_VERSION } = await import('../../src/config.js');
    const { ADMIN_SCHEMA_VERSION, schemaFile } = await import('../../src/dev/admin-stand-in/admin-schema.js');
    const { existsSync } = await import('node:fs');
    expect(DEFAULT_SHOPIFY_API_VERSION).toBe('2026-10');
    expect(toml.webhooks.api_version).toBe(DEFAULT_SHOPIFY_API_VERSION);
    expect(ADMIN_SCHEMA_VERSION).toBe(DEFAULT_SHOPIFY_API_VERSION);
    expect(existsSync(schemaFile(DEFAULT_SHOPIFY_API_VERSION))).toBe(true);
  });
});

describe('shopify.web.toml', () => {
  it('lets `shopify app dev` start the app, and its variable names configure it', async () => {
    const { readFileSync } = await import('node:fs');
    const { parse } = await import('smol-toml');
    const web = parse(readFileSync(new URL('../../shopify.web.toml', import.meta.url), 'utf8')) as { roles: string[]; commands: { dev: string } };
    expect(web.roles).toEqual(expect.arrayContaining(['frontend', 'backend']));
    const scripts = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(web.commands.dev).toBe('npm run dev');
    expect(scripts.dev).toBe('node bin/print-bridge.js start --dev');
    const { loadConfig } = await import('../../src/config.js');
    const config = loadConfig({ dotenvPath: false, env: { SHOPIFY_APP_URL: 'https://tunnel.example.com', FRONTEND_PORT: '4567', SCOPES: 'read_orders,write_orders' } });
    expect(config).toMatchObject({ APP_URL: 'https://tunnel.example.com', PORT: 4567, SHOPIFY_SCOPES: ['read_orders', 'write_orders'] });
    // Our own names win where both are set.
    expect(loadConfig({ dotenvPath: false, env: { APP_URL: 'https://app.example.com', HOST: 'https://old.example.com' } }).APP_URL).toBe('https://app.example.com');
  });
});

describe('the print status metafield', () => {
  it('is declared in shopify.app.toml in the app-owned namespace, with the type the app writes', async () => {
    const { readFileSync } = await import('node:fs');
    const { parse } = await import('smol-toml');
    const { STATUS_METAFIELD } = await import('../../src/shopify/admin-api.js');
    const app = parse(readFileSync(new URL('../../shopify.app.toml', import.meta.url), 'utf8')) as {
      order: { metafields: { app: Record<string, { type: string; name: string; access: { admin: string } }> } };
    };
    expect(STATUS_METAFIELD.namespace).toBe('$app');
    const definition = app.order.metafields.app[STATUS_METAFIELD.key];
    expect(definition).toMatchObject({ type: STATUS_METAFIELD.type, name: 'Print status', access: { admin: 'merchant_read' } });
  });
});
