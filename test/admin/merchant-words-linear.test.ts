import { describe, expect, it } from 'vitest';
import { actorWords, orderWords } from '../../src/admin/merchant-words.js';
import type { OrderLink } from '../../src/orders/model.js';

/**
 * A merchant can stall every store: an order's own signed fulfillment_orders/placed_on_hold with 150,000 characters
 * of hold notes `x[x[x[…` made two views of that order take 24 s, while other stores' webhooks waited. The merchant
 * words are read over text from outside, so every pattern in them must be linear: each input below, at a million
 * characters, is translated within the default test timeout (before, the path pattern read the rest of the text from
 * every `x`: a million characters took many minutes).
 */

const MILLION = 1_000_000;
const LINK: Pick<OrderLink, 'orderId' | 'orderName' | 'shipments'> = {
  orderId: 'gid://shopify/Order/1001',
  orderName: '#1001',
  shipments: [{ index: 0, lineItems: [], status: 'shipped', trackingNumber: 'RM1', carrier: { code: 'royalmail' } } as OrderLink['shipments'][number]],
};
const words = orderWords(LINK, [{ gid: 'gid://shopify/LineItem/1', sku: 'MUG-1' }], (code) => (code === 'royalmail' ? 'Royal Mail' : undefined));

/** `text` repeated to `length` characters. */
const run = (text: string, length: number) => text.repeat(Math.ceil(length / text.length)).slice(0, length);

describe('merchant words on text from outside', () => {
  it('translates the 150,000-character x[x[x[… hold notes of a placed_on_hold, and a million of them, in linear time', () => {
    const notes = `waiting for the fulfillment hold to be released: Awaiting payment (${run('x[', 150_000)})`;
    const said = words(notes);
    // Nothing in it is a path (no `]` closes a bracket): the text comes back as it was.
    expect(said).toBe(notes);
    const million = run('x[', MILLION);
    expect(words(million)).toBe(million);
  });

  it('stays linear on every other run an attacker could repeat', () => {
    const runs = [
      'line item 1 (SKU ',
      'line item 1 (SKU a, "',
      'line item 1 (SKU "a", "\\"',
      'line item 1 (SKU a), line item 1 (SKU a',
      'shipments 1, 2 and ',
      'gid://shopify/aaaa',
      'a.b.c.',
      'order.line_items[0',
      'orders/',
      'webhook 0123456789',
      '_id ',
      'royalmail',
    ];
    for (const unit of runs) {
      const text = run(unit, MILLION);
      expect(words(text).length, unit).toBeGreaterThan(0);
    }
    expect(actorWords(run('acme.myshopify.com user ', MILLION), 'acme.myshopify.com')).toMatch(/^a staff member of your store/);
  });

  it('still translates what the app records', () => {
    expect(words('order.line_items[0].sku is missing; shipment 0 of gid://shopify/Order/1001 shipped by royalmail')).toBe(
      'line item 1 (SKU MUG-1), SKU is missing; shipment 1 of #1001 shipped by Royal Mail',
    );
    expect(words('line item 1 (SKU "MUG-1", "Mug") order.line_items[0]: no rule')).toBe('line item 1 (SKU MUG-1): no rule');
  });
});
