/**
 * The demo store and its sample orders: Shopify order webhook bodies (REST JSON, as `orders/create`,
 * `orders/paid`, `orders/updated` and `orders/cancelled` deliver them), written for the demo. Ids are realistic
 * 13- and 14-digit Shopify ids, and every record carries its `admin_graphql_api_id`, which is what the app keys on.
 */

export const DEMO_SHOP = 'print-bridge-demo.myshopify.com';
export const DEMO_SHOP_HANDLE = 'print-bridge-demo';
/** A second store, connected but without a mapping until the late-mapping scenario writes one. */
export const DEMO_LATE_SHOP = 'print-bridge-late.myshopify.com';
export const DEMO_LATE_SHOP_HANDLE = 'print-bridge-late';
/** A store that installs the app and sets itself up in it: its own print account, postback address and mapping. */
export const DEMO_OWN_SHOP = 'print-bridge-own.myshopify.com';
export const DEMO_OWN_SHOP_HANDLE = 'print-bridge-own';
/**
 * A store in fulfillment-service mode: print-bridge is its fulfillment service, whose location stocks the printed
 * products; Shopify requests those lines of print-bridge, and the merchant ships the rest from their own location.
 */
export const DEMO_SERVICE_SHOP = 'print-bridge-demo-service.myshopify.com';
export const DEMO_SERVICE_SHOP_HANDLE = 'print-bridge-demo-service';

export interface ShopifyAddressBody {
  name: string;
  first_name: string;
  last_name: string;
  company: string | null;
  address1: string;
  address2: string | null;
  city: string;
  zip: string;
  province: string | null;
  province_code: string | null;
  country: string;
  country_code: string;
  phone: string | null;
}

export interface LineItemBody {
  id: number;
  admin_graphql_api_id: string;
  variant_id: number;
  product_id: number;
  sku: string;
  title: string;
  variant_title: string | null;
  name: string;
  vendor: string;
  product_type: string;
  quantity: number;
  current_quantity: number;
  fulfillable_quantity: number;
  requires_shipping: boolean;
  gift_card: boolean;
  price: string;
  properties: { name: string; value: string }[];
}

export interface OrderBody {
  id: number;
  admin_graphql_api_id: string;
  name: string;
  order_number: number;
  email: string;
  phone: string | null;
  created_at: string;
  updated_at: string;
  processed_at: string;
  cancelled_at: string | null;
  cancel_reason: string | null;
  closed_at: string | null;
  financial_status: 'pending' | 'paid' | 'voided' | 'refunded';
  fulfillment_status: null;
  currency: string;
  presentment_currency: string;
  subtotal_price: string;
  total_price: string;
  total_tax: string;
  tags: string;
  note: string | null;
  source_name: string;
  shipping_address: ShopifyAddressBody;
  billing_address: ShopifyAddressBody;
  shipping_lines: { id: number; code: string; title: string; price: string; source: string }[];
  line_items: LineItemBody[];
}

/** A product as the demo store sells it; `sku` is the variant SKU the mapping matches on. */
interface Product {
  sku: string;
  title: string;
  variantTitle: string | null;
  vendor: string;
  productType: string;
  price: string;
  productId: number;
  variantId: number;
}

const STUDIO = 'Print Bridge Studio';
/** Journals are bound at another site, so they travel in a shipment of their own (the mapping groups by vendor). */
const BINDERY = 'Bindery North';

/** The demo store's catalogue. `TOTE-CANVAS-NAVY` is on sale but nobody has told the mapping about it yet. */
export const PRODUCTS = {
  posterA2: { sku: 'POSTER-A2-MOUNTAINS', title: 'Mountains at Dawn poster', variantTitle: 'A2', vendor: STUDIO, productType: 'Poster', price: '24.00', productId: 8_812_340_000_101, variantId: 46_120_000_000_101 },
  posterA3: { sku: 'POSTER-A3-HARBOUR', title: 'Harbour Lights poster', variantTitle: 'A3', vendor: STUDIO, productType: 'Poster', price: '18.00', productId: 8_812_340_000_102, variantId: 46_120_000_000_102 },
  cardBirthday: { sku: 'CARD-A6-BIRTHDAY', title: 'Birthday card', variantTitle: 'A6', vendor: STUDIO, productType: 'Card', price: '3.50', productId: 8_812_340_000_103, variantId: 46_120_000_000_103 },
  envelope: { sku: 'ENVELOPE-C6-KRAFT', title: 'Kraft envelope', variantTitle: 'C6', vendor: STUDIO, productType: 'Stationery', price: '0.50', productId: 8_812_340_000_104, variantId: 46_120_000_000_104 },
  journal: { sku: 'JOURNAL-A5-PERSONAL', title: 'Personalised journal', variantTitle: 'A5 hardcover', vendor: BINDERY, productType: 'Journal', price: '29.00', productId: 8_812_340_000_105, variantId: 46_120_000_000_105 },
  toteBag: { sku: 'TOTE-CANVAS-NAVY', title: 'Canvas tote bag', variantTitle: 'Navy', vendor: STUDIO, productType: 'Bag', price: '15.00', productId: 8_812_340_000_106, variantId: 46_120_000_000_106 },
} as const satisfies Record<string, Product>;

export const ADDRESSES = {
  leeds: address('Amelia Hart', null, '14 Cardigan Road', 'Flat 2', 'Leeds', 'LS6 3AG', null, null, 'United Kingdom', 'GB', '+44 113 496 0000'),
  lodz: address('Zoë Ünal', null, 'ul. Piotrkowska 104', null, 'Łódź', '90-926', 'Łódzkie', null, 'Poland', 'PL', '+48 42 638 44 00'),
  koeln: address('Jürgen Groß', 'Groß & Söhne', 'Hohe Straße 52', null, 'Köln', '50667', 'Nordrhein-Westfalen', 'NW', 'Germany', 'DE', null),
  tokyo: address('山田 花子', null, '千代田区丸の内1-1-1', null, '東京都', '100-0005', 'Tokyo', 'JP-13', 'Japan', 'JP', '+81 3-0000-0000'),
  madrid: address('José Martínez', null, 'Calle de Alcalá 42', '3º B', 'Madrid', '28014', 'Madrid', 'M', 'Spain', 'ES', null),
  york: address('Priya Natarajan', null, '7 Stonegate', null, 'York', 'YO1 8AS', null, null, 'United Kingdom', 'GB', '+44 1904 000000'),
  yorkNew: address('Priya Natarajan', null, '31 Marygate', null, 'York', 'YO30 7BH', null, null, 'United Kingdom', 'GB', '+44 1904 000000'),
  dublin: address('Siobhán Ní Bhriain', null, '12 Fitzwilliam Square', null, 'Dublin 2', 'D02 X285', 'Dublin', 'D', 'Ireland', 'IE', null),
} as const;

function address(
  name: string,
  company: string | null,
  address1: string,
  address2: string | null,
  city: string,
  zip: string,
  province: string | null,
  provinceCode: string | null,
  country: string,
  countryCode: string,
  phone: string | null,
): ShopifyAddressBody {
  const [first, ...rest] = name.split(' ');
  return {
    name,
    first_name: first ?? name,
    last_name: rest.join(' '),
    company,
    address1,
    address2,
    city,
    zip,
    province,
    province_code: provinceCode,
    country,
    country_code: countryCode,
    phone,
  };
}

export const SHIPPING = {
  standard: { code: 'Standard', title: 'Standard', price: '4.95' },
  express: { code: 'Express', title: 'Express', price: '12.00' },
} as const;

export interface LineInput {
  product: Product;
  quantity?: number;
  /** Line item properties, as the storefront's personaliser writes them (`_` ones are hidden from the customer). */
  properties?: Record<string, string>;
}

export interface OrderInput {
  /** Order number; the ids are derived from it so every run sends the same orders. */
  number: number;
  email: string;
  lines: LineInput[];
  shipTo: ShopifyAddressBody;
  shipping: { code: string; title: string; price: string };
  /** When the order was placed; later versions (edits, cancellation) move `updated_at` on from here. */
  placedAt: Date;
  note?: string;
}

/** Builds the body Shopify sends for a newly paid order. */
export function orderBody(input: OrderInput): OrderBody {
  const orderId = 5_912_345_600_000 + input.number;
  const lineItems = input.lines.map((line, index): LineItemBody => {
    const lineId = 14_912_345_600_000 + input.number * 10 + index;
    const quantity = line.quantity ?? 1;
    const { product } = line;
    return {
      id: lineId,
      admin_graphql_api_id: `gid://shopify/LineItem/${lineId}`,
      variant_id: product.variantId,
      product_id: product.productId,
      sku: product.sku,
      title: product.title,
      variant_title: product.variantTitle,
      name: product.variantTitle ? `${product.title} - ${product.variantTitle}` : product.title,
      vendor: product.vendor,
      product_type: product.productType,
      quantity,
      current_quantity: quantity,
      fulfillable_quantity: quantity,
      requires_shipping: true,
      gift_card: false,
      price: product.price,
      properties: Object.entries(line.properties ?? {}).map(([name, value]) => ({ name, value })),
    };
  });
  const subtotal = input.lines.reduce((sum, line) => sum + Number(line.product.price) * (line.quantity ?? 1), 0);
  const total = subtotal + Number(input.shipping.price);
  const at = shopifyTime(input.placedAt);
  return {
    id: orderId,
    admin_graphql_api_id: `gid://shopify/Order/${orderId}`,
    name: `#${input.number}`,
    order_number: input.number,
    email: input.email,
    phone: input.shipTo.phone,
    created_at: at,
    updated_at: at,
    processed_at: at,
    cancelled_at: null,
    cancel_reason: null,
    closed_at: null,
    financial_status: 'paid',
    fulfillment_status: null,
    currency: 'GBP',
    presentment_currency: 'GBP',
    subtotal_price: subtotal.toFixed(2),
    total_price: total.toFixed(2),
    total_tax: (total / 6).toFixed(2),
    tags: '',
    note: input.note ?? null,
    source_name: 'web',
    shipping_address: input.shipTo,
    billing_address: input.shipTo,
    shipping_lines: [{ id: 4_712_345_600_000 + input.number, ...input.shipping, source: 'shopify' }],
    line_items: lineItems,
  };
}

/** The same order as `orders/create` delivers it at checkout, before the payment is captured. */
export function asCreated(order: OrderBody): OrderBody {
  return { ...order, financial_status: 'pending' };
}

/** A later version of the order with a new shipping address, as `orders/updated` delivers it. */
export function withNewShippingAddress(order: OrderBody, shipTo: ShopifyAddressBody, at: Date): OrderBody {
  return { ...order, shipping_address: shipTo, updated_at: shopifyTime(at) };
}

/** The order as `orders/cancelled` delivers it after the merchant cancels it in Shopify admin. */
export function asCancelled(order: OrderBody, at: Date, reason: 'customer' | 'inventory' | 'fraud' | 'declined' | 'other'): OrderBody {
  const time = shopifyTime(at);
  return { ...order, cancelled_at: time, cancel_reason: reason, updated_at: time, financial_status: 'refunded' };
}

/** Shopify's timestamp form, in the shop's time zone (the demo store is in London, UTC in winter). */
export function shopifyTime(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}
