import { afterAll, describe, expect, it } from 'vitest';
import { PostgresOrderStore } from '../../src/storage/order-store.js';
import { type OrderJobView, reconcileSilentOrders, resumeStuckSubmissions } from '../../src/bridge/reconcile.js';
import { silentLogger } from '../../src/logger.js';
import type { PrintServicePort } from '../../src/bridge/ports.js';
import { testBackends } from '../helpers/backends.js';
import { lazyTestDatabase } from '../helpers/database.js';

const { redis, prefix, database, cleanup } = testBackends('resume-stuck');
const pagingDb = lazyTestDatabase('resume-paging');
afterAll(() => pagingDb.cleanup());
afterAll(cleanup);

describe('resumeStuckSubmissions', () => {
  it('retries a failed job, leaves orders with a live job alone, schedules a job where there is none', async () => {
    const now = new Date('2026-11-23T12:00:00Z');
    const store = new PostgresOrderStore({ database, redis, prefix, clock: () => now });
    const old = '2026-11-23T10:00:00.000Z';
    for (const [id, status] of [['1', 'submitting'], ['2', 'submitting'], ['3', 'submitting'], ['4', 'submitted']] as const) {
      await store.update('s.myshopify.com', `gid://shopify/Order/${id}`, () => ({ link: { ...store.blank('s.myshopify.com', `gid://shopify/Order/${id}`), status, statusAt: old } }));
    }
    const retried: string[] = [];
    const scheduled: string[] = [];
    const view = (state: OrderJobView['state'], id: string): OrderJobView => ({ state, retry: async () => void retried.push(id) });
    const outcome = await resumeStuckSubmissions(
      {
        store,
        submitJobs: async () =>
          new Map([
            ['s.myshopify.com|gid://shopify/Order/1', [view('failed', '1')]],
            ['s.myshopify.com|gid://shopify/Order/2', [view('failed', '2'), view('delayed', '2')]],
          ]),
        submit: async (_shop, orderId) => void scheduled.push(orderId),
        clock: () => now,
        logger: silentLogger,
      },
      { stuckForMs: 30 * 60_000 },
    );
    expect(outcome).toEqual({ stuck: 2, retried: 1, rescheduled: 1 });
    expect(retried).toEqual(['1']);
    expect(scheduled).toEqual(['gid://shopify/Order/3']);
  });
});

describe('reconcileSilentOrders', () => {
  it('pages past orders checked recently, so newer silent orders are reached too', async () => {
    const now = new Date('2026-11-23T12:00:00Z');
    const store = new PostgresOrderStore({ database: pagingDb.database, redis, prefix: `${prefix}paging:`, clock: () => now });
    const shop = 'p.myshopify.com';
    for (let i = 1; i <= 6; i++) {
      const id = `gid://shopify/Order/${100 + i}`;
      const statusAt = new Date(now.getTime() - (10 - i) * 3_600_000).toISOString();
      // The four oldest were asked about a minute ago.
      const reconciledAt = i <= 4 ? new Date(now.getTime() - 60_000).toISOString() : undefined;
      await store.update(shop, id, () => ({ link: { ...store.blank(shop, id), status: 'print-ready', statusAt, sourceOrderId: `p-${i}`, reconciledAt } }));
    }
    const asked: string[] = [];
    const outcome = await reconcileSilentOrders(
      { store, printAccounts: { forOrder: async () => ({ findBySourceId: async (id: string) => (asked.push(id), undefined) }) as unknown as PrintServicePort }, enqueueEvent: async () => undefined, clock: () => now, logger: silentLogger },
      { silentForMs: 30 * 60_000, limit: 2 },
    );
    expect(asked).toEqual(['p-5', 'p-6']);
    expect(outcome).toMatchObject({ checked: 2, missing: ['p-5', 'p-6'] });
  });
});
