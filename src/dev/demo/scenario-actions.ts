import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StoredOrder } from '../emulator/store.js';
import { signSessionToken } from '../admin-stand-in/oauth.js';
import { DEMO_OWN_ACCOUNT, DEMO_OWN_DESTINATION } from './mapping.js';
import type { LiveProgress } from './render.js';
import type { DemoScenario, MerchantActions, ScenarioActions } from './scenarios.js';
import type { DemoStack } from './stack.js';
import { printerOrdersOf } from './verify.js';

/**
 * What a scenario's script does to the running stack (scenarios.ts): send webhooks, hold and release at the printer,
 * cancel or hold in Shopify, and act as the merchant in the app.
 */

/** The order a script plays. */
export interface ScriptedOrder {
  scenario: DemoScenario;
  /** What the script is doing while the app's status does not move (e.g. "held at the printer"). */
  activity?: string;
}

/** The script's handle on its order, bound to the running stack. */
export function actionsFor(stack: DemoStack, t: ScriptedOrder, progress: LiveProgress, options: { deadline: number }, signal: AbortSignal): ScenarioActions {
  const { order, sourceOrderId } = t.scenario;
  const shop = t.scenario.shop ?? stack.shop;
  const printerOrder = (): StoredOrder | undefined => printerOrdersOf(stack, sourceOrderId)[0];
  const waitUntil = async (what: string, check: () => boolean | Promise<boolean>, intervalMs = 20) => {
    while (!(await check())) {
      if (Date.now() > options.deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(intervalMs, undefined, { signal });
    }
  };
  return {
    async send(topic, body) {
      const { status } = await stack.sendWebhook(topic, body, shop);
      if (status < 200 || status > 299) throw new Error(`the app answered ${status} to the ${topic} webhook`);
    },
    waitUntil,
    appLink: () => stack.runtime.store.get(shop, order.admin_graphql_api_id),
    async holdAtPrinter() {
      let held: StoredOrder | undefined;
      // Polled often: the order must be caught between Order Received and the file fetching that follows.
      await waitUntil(
        'the printer to receive the order',
        () => {
          const o = printerOrder();
          if (o && o.record.status !== 'submitted') held = o;
          return held !== undefined;
        },
        5,
      );
      const o = held as StoredOrder;
      // A processing step that was already under way schedules the next one when it ends: stop that one too.
      do {
        stack.emulator.processor.forget(o);
        await sleep(5, undefined, { signal });
      } while (o.timer || o.busy);
      t.activity = 'paused at printer';
      progress.note(`${order.name} the printer keeps the order in its queue for now (status ${o.record.status})`);
    },
    async releaseAtPrinter() {
      const o = printerOrder();
      t.activity = undefined;
      if (!o || !['received', 'printready'].includes(o.record.status)) return;
      // Advancing to the state it is already in takes no step and restarts its processing clock.
      await stack.emulator.processor.advance(o, o.record.status === 'printready' ? 'printready' : 'received');
      progress.note(`${order.name} the printer carries on with the order`);
    },
    printerShipTo() {
      const o = printerOrder();
      const shipments = o && Array.isArray(o.record.orderData.shipments) ? (o.record.orderData.shipments as Record<string, unknown>[]) : [];
      return shipments.map((s) => {
        const shipTo = (s.shipTo ?? {}) as Record<string, unknown>;
        return { address1: typeof shipTo.address1 === 'string' ? shipTo.address1 : undefined, postcode: typeof shipTo.postcode === 'string' ? shipTo.postcode : undefined };
      });
    },
    cancelInShopify() {
      const result = stack.standIn.cancelOrder(shop, order.admin_graphql_api_id);
      if (!result.ok) throw new Error(`Shopify refused to cancel ${order.name}: ${result.userErrors.map((e) => e.message).join('; ')}`);
    },
    holdInShopify(reason, notes) {
      const result = stack.standIn.placeHold(shop, order.admin_graphql_api_id, { reason, reasonNotes: notes ?? null });
      if (!result.ok) throw new Error(`Shopify refused to hold ${order.name}: ${result.userErrors.map((e) => e.message).join('; ')}`);
    },
    releaseHoldInShopify() {
      const result = stack.standIn.releaseHold(shop, order.admin_graphql_api_id);
      if (!result.ok) throw new Error(`Shopify refused to release ${order.name}: ${result.userErrors.map((e) => e.message).join('; ')}`);
    },
    fulfillmentOrdersInShopify() {
      const services = new Set(stack.standIn.listFulfillmentServices(shop).map((s) => s.locationId));
      return (stack.standIn.getOrder(shop, order.admin_graphql_api_id)?.fulfillmentOrders ?? []).map((fo) => ({
        at: services.has(fo.assignedLocation.id) ? ('print-bridge' as const) : ('merchant' as const),
        status: fo.status,
        requestStatus: fo.requestStatus,
        answers: fo.serviceResponses.map((r) => r.kind),
      }));
    },
    note: (text) => progress.note(`${order.name} ${text}`),
    merchant: merchantOf(stack, shop),
    writeMapping: (fileName, yaml) => writeFileSync(join(stack.mappingsDir, basename(fileName)), yaml),
    sleep: (ms) => sleep(ms, undefined, { signal }),
    now: () => new Date(),
  };
}

/**
 * The merchant of a store in the app, as the Shopify admin drives it: each request carries a fresh session token signed
 * with the app's secret (what App Bridge gets from the admin); forms are sent as the page's script sends them.
 */
function merchantOf(stack: DemoStack, shop: string): MerchantActions {
  const token = () => signSessionToken({ apiKey: stack.config.SHOPIFY_API_KEY!, apiSecret: stack.config.SHOPIFY_API_SECRET! }, shop, { user: '1001' });
  const host = Buffer.from(`admin.shopify.com/store/${shop.split('.')[0]}`).toString('base64url');
  return {
    async openApp() {
      const answer = await fetch(`${stack.appUrl}/?embedded=1&shop=${shop}&host=${host}&id_token=${token()}`);
      await answer.arrayBuffer();
      if (!answer.ok) throw new Error(`the app answered ${answer.status} to the Shopify admin`);
      if (!(await stack.runtime.sessions.accessToken(shop))) throw new Error(`opening the app did not install it on ${shop}`);
    },
    async submit(path, fields) {
      const answer = await fetch(`${stack.appUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token()}`, accept: 'application/json' },
        body: new URLSearchParams(fields),
      });
      const result = (await answer.json().catch(() => ({}))) as { location?: string; error?: string };
      const flash = result.location ? new URL(result.location, stack.appUrl).searchParams.get('flash') : null;
      if (!answer.ok || !result.location) throw new Error(`the app refused ${path}: ${result.error ?? answer.status}`);
      // The message the page shows next: a refusal is a failed step of the story.
      const page = await (await fetch(`${stack.appUrl}${result.location}&id_token=${token()}`)).text();
      const tone = /<s-banner tone="(\w+)" id="flash">([^<]*)</.exec(page);
      if (flash && tone && tone[1] !== 'success') throw new Error(`${path}: ${tone[2]}`);
    },
    async page(path) {
      return (await fetch(`${stack.appUrl}${path}?embedded=1&shop=${shop}&host=${host}&id_token=${token()}`)).text();
    },
    printAccount: () => ({
      baseUrl: stack.emulator.baseUrl,
      ordersUrl: stack.emulator.ordersUrl,
      token: DEMO_OWN_ACCOUNT.token,
      secret: DEMO_OWN_ACCOUNT.secret,
      sourceAccount: DEMO_OWN_ACCOUNT.name,
      destination: DEMO_OWN_DESTINATION,
    }),
    setUpTriggers: (url) => stack.addPrintServiceTriggers(DEMO_OWN_ACCOUNT.name, url),
  };
}
