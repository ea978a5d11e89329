import { getOperationAST, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { actualQueryCost, LeakyBucket, requestedQueryCost } from './cost.js';
import { buildAdminSchema } from './resolvers.js';

const schema = buildAdminSchema();

function costs(query: string, data: unknown, variables: Record<string, unknown> = {}) {
  const document = parse(query);
  const operation = getOperationAST(document)!;
  return {
    requested: requestedQueryCost(schema, document, operation, variables),
    actual: actualQueryCost(schema, document, operation, variables, data),
  };
}

// Every way the app's queries select objects: an aliased connection with nodes, one with edges, a list of objects
// with a nested connection and a list, and a single object.
const ORDER_QUERY = `query($id: ID!, $lines: Int!) {
  order(id: $id) {
    id
    lines: lineItems(first: $lines) { nodes { id } pageInfo { hasNextPage } }
    fulfillmentOrders(first: 5) { edges { cursor node { id lineItems(first: 25) { nodes { id lineItem { id } } } } } }
    fulfillments(first: 10) { id trackingInfo(first: 5) { number } fulfillmentLineItems(first: 10) { nodes { id lineItem { id } } } }
    metafield(namespace: "print_bridge", key: "status") { value }
  }
}`;

const line = (n: number) => ({ id: `gid://shopify/LineItem/${n}` });
const TWO_LINE_ORDER = {
  order: {
    id: 'gid://shopify/Order/1',
    lines: { nodes: [line(1), line(2)], pageInfo: { hasNextPage: false } },
    fulfillmentOrders: {
      edges: [
        {
          cursor: 'c1',
          node: { id: 'gid://shopify/FulfillmentOrder/1', lineItems: { nodes: [{ id: 'fol1', lineItem: line(1) }, { id: 'fol2', lineItem: line(2) }] } },
        },
      ],
    },
    fulfillments: [{ id: 'gid://shopify/Fulfillment/1', trackingInfo: [{ number: 'RM1' }], fulfillmentLineItems: { nodes: [{ id: 'fl1', lineItem: line(1) }] } }],
    metafield: null,
  },
};

describe('query cost', () => {
  it('requests what the query could return at most', () => {
    // order 1 + lines (2 + 10 × node 1) + fulfillmentOrders (2 + 5 × (node 1 + lineItems (2 + 25 × (node 1 + lineItem 1))))
    // + fulfillments (1 + 10 × (trackingInfo 1 + fulfillmentLineItems (2 + 10 × 2))) + metafield 1
    // = 1 + 12 + 267 + 231 + 1
    expect(costs(ORDER_QUERY, TWO_LINE_ORDER, { id: 'gid://shopify/Order/1', lines: 10 }).requested).toBe(512);
  });

  it('costs what the query returned once it ran', () => {
    // order 1 + lines (2 + 2) + fulfillmentOrders (2 + 1 × (1 + (2 + 2 × 2))) + fulfillments (1 + 1 × (1 + (2 + 1 × 2)))
    // + metafield answered null 1
    expect(costs(ORDER_QUERY, TWO_LINE_ORDER, { id: 'gid://shopify/Order/1', lines: 10 })).toEqual({ requested: 512, actual: 21 });
  });

  it('costs each id of nodes(ids:) as an object looked up, found or not', () => {
    const query = `query($ids: [ID!]!) { nodes(ids: $ids) { ... on Order { id createdAt } } }`;
    const ids = ['gid://shopify/Order/1', 'gid://shopify/Order/2', 'gid://shopify/Order/3'];
    expect(costs(query, { nodes: [{ id: ids[0], createdAt: 'x' }, null, { id: ids[2], createdAt: 'x' }] }, { ids })).toEqual({ requested: 3, actual: 3 });
    expect(costs(`{ nodes(ids: ["gid://shopify/Order/1", "gid://shopify/Order/2"]) { id } }`, { nodes: [null, null] }).requested).toBe(2);
  });

  it('costs the lookup alone when the object is not there', () => {
    expect(costs(ORDER_QUERY, { order: null }, { id: 'gid://shopify/Order/2', lines: 10 }).actual).toBe(1);
  });

  it('costs a full page as requested', () => {
    const query = `{ orders(first: 3) { nodes { id } } }`;
    const full = { orders: { nodes: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] } };
    expect(costs(query, full)).toEqual({ requested: 5, actual: 5 });
    expect(costs(query, { orders: { nodes: [] } })).toEqual({ requested: 5, actual: 2 });
  });

  it('never costs more than was requested, even for a list asked for without first', () => {
    const query = `query($id: ID!) { order(id: $id) { fulfillments { id trackingInfo { number } } } }`;
    const three = { order: { fulfillments: [1, 2, 3].map((n) => ({ id: `f${n}`, trackingInfo: [] })) } };
    // order 1 + fulfillments (1 + 1 × trackingInfo 1): the three returned would be 1 + (1 + 3 × 1) = 5.
    expect(costs(query, three, { id: 'gid://shopify/Order/1' })).toEqual({ requested: 3, actual: 3 });
  });

  it('charges a mutation its requested cost', () => {
    const mutation = `mutation($id: ID!) { tagsAdd(id: $id, tags: ["a"]) { node { id } userErrors { message } } }`;
    expect(costs(mutation, { tagsAdd: { node: { id: 'x' }, userErrors: [] } }, { id: 'gid://shopify/Order/1' })).toEqual({ requested: 10, actual: 10 });
  });
});

describe('LeakyBucket', () => {
  it('takes the requested cost and gives back what the query did not use, up to the maximum', () => {
    let now = 0;
    const bucket = new LeakyBucket(2000, 100, () => now);
    expect(bucket.tryTake(512)).toBe(true);
    expect(bucket.status().currentlyAvailable).toBe(1488);
    bucket.refund(512 - 21);
    expect(bucket.status().currentlyAvailable).toBe(1979);
    now += 500; // +50 points
    bucket.refund(100);
    expect(bucket.status().currentlyAvailable).toBe(2000);
  });
});
