import { z } from 'zod';
import { nonEmpty, shipToSchema } from './schema-fields.js';

// ---- Answers of the service -------------------------------------------------------------------------------------
//
// What the service answers (a create, an error, a validation, order records and lists, the shipment resource), and the
// update-shipping body, which goes with the shipment resource that call returns. schema.ts re-exports them.

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
