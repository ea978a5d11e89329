import { createHash } from 'node:crypto';
import { z } from 'zod';
import { addressFields, describeLineItem, lineItemFields, lineItemOfIssue, orderFields, readOrderJson, shopifyId } from '../orders/shopify-order.js';

/**
 * The parts of an order webhook body (REST JSON) that the pipeline itself reads. The mapping engine receives the
 * whole body; this schema only guards what the bridge relies on. Ids are read from the lossless parse, so numeric ids
 * may arrive as strings when they exceed 2^53.
 */
const id = shopifyId.transform(String);

const addressSchema = z.object(addressFields).loose();

export const orderWebhookSchema = z
  .object({
    id,
    // Older API versions and some exports send no gid: it is the numeric id's (read exactly, as text), as line items'.
    ...orderFields,
    admin_graphql_api_id: z.string().regex(/^gid:\/\/shopify\/Order\/\d+$/, 'must be an Order gid').nullish(),
    name: z.string().nullish(),
    updated_at: z.string().nullish(),
    created_at: z.string().nullish(),
    cancelled_at: z.string().nullish(),
    financial_status: z.string().nullish(),
    shipping_address: addressSchema.nullish(),
    line_items: z
      .array(
        z
          .object({
            ...lineItemFields,
            id: lineItemFields.id.transform(String),
            title: z.string().nullish(),
            quantity: z.number(),
          })
          .loose(),
      )
      .default([]),
  })
  .loose()
  .transform((order) => ({ ...order, admin_graphql_api_id: order.admin_graphql_api_id ?? `gid://shopify/Order/${order.id}` }));
export type OrderWebhook = z.infer<typeof orderWebhookSchema>;
export type ShopifyAddress = z.infer<typeof addressSchema>;

export type ParsedOrderWebhook = { ok: true; order: OrderWebhook; raw: unknown } | { ok: false; message: string };

/** Reads an order webhook body; the REST `{"order": ...}` wrapper is accepted too. */
export function parseOrderWebhook(rawBody: string): ParsedOrderWebhook {
  let raw: unknown;
  try {
    raw = readOrderJson(rawBody);
  } catch (error) {
    return { ok: false, message: `the body is not JSON: ${(error as Error).message}` };
  }
  const parsed = orderWebhookSchema.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      message: parsed.error.issues.map((i) => `${lineItemWords(raw, i.path)}${i.path.join('.') || '(body)'}: ${i.message}`).join('; '),
    };
  }
  return { ok: true, order: parsed.data, raw };
}

/** `line item ? (SKU none, "Plush Bundle") ` before an issue of a line item, named as mapping problems name it. */
function lineItemWords(raw: unknown, path: readonly PropertyKey[]): string {
  const line = lineItemOfIssue(raw, path);
  return line ? `${describeLineItem(line)} ` : '';
}

/** A line item's gid, built from its id when the body has none (older API versions). */
export function lineItemGid(item: OrderWebhook['line_items'][number]): string {
  return item.admin_graphql_api_id ?? `gid://shopify/LineItem/${item.id}`;
}

/** A fingerprint of the shipping address, to notice a change after submission. */
export function shippingAddressHash(order: Pick<OrderWebhook, 'shipping_address'>): string {
  const a = order.shipping_address;
  const fields = a
    ? [a.name, a.company, a.address1, a.address2, a.city, a.zip, a.province, a.province_code, a.country_code, a.phone]
    : ['(none)'];
  return createHash('sha256').update(JSON.stringify(fields.map((f) => f ?? ''))).digest('hex').slice(0, 16);
}
