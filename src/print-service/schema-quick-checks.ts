import type { z } from 'zod';
import { orderListSchema, orderRecordSchema, type OrderList, type OrderRecord } from './schema-answers.js';

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
