import { createHmac } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseFulfillmentMode } from '../../src/shops/fulfillment-mode.js';
import { type Harness, SHOP, SHOPIFY_SECRET, startHarness, waitFor } from '../helpers/harness.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';

/**
 * Shopify's fulfillment-service ping is the same signed body for every store and every time, so one captured ping
 * signs pings for any store (finding of the fulfillment-service attack run: about 5,700 pings in 8 s caused 490 reads
 * of one store's Admin API, and 300 invented store names added 300 jobs and keys). Here the least interval between two
 * reads of a store is long, so what a burst causes is counted without depending on how fast this machine is.
 */
let h: Harness;
const MERCHANT_SHOP = 'merchant-managed-shop.myshopify.com';
const NOT_INSTALLED = 'service-not-installed.myshopify.com';
const BODY = '{"kind":"FULFILLMENT_REQUEST"}';
const SIGNATURE = createHmac('sha256', SHOPIFY_SECRET).update(BODY).digest('base64');

beforeAll(async () => {
  h = await startHarness({ env: { FULFILLMENT_READ_INTERVAL_MS: '600000' } });
  // Service mode without the first read it queues: the burst below is the store's first read.
  await chooseFulfillmentMode({ ...h.runtime.fulfillmentMode, appUrl: h.runtime.url!, takeRequests: async () => undefined }, SHOP, 'service');
  h.standIn.registerShop(MERCHANT_SHOP, 'shpat_merchant');
  await h.runtime.sessions.addCustomAppToken(MERCHANT_SHOP, 'shpat_merchant', h.config.SHOPIFY_SCOPES);
  // In service mode by its settings, but with no session: uninstalled, or never installed.
  await h.runtime.fulfillmentMode.services.setService(NOT_INSTALLED, { id: 'gid://shopify/FulfillmentService/1', locationId: 'gid://shopify/Location/1', callbackUrl: 'https://x.example/fulfillment_service', createdAt: new Date().toISOString() });
});
afterAll(() => h?.close());

function ping(shop: string): Promise<Response> {
  return fetch(`${h.runtime.url}/fulfillment_service/fulfillment_order_notification`, {
    method: 'POST',
    body: BODY,
    headers: { 'content-type': 'application/json', 'x-shopify-shop-domain': shop, 'x-shopify-hmac-sha256': SIGNATURE },
  });
}

/** Sends every ping, `wave` at a time, and returns their statuses. */
async function burst(shops: string[], wave = 25): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < shops.length; i += wave) {
    statuses.push(...(await Promise.all(shops.slice(i, i + wave).map(async (shop) => (await ping(shop)).status))));
  }
  return statuses;
}

const reads = () => h.standIn.requests().filter((r) => r.shop === SHOP && r.document?.includes('PrintBridgeAssignedFulfillmentOrders')).length;

async function readJobs(shop: string) {
  const jobs = await h.runtime.queues.shopify.getJobs(['active', 'waiting', 'delayed', 'prioritized', 'completed', 'failed']);
  const ofShop = jobs.filter((j) => j.data.kind === 'fulfillment-requests' && j.data.shop === shop);
  const states = await Promise.all(ofShop.map((j) => j.getState()));
  return { all: ofShop.length, active: states.filter((s) => s === 'active').length, pending: states.filter((s) => s === 'waiting' || s === 'delayed' || s === 'prioritized').length, completed: states.filter((s) => s === 'completed').length };
}

describe('fulfillment-service callback flood (attack run: fulfillment-service mode)', () => {
  it('a burst of one store\'s pings is at most two reads in the burst window, with one read pending after it', { timeout: 60_000 }, async () => {
    const before = reads();
    const statuses = await burst(Array.from({ length: 300 }, () => SHOP));
    expect(statuses.every((s) => s === 200)).toBe(true);
    // The burst's first read done and nothing running: what is left is the pending read, at the store's next turn.
    const settled = await waitFor(async () => {
      const jobs = await readJobs(SHOP);
      return jobs.completed >= 1 && jobs.active === 0 && jobs;
    }, { what: 'the first read done' });
    expect(reads() - before).toBeGreaterThanOrEqual(1);
    expect(reads() - before).toBeLessThanOrEqual(2);
    expect(settled.pending).toBeLessThanOrEqual(1);
  });

  it('pings naming stores not installed or not in service mode are answered 200 and create no job and no Redis key', async () => {
    const invented = Array.from({ length: 30 }, (_, i) => `invented-${i}-store.myshopify.com`);
    const names = [...invented, MERCHANT_SHOP, NOT_INSTALLED];
    const statuses = await burst(names);
    expect(statuses.every((s) => s === 200)).toBe(true);

    for (const shop of names) expect((await readJobs(shop)).all, shop).toBe(0);
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const keys: string[] = [];
      for await (const batch of redis.scanStream({ match: `${h.prefix}*`, count: 500 }) as AsyncIterable<string[]>) keys.push(...batch);
      expect(keys.filter((k) => names.some((shop) => k.includes(shop)))).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});
