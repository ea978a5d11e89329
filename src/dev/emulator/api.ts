import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeIssue, formatProblems, orderEnvelopeSchema, shippingUpdateSchema, toProblems } from '../../print-service/schema.js';
import type { EmulatorAccount } from './accounts.js';
import { checkOrder } from './checks.js';
import type { EmulatorRuntime } from './runtime.js';
import { apiErrors, isPlainObject, parseJson, readBody, sendJson } from './http.js';
import { applyShippingUpdate, shipmentsOf } from './processor.js';
import type { OrderRecord, ShipmentRecord, StoredOrder } from './store.js';

/** The print service's endpoints (print-service-interface.md "Endpoints", decisions in docs/print-service-api.md). */

export type ApiRoute =
  | { op: 'validate' }
  | { op: 'create' }
  | { op: 'list' }
  | { op: 'get'; id: string }
  | { op: 'getBySourceId'; sourceOrderId: string }
  | { op: 'cancel'; accountName: string; sourceOrderId: string }
  | { op: 'updateShipping'; sourceOrderId: string; shipmentIndex: string };

/** Matches a request to an endpoint by method and decoded path segments; undefined for an unknown route. */
export function matchApiRoute(method: string, segments: readonly string[]): ApiRoute | undefined {
  const [api, resource, a, b, c, ...rest] = segments;
  if (api !== 'api' || rest.length > 0) return undefined;
  if (resource === 'order') {
    if (a === undefined) return method === 'POST' ? { op: 'create' } : method === 'GET' ? { op: 'list' } : undefined;
    if (b === undefined) {
      if (a === 'validate' && method === 'POST') return { op: 'validate' };
      return method === 'GET' ? { op: 'get', id: a } : undefined;
    }
    if (c === undefined) return a === 'bysourceid' && method === 'GET' ? { op: 'getBySourceId', sourceOrderId: b } : undefined;
    return c === 'cancel' && method === 'PUT' ? { op: 'cancel', accountName: a, sourceOrderId: b } : undefined;
  }
  if (resource === 'shipment' && a !== undefined && b !== undefined && c === 'shipping' && method === 'PUT') {
    return { op: 'updateShipping', sourceOrderId: a, shipmentIndex: b };
  }
  return undefined;
}

const BODY_LIMIT = 5 * 1024 * 1024;

export async function handleApi(
  rt: EmulatorRuntime,
  route: ApiRoute,
  account: EmulatorAccount,
  req: IncomingMessage,
  res: ServerResponse,
  query: string,
): Promise<void> {
  switch (route.op) {
    case 'create':
      return create(rt, account, req, res);
    case 'validate': {
      const body = parseJson(await readBody(req, BODY_LIMIT));
      const { problems } = checkOrder(body, account, rt.profile);
      if (problems.length > 0) {
        throw apiErrors.validation(
          `the order is not valid: ${problems.length} problem${problems.length === 1 ? '' : 's'}`,
          problems,
        );
      }
      return sendJson(res, 200, { valid: true });
    }
    case 'list': {
      const { page, pagesize } = parsePaging(query);
      const { data, count } = rt.store.list(account.accountId, page, pagesize);
      return sendJson(res, 200, { data: data.map((o) => o.record), count, page, pagesize });
    }
    case 'get': {
      if (!/^[0-9a-fA-F]{24}$/.test(route.id)) {
        throw apiErrors.invalidOrderId(`"${route.id.slice(0, 60)}" is not an order id (24 hexadecimal characters)`);
      }
      const order = rt.store.get(route.id);
      if (!order) throw apiErrors.orderNotFound(`no order ${route.id}`);
      if (order.account !== account) throw apiErrors.forbidden(`order ${route.id} belongs to another account`);
      return sendJson(res, 200, order.record);
    }
    case 'getBySourceId':
      return sendJson(res, 200, findOwn(rt, account, route.sourceOrderId).record);
    case 'cancel': {
      if (route.accountName !== account.name) {
        if (rt.auth.accountByName(route.accountName)) {
          throw apiErrors.forbidden(`account ${account.name} may not cancel the orders of ${route.accountName}`);
        }
        throw apiErrors.orderNotFound(`no source account named "${route.accountName}"`);
      }
      const order = findOwn(rt, account, route.sourceOrderId);
      rt.processor.cancel(order, 'the API');
      return sendJson(res, 200, order.record);
    }
    case 'updateShipping':
      return updateShipping(rt, account, route, req, res);
  }
}

async function create(rt: EmulatorRuntime, account: EmulatorAccount, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (rt.faults.failRate > 0 && rt.random() < rt.faults.failRate) {
    // Refused before anything is stored, like a service scaling up; the body is left unread.
    throw apiErrors.unavailable('the service is scaling up; retry in a few seconds (emulator --fail-rate)', 1);
  }
  const text = await readBody(req, BODY_LIMIT);
  const body = parseJson(text);
  const envelope = orderEnvelopeSchema.safeParse(body, { error: describeIssue });
  if (!envelope.success) {
    throw apiErrors.badRequest(`the body is not an order: ${formatProblems(toProblems(envelope.error)).replace(/\n/g, '; ')}`);
  }
  const { destination, orderData } = body as { destination: Record<string, unknown>; orderData: Record<string, unknown> };
  const id = rt.newId();
  const now = rt.now().toISOString();
  const record: OrderRecord = {
    _id: id,
    status: 'submitted',
    sourceAccountId: account.accountId,
    sourceAccountName: account.name,
    createdAt: now,
    updatedAt: now,
    url: `${rt.baseUrl}/_emulator/orders/${id}/original`,
    errors: [],
    destination,
    orderData,
  };
  const sourceOrderId = typeof orderData.sourceOrderId === 'string' && orderData.sourceOrderId !== '' ? orderData.sourceOrderId : undefined;
  const order = rt.store.add({ record, account, sourceOrderId, original: text.toString('utf8') });
  rt.processor.start(order);
  if (rt.faults.dropRate > 0 && rt.random() < rt.faults.dropRate) {
    // Stored, then no answer: the caller cannot know whether the create happened (emulator --drop-rate).
    req.socket.destroy();
    return;
  }
  sendJson(res, 200, { _id: id, url: record.url, timestamp: now, sourceAccountId: account.accountId });
}

async function updateShipping(
  rt: EmulatorRuntime,
  account: EmulatorAccount,
  route: Extract<ApiRoute, { op: 'updateShipping' }>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (!/^\d+$/.test(route.shipmentIndex)) {
    throw apiErrors.invalidShipmentIndex(`shipment index must be a whole number, got "${route.shipmentIndex.slice(0, 40)}"`);
  }
  const body = parseJson(await readBody(req, BODY_LIMIT));
  const parsed = shippingUpdateSchema.safeParse(body, { error: describeIssue });
  if (!parsed.success) {
    const problems = toProblems(parsed.error);
    throw apiErrors.validation(`the shipping update is not valid: ${problems.length} problem${problems.length === 1 ? '' : 's'}`, problems);
  }
  const order = findOwn(rt, account, route.sourceOrderId);
  const index = Number(route.shipmentIndex);
  const { status } = order.record;
  if (status === 'cancelled' || status === 'submissionerror') {
    throw apiErrors.notAmendable(`order ${order.record._id} is ${status}; its shipments cannot change`);
  }
  const shipments = status === 'submitted' ? rawShipments(order) : shipmentsOf(order);
  const shipment = shipments[index];
  if (!shipment) {
    throw apiErrors.shipmentNotFound(`order ${order.record._id} has no shipment ${index} (it has ${shipments.length})`);
  }
  if (shipment.status === 'shipped') {
    throw apiErrors.notAmendable(`shipment ${index} of order ${order.record._id} has shipped; it cannot change`);
  }
  applyShippingUpdate(shipment, parsed.data);
  if (status === 'submitted') {
    order.amendments ??= new Map();
    order.amendments.set(index, [...(order.amendments.get(index) ?? []), parsed.data]);
  }
  order.record.updatedAt = rt.now().toISOString();
  sendJson(res, 200, shipmentResource(order, shipment, index));
}

/** Before processing, the shipments are still the submitted ones; they can be amended all the same. */
function rawShipments(order: StoredOrder): ShipmentRecord[] {
  const shipments = order.record.orderData.shipments;
  return Array.isArray(shipments) ? shipments.filter(isPlainObject).map((s) => s as ShipmentRecord) : [];
}

/** The shipment resource of the interface: the shipment plus its index, the order's source id and its items. */
function shipmentResource(order: StoredOrder, shipment: Record<string, unknown>, index: number) {
  const items = Array.isArray(order.record.orderData.items) ? order.record.orderData.items : [];
  return {
    ...shipment,
    shipmentIndex: index,
    sourceOrderId: order.sourceOrderId,
    items: items.filter((item) => isPlainObject(item) && (item.shipmentIndex ?? 0) === index),
  };
}

function findOwn(rt: EmulatorRuntime, account: EmulatorAccount, sourceOrderId: string): StoredOrder {
  const order = rt.store.findBySourceOrderId(account.accountId, sourceOrderId);
  if (!order) throw apiErrors.orderNotFound(`no order with sourceOrderId "${sourceOrderId.slice(0, 100)}"`);
  return order;
}

const MAX_PAGESIZE = 100;

export function parsePaging(query: string): { page: number; pagesize: number } {
  const params = new URLSearchParams(query);
  const read = (name: string, fallback: number, max: number): number => {
    const raw = params.get(name);
    if (raw === null || raw === '') return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
      throw apiErrors.invalidQuery(
        `${name} must be a whole number from 1${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`}, got "${raw.slice(0, 40)}"`,
      );
    }
    return Number(raw);
  };
  return { page: read('page', 1, Number.MAX_SAFE_INTEGER), pagesize: read('pagesize', 10, MAX_PAGESIZE) };
}

