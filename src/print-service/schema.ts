import { z } from 'zod';
import { ISO_COUNTRY_CODES, NOT_ISO_COUNTRY } from './iso-countries.js';

/**
 * The print service's documents, table by table from print-service-interface.md. Where the published field list has
 * two variants, the schema takes a profile: `strict` for the later forms (sourceOrderId, sourceItemId, returnAddress,
 * carrier.alias and stock item quantity required) and `lenient` for the earliest. Unknown fields are dropped, never
 * rejected, as the interface says they are ignored.
 */

export type SchemaProfile = 'strict' | 'lenient';
export const SCHEMA_PROFILES: readonly SchemaProfile[] = ['strict', 'lenient'];

const nonEmpty = z.string().min(1, 'must not be empty');
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
const isoCountry = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be a two-letter ISO country code')
  .transform((v) => v.toUpperCase())
  .superRefine((v, ctx) => {
    if (ISO_COUNTRY_CODES.has(v)) return;
    const meant = NOT_ISO_COUNTRY[v];
    ctx.addIssue({
      code: 'custom',
      message: meant ? `${v} is not an ISO 3166-1 country code; use ${meant}` : `${v} is not an ISO 3166-1 alpha-2 country code`,
    });
  });
const shipByDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date in the form yyyy-mm-dd')
  .refine((v) => {
    const d = new Date(`${v}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(v);
  }, 'must be a real calendar date (yyyy-mm-dd)');

export const shipToSchema = z.object({
  name: nonEmpty,
  companyName: z.string().optional(),
  address1: nonEmpty,
  address2: z.string().optional(),
  address3: z.string().optional(),
  town: nonEmpty,
  postcode: nonEmpty,
  state: z.string().optional(),
  isoCountry,
  country: z.string().optional(),
  email: z.string().optional(),
  phone: z.string().optional(),
});
export type ShipTo = z.infer<typeof shipToSchema>;

function returnAddressSchema(profile: SchemaProfile) {
  return z.object({
    name: nonEmpty,
    companyName: z.string().optional(),
    address1: nonEmpty,
    address2: z.string().optional(),
    address3: z.string().optional(),
    town: nonEmpty,
    // The latest form made the return postcode optional; the earliest required it.
    postcode: profile === 'strict' ? nonEmpty.optional() : nonEmpty,
    state: z.string().optional(),
    isoCountry,
    country: z.string().optional(),
    email: z.string().optional(),
  });
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

export interface SchemaProblem {
  /** e.g. `orderData.items[1].components[0].path` */
  path: string;
  message: string;
}

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

/** Turns a zod error into `{path, message}` pairs with JSON paths (`a.b[0].c`). */
export function toProblems(error: z.ZodError): SchemaProblem[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message }));
}

export function formatProblems(problems: readonly SchemaProblem[]): string {
  return problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('\n');
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$]*$/.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

/** Plain words for the common issues; zod's own message for the rest. */
export function describeIssue(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code === 'invalid_type') {
    if (issue.input === undefined) return 'required';
    return `must be ${article(issue.expected)}, got ${describeValue(issue.input)}`;
  }
  return undefined;
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

// ---- Answers of the service -------------------------------------------------------------------------------------

const objectId = z.string().regex(/^[0-9a-f]{24}$/i, 'must be a 24-character hexadecimal id');

const acknowledgementFields = z.object({
  _id: objectId,
  url: z.string().optional(),
  timestamp: z.string().refine((v) => !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 date-time').optional(),
  sourceAccountId: z.string().optional(),
});

/**
 * The answer to a create. The interface documents `{_id, url, timestamp, sourceAccountId}`; HP's own SDK sample of a
 * real creation answer is the stored order instead, `{order: {_id, ...server-added fields}, success: true}`, without
 * `url`, `timestamp` or `sourceAccountId` (shared fixture 03). Both are read: the `_id` is what the app keeps, and it
 * is required; the other fields are kept when given. Refusing the real shape would turn every acknowledged create
 * into a protocol error after the order exists (reconciled by sourceOrderId, but every order down the error path).
 * Decision in docs/print-service-api.md.
 */
export const acknowledgementSchema = z.union([
  acknowledgementFields,
  z.object({ order: acknowledgementFields.loose(), success: z.literal(true).optional() }).transform(({ order }) => ({
    _id: order._id,
    ...(order.url !== undefined ? { url: order.url } : {}),
    ...(order.timestamp !== undefined ? { timestamp: order.timestamp } : {}),
    ...(order.sourceAccountId !== undefined ? { sourceAccountId: order.sourceAccountId } : {}),
  })),
]);
export type Acknowledgement = z.infer<typeof acknowledgementFields>;

export const errorBodySchema = z.object({
  success: z.literal(false).optional(),
  error: z.object({
    message: z.string(),
    name: z.string(),
    code: z.number().int(),
    validations: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

export const validateAnswerSchema = z.object({ valid: z.literal(true) });

/** A carrier as the service reports it after dispatch or as it is amended: code and service. */
export const carrierServiceSchema = z.object({ code: z.string(), service: z.string().optional() }).loose();

/** The shipment resource, as returned by update shipping and embedded in order records. */
export const shipmentResourceSchema = z
  .object({
    shipmentIndex: z.number().int(),
    sourceOrderId: z.string().optional(),
    items: z.array(z.unknown()).default([]),
    shipTo: shipToSchema.partial().loose(),
    returnAddress: z.record(z.string(), z.unknown()).optional(),
    carrier: z.record(z.string(), z.unknown()).optional(),
    trackingNumber: z.string().optional(),
    status: z.string().optional(),
  })
  .loose();
export type ShipmentResource = z.infer<typeof shipmentResourceSchema>;

/**
 * An order record from get, get by source id, list and cancel. Only the identifier and the submitted structure are
 * published; every other field is kept as it came (`loose`) so callers can show it.
 */
export const orderRecordSchema = z
  .object({
    _id: objectId,
    status: z.string().optional(),
    sourceAccountId: z.string().optional(),
    destination: z.object({ name: z.string() }).loose(),
    orderData: z
      .object({
        sourceOrderId: z.string().optional(),
        shipments: z.array(z.record(z.string(), z.unknown())).optional(),
        items: z.array(z.record(z.string(), z.unknown())).optional(),
      })
      .loose(),
  })
  .loose();
export type OrderRecord = z.infer<typeof orderRecordSchema>;

export const orderListSchema = z.object({
  data: z.array(orderRecordSchema),
  count: z.number().int().min(0),
  page: z.number().int().min(1),
  pagesize: z.number().int().min(1),
});
export type OrderList = z.infer<typeof orderListSchema>;

// ---- Quick checks of large answers ---------------------------------------------------------------------------------
//
// A real order record is 15–65 KB (issue 27: items with their components, files, logs, shipments). zod's parse of
// `orderRecordSchema` builds a new object for every level it checks, copying each key of the record, of `orderData`,
// and of every item and shipment (a `loose` object and a `record` copy what they keep): on such answers it cost the
// client about a tenth of its CPU per read. The functions below check exactly what `orderRecordSchema` and
// `orderListSchema` check (the `_id` pattern, the types of `status`, `sourceAccountId`, `destination.name`,
// `orderData.sourceOrderId`, that `items` and `shipments` are arrays of objects, the list's whole numbers) without
// copying: what JSON.parse made is returned as it is. For an answer they accept, zod would have returned an equal value,
// since these schemas have no defaults or transforms. They accept nothing that zod refuses; anything else (including an
// own `__proto__` key, which a copy would treat differently) goes to zod, which gives the verdict and the message.
// `quick check agrees with zod` in schema.test.ts holds them to that.

const OBJECT_ID = /^[0-9a-f]{24}$/i;

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.hasOwn(value, '__proto__')) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
const optionalString = (value: unknown): boolean => value === undefined || typeof value === 'string';
function optionalRecords(value: unknown): boolean {
  if (value === undefined) return true;
  if (!Array.isArray(value)) return false;
  for (const entry of value) if (!isPlainRecord(entry)) return false;
  return true;
}
const wholeNumberFrom = (value: unknown, min: number): boolean => typeof value === 'number' && Number.isSafeInteger(value) && value >= min;

/** True only for a value `orderRecordSchema` accepts and would return unchanged. */
export function isOrderRecord(value: unknown): value is OrderRecord {
  if (!isPlainRecord(value)) return false;
  if (typeof value._id !== 'string' || !OBJECT_ID.test(value._id)) return false;
  if (!optionalString(value.status) || !optionalString(value.sourceAccountId)) return false;
  const { destination, orderData } = value;
  if (!isPlainRecord(destination) || typeof destination.name !== 'string') return false;
  if (!isPlainRecord(orderData) || !optionalString(orderData.sourceOrderId)) return false;
  return optionalRecords(orderData.shipments) && optionalRecords(orderData.items);
}

/** True only for a value `orderListSchema` accepts and would return unchanged (it has no other keys). */
export function isOrderList(value: unknown): value is OrderList {
  if (!isPlainRecord(value) || !Array.isArray(value.data)) return false;
  for (const key in value) if (key !== 'data' && key !== 'count' && key !== 'page' && key !== 'pagesize') return false;
  if (!wholeNumberFrom(value.count, 0) || !wholeNumberFrom(value.page, 1) || !wholeNumberFrom(value.pagesize, 1)) return false;
  for (const record of value.data) if (!isOrderRecord(record)) return false;
  return true;
}

const quickChecks = new Map<z.ZodType, (value: unknown) => boolean>([
  [orderRecordSchema, isOrderRecord],
  [orderListSchema, isOrderList],
]);

/** The quick check that stands for a schema on the success path, if it has one (client-transport.ts). */
export function quickCheckOf(schema: z.ZodType): ((value: unknown) => boolean) | undefined {
  return quickChecks.get(schema);
}

/** Update shipping: any of the three parts; a new shipTo is a whole address. */
export const shippingUpdateSchema = z
  .object({
    shipTo: shipToSchema.optional(),
    carrier: z.object({ code: nonEmpty, service: nonEmpty.optional() }).optional(),
    trackingNumber: z.string().optional(),
  })
  .refine(
    (b) => b.shipTo !== undefined || b.carrier !== undefined || b.trackingNumber !== undefined,
    'give at least one of shipTo, carrier and trackingNumber',
  );
export type ShippingUpdate = z.infer<typeof shippingUpdateSchema>;

/**
 * An order record's status as one word: lower case, without spaces, `_` or `-`, so that `Print Ready`, `print_ready`
 * and the emulator's `printready` compare equal (the interface names the statuses but not how they are spelt).
 */
export function printStatusWord(status: string | undefined): string {
  return (status ?? '').toLowerCase().replace(/[\s_-]/g, '');
}
