import { z } from 'zod';

/**
 * An order read through the GraphQL Admin API, in the shape of its webhook body (REST JSON). The lost-order recovery
 * feeds such a body to the same pipeline and mapping engine as a webhook, and new public apps may make no REST call,
 * so this is the one translation from GraphQL to the webhook's fields. What maps from what:
 *
 * | webhook field | GraphQL |
 * |---|---|
 * | `id`, `admin_graphql_api_id` | `id` (the gid; its number, exact, as text) |
 * | `name`, `order_number`, `email`, `phone`, `note`, `currency` | `name`, `number`, `email`, `phone`, `note`, `currencyCode` |
 * | `created_at`, `updated_at`, `cancelled_at` | the same, camelCase |
 * | `tags` | `tags`, joined with ", " as REST does |
 * | `financial_status` | `displayFinancialStatus`, lower-case (`PARTIALLY_PAID` → `partially_paid`) |
 * | `fulfillment_status` | `displayFulfillmentStatus` (`FULFILLED` → `fulfilled`, `PARTIALLY_FULFILLED` → `partial`, else null) |
 * | `note_attributes` `[{name, value}]` | `customAttributes` `[{key, value}]` |
 * | `shipping_address.*` (`country_code`) | `shippingAddress.*` camelCase (`countryCodeV2`) |
 * | `shipping_lines[].title/code` | `shippingLines.nodes[].title/code` |
 * | `line_items[].id`, `admin_graphql_api_id`, `title`, `name`, `sku`, `vendor`, `quantity`, `current_quantity`, `requires_shipping`, `gift_card` | `lineItems.nodes[]`: `id`, `title`, `name`, `sku`, `vendor`, `quantity`, `currentQuantity`, `requiresShipping`, `isGiftCard` |
 * | `line_items[].properties` `[{name, value}]` | `customAttributes` `[{key, value}]` |
 * | `line_items[].variant_title`, `product_type` | `variantTitle`, `product.productType` |
 * | `line_items[].variant_id`, `product_id` | `variant.id`, `product.id` (numbers of the gids, as text) |
 * | `line_items[].price` | `originalUnitPriceSet.shopMoney.amount` |
 *
 * REST fields with no GraphQL source the app reads (e.g. `fulfillable_quantity`, `customer`) are left out, not invented.
 */

export const LINE_ITEMS_PAGE = 100;
/** 2,000 line items: an order beyond that is not recovered (an error names it) rather than recovered in part. */
export const LINE_ITEMS_MAX_PAGES = 20;

const LINE_ITEM_FIELDS = `
          id name title variantTitle sku vendor quantity currentQuantity requiresShipping isGiftCard
          customAttributes { key value }
          variant { id }
          product { id productType }
          originalUnitPriceSet { shopMoney { amount } }`;

/** The order and its first page of line items. */
export const ORDER_AS_WEBHOOK_BODY = `#graphql
  query orderAsWebhookBody($id: ID!) {
    order(id: $id) {
      id name number email phone note tags currencyCode createdAt updatedAt cancelledAt displayFinancialStatus displayFulfillmentStatus
      customAttributes { key value }
      shippingAddress { name firstName lastName company address1 address2 city zip province provinceCode country countryCodeV2 phone }
      shippingLines(first: 5) { nodes { title code } }
      lineItems(first: ${LINE_ITEMS_PAGE}) {
        nodes {${LINE_ITEM_FIELDS}
        }
        pageInfo { hasNextPage endCursor }
      }
    }
  }`;

/** The next page of an order's line items, for an order with more than one page. */
export const ORDER_LINE_ITEMS_PAGE = `#graphql
  query orderLineItemsPage($id: ID!, $after: String) {
    order(id: $id) {
      lineItems(first: ${LINE_ITEMS_PAGE}, after: $after) {
        nodes {${LINE_ITEM_FIELDS}
        }
        pageInfo { hasNextPage endCursor }
      }
    }
  }`;

const attribute = z.object({ key: z.string(), value: z.string().nullable() });
const text = z.string().nullable().optional();

const lineItemsSchema = z.object({
  nodes: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      title: z.string(),
      variantTitle: text,
      sku: text,
      vendor: text,
      quantity: z.number().int(),
      currentQuantity: z.number().int(),
      requiresShipping: z.boolean(),
      isGiftCard: z.boolean(),
      customAttributes: z.array(attribute),
      variant: z.object({ id: z.string() }).nullable(),
      product: z.object({ id: z.string(), productType: text }).nullable(),
      originalUnitPriceSet: z.object({ shopMoney: z.object({ amount: z.string() }) }),
    }),
  ),
  pageInfo: z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullable().optional() }),
});

export const orderAsWebhookBodySchema = z.object({
  order: z
    .object({
      id: z.string(),
      name: z.string(),
      number: z.number().int(),
      email: text,
      phone: text,
      note: text,
      tags: z.array(z.string()),
      currencyCode: z.string(),
      createdAt: z.string(),
      updatedAt: z.string(),
      cancelledAt: text,
      displayFinancialStatus: text,
      displayFulfillmentStatus: z.string(),
      customAttributes: z.array(attribute),
      shippingAddress: z
        .object({
          name: text, firstName: text, lastName: text, company: text, address1: text, address2: text, city: text, zip: text,
          province: text, provinceCode: text, country: text, countryCodeV2: text, phone: text,
        })
        .nullable(),
      shippingLines: z.object({ nodes: z.array(z.object({ title: z.string(), code: text })) }),
      lineItems: lineItemsSchema,
    })
    .nullable(),
});

export const orderLineItemsPageSchema = z.object({ order: z.object({ lineItems: lineItemsSchema }).nullable() });


/** REST's `fulfillment_status` from GraphQL's `displayFulfillmentStatus` (unfulfilled is null in REST). */
const FULFILLMENT_STATUS: Record<string, string> = { FULFILLED: 'fulfilled', PARTIALLY_FULFILLED: 'partial', RESTOCKED: 'restocked' };

type GraphqlOrder = NonNullable<z.infer<typeof orderAsWebhookBodySchema>['order']>;

/** The number of a gid, exact, as text (`gid://shopify/Order/5500000000000000001` → `"5500000000000000001"`). */
const numberOf = (gid: string | undefined | null) => (gid ? (/\/(\d+)$/.exec(gid)?.[1] ?? null) : null);

/**
 * The webhook body's JSON text. Ids above 2^53 appear as JSON numbers with their exact digits (as Shopify sends them),
 * which the app's lossless parse reads back exactly.
 */
export function orderAsWebhookBody(order: GraphqlOrder): string {
  const body = {
    id: `@@${numberOf(order.id)}@@`,
    admin_graphql_api_id: order.id,
    name: order.name,
    order_number: order.number,
    email: order.email ?? null,
    phone: order.phone ?? null,
    note: order.note ?? null,
    tags: order.tags.join(', '),
    currency: order.currencyCode,
    created_at: order.createdAt,
    updated_at: order.updatedAt,
    cancelled_at: order.cancelledAt ?? null,
    financial_status: order.displayFinancialStatus ? order.displayFinancialStatus.toLowerCase() : null,
    fulfillment_status: FULFILLMENT_STATUS[order.displayFulfillmentStatus] ?? null,
    note_attributes: order.customAttributes.map((a) => ({ name: a.key, value: a.value })),
    shipping_address: order.shippingAddress
      ? {
          name: order.shippingAddress.name ?? null,
          first_name: order.shippingAddress.firstName ?? null,
          last_name: order.shippingAddress.lastName ?? null,
          company: order.shippingAddress.company ?? null,
          address1: order.shippingAddress.address1 ?? null,
          address2: order.shippingAddress.address2 ?? null,
          city: order.shippingAddress.city ?? null,
          zip: order.shippingAddress.zip ?? null,
          province: order.shippingAddress.province ?? null,
          province_code: order.shippingAddress.provinceCode ?? null,
          country: order.shippingAddress.country ?? null,
          country_code: order.shippingAddress.countryCodeV2 ?? null,
          phone: order.shippingAddress.phone ?? null,
        }
      : null,
    shipping_lines: order.shippingLines.nodes.map((l) => ({ title: l.title, code: l.code ?? null })),
    line_items: order.lineItems.nodes.map((l) => ({
      id: `@@${numberOf(l.id)}@@`,
      admin_graphql_api_id: l.id,
      title: l.title,
      variant_title: l.variantTitle ?? null,
      name: l.name,
      sku: l.sku ?? null,
      vendor: l.vendor ?? null,
      // Shopify answers "" for a product without a type; a webhook's line item has no type at all, and a mapping's
      // `{% if line_item.product_type %}` must read the recovered order as it reads the webhook ("" is true in Liquid).
      product_type: l.product?.productType || null,
      quantity: l.quantity,
      current_quantity: l.currentQuantity,
      requires_shipping: l.requiresShipping,
      gift_card: l.isGiftCard,
      price: l.originalUnitPriceSet.shopMoney.amount,
      properties: l.customAttributes.map((a) => ({ name: a.key, value: a.value })),
      variant_id: numberOf(l.variant?.id) === null ? null : `@@${numberOf(l.variant?.id)}@@`,
      product_id: numberOf(l.product?.id) === null ? null : `@@${numberOf(l.product?.id)}@@`,
    })),
  };
  // Numbers are written as bare digits (exact beyond 2^53) in place of their placeholders.
  return JSON.stringify(body).replace(/"@@(\d+)@@"/g, '$1');
}
