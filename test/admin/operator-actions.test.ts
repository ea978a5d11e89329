import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { cancelOrderByOperator, type FailedJob, type OperatorActionDeps, resubmitOrder, retryOrder } from '../../src/bridge/operator-actions.js';
import type { OrderLink } from '../../src/orders/model.js';
import { PostgresOrderStore } from '../../src/storage/order-store.js';
import type { MapOutcome, PrintServicePort } from '../../src/bridge/ports.js';
import type { OrderStatus } from '../../src/orders/status.js';
import { silentLogger } from '../../src/logger.js';
import type { OrderRecord, PrintOrder } from '../../src/print-service/schema.js';
import { FakePrintAccounts, FakeScheduler } from '../helpers/bridge-fakes.js';
import { testBackends } from '../helpers/backends.js';

/** The operator actions' semantics against a real order store and fake printer, mapping and queues. */
describe('operator actions', () => {
  const { redis, prefix, database, cleanup } = testBackends('admin-actions');
  afterAll(cleanup);
  const store = new PostgresOrderStore({ database, redis, prefix });
  const SHOP = 'acme.myshopify.com';
  let n = 0;
  let printer: Map<string, OrderRecord>;
  let scheduler: FakeScheduler;
  let failed: FailedJob[];
  let mapped: MapOutcome;
  let deps: OperatorActionDeps;

  const printOrder = (sourceOrderId: string) =>
    ({ destination: { name: 'demo-printer' }, orderData: { sourceOrderId, items: [], shipments: [] } }) as unknown as PrintOrder;

  beforeEach(() => {
    printer = new Map();
    scheduler = new FakeScheduler();
    failed = [];
    mapped = { ok: true, order: printOrder('acme-1'), shipments: [], leftOut: [] };
    deps = {
      store,
      mapping: { settingsFor: () => ({ on: 'orders/paid', holdMinutes: 0, validate: false }), map: async () => mapped },
      printAccounts: new FakePrintAccounts({ findBySourceId: async (id: string) => printer.get(id) } as unknown as PrintServicePort),
      scheduler,
      connections: { isConnected: async () => true },
      failedJobs: { forOrder: async () => failed },
      logger: silentLogger,
      clock: () => new Date(),
    };
  });

  async function order(status: OrderStatus, fields: Partial<OrderLink> = {}): Promise<OrderLink> {
    n += 1;
    const orderId = `gid://shopify/Order/${n}`;
    await store.saveOrderBody(SHOP, orderId, '2026-11-21T10:00:00Z', JSON.stringify({ id: n, name: `#${n}`, line_items: [] }));
    const { link } = await store.update(SHOP, orderId, () => ({
      link: { ...store.blank(SHOP, orderId), orderName: `#${n}`, status, ...fields },
      history: [{ event: 'seeded', source: 'worker' }],
    }));
    return link!;
  }
  const input = (link: OrderLink, version = link.version) => ({ shop: SHOP, orderId: link.orderId, expectedVersion: version, actor: 'operator' });
  const record = (status: string, id = 'a'.repeat(24)) => ({ _id: id, status, orderData: { sourceOrderId: 'acme-1' } }) as unknown as OrderRecord;
  const operatorEvents = async (link: OrderLink) => (await store.history(SHOP, link.orderId)).filter((e) => e.source === 'operator').map((e) => e.event);

  it('resubmits a held order never sent: clears its mapping problems and queues a new generation', async () => {
    const link = await order('held', { problems: [{ kind: 'mapping', message: 'no rule maps MUG-1', at: 'x' }] });
    const outcome = await resubmitOrder(deps, input(link));
    expect(outcome.kind).toBe('done');
    const after = (await store.get(SHOP, link.orderId))!;
    expect(after.problems).toEqual([]);
    expect(scheduler.calls).toEqual([{ kind: 'submit', shop: SHOP, orderId: link.orderId, delayMs: 0, generation: after.version }]);
    expect(await operatorEvents(link)).toEqual(['resubmitted by operator']);
  });

  it('creates anew when the printer only has failed submissions, and forgets the failed _id', async () => {
    const link = await order('error', { sourceOrderId: 'acme-1', printOrderId: 'b'.repeat(24), submitAttempts: 1, problems: [{ kind: 'submission-error', message: 'unknown SKU', at: 'x' }] });
    printer.set('acme-1', record('Submission Error', 'b'.repeat(24)));
    expect((await resubmitOrder(deps, input(link))).kind).toBe('done');
    const after = (await store.get(SHOP, link.orderId))!;
    expect(after).toMatchObject({ submitAttempts: 0, problems: [] });
    expect(after.printOrderId).toBeUndefined();
  });

  it('links a live order the printer already has instead of creating another', async () => {
    const link = await order('error', { sourceOrderId: 'acme-1', submitAttempts: 2 });
    printer.set('acme-1', record('received'));
    const outcome = await resubmitOrder(deps, input(link));
    expect(outcome).toMatchObject({ kind: 'done', message: expect.stringContaining('nothing new is created') });
    // Reconcile-first stays on: the submit job asks the printer and links what it has.
    expect((await store.get(SHOP, link.orderId))!.submitAttempts).toBe(2);
  });

  it('refuses when the printer has the order errored or cancelled: another create would be a duplicate', async () => {
    for (const status of ['errored', 'cancelled']) {
      const link = await order('error', { sourceOrderId: 'acme-1', submitAttempts: 1 });
      printer.set('acme-1', record(status));
      const outcome = await resubmitOrder(deps, input(link));
      expect(outcome).toMatchObject({ kind: 'refused', message: expect.stringContaining('duplicate') });
      expect(scheduler.calls).toEqual([]);
      expect(await operatorEvents(link)).toEqual(['resubmit by operator refused']);
    }
  });

  it('refuses when the mapping now gives another sourceOrderId while the printer still holds the order under the old one', async () => {
    const link = await order('error', { sourceOrderId: 'acme-old-1', printOrderId: 'c'.repeat(24), submitAttempts: 1 });
    printer.set('acme-old-1', record('received', 'c'.repeat(24)));
    const outcome = await resubmitOrder(deps, input(link));
    expect(outcome).toMatchObject({ kind: 'refused', message: expect.stringContaining('still has this order as acme-old-1') });
    expect(scheduler.calls).toEqual([]);
    // Only a failed submission under the old id: the new id may be created.
    printer.set('acme-old-1', record('Submission Error', 'c'.repeat(24)));
    expect((await resubmitOrder(deps, input(link))).kind).toBe('done');
  });

  it('keeps a still-unmappable order held and says why', async () => {
    mapped = { ok: false, problems: [{ subject: 'line item 1', message: 'no rule maps MUG-1' }] };
    const link = await order('held');
    const outcome = await resubmitOrder(deps, input(link));
    expect(outcome).toMatchObject({ kind: 'refused', message: expect.stringContaining('no rule maps MUG-1') });
    expect((await store.get(SHOP, link.orderId))!).toMatchObject({ status: 'held', problems: [expect.objectContaining({ kind: 'mapping' })] });
    expect(scheduler.calls).toEqual([]);
  });

  it('refuses a stale page or a second press, and statuses that are not resubmittable', async () => {
    const link = await order('held');
    expect((await resubmitOrder(deps, input(link))).kind).toBe('done');
    expect((await resubmitOrder(deps, input(link))).kind).toBe('stale');
    expect(scheduler.calls).toHaveLength(1);
    const shipped = await order('shipped');
    expect((await resubmitOrder(deps, input(shipped))).kind).toBe('refused');
    expect(await operatorEvents(shipped)).toEqual(['resubmit by operator refused']);
  });

  it('retries failed jobs, re-enqueues a stuck submission, and sends held or errored orders to Resubmit', async () => {
    const stuck = await order('submitting', { submitAttempts: 1 });
    let retried = 0;
    failed = [{ queue: 'orders', id: '1', name: 'submit', failedReason: 'print service unreachable', failedAt: Date.now() + 1000, retry: async () => void (retried += 1) }];
    expect((await retryOrder(deps, input(stuck))).kind).toBe('done');
    expect(retried).toBe(1);
    expect(await operatorEvents(stuck)).toEqual(['failed jobs retried by operator']);

    // A failure from before the order's last status change is not retried.
    const moved = await order('received');
    failed = [{ queue: 'orders', id: '2', name: 'submit', failedReason: 'old', failedAt: Date.parse(moved.statusAt) - 1000, retry: async () => void (retried += 1) }];
    expect((await retryOrder(deps, input(moved))).kind).toBe('refused');
    expect(retried).toBe(1);

    failed = [];
    const pending = await order('pending', { submitAfter: new Date(Date.now() - 60_000).toISOString() });
    expect((await retryOrder(deps, input(pending))).kind).toBe('done');
    expect(scheduler.calls.map((c) => c.kind)).toEqual(['submit']);
    // Not stuck: waiting for its submit topic, or inside its hold window.
    const unpaid = await order('pending');
    expect(await retryOrder(deps, input(unpaid))).toMatchObject({ kind: 'refused', message: expect.stringContaining('submit topic') });
    const holding = await order('pending', { submitAfter: new Date(Date.now() + 600_000).toISOString() });
    expect(await retryOrder(deps, input(holding))).toMatchObject({ kind: 'refused', message: expect.stringContaining('hold window') });
    expect(scheduler.calls).toHaveLength(1);

    const held = await order('held');
    expect(await retryOrder(deps, input(held))).toMatchObject({ kind: 'refused', message: expect.stringContaining('Resubmit') });
  });

  it('cancels through the cancel job, or here when the printer has only failed submissions', async () => {
    const live = await order('received', { sourceOrderId: 'acme-1', printOrderId: 'a'.repeat(24), submitAttempts: 1 });
    expect((await cancelOrderByOperator(deps, input(live))).kind).toBe('done');
    expect((await store.get(SHOP, live.orderId))!).toMatchObject({ status: 'received', cancelRequested: { by: 'operator' } });
    expect(scheduler.calls.map((c) => c.kind)).toEqual(['cancel']);

    const failedAtPrinter = await order('error', { sourceOrderId: 'acme-2', submitAttempts: 1 });
    printer.set('acme-2', record('submissionerror'));
    expect((await cancelOrderByOperator(deps, input(failedAtPrinter))).kind).toBe('done');
    expect((await store.get(SHOP, failedAtPrinter.orderId))!).toMatchObject({ status: 'cancelled', cancelRequested: { by: 'operator' } });
    expect(scheduler.calls.map((c) => c.kind)).toEqual(['cancel']);
    expect(await operatorEvents(failedAtPrinter)).toEqual(['cancelled by operator']);

    const shipped = await order('shipped');
    expect((await cancelOrderByOperator(deps, input(shipped))).kind).toBe('refused');
  });
});
