import '@shopify/shopify-api/adapters/node';
import { ApiVersion, LogSeverity, Session, shopifyApi } from '@shopify/shopify-api';
import { parse, validate } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TAGS, type StatusShowing } from '../../src/bridge/ports.js';
import { statusValue, syncOrderToShopify } from '../../src/bridge/shopify-sync.js';
import { shopifyAdminSchema } from '../../src/dev/admin-stand-in/admin-schema.js';
import { startAdminStandIn, STAND_IN_APP_NAMESPACE, type AdminStandIn } from '../../src/dev/admin-stand-in/index.js';
import { blankOrder, type OrderLink } from '../../src/orders/model.js';
import type { OrderStatus } from '../../src/orders/status.js';
import { createShopifyApiTransport, ShopifyAdminApi, ShopifyPacer, StatusMetafieldBatches } from '../../src/shopify/admin-api.js';
import { ShopifyUserError } from '../../src/shopify/admin/errors.js';
import { showStatusByOrderUpdate } from '../helpers/status-by-order-update.js';

/**
 * Issue 27: the order's status written with fewer points, and what that must not cost: a merchant's tag, including one
 * added while the status is being written; the status metafields of several orders in one `metafieldsSet`.
 */
const SHOP = 'status-write.myshopify.com';
const TOKEN = 'shpat_status_write';
const ORDER = 'gid://shopify/Order/9007199254741100';
// Ids above 2^53, as Shopify's are: BigInt arithmetic.
const orderGid = (n: number) => `gid://shopify/Order/${9007199254741100n + BigInt(n)}`;

let standIn: AdminStandIn;
let transport: ReturnType<typeof createShopifyApiTransport>;
beforeAll(async () => {
  standIn = await startAdminStandIn({ accessTokens: { [SHOP]: TOKEN } });
  const shopify = shopifyApi({ apiKey: 'k', apiSecretKey: 's', hostName: 'print-bridge.test', apiVersion: ApiVersion.January26, isEmbeddedApp: false, logger: { level: LogSeverity.Error } });
  const session = new Session({ id: `offline_${SHOP}`, shop: SHOP, state: 'test', isOnline: false, accessToken: TOKEN });
  transport = createShopifyApiTransport({ shopify, session, adminApiOrigin: standIn.origin });
});
afterAll(() => standIn?.close());
beforeEach(() => standIn.reset());

function apiWith(statusMetafields?: StatusMetafieldBatches): ShopifyAdminApi {
  return new ShopifyAdminApi(transport, { pacer: new ShopifyPacer({ unavailableBaseDelayMs: 10 }), statusMetafields });
}

function seed(gid: string, tags: string): void {
  standIn.seedOrder(SHOP, {
    admin_graphql_api_id: gid,
    name: '#1100',
    created_at: '2026-11-25T10:00:00Z',
    tags,
    line_items: [{ admin_graphql_api_id: `${gid.replace('Order', 'LineItem')}1`, sku: 'A', title: 'A', quantity: 1 }],
  });
}

function link(gid: string, status: OrderStatus): OrderLink {
  return { ...blankOrder(SHOP, gid, new Date('2026-11-25T10:00:00Z')), status, statusAt: '2026-11-25T10:05:00.000Z', sourceOrderId: 'src-1100', printOrderId: 'p-1100' };
}

const statusOf = (gid: string) =>
  standIn
    .getOrder(SHOP, gid)!
    .metafields.filter((m) => m.namespace === STAND_IN_APP_NAMESPACE && m.key === 'print_status')
    .map((m) => JSON.parse(m.value) as unknown);

const writes = () => standIn.requests().filter((r) => r.operation?.startsWith('mutation'));

/** The sync against the stand-in, with a merchant adding a tag right after the sync read the order's tags. */
function merchantTagsBetweenReadAndWrite(write: StatusShowing['showStatus'], api: ShopifyAdminApi): StatusShowing {
  return {
    orderShows: async (_shop, orderId) => {
      const shown = await api.orderShows(orderId);
      expect(standIn.store.addTags(SHOP, orderId, ['gift-wrap']).ok).toBe(true);
      return shown;
    },
    showStatus: write,
  };
}

describe("a merchant's tags are never lost", () => {
  it.each([
    ['one request (the bucket has room)', 0],
    ['the metafield in a shared metafieldsSet (the bucket short)', Infinity],
  ])("the app's write keeps a tag the merchant adds between the sync's read and its write: %s", async (_name, roomyShare) => {
    seed(ORDER, `vip, ${TAGS.submitted}, ${TAGS.printReady}`);
    const api = apiWith(new StatusMetafieldBatches({ windowMs: 5, roomyShare }));
    const shipped = link(ORDER, 'shipped');
    const outcome = await syncOrderToShopify(
      { store: { get: async () => shipped }, shopify: merchantTagsBetweenReadAndWrite((_s, id, change) => api.showStatus(id, change), api) },
      SHOP,
      ORDER,
    );
    expect(outcome).toMatchObject({ kind: 'synced', wrote: true });
    expect(standIn.getOrder(SHOP, ORDER)!.tags.sort()).toEqual(['gift-wrap', TAGS.shipped, TAGS.submitted, 'vip'].sort());
    expect(statusOf(ORDER)).toEqual([statusValue(shipped)]);
    expect(writes().map((r) => r.operation).sort()).toEqual(
      roomyShare === Infinity ? ['mutation metafieldsSet', 'mutation tagsAdd,tagsRemove'] : ['mutation tagsAdd,tagsRemove,metafieldsSet'],
    );
  });

  it('one orderUpdate (tags replaced) would lose it: why the app does not write the status that way', async () => {
    seed(ORDER, `vip, ${TAGS.submitted}, ${TAGS.printReady}`);
    const api = apiWith();
    let read: string[] = [];
    const showing = merchantTagsBetweenReadAndWrite((_s, id, change) => showStatusByOrderUpdate(api, id, read, change), api);
    const shipped = link(ORDER, 'shipped');
    await syncOrderToShopify(
      {
        store: { get: async () => shipped },
        shopify: {
          orderShows: async (shop, id) => {
            const shown = await showing.orderShows(shop, id);
            read = shown?.tags ?? [];
            return shown;
          },
          showStatus: showing.showStatus,
        },
      },
      SHOP,
      ORDER,
    );
    // One mutation, 10 points, Shopify's schema accepts it; the status is right, the merchant's tag is gone.
    const [update] = writes();
    expect(writes()).toHaveLength(1);
    expect(update).toMatchObject({ operation: 'mutation orderUpdate', actualQueryCost: 10 });
    expect(update!.refused).toBeUndefined();
    expect(validate(shopifyAdminSchema(), parse(update!.document!))).toEqual([]);
    expect(statusOf(ORDER)).toEqual([statusValue(shipped)]);
    expect(standIn.getOrder(SHOP, ORDER)!.tags.sort()).toEqual([TAGS.shipped, TAGS.submitted, 'vip'].sort());
  });
});

describe('StatusMetafieldBatches: the status metafields of several orders in one metafieldsSet', () => {
  it("writes the orders' tags each on its own and their metafields in one request of 10 points", async () => {
    const gids = [1, 2, 3].map(orderGid);
    for (const gid of gids) seed(gid, `vip, ${TAGS.submitted}`);
    const api = apiWith(new StatusMetafieldBatches({ windowMs: 1_000, roomyShare: Infinity }));
    const links = gids.map((gid) => link(gid, 'shipped'));
    const outcomes = await Promise.all(
      links.map((l) => syncOrderToShopify({ store: { get: async () => l }, shopify: { orderShows: (_s, id) => api.orderShows(id), showStatus: (_s, id, c) => api.showStatus(id, c) } }, SHOP, l.orderId)),
    );
    expect(outcomes.map((o) => o.kind)).toEqual(['synced', 'synced', 'synced']);
    for (const [i, gid] of gids.entries()) {
      expect(standIn.getOrder(SHOP, gid)!.tags).toEqual(['vip', TAGS.submitted, TAGS.shipped]);
      expect(statusOf(gid)).toEqual([statusValue(links[i]!)]);
    }
    const metafieldWrites = writes().filter((r) => r.operation === 'mutation metafieldsSet');
    expect(metafieldWrites).toHaveLength(1);
    expect(metafieldWrites[0]).toMatchObject({ actualQueryCost: 10 });
    expect(metafieldWrites[0]!.refused).toBeUndefined();
    expect(writes().filter((r) => r.operation === 'mutation tagsAdd')).toHaveLength(3);
    // What showing three orders cost: 3 × tagsAdd + one metafieldsSet, not 3 × 20.
    expect(writes().reduce((sum, r) => sum + (r.actualQueryCost ?? 0), 0)).toBe(40);
  });

  it('sends at most 25 a request, and a newer value for an order while it waits replaces the older', async () => {
    const gids = Array.from({ length: 30 }, (_, i) => orderGid(10 + i));
    for (const gid of gids) seed(gid, 'vip');
    const batches = new StatusMetafieldBatches({ windowMs: 1_000, roomyShare: Infinity });
    const api = apiWith(batches);
    const older = batches.write(api, gids[29]!, { status: 'print-ready' });
    const newer = batches.write(api, gids[29]!, { status: 'shipped' });
    await Promise.all([older, newer, ...gids.slice(0, 29).map((gid) => batches.write(api, gid, { status: 'submitted' }))]);
    const sets = writes().filter((r) => r.operation === 'mutation metafieldsSet');
    expect(sets.map((r) => (r.variables!.metafields as unknown[]).length).sort()).toEqual([25, 5].sort());
    expect(statusOf(gids[29]!)).toEqual([{ status: 'shipped' }]);
    expect(statusOf(gids[0]!)).toEqual([{ status: 'submitted' }]);
  });

  it("waits only while the shop's bucket is short: with room, a write goes at once", async () => {
    const [first, second] = [orderGid(60), orderGid(61)];
    seed(first, 'vip');
    seed(second, 'vip');
    const batches = new StatusMetafieldBatches({ windowMs: 60_000 });
    const api = apiWith(batches);
    // Before any answer and with the stand-in's bucket full: no waiting for the minute's window.
    await batches.write(api, first, { status: 'shipped' });
    await api.orderShows(second);
    expect(api.bucketShare()).toBeGreaterThan(0.9);
    await batches.write(api, second, { status: 'shipped' });
    expect(writes().filter((r) => r.operation === 'mutation metafieldsSet')).toHaveLength(2);
    expect(statusOf(second)).toEqual([{ status: 'shipped' }]);
    // A sync's tags and metafield then go in its one request, as without batches.
    await api.showStatus(second, { addTags: [TAGS.shipped], removeTags: [], status: { status: 'shipped', at: 'now' } });
    expect(writes().at(-1)!.operation).toBe('mutation tagsAdd,metafieldsSet');
  });

  it('refuses only the order Shopify refuses: the others are written', async () => {
    const [kept, other] = [orderGid(50), orderGid(51)];
    seed(kept, 'vip');
    seed(other, 'vip');
    const gone = orderGid(52);
    const batches = new StatusMetafieldBatches({ windowMs: 500, roomyShare: Infinity });
    const api = apiWith(batches);
    const results = await Promise.allSettled([batches.write(api, kept, { status: 'shipped' }), batches.write(api, gone, { status: 'shipped' }), batches.write(api, other, { status: 'error' })]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const refused = (results[1] as PromiseRejectedResult).reason as ShopifyUserError;
    expect(refused).toBeInstanceOf(ShopifyUserError);
    expect(refused.subject).toBe(gone);
    expect(statusOf(kept)).toEqual([{ status: 'shipped' }]);
    expect(statusOf(other)).toEqual([{ status: 'error' }]);
    // The all-or-nothing request once with the refused order, once without it.
    expect(writes().filter((r) => r.operation === 'mutation metafieldsSet').map((r) => (r.variables!.metafields as unknown[]).length)).toEqual([3, 2]);
  });
});
