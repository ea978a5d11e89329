import { Session, type Shopify } from '@shopify/shopify-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShopSessions } from '../../src/shopify/sessions.js';
import { lazyTestDatabase } from '../helpers/database.js';

/**
 * Two processes share the stored session (two ShopSessions on one database). Shopify's refresh tokens work once: the
 * process whose refresh Shopify refuses because the other used the token first must take what the other stored.
 */
const { database, cleanup } = lazyTestDatabase('session-refresh');
const KEY = Buffer.alloc(32, 5).toString('base64');
const SHOP = 'refresh-race.myshopify.com';

beforeAll(() => database.migrate());
afterAll(() => cleanup());

/** Shopify's refresh grant, single-use as Shopify's is; the first call can be held before it is sent. */
function fakeShopify() {
  const valid = new Set(['shprt_1']);
  let issued = 1;
  let calls = 0;
  let started!: () => void;
  const firstStarted = new Promise<void>((resolve) => (started = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const shopify = {
    session: { getOfflineId: (shop: string) => `offline_${shop}` },
    auth: {
      async refreshToken({ shop, refreshToken }: { shop: string; refreshToken: string }) {
        calls += 1;
        if (calls === 1) {
          started();
          await gate;
        }
        if (!valid.delete(refreshToken)) throw Object.assign(new Error('invalid_grant: the refresh token is used'), { response: { code: 400 } });
        issued += 1;
        valid.add(`shprt_${issued}`);
        return { session: offlineSession(shop, `shpat_${issued}`, `shprt_${issued}`, 3_600_000) };
      },
    },
  } as unknown as Shopify;
  return { shopify, firstStarted, release, calls: () => calls };
}

function offlineSession(shop: string, accessToken: string, refreshToken: string, expiresInMs: number): Session {
  return new Session({ id: `offline_${shop}`, shop, state: 'exchange', isOnline: false, accessToken, refreshToken, expires: new Date(Date.now() + expiresInMs), scope: 'read_orders' });
}

describe('ShopSessions refresh', () => {
  it('takes the token another process stored when that process spent the refresh token first', async () => {
    const fake = fakeShopify();
    const processA = new ShopSessions(fake.shopify, database, [KEY]);
    const processB = new ShopSessions(fake.shopify, database, [KEY]);
    // About to run out: the next use refreshes it.
    await processA.storeSession(offlineSession(SHOP, 'shpat_1', 'shprt_1', 60_000));

    // B reads the session and asks Shopify for a refresh; before its request lands, A refreshes with the same token.
    const fromB = processB.accessToken(SHOP);
    await fake.firstStarted;
    expect(await processA.accessToken(SHOP)).toBe('shpat_2');
    fake.release();

    // Shopify refuses B's spent refresh token: B must find A's token, not give up on the store.
    expect(await fromB).toBe('shpat_2');
    expect(fake.calls()).toBe(2);
  });
});
