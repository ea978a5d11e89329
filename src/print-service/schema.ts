/**
 * The print service's documents, one module a document: the order sent to create (schema-order.ts) and the answers and
 * records that come back (schema-answers.ts), made of shared pieces (schema-fields.ts); how their problems are told
 * (schema-problems.ts), and the quick checks that stand in for zod on large answers (schema-quick-checks.ts). This
 * module is the one importers use: it exports what each of them offers the rest of the app.
 */

export { shipToSchema, type ShipTo } from './schema-fields.js';
export {
  SCHEMA_PROFILES,
  attachmentSchema,
  componentSchema,
  orderEnvelopeSchema,
  orderSchemas,
  parseOrder,
  type Component,
  type LenientPrintOrder,
  type ParseOrderResult,
  type PrintItem,
  type PrintOrder,
  type PrintOrderInput,
  type PrintShipment,
  type PrintStockItem,
  type ReturnAddress,
  type SchemaProfile,
} from './schema-order.js';
export { describeIssue, formatPath, formatProblems, toProblems, type SchemaProblem } from './schema-problems.js';
export {
  acknowledgementSchema,
  carrierServiceSchema,
  errorBodySchema,
  orderListSchema,
  orderRecordSchema,
  printStatusWord,
  shipmentResourceSchema,
  shippingUpdateSchema,
  validateAnswerSchema,
  type Acknowledgement,
  type ErrorBody,
  type OrderList,
  type OrderRecord,
  type ShipmentResource,
  type ShippingUpdate,
} from './schema-answers.js';
export { isOrderList, isOrderRecord, quickCheckOf } from './schema-quick-checks.js';
