import { z } from 'zod';
import { FULFILLMENT_HOLD_REASONS, isHoldReason, type FulfillmentHoldReason } from '../shopify/hold-reasons.js';
import { compileGlob, normaliseRuleId, type CompiledMatch, type Glob } from './match.js';
import { compileTemplate, type Tmpl } from './templates.js';

/**
 * The zod schema of a mapping file (DESIGN section 7). Every object is strict: an unknown key, which is usually a
 * typo, is an error and never silently ignored. Strings are compiled as Liquid templates while parsing, so a syntax
 * error is a load error at the string's position. Fields with a type other than text (numbers, booleans) take either
 * a constant of that type or a template whose output is typed after rendering.
 */

function compileOrIssue(source: string, ctx: z.core.$RefinementCtx<unknown>): Tmpl {
  try {
    return compileTemplate(source);
  } catch (error) {
    const err = error as Error & { token?: { begin?: number } };
    // liquidjs appends ", line:L, col:C" (inside the template); the file position is given instead (see load.ts).
    const message = err.message.replace(/\s+/g, ' ').replace(/, line:\d+, col:\d+$/, '');
    const offset = typeof err.token?.begin === 'number' ? err.token.begin : undefined;
    ctx.addIssue({ code: 'custom', message: `Liquid error: ${message}`, params: { templateOffset: offset } });
    return z.NEVER;
  }
}

/** A text value: constant or Liquid template. YAML numbers are taken as their text (a postcode written 10001). */
/** A template's text as YAML gives it: a string, or a number written without quotes. */
const templateText = z.union([z.string(), z.number(), z.bigint()], { error: 'must be text (a constant or a Liquid template)' });
export const templ = templateText.transform((v, ctx) => compileOrIssue(String(v), ctx));

/**
 * A tracking-URL template: the customer follows it from Shopify's shipping e-mail and order status page, and the
 * merchant from print-bridge's pages, so it is a web address and nothing else. Its scheme is written out, not rendered
 * (`https://…`, or `http://…`): no order's data can turn it into `javascript:`, `data:` or anything a browser runs.
 */
const TRACKING_URL_START = /^https?:\/\/[^\s/{}]/i;
const trackingUrl = templateText
  .refine((v) => TRACKING_URL_START.test(String(v).trimStart()), {
    message: 'must be a web address starting with https:// (or http://) and a host, written out rather than rendered',
    abort: true,
  })
  .transform((v, ctx) => compileOrIssue(String(v), ctx));

/** A typed value: a constant of the type, or a template whose rendered text is converted (and checked) per order. */
export type Typed<T> = { kind: 'value'; value: T } | { kind: 'template'; tmpl: Tmpl };

/** Converts a constant's text to the field's type; shared by load (constants) and render (template output). */
export type Convert<T> = (text: string) => T | { error: string };

export const toInt =
  (min: number): Convert<number> =>
  (s) => {
    if (!/^[+-]?\d+$/.test(s) || !Number.isSafeInteger(Number(s))) return { error: 'must be a whole number' };
    const n = Number(s);
    return n < min ? { error: `must be ${min} or more` } : n;
  };
export const toNumber: Convert<number> = (s) => {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return { error: 'must be a number' };
  const n = Number(s);
  return n < 0 ? { error: 'must be 0 or more' } : n;
};
export const toBool: Convert<boolean> = (s) => {
  const v = s.toLowerCase();
  if (v === 'true' || v === 'yes') return true;
  if (v === 'false' || v === 'no') return false;
  return { error: 'must be true or false' };
};

function typed<T extends number | boolean>(base: z.ZodType<T>, what: string, convert: Convert<T>) {
  return z.unknown().transform((input, ctx): Typed<T> => {
    if (typeof input === 'string') {
      const tmpl = compileOrIssue(input, ctx);
      if (tmpl.kind !== 'const') return { kind: 'template', tmpl };
      // A string without Liquid in it is a constant: check it now rather than on every order.
      const v = convert(input.trim());
      if (typeof v === 'object' && v !== null && 'error' in v) {
        ctx.addIssue({ code: 'custom', message: `${v.error} or a Liquid template, got ${JSON.stringify(input)}` });
        return z.NEVER;
      }
      return { kind: 'value', value: v as T };
    }
    const parsed = base.safeParse(typeof input === 'bigint' ? Number(input) : input);
    if (parsed.success) return { kind: 'value', value: parsed.data };
    const issue = parsed.error.issues[0];
    const message =
      issue?.code === 'invalid_type' ? `must be ${what} or a Liquid template` : (issue?.message ?? `must be ${what}`);
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  });
}

const intField = (min: number) =>
  typed(z.number().int('must be a whole number').min(min, `must be ${min} or more`), 'a whole number', toInt(min));
const numberField = typed(z.number().min(0, 'must be 0 or more'), 'a number', toNumber);
const boolField = typed(z.boolean(), 'true or false', toBool);

/**
 * Free structured data (`extraData`): any YAML value; every string in it may be a template. Compiled strings are
 * wrapped under a symbol key so they cannot be mistaken for a merchant's own object.
 */
export const TEMPLATE_LEAF = Symbol('template');
export interface TemplateLeaf {
  [TEMPLATE_LEAF]: Tmpl;
}
const dataValue: z.ZodType<unknown> = z.lazy(() =>
  z.union([
    z.string().transform((s, ctx): TemplateLeaf => ({ [TEMPLATE_LEAF]: compileOrIssue(s, ctx) })),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(dataValue),
    z.record(z.string(), dataValue),
  ]),
);
export const dataObject = z.record(z.string(), dataValue);

/** Component attributes: text (templated), numbers and booleans. */
const attributes = z.record(
  z.string(),
  z.union([z.string().transform((s, ctx) => compileOrIssue(s, ctx)), z.number(), z.boolean()], {
    error: 'must be text, a number or true/false',
  }),
);

const nonEmptyText = z.union([z.string(), z.number()]).transform((v) => String(v)).pipe(z.string().min(1, 'must not be empty'));

function globList() {
  return z
    .union([nonEmptyText, z.array(nonEmptyText).min(1, 'give at least one pattern')], {
      error: 'must be a pattern or a list of patterns',
    })
    .transform((v): Glob[] => (Array.isArray(v) ? v : [v]).map(compileGlob));
}

function idList(gidType: string) {
  const one = z.unknown().transform((v, ctx) => {
    const id = normaliseRuleId(v, gidType);
    if (typeof id === 'string') return id;
    ctx.addIssue({ code: 'custom', message: id.error });
    return z.NEVER;
  });
  return z
    .union([z.array(one).min(1, 'give at least one id'), one])
    .transform((v): string[] => (Array.isArray(v) ? v : [v]));
}

export const matchSchema = z
  .object({
    sku: globList().optional(),
    variantId: idList('ProductVariant').optional(),
    productId: idList('Product').optional(),
    vendor: globList().optional(),
    productType: globList().optional(),
    title: globList().optional(),
    properties: z
      .record(z.string(), z.union([nonEmptyText, z.boolean().transform(String)]).transform((v) => compileGlob(v)))
      .optional(),
    requiresShipping: z.boolean().optional(),
    giftCard: z.boolean().optional(),
  })
  .strict()
  .transform((m): CompiledMatch => {
    const out: CompiledMatch = {};
    if (m.sku) out.sku = m.sku;
    if (m.variantId) out.variantId = m.variantId;
    if (m.productId) out.productId = m.productId;
    if (m.vendor) out.vendor = m.vendor;
    if (m.productType) out.productType = m.productType;
    if (m.title) out.title = m.title;
    if (m.properties) out.properties = Object.entries(m.properties);
    if (m.requiresShipping !== undefined) out.requiresShipping = m.requiresShipping;
    if (m.giftCard !== undefined) out.giftCard = m.giftCard;
    return out;
  });

export const componentRuleSchema = z
  .object({
    code: templ,
    path: templ,
    fetch: boolField.optional(),
    localFile: boolField.optional(),
    preflight: boolField.optional(),
    duplicate: intField(1).optional(),
    barcode: templ.optional(),
    sourceComponentId: templ.optional(),
    attributes: attributes.optional(),
    extraData: dataObject.optional(),
  })
  .strict();
export type ComponentRule = z.output<typeof componentRuleSchema>;

const itemShape = {
  sku: templ,
  sourceItemId: templ.optional(),
  quantity: intField(1).optional(),
  description: templ.optional(),
  dispatchAlert: templ.optional(),
  unitWeight: numberField.optional(),
  slaDays: intField(0).optional(),
  barcode: templ.optional(),
  extraData: dataObject.optional(),
  /** Applied to every component of the item; a component's own attributes win. */
  attributes: attributes.optional(),
  components: z.array(componentRuleSchema).min(1, 'an item needs at least one component carrying its artwork'),
};

export const itemRuleSchema = z.object(itemShape).strict();
export type ItemRule = z.output<typeof itemRuleSchema>;

export const productRuleSchema = z
  .object({
    match: matchSchema,
    shipment: templ.optional(),
    ...itemShape,
    sku: itemShape.sku.optional(),
    components: itemShape.components.optional(),
    /** One line item becoming several print items (a book and its bookmark, say). */
    items: z.array(itemRuleSchema).min(1, 'give at least one item').optional(),
  })
  .strict()
  .superRefine((rule, ctx) => {
    if (rule.items) {
      for (const key of ['sku', 'components'] as const) {
        if (rule[key] !== undefined) {
          ctx.addIssue({ code: 'custom', path: [key], message: `give either "items" or "sku" and "components", not both` });
        }
      }
      return;
    }
    if (rule.sku === undefined) ctx.addIssue({ code: 'custom', path: ['sku'], message: 'required (the print SKU)' });
    if (rule.components === undefined) {
      ctx.addIssue({ code: 'custom', path: ['components'], message: 'required (the artwork of the item)' });
    }
  })
  .transform((rule) => {
    const { match, shipment, items, ...single } = rule;
    // `single`: written as one item (sku, components) rather than `items`, so its fields sit on the rule itself.
    return items ? { match, shipment, items, single: false } : { match, shipment, items: [single as ItemRule], single: true };
  });
export type ProductRule = z.output<typeof productRuleSchema>;

export const stockRuleSchema = z
  .object({
    match: matchSchema,
    code: templ,
    name: templ.optional(),
    quantity: intField(1).optional(),
    unitPrice: numberField.optional(),
    shipment: templ.optional(),
  })
  .strict();
export type StockRule = z.output<typeof stockRuleSchema>;

export const ignoreRuleSchema = z
  .object({
    match: matchSchema,
    reason: z.string().optional(),
  })
  .strict();
export type IgnoreRule = z.output<typeof ignoreRuleSchema>;

const carrierSchema = z.object({ alias: templ }).strict();

const addressShape = {
  name: templ,
  companyName: templ.optional(),
  address1: templ,
  address2: templ.optional(),
  address3: templ.optional(),
  town: templ,
  postcode: templ.optional(),
  state: templ.optional(),
  isoCountry: templ,
  country: templ.optional(),
  email: templ.optional(),
};
const returnAddressSchema = z.object(addressShape).strict();
const shipToOverrideSchema = z
  .object({ ...addressShape, phone: templ.optional() })
  .partial()
  .strict();
export type ShipToOverride = z.output<typeof shipToOverrideSchema>;

const attachmentSchema = z.object({ path: templ, type: templ.optional() }).strict();

export const shipmentsSchema = z
  .object({
    carrier: carrierSchema.optional(),
    carriers: z.record(z.string(), carrierSchema).optional(),
    returnAddress: returnAddressSchema,
    attachments: z.array(attachmentSchema).optional(),
    sourceShipmentId: templ.optional(),
    shipByDate: templ.optional(),
    slaDays: intField(0).optional(),
    canShipEarly: boolField.optional(),
    /** Per-field overrides of the address taken from the order (a default postcode for countries without one, say). */
    shipTo: shipToOverrideSchema.optional(),
  })
  .strict();
export type ShipmentsConfig = z.output<typeof shipmentsSchema>;

const SHOP = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

// Checked by hand rather than as a union, so that a mistyped reason is reported at the reason, in words.
const reasonWords = `Shopify's hold reasons: ${FULFILLMENT_HOLD_REASONS.join(', ')}`;
const waitForHolds = z
  .union([z.string(), z.array(z.string())], { error: `must be all, none, or a list of ${reasonWords}` })
  .superRefine((value, ctx) => {
    if (typeof value === 'string') {
      if (value !== 'all' && value !== 'none') ctx.addIssue({ code: 'custom', message: `must be all, none, or a list of ${reasonWords}` });
      return;
    }
    if (value.length === 0) ctx.addIssue({ code: 'custom', message: 'list at least one reason, or write none' });
    value.forEach((reason, i) => {
      if (!isHoldReason(reason)) ctx.addIssue({ code: 'custom', path: [i], message: `${reason} is not one of ${reasonWords}` });
    });
  })
  .transform((value) => value as 'all' | 'none' | FulfillmentHoldReason[]);

export const mappingFileSchema = z
  .object({
    shops: z
      .array(
        z
          .string()
          .transform((s) => s.trim().toLowerCase())
          .refine(
            (s) => s === '*' || SHOP.test(s),
            'must be a store\'s myshopify.com domain (e.g. acme-books.myshopify.com) or "*" for any other store',
          ),
      )
      .min(1, 'name at least one store, or "*"'),
    destination: templ,
    order: z
      .object({
        sourceOrderId: templ.optional(),
        customerName: templ.optional(),
        extraData: dataObject.optional(),
      })
      .strict()
      .optional(),
    submit: z
      .object({
        on: z.enum(['orders/create', 'orders/paid']).default('orders/paid'),
        // Fractions are allowed (0.5 = 30 seconds): the demo and tests need a window of seconds, not minutes.
        holdMinutes: z.number().min(0, 'must be 0 or more').max(10_080, 'must be at most 10080 (a week)').default(0),
        validate: z.boolean().default(true),
        // Which of Shopify's fulfillment holds keep the order from the printer until released: every reason (`all`),
        // none, or only the reasons listed (a store printing on account lets AWAITING_PAYMENT through).
        wait_for_holds: waitForHolds.default('all'),
        // Shopify's risk recommendation the order waits on: `cancel` (CANCEL only), `investigate` (INVESTIGATE and
        // CANCEL), or `none`.
        wait_for_risk: z.enum(['cancel', 'investigate', 'none']).default('cancel'),
      })
      .strict()
      .default({ on: 'orders/paid', holdMinutes: 0, validate: true, wait_for_holds: 'all', wait_for_risk: 'cancel' }),
    shipments: shipmentsSchema,
    products: z.array(productRuleSchema).default([]),
    stockItems: z.array(stockRuleSchema).default([]),
    ignore: z.array(ignoreRuleSchema).default([]),
    unmapped: z.enum(['hold', 'skip']).default('hold'),
    tracking: z
      .record(z.string(), z.object({ company: z.string().min(1), url: trackingUrl.optional() }).strict())
      .optional(),
  })
  .strict();

export type MappingFile = z.output<typeof mappingFileSchema>;

/** Every key the schema knows, for "did you mean" hints on unknown keys. */
export const KNOWN_KEYS: readonly string[] = [
  ...new Set([
    ...Object.keys(mappingFileSchema.shape),
    'sourceOrderId', 'customerName', 'extraData', 'on', 'holdMinutes', 'validate', 'wait_for_holds', 'wait_for_risk',
    ...Object.keys(shipmentsSchema.shape), 'alias', 'path', 'type', 'phone',
    ...Object.keys(addressShape),
    ...Object.keys(productRuleSchema.in.shape),
    ...Object.keys(componentRuleSchema.shape),
    ...Object.keys(stockRuleSchema.shape),
    'reason', 'company', 'url',
    'sku', 'variantId', 'productId', 'vendor', 'productType', 'title', 'properties', 'requiresShipping', 'giftCard',
  ]),
];
