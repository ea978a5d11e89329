import { describe, expect, it } from 'vitest';
import { StandInFlow } from './flow.js';

describe('the stand-in’s flowTriggerReceive', () => {
  const flow = new StandInFlow(() => 'secret');
  const SHOP = 'Flow-Stand-In.myshopify.com';

  it('records each call per shop, and refuses as Shopify does a payload over 50,000 bytes and an unknown handle', () => {
    expect(flow.receive(SHOP, { handle: 'print-order-sent', payload: { order_id: 'gid://shopify/Order/1' } })).toEqual({ userErrors: [] });
    expect(flow.receive(SHOP, { handle: 'print-order-sent', payload: { order_id: 'gid://shopify/Order/1', reason: 'x'.repeat(50_000) } }).userErrors).toEqual([
      { field: ['body'], message: 'Errors validating schema:\n  Properties size exceeds the limit of 50000 bytes.\n' },
    ]);
    expect(flow.receive(SHOP, { handle: 'auction-bid', payload: { order_id: 'gid://shopify/Order/1' } }).userErrors).toEqual([
      { field: ['body'], message: "Errors validating schema:\n  Invalid handle 'auction-bid'.\n" },
    ]);
    const calls = flow.triggerCalls('flow-stand-in.myshopify.com');
    expect(calls.map((c) => [c.handle, c.userErrors.length])).toEqual([['print-order-sent', 0], ['print-order-sent', 1], ['auction-bid', 1]]);
    expect(flow.triggerCalls('other.myshopify.com')).toEqual([]);
    flow.clear();
    expect(flow.triggerCalls()).toEqual([]);
  });
});
