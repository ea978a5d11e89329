import { z } from 'zod';
import { nonEmpty, shipToSchema } from './schema-fields.js';
import { describeIssue, toProblems, type SchemaProblem } from './schema-problems.js';

/**
 * The print service's documents, table by table from print-service-interface.md. Where the published field list has
 * two variants, the schema takes a profile: `strict` for the later forms (sourceOrderId, sourceItemId, returnAddress,
 * carrier.alias and stock item quantity required) and `lenient` for the earliest. Unknown fields are dropped, never
 * rejected, as the interface says they are ignored.
 */

export type SchemaProfile = 'strict' | 'lenient';
export const SCHEMA_PROFILES: readonly SchemaProfile[] = ['strict', 'lenient'];

/**
 * The service writes an empty object as `[]` in its own order records (`"attributes": []`, PHP's `json_encode` of an
 * empty array does the same), so an empty array stands for an empty object; any other array is refused.
 */
function objectOrEmptyArray<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (Array.isArray(v) && v.length === 0 ? {} : v), schema);
}
const freeObject = objectOrEmptyArray(z.record(z.string(), z.unknown()));
const nonNegativeInt = z.number().int('must be a whole number').min(0, 'must be 0 or more');
const positiveInt = z.number().int('must be a whole number').min(1, 'must be 1 or more');
// A date not in the form is one fault, said once: the calendar check runs only on what has the form.
const shipByDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date in the form yyyy-mm-dd', abort: true })
  .refine((v) => {
    const d = new Date(`${v}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(v);
  }, 'must be a real calendar date (yyyy-mm-dd)');

/** The ship-to's fields without the phone; the postcode per profile. */
function returnAddressSchema(profile: SchemaProfile) {
  // The latest form made the return postcode optional; the earliest required it.
  return shipToSchema.omit({ phone: true }).extend({ postcode: profile === 'strict' ? nonEmpty.optional() : nonEmpty });
}
export type ReturnAddress = z.infer<ReturnType<typeof returnAddressSchema>>;

function carrierSchema(profile: SchemaProfile) {
  return z.object({
    // The earliest form allows an empty carrier object; the later ones require the alias.
    alias: profile === 'strict' ? nonEmpty : nonEmpty.optional(),
  });
}

export const attachmentSchema = z.object({
  path: nonEmpty,
  // Allowed values are not published; any non-empty text is passed on (docs/print-service-api.md).
  type: nonEmpty.optional(),
});

const attributeValue = z.union([z.string(), z.number(), z.boolean()]);

export const componentSchema = z
  .object({
    code: nonEmpty,
    path: nonEmpty,
    fetch: z.boolean().default(false),
    localFile: z.boolean().default(false),
    preflight: z.boolean().default(false),
    sourceComponentId: z.string().optional(),
    duplicate: positiveInt.default(1),
    barcode: z.string().optional(),
    attributes: objectOrEmptyArray(z.record(z.string(), attributeValue)).optional(),
    extraData: freeObject.optional(),
  })
  .superRefine((c, ctx) => {
    if (!c.fetch && !c.localFile) {
      ctx.addIssue({
        code: 'custom',
        path: ['fetch'],
        message: 'either fetch or localFile must be true (fetch: the file is fetched from path; localFile: it already exists at the printer)',
      });
    }
    if (c.fetch && !/^https?:\/\//i.test(c.path)) {
      ctx.addIssue({ code: 'custom', path: ['path'], message: 'must be an http(s) URL when fetch is true' });
    }
  })
  // The interface says preflight is false for a local file; say so in the document rather than send a contradiction.
  .transform((c) => (c.localFile && c.preflight ? { ...c, preflight: false } : c));
export type Component = z.infer<typeof componentSchema>;

function itemSchema(profile: SchemaProfile) {
  return z.object({
    description: z.string().optional(),
    shipmentIndex: nonNegativeInt.default(0),
    // Required by every published form; the minimum valid order omits it, so the lenient profile lets it go.
    sourceItemId: profile === 'strict' ? nonEmpty : nonEmpty.optional(),
    sku: nonEmpty,
    dispatchAlert: z.string().optional(),
    quantity: positiveInt.default(1),
    unitWeight: z.number().min(0, 'must be 0 or more').optional(),
    // One form puts slaDays on the item, the others on the shipment: both places are accepted in both profiles.
    slaDays: nonNegativeInt.optional(),
    barcode: z.string().optional(),
    extraData: freeObject.optional(),
    components: z.array(componentSchema).min(1, 'an item needs at least one component carrying its artwork'),
  });
}

function stockItemSchema(profile: SchemaProfile) {
  return z.object({
    code: nonEmpty,
    name: z.string().optional(),
    quantity: profile === 'strict' ? positiveInt : positiveInt.default(1),
    shipmentIndex: nonNegativeInt.default(0),
    unitPrice: z.number().min(0, 'must be 0 or more').default(0),
  });
}

function shipmentSchema(profile: SchemaProfile) {
  return z.object({
    sourceShipmentId: z.string().optional(),
    shipmentIndex: nonNegativeInt.optional(),
    shipByDate: shipByDate.optional(),
    slaDays: nonNegativeInt.optional(),
    canShipEarly: z.boolean().default(true),
    shipTo: shipToSchema,
    returnAddress: profile === 'strict' ? returnAddressSchema(profile) : returnAddressSchema(profile).optional(),
    carrier: carrierSchema(profile),
    attachments: z.array(attachmentSchema).optional(),
  });
}

function orderDataSchema(profile: SchemaProfile) {
  return z
    .object({
      sourceOrderId: profile === 'strict' ? nonEmpty : nonEmpty.optional(),
      customerName: z.string().optional(),
      extraData: freeObject.optional(),
      items: z.array(itemSchema(profile)).min(1, 'an order needs at least one item'),
      stockItems: z.array(stockItemSchema(profile)).optional(),
      shipments: z.array(shipmentSchema(profile)).min(1, 'an order needs at least one shipment'),
    })
    .superRefine((data, ctx) => {
      const count = data.shipments.length;
      const outOfRange = (index: number) =>
        `must be an index into shipments (0 to ${count - 1}), got ${index}`;
      data.items.forEach((item, i) => {
        if (item.shipmentIndex >= count) {
          ctx.addIssue({ code: 'custom', path: ['items', i, 'shipmentIndex'], message: outOfRange(item.shipmentIndex) });
        }
      });
      data.stockItems?.forEach((stock, i) => {
        if (stock.shipmentIndex >= count) {
          ctx.addIssue({
            code: 'custom',
            path: ['stockItems', i, 'shipmentIndex'],
            message: outOfRange(stock.shipmentIndex),
          });
        }
      });
      data.shipments.forEach((shipment, i) => {
        if (shipment.shipmentIndex !== undefined && shipment.shipmentIndex !== i) {
          ctx.addIssue({
            code: 'custom',
            path: ['shipments', i, 'shipmentIndex'],
            message: `must equal the shipment's position in the array (${i}), got ${shipment.shipmentIndex}`,
          });
        }
      });
      const seen = new Map<string, number>();
      data.items.forEach((item, i) => {
        if (item.sourceItemId === undefined) return;
        const first = seen.get(item.sourceItemId);
        if (first !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: ['items', i, 'sourceItemId'],
            message: `must be unique within the order; "${item.sourceItemId}" is also items[${first}].sourceItemId`,
          });
        } else {
          seen.set(item.sourceItemId, i);
        }
      });
    });
}

function buildOrderSchema(profile: SchemaProfile) {
  return z.object({
    destination: z.object({ name: nonEmpty }),
    orderData: orderDataSchema(profile),
  });
}

export const orderSchemas = {
  strict: buildOrderSchema('strict'),
  lenient: buildOrderSchema('lenient'),
} as const;

/** An order as sent to the service (strict profile types; lenient orders are a superset at runtime). */
export type PrintOrder = z.output<(typeof orderSchemas)['strict']>;
/** What a caller may write before defaults are applied. */
export type PrintOrderInput = z.input<(typeof orderSchemas)['strict']>;
export type PrintItem = PrintOrder['orderData']['items'][number];
export type PrintStockItem = NonNullable<PrintOrder['orderData']['stockItems']>[number];
export type PrintShipment = PrintOrder['orderData']['shipments'][number];
export type LenientPrintOrder = z.output<(typeof orderSchemas)['lenient']>;

/** Just enough structure to store and acknowledge a create: the service checks the rest asynchronously. */
export const orderEnvelopeSchema = z.object({
  destination: z.object({}).catchall(z.unknown()),
  orderData: z.object({}).catchall(z.unknown()),
});

export type ParseOrderResult<T> = { ok: true; order: T } | { ok: false; problems: SchemaProblem[] };

export function parseOrder(input: unknown, profile: 'lenient'): ParseOrderResult<LenientPrintOrder>;
export function parseOrder(input: unknown, profile?: 'strict'): ParseOrderResult<PrintOrder>;
export function parseOrder(input: unknown, profile?: SchemaProfile): ParseOrderResult<PrintOrder | LenientPrintOrder>;
export function parseOrder(
  input: unknown,
  profile: SchemaProfile = 'strict',
): ParseOrderResult<PrintOrder | LenientPrintOrder> {
  const result = orderSchemas[profile].safeParse(input, { error: describeIssue });
  if (result.success) return { ok: true, order: result.data };
  return { ok: false, problems: toProblems(result.error) };
}
