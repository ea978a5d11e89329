import { describe, expect, it } from 'vitest';
import { blankOrder, type OrderLink } from '../orders/model.js';
import type { StatusChange, StatusShown } from './shopify-data.js';
import { TAGS } from './ports.js';
import { statusChange, statusValue, syncOrderToShopify } from './shopify-sync.js';
import type { OrderStatus } from '../orders/status.js';

const SHOP = 'sync.myshopify.com';
const ORDER = 'gid://shopify/Order/1';

function link(status: OrderStatus, extra: Partial<OrderLink> = {}): OrderLink {
  return { ...blankOrder(SHOP, ORDER, new Date('2026-11-24T10:00:00Z')), status, statusAt: '2026-11-24T10:05:00.000Z', sourceOrderId: 'shop-1001', printOrderId: 'abc', ...extra };
}

/** A Shopify order as the sync sees it: its tags and metafield, with every read and write counted. */
class Order {
  reads = 0;
  writes: StatusChange[] = [];
  constructor(
    public tags: string[] = [],
    public status: unknown = null,
  ) {}
  async orderShows(): Promise<StatusShown | null> {
    this.reads += 1;
    return { tags: [...this.tags], status: this.status };
  }
  async showStatus(_shop: string, _orderId: string, change: StatusChange): Promise<void> {
    this.writes.push(change);
    this.tags = [...this.tags.filter((t) => !change.removeTags.includes(t)), ...change.addTags.filter((t) => !this.tags.includes(t))];
    if (change.status !== undefined) this.status = JSON.parse(JSON.stringify(change.status));
  }
}

describe('statusChange: only what differs', () => {
  it('adds the missing tags and writes the metafield of an order that shows nothing yet', () => {
    const change = statusChange(link('shipped'), { tags: ['vip'], status: null });
    expect(change).toEqual({ addTags: [TAGS.shipped, TAGS.submitted], removeTags: [], status: statusValue(link('shipped')) });
  });

  it('removes only the app\'s own stale tags, never the merchant\'s, whatever their case', () => {
    const change = statusChange(link('shipped'), { tags: ['vip', 'Print-Bridge:Print-Ready', TAGS.submitted, 'print-ready'], status: statusValue(link('shipped')) });
    expect(change).toEqual({ addTags: [TAGS.shipped], removeTags: ['Print-Bridge:Print-Ready'] });
  });

  it('writes nothing when the order shows the link already, with the metafield keys in any order', () => {
    const value = statusValue(link('print-ready'))!;
    const reordered = { printOrderId: value.printOrderId, sourceOrderId: value.sourceOrderId, at: value.at, status: value.status };
    expect(statusChange(link('print-ready'), { tags: [TAGS.printReady.toUpperCase(), TAGS.submitted, 'vip'], status: reordered })).toBeUndefined();
  });

  it('writes the metafield alone when only the time of the status changed', () => {
    const shown = { tags: [TAGS.submitted, TAGS.received], status: statusValue(link('received', { statusAt: '2026-11-24T09:00:00.000Z' })) };
    expect(statusChange(link('received'), shown)).toEqual({ addTags: [], removeTags: [], status: statusValue(link('received')) });
  });

  it('leaves the metafield alone before the order reached the printer', () => {
    expect(statusValue(link('waiting'))).toBeUndefined();
    expect(statusChange(link('waiting'), { tags: [TAGS.needsMapping], status: null })).toEqual({ addTags: [], removeTags: [TAGS.needsMapping] });
  });
});

describe('syncOrderToShopify', () => {
  it('reads what the order shows and writes once, in one request; a second sync writes nothing', async () => {
    const order = new Order(['vip']);
    const store = { get: async () => link('shipped') };
    expect(await syncOrderToShopify({ store, shopify: order }, SHOP, ORDER)).toMatchObject({ kind: 'synced', wrote: true });
    expect(order.writes).toHaveLength(1);
    expect(order.tags.sort()).toEqual([TAGS.shipped, TAGS.submitted, 'vip']);
    expect(await syncOrderToShopify({ store, shopify: order }, SHOP, ORDER)).toMatchObject({ kind: 'synced', wrote: false });
    expect(order.writes).toHaveLength(1);
    expect(order.reads).toBe(2);
  });

  it('shows the newer link when the link moved while it wrote, reading the order again', async () => {
    const order = new Order();
    const links = [link('print-ready'), link('shipped')];
    let reads = 0;
    // The first read of the link is print-ready; by the re-read after the write, the order shipped.
    const store = { get: async () => links[Math.min(reads++, 1)] };
    await syncOrderToShopify({ store, shopify: order }, SHOP, ORDER);
    expect(order.tags.sort()).toEqual([TAGS.shipped, TAGS.submitted]);
    expect(order.status).toMatchObject({ status: 'shipped' });
    expect(order.reads).toBe(2);
  });

  it('converges when an older writer lands after a sync that found nothing to write', async () => {
    // The order already shows shipped; a stale writer then writes print-ready over it. Its own re-read of the link
    // sees shipped and puts it back.
    const order = new Order([TAGS.submitted, TAGS.shipped], statusValue(link('shipped')));
    const fresh = { get: async () => link('shipped') };
    expect(await syncOrderToShopify({ store: fresh, shopify: order }, SHOP, ORDER)).toMatchObject({ wrote: false });
    let reads = 0;
    const stale = { get: async () => (reads++ === 0 ? link('print-ready') : link('shipped')) };
    await syncOrderToShopify({ store: stale, shopify: order }, SHOP, ORDER);
    expect(order.tags.sort()).toEqual([TAGS.shipped, TAGS.submitted]);
    expect(order.status).toMatchObject({ status: 'shipped' });
  });

  it('says so when Shopify no longer has the order, and when the app has no link', async () => {
    const gone = { orderShows: async () => null, showStatus: async () => undefined };
    expect(await syncOrderToShopify({ store: { get: async () => link('shipped') }, shopify: gone }, SHOP, ORDER)).toEqual({ kind: 'not-in-shopify' });
    expect(await syncOrderToShopify({ store: { get: async () => undefined }, shopify: gone }, SHOP, ORDER)).toEqual({ kind: 'unknown-order' });
  });
});
