import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { parseBody, readJson, sendJson } from './http-io.js';
import type { AdminStandIn } from './stand-in-api.js';

/**
 * The control routes of the fulfillment-service flow (control-routes.ts tries them first): which SKUs a service's
 * location stocks, the merchant's requests, the callback pings and how they are sent.
 */

export const SERVICE_ROUTES = [
  'GET  /_stand-in/shops/:shop/fulfillment-services',
  'POST /_stand-in/shops/:shop/fulfillment-services/stock {serviceId, skus}',
  'POST /_stand-in/shops/:shop/fulfillment-services/remove   (as an uninstall of the app: deletes them)',
  'POST /_stand-in/shops/:shop/fulfillment-orders/request {fulfillmentOrderId, message?}',
  'POST /_stand-in/shops/:shop/fulfillment-orders/cancellation-request {fulfillmentOrderId, message?}',
  'POST /_stand-in/fulfillment-requests {automatic}',
  'GET  /_stand-in/fulfillment-pings',
  'POST /_stand-in/fulfillment-pings {dropNext}',
];

const stockSchema = z.object({ serviceId: z.string().min(1), skus: z.array(z.string().min(1)) });
const requestSchema = z.object({ fulfillmentOrderId: z.string().min(1), message: z.string().nullish() });
const automaticSchema = z.object({ automatic: z.boolean() });
const pingsSchema = z.object({ dropNext: z.number().int().min(0) });

type Api = Omit<AdminStandIn, 'origin' | 'port' | 'close'>;

/** Answers the request and returns true when it is one of these routes. */
export async function handleServiceControl(api: Api, req: IncomingMessage, res: ServerResponse, parts: string[]): Promise<boolean> {
  const method = req.method ?? 'GET';
  const shop = parts[1] ?? '';
  const path = parts[0] === 'shops' && parts.length >= 3 ? `shops/:/${parts.slice(2).join('/')}` : parts.join('/');
  const answer = (result: { ok: true; value: unknown } | { ok: false; userErrors: unknown }, key: string) =>
    result.ok ? sendJson(res, 200, { [key]: result.value }) : sendJson(res, 422, { userErrors: result.userErrors });
  switch (`${method} ${path}`) {
    case 'GET shops/:/fulfillment-services':
      sendJson(res, 200, { fulfillmentServices: api.listFulfillmentServices(shop) });
      return true;
    case 'POST shops/:/fulfillment-services/stock': {
      const body = parseBody(stockSchema, await readJson(req));
      answer(api.stockFulfillmentService(shop, body.serviceId, body.skus), 'fulfillmentService');
      return true;
    }
    case 'POST shops/:/fulfillment-services/remove':
      api.removeFulfillmentServices(shop);
      sendJson(res, 200, { fulfillmentServices: api.listFulfillmentServices(shop) });
      return true;
    case 'POST shops/:/fulfillment-orders/request':
    case 'POST shops/:/fulfillment-orders/cancellation-request': {
      const body = parseBody(requestSchema, await readJson(req));
      answer(path.endsWith('/request') ? api.requestFulfillment(shop, body) : api.requestCancellation(shop, body), 'order');
      return true;
    }
    case 'POST fulfillment-requests': {
      const body = parseBody(automaticSchema, await readJson(req));
      api.setAutomaticFulfillmentRequests(body.automatic);
      sendJson(res, 200, { automatic: body.automatic });
      return true;
    }
    case 'GET fulfillment-pings':
      sendJson(res, 200, { pings: api.fulfillmentPings() });
      return true;
    case 'POST fulfillment-pings': {
      const body = parseBody(pingsSchema, await readJson(req));
      api.dropNextFulfillmentPings(body.dropNext);
      sendJson(res, 200, { dropNext: body.dropNext });
      return true;
    }
    default:
      return false;
  }
}
