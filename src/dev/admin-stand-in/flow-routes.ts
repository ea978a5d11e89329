import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { FLOW_ACTIONS } from '../../flow/definitions.js';
import { parseBody, readJson, sendJson } from './http-io.js';
import type { AdminStandIn } from './stand-in-api.js';

/**
 * The control routes of Shopify Flow (control-routes.ts tries them): the triggers the app sent, and Flow's signed
 * requests to the app (a trigger's lifecycle callback, an action's run), for tests and the demo.
 */

export const FLOW_ROUTES = [
  'GET  /_stand-in/flow/triggers?shop=   (the app’s flowTriggerReceive calls)',
  'POST /_stand-in/flow/lifecycle {appUrl, shop, handle, enabled, timestamp?}',
  'POST /_stand-in/flow/actions {appUrl, shop, action, orderId, actionRunId?}',
];

const lifecycleSchema = z.object({ appUrl: z.url(), shop: z.string().min(1), handle: z.string().min(1), enabled: z.boolean(), timestamp: z.string().optional() });
const actionSchema = z.object({ appUrl: z.url(), shop: z.string().min(1), action: z.enum(FLOW_ACTIONS), orderId: z.string().min(1), actionRunId: z.string().min(1).optional() });

type Api = Pick<AdminStandIn, 'flowTriggerCalls' | 'sendFlowLifecycle' | 'sendFlowAction'>;

/** Answers the request and returns true when it is one of these routes. */
export async function handleFlowControl(api: Api, req: IncomingMessage, res: ServerResponse, parts: string[], url: URL): Promise<boolean> {
  if (parts[0] !== 'flow') return false;
  switch (`${req.method ?? 'GET'} ${parts.slice(1).join('/')}`) {
    case 'GET triggers':
      sendJson(res, 200, { calls: api.flowTriggerCalls(url.searchParams.get('shop') ?? undefined) });
      return true;
    case 'POST lifecycle':
      sendJson(res, 200, { answer: await api.sendFlowLifecycle(parseBody(lifecycleSchema, await readJson(req))) });
      return true;
    case 'POST actions':
      sendJson(res, 200, { answer: await api.sendFlowAction(parseBody(actionSchema, await readJson(req))) });
      return true;
    default:
      return false;
  }
}
