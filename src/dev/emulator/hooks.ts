import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { describeIssue, toProblems } from '../../print-service/schema.js';
import { describeAccount } from './accounts.js';
import { EmulatorSetupError } from './config-files.js';
import { apiErrors, parseJson, readBody, sendJson } from './http.js';
import { ADVANCE_TARGETS } from './processor.js';
import type { EmulatorRuntime } from './runtime.js';
import { ORDER_STATUSES, type OrderStatus } from './store.js';
import { parseTriggers } from './triggers.js';

/**
 * Test and demo hooks under `/_emulator/`, unsigned: they are the emulator's own controls, not part of the print
 * service (docs/emulator.md lists them).
 */

export const HOOKS = {
  'GET /_emulator': 'this list',
  'GET /_emulator/health': 'liveness: {"ok":true}',
  'GET /_emulator/stats': 'order counts by status and delivery counts by state',
  'GET /_emulator/accounts': 'the accounts (without secrets)',
  'GET /_emulator/orders?status=&sourceOrderId=&accountId=': 'every account\'s orders, newest first',
  'GET /_emulator/orders/:id': 'one order record, whatever its account',
  'GET /_emulator/orders/:id/original': 'the create body exactly as received (the acknowledgement\'s url)',
  'POST /_emulator/orders/:id/advance': '{"to": "received"|"printready"|"shipped"|"errored"|"cancelled"|"submissionerror", "shipmentIndex"?: n}',
  'GET /_emulator/deliveries?event=&orderId=&state=': 'the trigger delivery log',
  'PUT /_emulator/triggers': 'replace the triggers (same format as --triggers)',
  'GET|PUT /_emulator/faults': '{"failRate": r, "dropRate": r}',
  'POST /_emulator/reset': 'forget every order and delivery',
};

const advanceSchema = z.object({
  to: z.enum(ADVANCE_TARGETS, { error: `must be one of ${ADVANCE_TARGETS.join(', ')}` }),
  shipmentIndex: z.number().int().min(0).optional(),
});

const rate = z.number().min(0, 'must be from 0 to 1').max(1, 'must be from 0 to 1');
const faultsSchema = z.object({ failRate: rate.optional(), dropRate: rate.optional() });

const BODY_LIMIT = 5 * 1024 * 1024;

export async function handleHook(
  rt: EmulatorRuntime,
  method: string,
  segments: readonly string[],
  query: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const [, what, id, action, ...rest] = segments;
  const params = new URLSearchParams(query);
  const route = `${method} ${what ?? ''}${id !== undefined ? '/:id' : ''}${action !== undefined ? `/${action}` : ''}`;
  if (rest.length > 0) throw notFound(method, segments);
  switch (route) {
    case 'GET ':
      return sendJson(res, 200, { hooks: HOOKS });
    case 'GET health':
      return sendJson(res, 200, { ok: true });
    case 'GET stats': {
      const byStatus = Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0])) as Record<OrderStatus, number>;
      for (const order of rt.store.all()) byStatus[order.record.status]++;
      const deliveries = { pending: 0, delivered: 0, failed: 0 };
      for (const d of rt.deliveries.list()) deliveries[d.state]++;
      return sendJson(res, 200, { orders: rt.store.size, byStatus, deliveries, faults: rt.faults });
    }
    case 'GET accounts':
      return sendJson(res, 200, { data: rt.accounts.map(describeAccount) });
    case 'GET orders': {
      const status = params.get('status');
      const sourceOrderId = params.get('sourceOrderId');
      const accountId = params.get('accountId');
      const data = rt.store
        .all()
        .filter(
          (o) =>
            (status === null || o.record.status === status) &&
            (sourceOrderId === null || o.sourceOrderId === sourceOrderId) &&
            (accountId === null || o.account.accountId === accountId),
        )
        .map((o) => o.record);
      return sendJson(res, 200, { data, count: data.length });
    }
    case 'GET orders/:id':
      return sendJson(res, 200, findOrder(rt, id as string).record);
    case 'GET orders/:id/original': {
      const order = findOrder(rt, id as string);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(order.original) });
      res.end(order.original);
      return;
    }
    case 'POST orders/:id/advance': {
      const order = findOrder(rt, id as string);
      const body = advanceSchema.safeParse(parseJson(await readBody(req, BODY_LIMIT)), { error: describeIssue });
      if (!body.success) throw apiErrors.validation('the advance request is not valid', toProblems(body.error));
      await rt.processor.advance(order, body.data.to, body.data.shipmentIndex);
      return sendJson(res, 200, order.record);
    }
    case 'GET deliveries': {
      const data = rt.deliveries.list({
        event: params.get('event') ?? undefined,
        orderId: params.get('orderId') ?? undefined,
        state: params.get('state') ?? undefined,
      });
      return sendJson(res, 200, { data, count: data.length });
    }
    case 'PUT triggers': {
      const body = parseJson(await readBody(req, BODY_LIMIT));
      try {
        rt.deliveries.setTriggers(parseTriggers(body, 'triggers'));
      } catch (error) {
        if (error instanceof EmulatorSetupError) throw apiErrors.badRequest(error.message);
        throw error;
      }
      return sendJson(res, 200, { count: rt.deliveries.triggerCount });
    }
    case 'GET faults':
      return sendJson(res, 200, rt.faults);
    case 'PUT faults': {
      const body = faultsSchema.safeParse(parseJson(await readBody(req, BODY_LIMIT)), { error: describeIssue });
      if (!body.success) throw apiErrors.validation('the faults are not valid', toProblems(body.error));
      if (body.data.failRate !== undefined) rt.faults.failRate = body.data.failRate;
      if (body.data.dropRate !== undefined) rt.faults.dropRate = body.data.dropRate;
      return sendJson(res, 200, rt.faults);
    }
    case 'POST reset': {
      for (const order of rt.store.clear()) rt.processor.forget(order);
      rt.deliveries.reset();
      return sendJson(res, 200, { reset: true });
    }
    default:
      throw notFound(method, segments);
  }
}

function findOrder(rt: EmulatorRuntime, id: string) {
  const order = rt.store.get(id);
  if (!order) throw apiErrors.orderNotFound(`no order ${id}`);
  return order;
}

function notFound(method: string, segments: readonly string[]) {
  return apiErrors.routeNotFound(`no emulator hook ${method} /${segments.join('/')}; GET /_emulator lists them`);
}
