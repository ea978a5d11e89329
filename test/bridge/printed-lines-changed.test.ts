import { describe, expect, it } from 'vitest';
import { handleWebhook } from '../../src/bridge/webhooks/index.js';
import type { WebhookJob } from '../../src/bridge/jobs.js';
import { memoryDeps, shopifyOrderBody } from '../helpers/bridge-fakes.js';

/** Issue 25: an order edit or a refund of lines already at the printer is shown on the order, never silently ignored. */
const SHOP = 'acme.myshopify.com';
let n = 0;
const job = (topic: string, body: unknown): WebhookJob => ({ topic, shop: SHOP, webhookId: `wh-edit-${++n}`, receivedAt: new Date().toISOString(), body: JSON.stringify(body) });

async function submittedOrder(status: 'submitted' | 'shipped' = 'submitted') {
  const deps = memoryDeps();
  const body = shopifyOrderBody();
  await handleWebhook(deps, job('orders/paid', body));
  await deps.store.update(SHOP, body.admin_graphql_api_id, (current) => ({
    link: {
      ...current!,
      status,
      printOrderId: 'p-1',
      sourceOrderId: 's-1',
      shipments: [{ index: 0, status: 'pending', lineItems: [{ lineItemId: body.line_items[0]!.admin_graphql_api_id, quantity: 2, sku: 'BOOK-A5' }] }],
    },
  }));
  return { deps, body };
}

describe('printed lines changed after submission', () => {
  it('shows an edit that lowered a printed line, once, with the actions that fit', async () => {
    const { deps, body } = await submittedOrder();
    const edited = { ...body, updated_at: '2026-11-21T12:00:00-05:00', line_items: [{ ...body.line_items[0]!, current_quantity: 1 }] };
    expect(await handleWebhook(deps, job('orders/updated', edited))).toMatchObject({ kind: 'recorded', detail: expect.stringContaining('printed lines changed') });
    const link = await deps.store.get(SHOP, body.admin_graphql_api_id);
    const problem = link!.problems.find((p) => p.kind === 'changed-after-submission')!;
    expect(problem.message).toContain('SKU BOOK-A5): 1 now, 2 sent');
    expect(problem.message).toMatch(/cancel it at the printer while it allows.*or keep it as sent/);
    expect(deps.scheduler.shopifyJobs.filter((c) => c.kind === 'sync')).toHaveLength(1);
    // The same news again changes nothing.
    await handleWebhook(deps, job('orders/updated', { ...edited, updated_at: '2026-11-21T12:05:00-05:00' }));
    expect(deps.scheduler.shopifyJobs.filter((c) => c.kind === 'sync')).toHaveLength(1);
  });

  it('shows a printed line removed by an edit, and says nothing for an order the printer has shipped', async () => {
    const { deps, body } = await submittedOrder();
    await handleWebhook(deps, job('orders/updated', { ...body, updated_at: '2026-11-21T12:00:00-05:00', line_items: [{ ...body.line_items[0]!, current_quantity: 0 }] }));
    expect((await deps.store.get(SHOP, body.admin_graphql_api_id))!.problems[0]!.message).toContain('none left of the 2 sent');

    const shipped = await submittedOrder('shipped');
    await handleWebhook(shipped.deps, job('orders/updated', { ...shipped.body, updated_at: '2026-11-21T12:00:00-05:00', line_items: [{ ...shipped.body.line_items[0]!, current_quantity: 0 }] }));
    expect((await shipped.deps.store.get(SHOP, shipped.body.admin_graphql_api_id))!.problems).toEqual([]);
  });

  it('shows a refund of a printed line (refunds/create)', async () => {
    const { deps, body } = await submittedOrder();
    const outcome = await handleWebhook(deps, job('refunds/create', { id: 1, order_id: body.admin_graphql_api_id.split('/').pop(), refund_line_items: [{ line_item_id: body.line_items[0]!.admin_graphql_api_id.split('/').pop(), quantity: 2 }] }));
    expect(outcome).toMatchObject({ kind: 'recorded', detail: expect.stringContaining('refunded') });
    expect((await deps.store.get(SHOP, body.admin_graphql_api_id))!.problems[0]!.message).toMatch(/^A refund after .*none left of the 2 sent/);
  });
});

describe('keep as sent', () => {
  it('clears the change from the order, once, and says who decided', async () => {
    const { keepAsSent } = await import('../../src/bridge/operator-actions.js');
    const { deps, body } = await submittedOrder();
    await handleWebhook(deps, job('orders/updated', { ...body, updated_at: '2026-11-21T12:00:00-05:00', line_items: [{ ...body.line_items[0]!, current_quantity: 1 }] }));
    const actionDeps = { ...deps, failedJobs: { forOrder: async () => [], retry: async () => false } } as never;
    const input = { shop: SHOP, orderId: body.admin_graphql_api_id, actor: 'operator' };
    expect(await keepAsSent(actionDeps, input)).toMatchObject({ kind: 'done', message: expect.stringContaining('kept as sent') });
    const link = await deps.store.get(SHOP, body.admin_graphql_api_id);
    expect(link!.problems).toEqual([]);
    expect((await deps.store.history(SHOP, body.admin_graphql_api_id))[0]).toMatchObject({ event: 'kept as sent', source: 'operator' });
    expect((await keepAsSent(actionDeps, input)).kind).toBe('refused');
  });
});

describe('a re-delivered refunds/create brings back a change the merchant kept as sent', () => {
  it('takes one refund in once, by its own id, whatever the webhook id; another refund still shows', async () => {
    const { keepAsSent } = await import('../../src/bridge/operator-actions.js');
    const { deps, body } = await submittedOrder();
    const orderId = body.admin_graphql_api_id;
    const lineItemId = body.line_items[0]!.admin_graphql_api_id.split('/').pop();
    const refund = (id: number, quantity: number) => ({ id, order_id: orderId.split('/').pop(), refund_line_items: [{ line_item_id: lineItemId, quantity }] });
    const changes = async () => (await deps.store.get(SHOP, orderId))!.problems.filter((p) => p.kind === 'changed-after-submission');

    await handleWebhook(deps, job('refunds/create', refund(5_550_001, 1)));
    expect(await changes()).toHaveLength(1);
    // The merchant's "Keep as sent" button, through the use case the page calls.
    const actionDeps = { ...deps, failedJobs: { forOrder: async () => [] } } as never;
    expect(await keepAsSent(actionDeps, { shop: SHOP, orderId, actor: 'merchant' })).toMatchObject({ kind: 'done' });
    expect(await changes()).toEqual([]);

    // Shopify delivers the same refund again, under a new webhook id (job() gives each delivery its own).
    const again = await handleWebhook(deps, job('refunds/create', refund(5_550_001, 1)));
    expect(await changes()).toEqual([]);
    expect(again).toMatchObject({ kind: 'recorded', detail: 'refund 5550001 was taken in before' });

    // A refund of its own is news again.
    await handleWebhook(deps, job('refunds/create', refund(5_550_002, 2)));
    expect((await changes())[0]?.message).toMatch(/^A refund after .*none left of the 2 sent/);
  });
});

describe('a printed line added by an edit', () => {
  it('is shown when the mapping prints it: the print order already sent cannot grow', async () => {
    const { deps, body } = await submittedOrder();
    const added = { ...body.line_items[0]!, id: 14_000_000_999, admin_graphql_api_id: 'gid://shopify/LineItem/14000000000999', sku: 'POSTER-A2', title: 'Poster', quantity: 1, current_quantity: 1 };
    await handleWebhook(deps, job('orders/updated', { ...body, updated_at: '2026-11-21T12:00:00-05:00', line_items: [{ ...body.line_items[0]!, current_quantity: 2 }, added] }));
    const problem = (await deps.store.get(SHOP, body.admin_graphql_api_id))!.problems.find((p) => p.kind === 'changed-after-submission');
    expect(problem?.message).toContain('line item 14000000000999 (SKU POSTER-A2): 1 added, not in the print order');
    expect(problem?.message).not.toContain('BOOK-A5');
  });
});
