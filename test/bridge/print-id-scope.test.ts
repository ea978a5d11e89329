import { describe, expect, it } from 'vitest';
import { applyPrintEvent, type ApplyPrintEventDeps } from '../../src/bridge/apply-print-event.js';
import type { OrderLink } from '../../src/orders/model.js';
import { memoryDeps } from '../helpers/bridge-fakes.js';

/**
 * Print `_id`s are the print services' own: a store on a service of its choosing can hold the same `_id` as another
 * store's order (security review). A postback of one store's token must reach that store's order, not be refused
 * because an older order of another store carries the same id.
 */
const PRINT_ID = 'ab'.repeat(12);

async function sentOrder(deps: ReturnType<typeof memoryDeps>, shop: string, orderId: string, sourceOrderId: string, printAccount?: 'own'): Promise<OrderLink> {
  const { link } = await deps.store.update(shop, orderId, () => ({
    link: { ...deps.store.blank(shop, orderId), status: 'submitted', sourceOrderId, printOrderId: PRINT_ID, ...(printAccount ? { printAccount } : {}) },
    history: [{ event: 'submitted', source: 'worker', status: 'submitted' }],
  }));
  return link!;
}

/** A "noted" event touches the order store only: the Shopify port is never reached. */
const eventDeps = (deps: ReturnType<typeof memoryDeps>): ApplyPrintEventDeps => ({
  store: deps.store,
  shopify: {} as ApplyPrintEventDeps['shopify'],
  tracking: () => ({}),
  clock: deps.clock,
  logger: deps.logger,
});

describe("a postback's order found by its print _id", () => {
  it("reaches the token's own store when another store's older order carries the same _id", async () => {
    const deps = memoryDeps();
    // The other store's order came first, on a print account of its own (its service chose the id).
    await sentOrder(deps, 'first.myshopify.com', 'gid://shopify/Order/1', 'first-1', 'own');
    const mine = await sentOrder(deps, 'mine.myshopify.com', 'gid://shopify/Order/2', 'mine-7', 'own');
    const event = { kind: 'noted' as const, name: 'Shipment Updated', printOrderId: PRINT_ID, errors: [] };

    expect(await applyPrintEvent(eventDeps(deps), event, 'mine.myshopify.com')).toMatchObject({ kind: 'unchanged' });
    const history = (await deps.store.history(mine.shop, mine.orderId)).map((e) => e.event);
    expect(history).toContain('"Shipment Updated" from the print service (recorded, not acted on)');
    expect((await deps.store.history('first.myshopify.com', 'gid://shopify/Order/1')).map((e) => e.event)).not.toContain(
      '"Shipment Updated" from the print service (recorded, not acted on)',
    );
  });

  it("is refused when only another store's order has the _id, and no order of the token's store is named", async () => {
    const deps = memoryDeps();
    await sentOrder(deps, 'first.myshopify.com', 'gid://shopify/Order/1', 'first-1', 'own');
    const event = { kind: 'noted' as const, name: 'Shipment Updated', printOrderId: PRINT_ID, errors: [] };
    expect(await applyPrintEvent(eventDeps(deps), event, 'mine.myshopify.com')).toMatchObject({ kind: 'out-of-scope' });
  });
});
