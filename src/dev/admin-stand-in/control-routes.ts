import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { isHoldReason, type HoldInput } from './holds.js';
import { HttpError, orderGid, parseBody, readJson, sendJson } from './http-io.js';
import { RISK_RECOMMENDATIONS } from './records.js';
import { SeedError } from './seed.js';
import { handleServiceControl, SERVICE_ROUTES } from './service-routes.js';
import { FLOW_ROUTES, handleFlowControl } from './flow-routes.js';
import type { AdminStandIn } from './stand-in-api.js';
import { normalizeShop } from './store.js';

/**
 * The control surface under `/_stand-in/`: the programmatic API (stand-in-api.ts) over HTTP, to seed orders, act as a
 * merchant, and inject throttling and failures from outside the process (`GET /_stand-in/` lists the routes).
 */

/** The stand-in the routes drive, and its bucket settings (shown by `GET /_stand-in/`). */
export interface ControlSurface {
  api: Omit<AdminStandIn, 'origin' | 'port' | 'close'>;
  bucket: { maximumAvailable: number; restoreRate: number };
}

const trackingSchema = z.object({
  company: z.string().nullish(),
  number: z.string().nullish(),
  url: z.string().nullish(),
  numbers: z.array(z.string()).nullish(),
  urls: z.array(z.string()).nullish(),
});

const manualFulfillmentSchema = z.object({
  lineItems: z
    .array(
      z
        .object({ id: z.string().optional(), sku: z.string().optional(), quantity: z.number().int().positive().optional() })
        .refine((l) => l.id !== undefined || l.sku !== undefined, 'each line item needs an id or a sku'),
    )
    .optional(),
  trackingInfo: trackingSchema.optional(),
  notifyCustomer: z.boolean().optional(),
});

const registerShopSchema = z.object({ shop: z.string().min(1), accessToken: z.string().min(1) });
const throttleSchema = z.object({
  next: z.number().int().min(0).optional(),
  forced: z.boolean().optional(),
  shop: z.string().optional(),
  drainTo: z.number().min(0).optional(),
});
const failSchema = z.object({
  next: z.number().int().min(1),
  status: z.union([z.number().int().min(400).max(599), z.literal('network')]),
  retryAfterSeconds: z.number().min(0).optional(),
  shop: z.string().optional(),
});
const resetSchema = z.object({ shops: z.boolean().optional() });
const riskSchema = z.object({ recommendation: z.enum(RISK_RECOMMENDATIONS) });
const holdSchema = z.object({
  fulfillmentOrderId: z.string().optional(),
  reason: z
    .string()
    .transform((r) => r.toUpperCase())
    .refine(isHoldReason, 'reason must be one of Shopify\'s FulfillmentHoldReason values')
    .optional(),
  reasonNotes: z.string().nullish(),
  handle: z.string().max(64).optional(),
  /** Another app's title: the hold is that app's, not the merchant's. */
  app: z.string().min(1).max(100).optional(),
});
const releaseSchema = z.object({ fulfillmentOrderId: z.string().optional(), holdIds: z.array(z.string()).optional() });
const scheduleSchema = z.object({ fulfillmentOrderId: z.string().optional(), fulfillAt: z.string().min(1) });
const moveSchema = z.object({ fulfillmentOrderId: z.string().optional(), newLocationId: z.string().min(1) });
const webhooksSchema = z.object({ url: z.string().url().optional(), secret: z.string().min(1).optional(), apiVersion: z.string().optional(), paused: z.boolean().optional() });

export async function handleControl(control: ControlSurface, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const { api, bucket } = control;
  const { store, faults } = api;
  const parts = url.pathname.split('/').filter(Boolean).slice(1).map(decodeURIComponent);
  const method = req.method ?? 'GET';
  const route = `${method} /${parts.map((p, i) => (parts[0] === 'shops' && (i === 1 || i === 3) ? ':' : p)).join('/')}`;
  const shop = parts[1] ?? '';
  const orderId = parts[3] ?? '';
  if (await handleServiceControl(api, req, res, parts)) return;
  if (await handleFlowControl(api, req, res, parts, url)) return;
  switch (route) {
    case 'GET /':
      return sendJson(res, 200, {
        shops: store.shopDomains(),
        faults: faults.describe(),
        bucket: { maximumAvailable: bucket.maximumAvailable, restoreRate: bucket.restoreRate },
        routes: [
          'POST /_stand-in/shops {shop, accessToken}',
          'POST /_stand-in/shops/:shop/uninstall   (the app is uninstalled: its tokens answer 401, its fulfillment services go)',
          'GET  /_stand-in/shops/:shop/orders',
          'POST /_stand-in/shops/:shop/orders   (webhook body; ?replace=true)',
          'GET  /_stand-in/shops/:shop/orders/:id',
          'POST /_stand-in/shops/:shop/orders/:id/fulfill {lineItems?, trackingInfo?, notifyCustomer?}',
          'POST /_stand-in/shops/:shop/orders/:id/cancel',
          'POST /_stand-in/shops/:shop/orders/:id/hold {fulfillmentOrderId?, reason?, reasonNotes?, handle?, app?}',
          'POST /_stand-in/shops/:shop/orders/:id/release-hold {fulfillmentOrderId?, holdIds?}',
          'POST /_stand-in/shops/:shop/orders/:id/schedule {fulfillmentOrderId?, fulfillAt}',
          'POST /_stand-in/shops/:shop/orders/:id/move {fulfillmentOrderId?, newLocationId}',
          'POST /_stand-in/shops/:shop/orders/:id/risk {recommendation: ACCEPT|CANCEL|INVESTIGATE|NONE}',
          'GET  /_stand-in/webhooks',
          'POST /_stand-in/webhooks {url?, secret?, apiVersion?, paused?}',
          'GET  /_stand-in/shops/:shop/throttle-status',
          'POST /_stand-in/throttle {next?, forced?, shop?, drainTo?}',
          'POST /_stand-in/fail {next, status: 429|5xx|"network", retryAfterSeconds?, shop?}',
          'GET  /_stand-in/requests',
          'POST /_stand-in/reset {shops?}',
          ...SERVICE_ROUTES,
          ...FLOW_ROUTES,
        ],
      });
    case 'GET /shops':
      return sendJson(res, 200, { shops: store.shopDomains() });
    case 'POST /shops': {
      const body = parseBody(registerShopSchema, await readJson(req));
      store.registerShop(body.shop, body.accessToken);
      return sendJson(res, 201, { shop: normalizeShop(body.shop) });
    }
    case 'POST /shops/:/uninstall':
      api.uninstallApp(shop);
      return sendJson(res, 200, { uninstalled: normalizeShop(shop) });
    case 'GET /shops/:/orders':
      return sendJson(res, 200, { orders: api.listOrders(shop) });
    case 'POST /shops/:/orders': {
      try {
        const seeded = api.seedOrder(shop, await readJson(req), { replace: url.searchParams.get('replace') === 'true' });
        return sendJson(res, seeded.created ? 201 : 200, seeded);
      } catch (error) {
        if (error instanceof SeedError) throw new HttpError(400, { error: error.message });
        throw error;
      }
    }
    case 'GET /shops/:/orders/:': {
      const order = api.getOrder(shop, orderId);
      if (!order) throw new HttpError(404, { error: `no order ${orderGid(orderId)} in ${shop}` });
      return sendJson(res, 200, { order });
    }
    case 'POST /shops/:/orders/:/fulfill': {
      const body = parseBody(manualFulfillmentSchema, await readJson(req));
      const result = api.fulfillByHand(shop, orderId, body);
      return result.ok ? sendJson(res, 201, { fulfillment: result.value }) : sendJson(res, 422, { userErrors: result.userErrors });
    }
    case 'POST /shops/:/orders/:/cancel': {
      const result = api.cancelOrder(shop, orderId);
      return result.ok ? sendJson(res, 200, { order: result.value }) : sendJson(res, 422, { userErrors: result.userErrors });
    }
    case 'POST /shops/:/orders/:/hold':
    case 'POST /shops/:/orders/:/release-hold':
    case 'POST /shops/:/orders/:/schedule': {
      const raw = await readJson(req, true);
      const result = route.endsWith('/hold')
        ? api.placeHold(shop, orderId, parseBody(holdSchema, raw) as HoldInput)
        : route.endsWith('/release-hold')
          ? api.releaseHold(shop, orderId, parseBody(releaseSchema, raw))
          : api.scheduleFulfillmentOrder(shop, orderId, parseBody(scheduleSchema, raw));
      return result.ok ? sendJson(res, 200, { order: result.value }) : sendJson(res, 422, { userErrors: result.userErrors });
    }
    case 'POST /shops/:/orders/:/risk': {
      const result = api.setRisk(shop, orderId, parseBody(riskSchema, await readJson(req, true)).recommendation);
      return result.ok ? sendJson(res, 200, { order: result.value }) : sendJson(res, 422, { userErrors: result.userErrors });
    }
    case 'POST /shops/:/orders/:/move': {
      const result = api.moveFulfillmentOrder(shop, orderId, parseBody(moveSchema, await readJson(req, true)));
      return result.ok ? sendJson(res, 200, { order: result.value }) : sendJson(res, 422, { userErrors: result.userErrors });
    }
    case 'GET /webhooks':
      return sendJson(res, 200, { webhooks: api.sentWebhooks() });
    case 'POST /webhooks': {
      const body = parseBody(webhooksSchema, await readJson(req, true));
      if (body.url !== undefined || body.secret !== undefined) {
        if (!body.url || !body.secret) throw new HttpError(400, { error: 'url and secret go together' });
        api.configureWebhooks({ url: body.url, secret: body.secret, apiVersion: body.apiVersion }, { paused: body.paused });
      } else if (body.paused !== undefined) api.pauseWebhooks(body.paused);
      return sendJson(res, 200, { configured: true });
    }
    case 'GET /shops/:/throttle-status':
      return sendJson(res, 200, { throttleStatus: api.throttleStatus(shop) });
    case 'POST /throttle': {
      const body = parseBody(throttleSchema, await readJson(req));
      if (body.next !== undefined) faults.throttleNext(body.next, body.shop !== undefined ? { shop: body.shop } : {});
      if (body.forced !== undefined) faults.setForcedThrottle(body.forced);
      if (body.drainTo !== undefined) {
        if (!body.shop) throw new HttpError(400, { error: 'drainTo needs a shop' });
        api.drainBucket(body.shop, body.drainTo);
      }
      return sendJson(res, 200, { faults: faults.describe() });
    }
    case 'POST /fail': {
      const body = parseBody(failSchema, await readJson(req));
      faults.failNext(body.next, body.status, {
        ...(body.retryAfterSeconds !== undefined ? { retryAfterSeconds: body.retryAfterSeconds } : {}),
        ...(body.shop !== undefined ? { shop: body.shop } : {}),
      });
      return sendJson(res, 200, { faults: faults.describe() });
    }
    case 'GET /requests':
      return sendJson(res, 200, { requests: api.requests() });
    case 'POST /reset': {
      const body = parseBody(resetSchema, await readJson(req, true));
      api.reset(body);
      return sendJson(res, 200, { reset: true });
    }
    default:
      throw new HttpError(404, { error: `no stand-in route ${method} ${url.pathname}` });
  }
}
