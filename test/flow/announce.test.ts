import { describe, expect, it } from 'vitest';
import { announceFlowEvents, sendFlowTrigger } from '../../src/flow/announce.js';
import { FLOW_PAYLOAD_LIMIT_BYTES } from '../../src/flow/definitions.js';
import { payloadBytes, triggerPayload } from '../../src/flow/trigger-payloads.js';
import { silentLogger } from '../../src/logger.js';
import type { OrderLink } from '../../src/orders/model.js';
import { CHANGED_AFTER_SUBMISSION } from '../../src/orders/printed-lines.js';
import { ShopifyUserError } from '../../src/shopify/admin/errors.js';
import { FakeScheduler } from '../helpers/bridge-fakes.js';
import { MemoryFlowTriggers } from '../helpers/memory-flow-triggers.js';
import { MemoryOrderStore } from '../helpers/memory-order-store.js';

const SHOP = 'flow-announce.myshopify.com';
const ORDER = 'gid://shopify/Order/9007199254740993';
const ENABLED_AT = new Date('2026-11-28T10:00:00Z');

async function setUp(handles: string[]) {
  const store = new MemoryOrderStore(() => new Date('2026-11-28T11:00:00Z'));
  const scheduler = new FakeScheduler();
  const flowTriggers = new MemoryFlowTriggers();
  for (const handle of handles) await flowTriggers.record({ shop: SHOP, handle, enabled: true, changedAt: ENABLED_AT });
  const write = (change: (link: OrderLink) => OrderLink, history: { event: string; status?: OrderLink['status'] }[] = []) =>
    store.update(SHOP, ORDER, (current) => ({ link: change(current ?? store.blank(SHOP, ORDER)), history: history.map((h) => ({ ...h, source: 'worker' as const })) }));
  const announce = () => announceFlowEvents({ store, scheduler, flowTriggers }, SHOP, ORDER);
  const triggered = () => scheduler.calls.filter((c) => c.kind === 'flow-trigger').map((c) => c.generation as string);
  return { store, scheduler, flowTriggers, write, announce, triggered };
}

const at = (minute: number) => `2026-11-28T10:${String(minute).padStart(2, '0')}:00.000Z`;

describe('announcing an order’s events to Flow', () => {
  it('announces each event once, however often the sync runs, and only the triggers the store uses', async () => {
    const { write, announce, triggered } = await setUp(['print-order-sent', 'print-status-changed']);
    await write((l) => ({ ...l, status: 'submitted', statusAt: at(5), printOrderId: 'p1' }), [{ event: 'submitted', status: 'submitted' }]);
    await announce();
    await announce();
    expect(triggered()).toEqual(['print-order-sent sent']);
    await write((l) => ({ ...l, status: 'received', statusAt: at(6) }), [{ event: 'received', status: 'received' }]);
    await announce();
    await write((l) => ({ ...l, status: 'error', statusAt: at(7), problems: [{ kind: 'print-error', message: 'Zoë’s file is broken', at: at(7) }] }));
    await announce();
    await announce();
    // needs-attention is not in use: the error is not announced; received is, once; sent is not again.
    expect(triggered()).toEqual(['print-order-sent sent', `print-status-changed status|received|${at(6)}`]);
  });

  it('does not announce what happened before the store began to use the trigger', async () => {
    const { write, announce, triggered } = await setUp(['print-order-needs-attention']);
    await write((l) => ({ ...l, status: 'held', statusAt: '2026-11-28T09:00:00.000Z' }));
    await announce();
    expect(triggered()).toEqual([]);
    await write((l) => ({ ...l, problems: [{ kind: CHANGED_AFTER_SUBMISSION, message: 'a refund', at: at(30) }] }));
    await announce();
    expect(triggered()).toEqual([`print-order-needs-attention attention|changed|${at(30)}`]);
  });

  it("announces an order kept from the printer by Shopify's hold or risk, and a hold placed after submission, as held: once each", async () => {
    const { write, announce, triggered, store } = await setUp(['print-order-needs-attention']);
    await write((l) => ({ ...l, status: 'waiting', statusAt: at(10), problems: [{ kind: 'risk-recommendation', message: 'Shopify recommends cancelling this order', at: at(10) }] }));
    await announce();
    await announce();
    expect(triggered()).toEqual([`print-order-needs-attention attention|held|${at(10)}`]);
    const payload = triggerPayload('print-order-needs-attention', `attention|held|${at(10)}`, (await store.get(SHOP, ORDER))!);
    expect(payload).toMatchObject({ kind: 'held', reason: expect.stringContaining("Shopify's risk analysis flagged the order") });
    await write((l) => ({ ...l, status: 'submitted', statusAt: at(20), problems: [{ kind: 'held-after-submission', subject: 'gid://shopify/FulfillmentOrder/7', message: 'Shopify put this order on hold (high risk of fraud)', at: at(21) }] }));
    await announce();
    expect(triggered()).toEqual([`print-order-needs-attention attention|held|${at(10)}`, `print-order-needs-attention attention|held|${at(21)}`]);
  });

  it('sends the payload of the order as it is when the job runs, only while the trigger is in use; a refusal ends the job', async () => {
    const { store, write, flowTriggers } = await setUp(['print-status-changed']);
    await write((l) => ({
      ...l,
      status: 'shipped',
      statusAt: at(9),
      shipments: [
        { index: 0, lineItems: [], status: 'shipped', shippedAt: at(1), trackingNumber: 'OLD', carrier: { alias: 'dhl' } },
        { index: 1, lineItems: [], status: 'shipped', shippedAt: at(8), trackingNumber: 'RM123', carrier: { alias: 'royalmail' }, trackingUrl: 'https://track.example.com/RM123' },
      ],
    }));
    const sent: { handle: string; payload: Record<string, string> }[] = [];
    const port = { enabledOf: (shop: string) => flowTriggers.enabledOf(shop), send: async (_shop: string, handle: string, payload: Record<string, string>) => void sent.push({ handle, payload }) };
    const job = { shop: SHOP, orderId: ORDER, handle: 'print-status-changed', event: `status|shipped|${at(9)}` };
    expect((await sendFlowTrigger({ store, flowTriggers: port, logger: silentLogger }, job)).kind).toBe('sent');
    expect(sent).toEqual([
      { handle: 'print-status-changed', payload: { order_id: ORDER, status: 'shipped', carrier: 'royalmail', 'tracking number': 'RM123', 'tracking url': 'https://track.example.com/RM123' } },
    ]);
    const refusing = { ...port, send: async () => Promise.reject(new ShopifyUserError('flowTriggerReceive', SHOP, 'print-status-changed', [{ field: ['body'], message: 'Invalid handle' }])) };
    expect((await sendFlowTrigger({ store, flowTriggers: refusing, logger: silentLogger }, job)).kind).toBe('refused');
    await flowTriggers.record({ shop: SHOP, handle: 'print-status-changed', enabled: false, changedAt: new Date() });
    expect((await sendFlowTrigger({ store, flowTriggers: port, logger: silentLogger }, job)).kind).toBe('not-in-use');
    expect(sent).toHaveLength(1);
  });
});

describe('a trigger’s payload', () => {
  const link = (over: Partial<OrderLink>): OrderLink => ({
    shop: SHOP, orderId: ORDER, status: 'held', statusAt: at(1), submitAttempts: 0, problems: [], shipments: [], createdAt: at(0), updatedAt: at(1), version: 1, ...over,
  });

  it('names the order by its reference and never quotes the customer (problem messages stay out)', () => {
    const payload = triggerPayload('print-order-needs-attention', `attention|held|${at(1)}`, link({
      orderName: '#1001 Zoë',
      problems: [{ kind: 'mapping', message: 'no rule for https://files.example.com/zoe-unal-portrait.pdf', subject: 'gid://shopify/LineItem/1', at: at(1) }],
    }));
    expect(payload).toEqual({ order_id: ORDER, kind: 'held', reason: 'the mapping cannot print a line item (gid://shopify/LineItem/1)' });
    expect(JSON.stringify(payload)).not.toMatch(/zo[eë]/i);
  });

  it('stays far under Shopify’s size limit whatever the order holds', () => {
    const problems = Array.from({ length: 5_000 }, (_, i) => ({ kind: `kind-${i}-${'x'.repeat(300)}`, message: 'y'.repeat(10_000), subject: 's'.repeat(5_000), at: at(1) }));
    const shipments = [{ index: 0, lineItems: [], status: 'shipped' as const, shippedAt: at(2), trackingNumber: 'n'.repeat(100_000), carrier: { alias: 'c'.repeat(100_000) }, trackingUrl: `https://t.example.com/${'u'.repeat(100_000)}` }];
    for (const [handle, key] of [['print-order-needs-attention', `attention|held|${at(1)}`], ['print-status-changed', `status|shipped|${at(2)}`]] as const) {
      const bytes = payloadBytes(triggerPayload(handle, key, link({ problems, shipments, status: handle === 'print-status-changed' ? 'shipped' : 'held' })));
      expect(bytes).toBeLessThan(FLOW_PAYLOAD_LIMIT_BYTES / 10);
    }
  });
});
