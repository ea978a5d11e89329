import { describe, expect, it } from 'vitest';
import { ShopifyAdminApi } from '../admin-api.js';
import { ShopifyUnavailableError, ShopifyUserError } from './errors.js';
import { ShopifyPacer } from './pacing.js';
import { StatusWriteBatches } from './status-write-batches.js';
import type { AdminGraphqlTransport, GraphqlAnswer } from './transport.js';

const order = (n: number) => `gid://shopify/Order/${n}`;
type Sent = { operation: string; query: string; variables: Record<string, unknown> };

/** A shop that records each request and answers it with `answer` (every mutation without errors by default). */
function fakeShop(answer: (sent: Sent) => GraphqlAnswer | Error = () => ({ data: {} })) {
  const requests: Sent[] = [];
  const transport: AdminGraphqlTransport = {
    shop: 'a.myshopify.com',
    async request(operation, query, variables) {
      const sent = { operation, query, variables };
      requests.push(sent);
      const result = answer(sent);
      if (result instanceof Error) throw result;
      return result;
    },
  };
  return { requests, transport };
}

function apiOn(transport: AdminGraphqlTransport, writes: StatusWriteBatches) {
  return new ShopifyAdminApi(transport, { pacer: new ShopifyPacer({ maxUnavailableRetries: 0 }), statusWrites: writes });
}

const submitted = (n: number) => ({ addTags: ['print-bridge:submitted'], removeTags: ['print-bridge:error'], status: { status: 'submitted', n } });

describe('StatusWriteBatches', () => {
  it("sends the writes of a shop's orders made in one turn as one document: each order's tags, one metafieldsSet", async () => {
    const shop = fakeShop();
    const writes = new StatusWriteBatches();
    await Promise.all([1, 2, 3].map((n) => apiOn(shop.transport, writes).showStatus(order(n), n === 3 ? { addTags: ['print-bridge:shipped'], removeTags: [] } : submitted(n))));
    expect(shop.requests).toHaveLength(1);
    const [sent] = shop.requests;
    expect(sent!.operation).toBe('showStatuses');
    expect(sent!.query).toMatch(/^mutation PrintBridgeShowStatuses\(/);
    expect(sent!.query.match(/tagsAdd/g)).toHaveLength(3);
    expect(sent!.query.match(/tagsRemove/g)).toHaveLength(2);
    expect(sent!.query.match(/metafieldsSet/g)).toHaveLength(1);
    expect(sent!.variables).toMatchObject({ id0: order(1), add0: ['print-bridge:submitted'], remove0: ['print-bridge:error'], id2: order(3), add2: ['print-bridge:shipped'] });
    expect((sent!.variables.metafields as { ownerId: string; value: string }[]).map((m) => [m.ownerId, JSON.parse(m.value)])).toEqual([
      [order(1), { status: 'submitted', n: 1 }],
      [order(2), { status: 'submitted', n: 2 }],
    ]);
  });

  it('writes a lone order with its own one-order document, without waiting', async () => {
    const shop = fakeShop();
    const writes = new StatusWriteBatches();
    await apiOn(shop.transport, writes).showStatus(order(1), submitted(1));
    expect(shop.requests.map((r) => r.operation)).toEqual(['showStatus']);
    expect(shop.requests[0]!.query).toMatch(/^mutation PrintBridgeShowStatus\(/);
  });

  it("refuses only the order whose tags Shopify refused", async () => {
    const shop = fakeShop(() => ({ data: { added0: { userErrors: [] }, added1: { userErrors: [{ field: ['id'], message: 'Order does not exist' }] }, status: { userErrors: [] } } }));
    const writes = new StatusWriteBatches();
    const outcomes = await Promise.allSettled([1, 2].map((n) => apiOn(shop.transport, writes).showStatus(order(n), { addTags: ['print-bridge:submitted'], removeTags: [] })));
    expect(outcomes[0]!.status).toBe('fulfilled');
    expect(outcomes[1]!.status === 'rejected' && outcomes[1]!.reason).toBeInstanceOf(ShopifyUserError);
    expect(outcomes[1]!.status === 'rejected' && String(outcomes[1]!.reason.message)).toContain(order(2));
  });

  it("writes the other orders' statuses again, alone, when Shopify refused one order's entry of metafieldsSet", async () => {
    const shop = fakeShop((sent) =>
      sent.operation === 'showStatuses'
        ? { data: { added0: { userErrors: [] }, removed0: { userErrors: [] }, added1: { userErrors: [] }, removed1: { userErrors: [] }, status: { userErrors: [{ field: ['metafields', '1', 'ownerId'], message: 'Owner does not exist' }] } } }
        : { data: { status: { userErrors: [] } } },
    );
    const writes = new StatusWriteBatches();
    const outcomes = await Promise.allSettled([1, 2].map((n) => apiOn(shop.transport, writes).showStatus(order(n), submitted(n))));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    // metafieldsSet is all or nothing: order 1's status went again, its metafield alone (its tags were written).
    expect(shop.requests.map((r) => r.operation)).toEqual(['showStatuses', 'showStatus']);
    expect(shop.requests[1]!.query).not.toMatch(/tags/);
    expect((shop.requests[1]!.variables.metafields as { ownerId: string }[])[0]!.ownerId).toBe(order(1));
  });

  it('refuses every status of the batch when Shopify names no entry, and fails every write when the request fails', async () => {
    const unnamed = fakeShop(() => ({ data: { status: { userErrors: [{ field: null, message: 'Something went wrong' }] } } }));
    const writes = new StatusWriteBatches();
    const refused = await Promise.allSettled([1, 2].map((n) => apiOn(unnamed.transport, writes).showStatus(order(n), { addTags: [], removeTags: [], status: { n } })));
    expect(refused.map((o) => o.status)).toEqual(['rejected', 'rejected']);

    const down = fakeShop(() => new ShopifyUnavailableError('showStatuses', 'a.myshopify.com', 503, 'down'));
    const failed = await Promise.allSettled([1, 2].map((n) => apiOn(down.transport, writes).showStatus(order(n), submitted(n))));
    expect(failed.every((o) => o.status === 'rejected' && o.reason instanceof ShopifyUnavailableError)).toBe(true);
  });

  it("never merges two writes of one order: the second starts the next request", async () => {
    const shop = fakeShop();
    const writes = new StatusWriteBatches();
    await Promise.all([
      apiOn(shop.transport, writes).showStatus(order(1), submitted(1)),
      apiOn(shop.transport, writes).showStatus(order(2), submitted(2)),
      apiOn(shop.transport, writes).showStatus(order(1), { addTags: ['print-bridge:shipped'], removeTags: ['print-bridge:submitted'] }),
    ]);
    expect(shop.requests.map((r) => r.operation)).toEqual(['showStatuses', 'showStatus']);
    expect(shop.requests[1]!.variables).toMatchObject({ id: order(1), add: ['print-bridge:shipped'] });
  });

  it('writes at most ten orders a request, so a request never asks the bucket for more than 210 points', async () => {
    const shop = fakeShop();
    const writes = new StatusWriteBatches();
    await Promise.all(Array.from({ length: 11 }, (_, i) => apiOn(shop.transport, writes).showStatus(order(i + 1), submitted(i + 1))));
    expect(shop.requests.map((r) => r.operation)).toEqual(['showStatuses', 'showStatus']);
    expect(shop.requests[0]!.query.match(/tagsAdd|tagsRemove|metafieldsSet/g)).toHaveLength(21);
  });

  it('sends nothing for a change with nothing to write', async () => {
    const shop = fakeShop();
    await apiOn(shop.transport, new StatusWriteBatches()).showStatus(order(1), { addTags: [], removeTags: [] });
    expect(shop.requests).toEqual([]);
  });
});
