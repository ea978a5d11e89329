/**
 * Shopify's reasons for a fulfillment hold (`FulfillmentHoldReason`, Admin API 2026-10), and the words the app uses
 * for each where Shopify's own `displayReason` is not at hand.
 */
export const FULFILLMENT_HOLD_REASONS = [
  'AWAITING_PAYMENT',
  'AWAITING_RETURN_ITEMS',
  'HIGH_RISK_OF_FRAUD',
  'INCORRECT_ADDRESS',
  'INVENTORY_OUT_OF_STOCK',
  'ONLINE_STORE_POST_PURCHASE_CROSS_SELL',
  'OTHER',
  'UNKNOWN_DELIVERY_DATE',
] as const;
export type FulfillmentHoldReason = (typeof FULFILLMENT_HOLD_REASONS)[number];

export const HOLD_REASON_WORDS: Record<FulfillmentHoldReason, string> = {
  AWAITING_PAYMENT: 'Awaiting payment',
  AWAITING_RETURN_ITEMS: 'Awaiting return items',
  HIGH_RISK_OF_FRAUD: 'High risk of fraud',
  INCORRECT_ADDRESS: 'Incorrect address',
  INVENTORY_OUT_OF_STOCK: 'Inventory out of stock',
  ONLINE_STORE_POST_PURCHASE_CROSS_SELL: 'Post-purchase upsell',
  OTHER: 'Other',
  UNKNOWN_DELIVERY_DATE: 'Unknown delivery date',
};

/**
 * One hold in Shopify's words, with its notes: "High risk of fraud (flagged by Signifyd)". The order page says it so
 * whether the order waits before the printer or a shipment waits for its fulfillment order.
 */
export function holdWords(hold: { reason: string; reasonNotes: string | null; displayReason: string }): string {
  const words = hold.displayReason || (isHoldReason(hold.reason) ? HOLD_REASON_WORDS[hold.reason] : hold.reason);
  return hold.reasonNotes ? `${words} (${hold.reasonNotes})` : words;
}

export function isHoldReason(value: string): value is FulfillmentHoldReason {
  return (FULFILLMENT_HOLD_REASONS as readonly string[]).includes(value);
}
