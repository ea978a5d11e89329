import { describe, expect, it } from 'vitest';
import { gidPattern, isGid, toGid } from './gid.js';

describe("Shopify's gids", () => {
  it("takes Shopify's suffixed fulfillment service ids (…?id=true) whole", () => {
    expect(isGid('FulfillmentService', 'gid://shopify/FulfillmentService/53834285194?id=true')).toBe(true);
    expect(isGid('InventoryLevel', 'gid://shopify/InventoryLevel/523463154?inventory_item_id=30322695')).toBe(true);
    expect(toGid('FulfillmentService', 'gid://shopify/FulfillmentService/53834285194?id=true')).toBe('gid://shopify/FulfillmentService/53834285194?id=true');
  });

  it('takes a query only on the types Shopify writes one for', () => {
    expect(isGid('Order', 'gid://shopify/Order/1?id=true')).toBe(false);
    expect(isGid('FulfillmentOrder', 'gid://shopify/FulfillmentOrder/1?id=true')).toBe(false);
    expect(isGid('MailingAddress', 'gid://shopify/MailingAddress/1?model_name=CustomerAddress')).toBe(true);
  });

  it('refuses another type, a missing number, and a query that is not name=value pairs', () => {
    expect(isGid('FulfillmentService', 'gid://shopify/Location/1')).toBe(false);
    expect(isGid('FulfillmentService', 'gid://shopify/FulfillmentService/?id=true')).toBe(false);
    expect(isGid('FulfillmentService', 'gid://shopify/FulfillmentService/1?')).toBe(false);
    expect(isGid('FulfillmentService', 'gid://shopify/FulfillmentService/1?id=true#x')).toBe(false);
    expect(isGid('FulfillmentService', 'gid://shopify/FulfillmentService/1?<script>=1')).toBe(false);
    expect(isGid('Order', 'gid://shopify/Order/1\n')).toBe(false);
    expect(gidPattern('Order').test('xgid://shopify/Order/1')).toBe(false);
  });

  it('makes a gid of a bare number (REST-style bodies), and nothing of anything else', () => {
    expect(toGid('FulfillmentOrder', '1046000778')).toBe('gid://shopify/FulfillmentOrder/1046000778');
    expect(toGid('FulfillmentOrder', 'abc')).toBeUndefined();
  });
});
