import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINTENANCE_JOBS } from '../../src/app/maintenance.js';
import { type Harness, orderBody, SHOP, startHarness, waitFor } from '../helpers/harness.js';

/**
 * Issue 15: new public apps may make no REST Admin API call. The whole loop and the lost-order recovery run against
 * the stand-in, whose request log then holds GraphQL operations and the OAuth token endpoint only.
 */
describe('GraphQL Admin API only', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { RECONCILE_LOST_MIN_AGE_MINUTES: '0' } });
  });
  afterAll(() => h.close());

  it('makes no REST call while orders flow and a lost order is recovered', async () => {
    const sent = orderBody([{ sku: 'PRINT-GQL' }]);
    h.standIn.seedOrder(SHOP, sent);
    await h.sendWebhook('orders/paid', sent);
    await waitFor(async () => (await h.runtime.store.get(SHOP, sent.admin_graphql_api_id))?.status === 'submitted', { what: 'the webhook order submitted' });

    // An order whose webhooks never came: the recovery reads it (GraphQL) and it goes through the pipeline.
    const now = new Date().toISOString();
    const lost = orderBody([{ sku: 'PRINT-LOST' }], { created_at: now, updated_at: now });
    h.standIn.seedOrder(SHOP, lost);
    await h.runtime.queues.maintenance.add(MAINTENANCE_JOBS.lostOrders, {}, { jobId: `lost-${Date.now()}` });
    await waitFor(async () => (await h.runtime.store.get(SHOP, lost.admin_graphql_api_id))?.status === 'submitted', { what: 'the lost order recovered and submitted', timeoutMs: 20_000 });

    const operations = h.standIn.requests().map((r) => r.operation ?? '(none)');
    expect(operations.length).toBeGreaterThan(0);
    expect(operations.filter((op) => !/^(query|mutation|oauth) /.test(op))).toEqual([]);
    // The recent-orders list and the order read of the recovery (operations are named by their root fields).
    expect(operations).toEqual(expect.arrayContaining(['query orders', 'query order']));
  });

  it('builds no REST Admin API URL anywhere in the app', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== 'admin-stand-in') walk(path);
        } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
          const text = readFileSync(path, 'utf8');
          for (const m of text.matchAll(/\/admin\/api\/[^'"`\s]*\.json/g)) if (!m[0].endsWith('/graphql.json')) offenders.push(`${path}: ${m[0]}`);
        }
      }
    };
    walk(join(import.meta.dirname, '../../src'));
    expect(offenders).toEqual([]);
  });
});
