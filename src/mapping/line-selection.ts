import { matches, exactId, type CompiledMatch, type MatchableLine } from './match.js';
import type { MappingFile } from './schema.js';
import type { ShopifyLineItem, ShopifyOrder } from './shopify-order.js';

/**
 * Which rule of the mapping a Shopify line item falls under: the first ignore rule that matches, else the first
 * product rule, else the first stock item rule; a line no rule matches is left out when it is a gift card or needs no
 * shipping, and is unmapped otherwise.
 */
export type LineChoice =
  | { kind: 'ignore'; index: number; reason: string }
  | { kind: 'product'; index: number }
  | { kind: 'stock'; index: number }
  | { kind: 'left-out'; reason: string }
  | { kind: 'unmapped'; reason: string };

/** Quantity refunded per line item id, over all of the order's refunds. */
export function refundedQuantities(order: ShopifyOrder): Map<string, number> {
  const refunded = new Map<string, number>();
  for (const refund of order.refunds ?? []) {
    for (const r of refund.refund_line_items ?? []) {
      const id = exactId(r.line_item_id);
      if (id) refunded.set(id, (refunded.get(id) ?? 0) + r.quantity);
    }
  }
  return refunded;
}

/** The keys match rules test, read from a line item. */
export function matchableLine(line: ShopifyLineItem, properties: Record<string, string>): MatchableLine {
  return {
    sku: line.sku ?? '',
    variantId: exactId(line.variant_id),
    productId: exactId(line.product_id),
    vendor: line.vendor ?? '',
    productType: line.product_type ?? '',
    title: line.title ?? '',
    properties,
    requiresShipping: line.requires_shipping ?? true,
    giftCard: line.gift_card ?? false,
  };
}

export function chooseRule(config: MappingFile, line: ShopifyLineItem, matchable: MatchableLine): LineChoice {
  const ignoreIndex = firstMatch(config.ignore, matchable);
  if (ignoreIndex >= 0) {
    const rule = config.ignore[ignoreIndex];
    return { kind: 'ignore', index: ignoreIndex, reason: rule?.reason ?? 'ignore rule' };
  }
  const productIndex = firstMatch(config.products, matchable);
  if (productIndex >= 0) return { kind: 'product', index: productIndex };
  const stockIndex = firstMatch(config.stockItems, matchable);
  if (stockIndex >= 0) return { kind: 'stock', index: stockIndex };
  if (matchable.giftCard) return { kind: 'left-out', reason: 'gift card' };
  if (!matchable.requiresShipping) return { kind: 'left-out', reason: 'does not require shipping' };
  return {
    kind: 'unmapped',
    reason:
      `no rule of products, stockItems or ignore matches it (sku ${JSON.stringify(matchable.sku)}, ` +
      `variant ${matchable.variantId ?? describeMissingId(line.variant_id)}, product ${matchable.productId ?? describeMissingId(line.product_id)}, ` +
      `vendor ${JSON.stringify(matchable.vendor)})`,
  };
}

function firstMatch(rules: readonly { match: CompiledMatch }[], line: MatchableLine): number {
  for (let i = 0; i < rules.length; i++) if (matches((rules[i] as { match: CompiledMatch }).match, line)) return i;
  return -1;
}

function describeMissingId(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  return `${String(value)} (imprecise: above 2^53)`;
}
