/**
 * Real-shaped Shopify `orders/paid` webhook bodies for the benchmarks (issue 27), generated from the shape of Shopify's
 * webhook payload reference (REST Order resource, API 2026-01): customer with default_address, billing and shipping
 * addresses, client_details, order and line tax_lines, discount_applications and discount_codes, note_attributes,
 * shipping_lines with price sets, the total_* strings and their *_set money bags, payment_gateway_names, and 3–10
 * line items, each with the fields Shopify sends (price_set, total_discount_set, tax_lines, discount_allocations,
 * duties, properties with storefront-personaliser values: artwork URLs, design JSON, dedications). Ids are bare JSON
 * integers above 2^53 where Shopify writes ids, with the matching exact `gid://` strings beside them.
 *
 * Every line item is printable by the benches' mapping (bench/pipeline-mapping.ts): `BOOK-*` (cover and text PDFs in
 * `_cover_pdf` / `_text_pdf`), `POSTER-*` (`_artwork_url`), `CARD-*` (`_artwork_url`, `_back_url`).
 *
 * Sizes: 6–31 KB, median about 12 KB, varied by a seeded RNG (mulberry32), so a seed gives the same bodies on every
 * machine. Self-check (prints the size distribution of 1,000 bodies):
 *
 *   npx tsx bench/shopify-order-shape.ts [--count 1000 --seed 27]
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { describeSizes, summariseSizes } from './body-sizes.js';
import { hex, int, pick, seededRng, uuid } from './seeded-random.js';
import { address, type Kind, moneySet, PEOPLE, PRODUCTS, properties, words } from './shopify-order-parts.js';

/** A big id, written into the JSON as a bare integer (see `serialise`). */
const BIG = '\u0001big:';
function big(id: bigint): string {
  return `${BIG}${id}`;
}
function serialise(value: unknown): string {
  // \u0001 is written by JSON.stringify as the six characters \u0001.
  return JSON.stringify(value).replace(/"\\u0001big:(\d+)"/g, '$1');
}

export interface GeneratedOrder {
  body: string;
  /** The order id as Shopify writes it (above 2^53: exact only as text). */
  orderId: string;
  orderNumber: number;
  lineItems: number;
}

export interface OrderShapeOptions {
  /** Shape seed: the same seed and index give the same order (apart from the serial's ids and numbers). */
  seed?: number;
  /** Makes the ids and the order number; distinct serials give distinct orders. */
  serial: number;
  /** The shape index under the seed (defaults to the serial). */
  index?: number;
  currency?: string;
}

/** One `orders/paid` webhook body (the raw JSON Shopify signs and sends). */
export function shopifyOrder(options: OrderShapeOptions): GeneratedOrder {
  const seed = options.seed ?? 27;
  const index = options.index ?? options.serial;
  const rng = seededRng((seed * 0x9e3779b1 + index * 0x85ebca6b) >>> 0);
  const serial = BigInt(options.serial);
  const currency = options.currency ?? 'GBP';
  const orderId = 5_820_000_000_000_000_000n + serial * 1_000n;
  const orderNumber = 100_000 + options.serial;
  const customerId = 7_150_000_000_000_000_000n + serial * 10n;
  const person = pick(rng, PEOPLE);
  const email = `${person[0].toLowerCase()}.${person[1].toLowerCase()}${int(rng, 1, 999)}@example.com`;
  const created = new Date(Date.UTC(2026, 10, 21, 9, 0, 0) + options.serial * 1_000).toISOString().replace('Z', '+00:00').replace('.000', '');
  const vatRate = 0.2;

  // 3–10 line items, most orders at the low end; a minority carry a saved design (the long tail).
  const r = rng();
  const lineCount = r < 0.42 ? 3 : r < 0.62 ? 4 : r < 0.74 ? 5 : r < 0.83 ? 6 : r < 0.89 ? 7 : r < 0.94 ? 8 : r < 0.97 ? 9 : 10;
  const designHeavy = rng() < 0.25 ? int(rng, 3, 24) : 0;
  const discountCode = rng() < 0.25 ? pick(rng, ['WELCOME10', 'XMAS15', 'FREESHIP', 'BOOKLOVER']) : undefined;
  const discountPct = discountCode ? pick(rng, [10, 15]) : 0;

  let subtotal = 0;
  let totalDiscount = 0;
  let totalTax = 0;
  let totalGrams = 0;
  const lineItems = Array.from({ length: lineCount }, (_, i) => {
    const kind: Kind = i === 0 ? 'book' : pick(rng, ['book', 'book', 'poster', 'card'] as const);
    const product = PRODUCTS[kind];
    const v = int(rng, 0, product.skus.length - 1);
    const title = pick(rng, product.titles);
    const variantTitle = product.variants[v % product.variants.length]!;
    const quantity = rng() < 0.85 ? 1 : int(rng, 2, 4);
    const price = int(rng, product.price[0], product.price[1]) + pick(rng, [0, 0.5, 0.99]);
    const lineTotal = price * quantity;
    const discount = Math.round(lineTotal * discountPct) / 100;
    const tax = Math.round((lineTotal - discount) * vatRate * 100) / 100 / (1 + vatRate);
    const grams = int(rng, product.grams[0], product.grams[1]);
    subtotal += lineTotal;
    totalDiscount += discount;
    totalTax += tax;
    totalGrams += grams * quantity;
    const id = 4_870_000_000_000_000_000n + serial * 16n + BigInt(i);
    const productId = 7_880_000_000_000_000_000n + BigInt(v * 7 + title.length);
    const variantId = 3_960_000_000_000_000_000n + BigInt(v * 97 + title.length);
    return {
      id: big(id),
      admin_graphql_api_id: `gid://shopify/LineItem/${id}`,
      current_quantity: quantity,
      fulfillable_quantity: quantity,
      fulfillment_service: 'manual',
      fulfillment_status: null,
      gift_card: false,
      grams,
      name: `${title} - ${variantTitle}`,
      price: price.toFixed(2),
      price_set: moneySet(price, currency),
      product_exists: true,
      product_id: big(productId),
      properties: properties(rng, kind, uuid(rng), i === 0 ? designHeavy : rng() < 0.05 ? int(rng, 1, 4) : 0),
      quantity,
      requires_shipping: true,
      sku: product.skus[v]!,
      taxable: true,
      title,
      total_discount: '0.00',
      total_discount_set: moneySet(0, currency),
      variant_id: big(variantId),
      variant_inventory_management: rng() < 0.5 ? 'shopify' : null,
      variant_title: variantTitle,
      vendor: pick(rng, ['Little Tales Press', 'Northern Prints', 'Kestrel Studio']),
      tax_lines: [{ price: tax.toFixed(2), price_set: moneySet(tax, currency), rate: vatRate, title: 'VAT' }],
      duties: [],
      discount_allocations: discount
        ? [{ amount: discount.toFixed(2), amount_set: moneySet(discount, currency), discount_application_index: 0 }]
        : [],
    };
  });

  const shippingPrice = discountCode === 'FREESHIP' ? 0 : pick(rng, [3.99, 4.95, 7.5, 12]);
  const shippingTitle = shippingPrice >= 7.5 ? 'Express' : 'Standard';
  const shippingTax = Math.round(shippingPrice * vatRate * 100) / 100 / (1 + vatRate);
  totalTax += shippingTax;
  const total = subtotal - totalDiscount + shippingPrice;
  const shippingAddress = address(rng, person);
  const billingAddress = rng() < 0.7 ? { ...shippingAddress } : address(rng, pick(rng, PEOPLE));
  const moneyPair = (name: string, amount: number) => ({ [name]: amount.toFixed(2), [`${name}_set`]: moneySet(amount, currency) });

  const order = {
    id: big(orderId),
    admin_graphql_api_id: `gid://shopify/Order/${orderId}`,
    app_id: big(580_111n),
    browser_ip: `81.${int(rng, 0, 255)}.${int(rng, 0, 255)}.${int(rng, 0, 255)}`,
    buyer_accepts_marketing: rng() < 0.4,
    cancel_reason: null,
    cancelled_at: null,
    cart_token: hex(rng, 32),
    checkout_id: big(2_760_000_000_000_000_000n + serial),
    checkout_token: hex(rng, 32),
    client_details: {
      accept_language: pick(rng, ['en-GB', 'en-GB,en;q=0.9', 'en-IE,en;q=0.8']),
      browser_height: int(rng, 600, 1300),
      browser_ip: `81.${int(rng, 0, 255)}.${int(rng, 0, 255)}.${int(rng, 0, 255)}`,
      browser_width: int(rng, 360, 2560),
      session_hash: hex(rng, 32),
      user_agent: pick(rng, [
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
        'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0',
      ]),
    },
    closed_at: null,
    company: null,
    confirmation_number: hex(rng, 9).toUpperCase(),
    confirmed: true,
    contact_email: email,
    created_at: created,
    currency,
    ...moneyPair('current_subtotal_price', subtotal - totalDiscount),
    current_shipping_price_set: moneySet(shippingPrice, currency),
    current_total_additional_fees_set: null,
    current_total_duties_set: null,
    ...moneyPair('current_total_price', total),
    customer_locale: 'en-GB',
    device_id: null,
    discount_codes: discountCode ? [{ code: discountCode, amount: totalDiscount.toFixed(2), type: 'percentage' }] : [],
    duties_included: false,
    email,
    estimated_taxes: false,
    financial_status: 'paid',
    fulfillment_status: null,
    landing_site: `/products/${pick(rng, ['the-little-explorer', 'star-map', 'thank-you-cards'])}?utm_source=${pick(rng, ['google', 'instagram', 'newsletter'])}`,
    landing_site_ref: null,
    location_id: null,
    merchant_business_entity_id: 'MTU0ODM4MDAwOQ',
    merchant_of_record_app_id: null,
    name: `#${orderNumber}`,
    note: rng() < 0.3 ? words(rng, int(rng, 5, 40)) : null,
    note_attributes: rng() < 0.5 ? [] : [
      { name: 'delivery_date', value: `2026-12-${int(rng, 10, 23)}` },
      ...(rng() < 0.4 ? [{ name: 'gift_message', value: words(rng, int(rng, 5, 30)) }] : []),
    ],
    number: orderNumber - 1000,
    order_number: orderNumber,
    order_status_url: `https://little-tales.myshopify.com/548380009/orders/${hex(rng, 32)}/authenticate?key=${hex(rng, 32)}`,
    original_total_additional_fees_set: null,
    original_total_duties_set: null,
    payment_gateway_names: [pick(rng, ['shopify_payments', 'paypal']), ...(rng() < 0.1 ? ['gift_card'] : [])],
    phone: null,
    po_number: null,
    presentment_currency: currency,
    processed_at: created,
    reference: null,
    referring_site: rng() < 0.5 ? 'https://www.google.com/' : null,
    source_identifier: null,
    source_name: 'web',
    source_url: null,
    ...moneyPair('subtotal_price', subtotal - totalDiscount),
    tags: rng() < 0.5 ? 'personalised, gift' : '',
    tax_exempt: false,
    tax_lines: [{ price: totalTax.toFixed(2), rate: vatRate, title: 'VAT', price_set: moneySet(totalTax, currency), channel_liable: false }],
    taxes_included: true,
    test: false,
    token: hex(rng, 32),
    ...moneyPair('total_discounts', totalDiscount),
    ...moneyPair('total_line_items_price', subtotal),
    total_outstanding: '0.00',
    ...moneyPair('total_price', total),
    total_shipping_price_set: moneySet(shippingPrice, currency),
    ...moneyPair('total_tax', totalTax),
    total_tip_received: '0.00',
    total_weight: totalGrams,
    updated_at: created,
    user_id: null,
    billing_address: billingAddress,
    customer: {
      id: big(customerId),
      email,
      created_at: '2025-03-02T11:20:41+00:00',
      updated_at: created,
      first_name: person[0],
      last_name: person[1],
      state: 'enabled',
      note: null,
      verified_email: true,
      multipass_identifier: null,
      tax_exempt: false,
      phone: null,
      currency,
      tax_exemptions: [],
      admin_graphql_api_id: `gid://shopify/Customer/${customerId}`,
      default_address: address(rng, person, { id: big(customerId + 1n), customer_id: big(customerId) }),
    },
    discount_applications: discountCode
      ? [{ target_type: 'line_item', type: 'discount_code', value: `${discountPct}.0`, value_type: 'percentage', allocation_method: 'across', target_selection: 'all', code: discountCode }]
      : [],
    fulfillments: [],
    line_items: lineItems,
    payment_terms: null,
    refunds: [],
    shipping_address: shippingAddress,
    shipping_lines: [
      {
        id: big(2_718_000_000_000_000_000n + serial),
        carrier_identifier: null,
        code: shippingTitle,
        discounted_price: shippingPrice.toFixed(2),
        discounted_price_set: moneySet(shippingPrice, currency),
        is_removed: false,
        phone: null,
        price: shippingPrice.toFixed(2),
        price_set: moneySet(shippingPrice, currency),
        requested_fulfillment_service_id: null,
        source: 'shopify',
        title: shippingTitle,
        tax_lines: [{ channel_liable: false, price: shippingTax.toFixed(2), price_set: moneySet(shippingTax, currency), rate: vatRate, title: 'VAT' }],
        discount_allocations: [],
      },
    ],
    returns: [],
  };
  return { body: serialise(order), orderId: String(orderId), orderNumber, lineItems: lineCount };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { count: { type: 'string', default: '1000' }, seed: { type: 'string', default: '27' } } });
  const bodies = Array.from({ length: Number(values.count) }, (_, i) => shopifyOrder({ seed: Number(values.seed), serial: i + 1 }));
  const summary = summariseSizes(bodies);
  console.log(`shopify-order-shape (seed ${values.seed}): ${describeSizes(summary)}`);
  // Self-check: the shape and the sizes the issue asks for.
  const problems: string[] = [];
  if (summary.minKb < 6 || summary.maxKb > 31) problems.push(`sizes outside 6–31 KB`);
  if (summary.medianKb < 11 || summary.medianKb > 13) problems.push(`median ${summary.medianKb.toFixed(1)} KB, not about 12 KB`);
  for (const { body, orderId } of bodies.slice(0, 50)) {
    if (!body.startsWith(`{"id":${orderId},`)) problems.push(`order ${orderId}: id is not a bare integer`);
    const parsed = JSON.parse(body) as { line_items: { properties: { name: string }[] }[] };
    if (parsed.line_items.length < 3 || parsed.line_items.length > 10) problems.push(`order ${orderId}: ${parsed.line_items.length} line items`);
  }
  if (BigInt(bodies[0]!.orderId) <= 2n ** 53n) problems.push('ids are not above 2^53');
  if (problems.length > 0) {
    console.error(`self-check FAILED: ${[...new Set(problems)].join('; ')}`);
    process.exitCode = 1;
  } else {
    console.log('self-check passed: 6–31 KB, median about 12 KB, 3–10 line items, ids bare integers above 2^53');
  }
}
