import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ACCOUNT_ID, parseAccounts } from '../../src/dev/emulator/accounts.js';
import { postbackTriggers } from '../../src/print-service/postback-triggers.js';
import { parseTriggers } from '../../src/dev/emulator/triggers.js';
import { emulatorOrders, type Harness, orderBody, SHOP, startHarness, testMapping, waitFor } from '../helpers/harness.js';
import { ADMIN_TOKEN, AdminClient, csrfOf, fixedMapping, orderTail } from './helpers.js';

/**
 * Resubmit after fixing the mapping, end to end: webhook → held (or refused at the printer) → the mapping file is
 * fixed and hot-reloaded → the operator presses Resubmit on the admin page → exactly one live order at the printer,
 * and the order moves on.
 */

describe('resubmit after fixing the mapping', () => {
  let h: Harness;
  let admin: AdminClient;
  const sourceId = (body: { order_number: number }) => `${SHOP.replace('.myshopify.com', '')}-${body.order_number}`;

  beforeAll(async () => {
    h = await startHarness({
      env: { ADMIN_TOKEN },
      mapping: testMapping({ validate: false }),
      emulator: {
        manual: false,
        delays: { receivedMs: 20, printReadyMs: 40, shipMs: 60 },
        // The printer's destination only knows PRINT-A5: anything else is an Order Submission Error there.
        accounts: parseAccounts([
          { name: 'demo-brand', token: 'demo-token', secret: 'demo-secret', accountId: DEMO_ACCOUNT_ID, destinations: [{ name: 'demo-printer', skus: ['PRINT-A5'] }] },
        ]),
      },
    });
    h.emulator.deliveries.setTriggers(parseTriggers(postbackTriggers(`${h.runtime.url}/postbacks/postback-test-token-0123456789abcdef`)));
    admin = await AdminClient.login(h.runtime.url!);
  });
  afterAll(() => h.close());

  async function pressResubmit(gid: string): Promise<string> {
    const path = `/admin/orders/${SHOP}/${orderTail(gid)}`;
    const page = await admin.page(path);
    const version = /name="version" value="(\d+)"/.exec(page)![1]!;
    const response = await admin.post(`${path}/resubmit`, { _csrf: csrfOf(page), version });
    expect(response.status).toBe(303);
    return admin.page(response.headers.get('location')!);
  }

  it('re-maps a held order by itself once the mapping is fixed, and submits it once', async () => {
    const body = orderBody([{ sku: 'MUG-1' }, { sku: 'PRINT-A5' }]);
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);
    const held = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return l?.status === 'held' && l;
    }, { what: 'the held order' });
    expect(held.problems[0]).toMatchObject({ kind: 'mapping' });
    expect(await admin.page('/admin/problems')).toContain(body.name);

    // Resubmitting before the fix changes nothing but says why, in the history too.
    const early = await pressResubmit(body.admin_graphql_api_id);
    expect(early).toContain('still cannot be mapped');
    expect((await h.runtime.store.get(SHOP, body.admin_graphql_api_id))?.status).toBe('held');

    // Fixing the file is all it takes: the registry's change releases the held orders of the stores it serves.
    writeFileSync(join(h.mappingsDir, 'default.yaml'), fixedMapping(false));
    const moved = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return l && ['received', 'print-ready', 'shipped'].includes(l.status) && l;
    }, { what: 'the resubmitted order to move on', timeoutMs: 10_000 });
    expect(moved.problems).toEqual([]);
    const printed = emulatorOrders(h.emulator, sourceId(body));
    expect(printed).toHaveLength(1);
    expect(moved.printOrderId).toBe(printed[0]!.record._id);
    const history = await h.runtime.store.history(SHOP, body.admin_graphql_api_id);
    expect(history.map((e) => `${e.source}: ${e.event}`)).toEqual(
      expect.arrayContaining(['worker: released for submission', 'operator: resubmit by operator: the current mapping still cannot map it', 'worker: submitted']),
    );
    // A resubmit now (a stale page) creates nothing more.
    const late = await pressResubmit(body.admin_graphql_api_id).catch(() => '');
    expect(late).not.toContain('queued for submission');
    expect(emulatorOrders(h.emulator, sourceId(body))).toHaveLength(1);
  });

  it('creates anew an order the printer only has as a failed submission, instead of taking the failure for it', async () => {
    writeFileSync(join(h.mappingsDir, 'default.yaml'), testMapping({ validate: false }));
    const body = orderBody([{ sku: 'PRINT-POSTER' }]);
    await waitFor(() => !h.runtime.registry.mapOrder(body, SHOP).ok || (h.runtime.registry.mapOrder(body, SHOP) as { order: { orderData: { items: { sku: string }[] } } }).order.orderData.items[0]!.sku === 'PRINT-POSTER', {
      what: 'the registry back on the plain mapping',
      timeoutMs: 10_000,
    });
    h.standIn.seedOrder(SHOP, body);
    await h.sendWebhook('orders/paid', body);
    const errored = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return l?.status === 'error' && l;
    }, { what: 'the Order Submission Error', timeoutMs: 10_000 });
    expect(errored.problems.map((p) => p.kind)).toContain('submission-error');
    const [failed] = emulatorOrders(h.emulator, sourceId(body));
    expect(failed!.record.status).toBe('submissionerror');
    expect(await admin.page('/admin/problems')).toContain('submission error');

    writeFileSync(join(h.mappingsDir, 'default.yaml'), fixedMapping(false));
    await waitFor(() => {
      const r = h.runtime.registry.mapOrder(body, SHOP);
      return r.ok && r.order.orderData.items[0]!.sku === 'PRINT-A5';
    }, { what: 'the fixed mapping', timeoutMs: 10_000 });

    const after = await pressResubmit(body.admin_graphql_api_id);
    expect(after).toContain('only has a failed submission');
    const moved = await waitFor(async () => {
      const l = await h.runtime.store.get(SHOP, body.admin_graphql_api_id);
      return l && ['received', 'print-ready', 'shipped'].includes(l.status) && l;
    }, { what: 'the resubmitted order to move on', timeoutMs: 10_000 });
    const records = emulatorOrders(h.emulator, sourceId(body));
    expect(records.map((r) => r.record.status).sort()).toEqual([expect.not.stringMatching(/submissionerror/), 'submissionerror'].sort());
    const live = records.find((r) => r.record.status !== 'submissionerror')!;
    expect(moved.printOrderId).toBe(live.record._id);
    expect(moved.problems.filter((p) => p.kind === 'submission-error')).toEqual([]);

    // Pressing it again (a stale page, a second tab) never sends a third create.
    const again = await admin.page(`/admin/orders/${SHOP}/${orderTail(body.admin_graphql_api_id)}`);
    expect(again).not.toContain('Resubmit with current mapping');
    expect(emulatorOrders(h.emulator, sourceId(body))).toHaveLength(2);
  });
});
