import { APP_HOLD_HANDLE } from '../../shopify/app-hold.js';
import type { OrderStatus } from '../../orders/status.js';
import type { OrderRecord as PrinterRecord, ShipmentRecord, StoredOrder } from '../emulator/store.js';
import type { DemoScenario, Expectation } from './scenarios.js';
import type { DemoStack } from './stack.js';

/**
 * What actually happened to an order, read from the three real systems: the app's order store (Redis), the
 * emulator's records (what the print service has) and the Shopify stand-in (fulfillments, tags). The verdict
 * compares that with the scenario's expectation; nothing the demo believes it sent counts.
 */

export interface PrinterShipmentView {
  index: number;
  status: string;
  trackingNumber?: string;
  carrierCode?: string;
  shipTo: { name?: string; address1?: string; town?: string; postcode?: string; isoCountry?: string };
}

export interface FulfillmentView {
  name: string;
  status: string;
  tracking: { number: string | null; company: string | null; url: string | null }[];
}

/** A fulfillment order as Shopify has it: at print-bridge's location (service mode) or the merchant's own. */
export interface FulfillmentOrderView {
  at: 'print-bridge' | 'merchant';
  status: string;
  requestStatus: string;
  /** Print-bridge's answers to Shopify's requests, in order (FULFILLMENT_ACCEPTED, ...). */
  answers: string[];
  /** The store's SKU × the quantity on it, and how much of that is still to fulfil. */
  lines: { sku: string; quantity: number; remaining: number }[];
}

export interface Observation {
  app: {
    status?: OrderStatus;
    problems: string[];
    printOrderId?: string;
    submitAfter?: string;
    /** Problem kinds its history shows it waited with (read only when the expectation names one). */
    waits?: string[];
  };
  printer: {
    /** Orders the print service holds under the scenario's sourceOrderId. */
    orders: number;
    id?: string;
    /** The requester account the print service holds it under. */
    account?: string;
    status?: PrinterRecord['status'];
    shipments: PrinterShipmentView[];
    componentPaths: string[];
    /** The print order's items, print SKU × quantity (read only for a service-mode expectation). */
    items?: string[];
  };
  shopify: {
    tags: string[];
    cancelled: boolean;
    /** The notes of print-bridge's own holds on the order's fulfillment orders. */
    appHolds: string[];
    fulfillments: FulfillmentView[];
    /** Read only for a service-mode expectation. */
    fulfillmentOrders?: FulfillmentOrderView[];
  };
}

export async function observe(stack: DemoStack, scenario: DemoScenario): Promise<Observation> {
  const shop = scenario.shop ?? stack.shop;
  const [link, history] = await Promise.all([
    stack.runtime.store.get(shop, scenario.order.admin_graphql_api_id),
    scenario.expected.waitedFor ? stack.runtime.store.history(shop, scenario.order.admin_graphql_api_id) : Promise.resolve([]),
  ]);
  const printerOrders = printerOrdersOf(stack, scenario.sourceOrderId);
  const printer = printerOrders[0];
  const shopifyOrder = stack.standIn.getOrder(shop, scenario.order.admin_graphql_api_id);
  const serviceLocations = new Set(scenario.expected.service ? stack.standIn.listFulfillmentServices(shop).map((s) => s.locationId) : []);
  const skuOf = new Map((shopifyOrder?.lineItems ?? []).map((l) => [l.id, l.sku ?? '?']));
  return {
    app: {
      status: link?.status,
      problems: (link?.problems ?? []).map((p) => (p.subject ? `${p.subject}: ${p.message}` : p.message)),
      printOrderId: link?.printOrderId,
      submitAfter: link?.submitAfter,
      // The waits its history shows ("waiting: no mapping" → no-mapping).
      waits: history.flatMap((h) =>
        h.event.startsWith('waiting: ')
          ? [h.event.slice('waiting: '.length).replace(/ /g, '-')]
          : // A shipment that waited for Shopify to release its fulfillment order (bridge/fulfillment-holds.ts).
            /Shopify holds its fulfillment order/.test(h.event)
            ? ['fulfillment-hold']
            : [],
      ),
    },
    printer: {
      orders: printerOrders.length,
      id: printer?.record._id,
      account: printer?.account.name,
      status: printer?.record.status,
      shipments: printer ? printerShipments(printer) : [],
      componentPaths: printer ? componentPaths(printer) : [],
      ...(scenario.expected.service ? { items: printer ? printerItems(printer) : [] } : {}),
    },
    shopify: {
      tags: shopifyOrder?.tags ?? [],
      cancelled: Boolean(shopifyOrder?.cancelledAt),
      appHolds: (shopifyOrder?.fulfillmentOrders ?? []).flatMap((fo) => fo.fulfillmentHolds.filter((h) => h.handle === APP_HOLD_HANDLE && h.heldByRequestingApp).map((h) => h.reasonNotes ?? '')),
      fulfillments: (shopifyOrder?.fulfillments ?? []).map((f) => ({
        name: f.name,
        status: f.status,
        tracking: f.trackingInfo.map((t) => ({ number: t.number ?? null, company: t.company ?? null, url: t.url ?? null })),
      })),
      ...(scenario.expected.service
        ? {
            fulfillmentOrders: (shopifyOrder?.fulfillmentOrders ?? []).map((fo) => ({
              at: serviceLocations.has(fo.assignedLocation.id) ? ('print-bridge' as const) : ('merchant' as const),
              status: fo.status,
              requestStatus: fo.requestStatus,
              answers: fo.serviceResponses.map((r) => r.kind),
              lines: fo.lineItems.map((l) => ({ sku: skuOf.get(l.lineItemId) ?? '?', quantity: l.totalQuantity, remaining: l.remainingQuantity })),
            })),
          }
        : {}),
    },
  };
}

/** The emulator's orders with this sourceOrderId, whatever their account, oldest first. */
export function printerOrdersOf(stack: Pick<DemoStack, 'emulator'>, sourceOrderId: string): StoredOrder[] {
  return stack.emulator.store
    .all()
    .filter((o) => o.sourceOrderId === sourceOrderId)
    .reverse();
}

function printerShipments(order: StoredOrder): PrinterShipmentView[] {
  const shipments = Array.isArray(order.record.orderData.shipments) ? (order.record.orderData.shipments as ShipmentRecord[]) : [];
  return shipments.map((s, index) => {
    const shipTo = (s.shipTo ?? {}) as Record<string, unknown>;
    const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
    return {
      index,
      status: typeof s.status === 'string' ? s.status : 'pending',
      trackingNumber: s.trackingNumber,
      carrierCode: s.carrier?.code,
      shipTo: {
        name: text(shipTo.name),
        address1: text(shipTo.address1),
        town: text(shipTo.town),
        postcode: text(shipTo.postcode),
        isoCountry: text(shipTo.isoCountry),
      },
    };
  });
}

function printerItems(order: StoredOrder): string[] {
  const items = Array.isArray(order.record.orderData.items) ? (order.record.orderData.items as Record<string, unknown>[]) : [];
  return items.map((item) => `${String(item.sku)}×${String(item.quantity ?? 1)}`);
}

function componentPaths(order: StoredOrder): string[] {
  const items = Array.isArray(order.record.orderData.items) ? (order.record.orderData.items as Record<string, unknown>[]) : [];
  return items.flatMap((item) =>
    Array.isArray(item.components)
      ? (item.components as Record<string, unknown>[]).flatMap((c) => (typeof c.path === 'string' ? [c.path] : []))
      : [],
  );
}

export type Verdict =
  /** Every expectation holds. */
  | { state: 'met' }
  /** Not there yet; `waitingFor` says what is missing. */
  | { state: 'pending'; waitingFor: string[] }
  /** Settled somewhere else: it will not get there by waiting. */
  | { state: 'failed'; reasons: string[] };

/** App statuses an order does not leave without someone acting (a mapping fix, a resubmission). */
const SETTLED: readonly OrderStatus[] = ['shipped', 'held', 'cancelled', 'error', 'not-printed'];

/**
 * Compares an observation with the expectation. `now` decides whether the hold window of an order that must never
 * reach the printer has passed: before that, "nothing at the printer" proves nothing.
 */
export function verdict(expected: Expectation, seen: Observation, now: Date): Verdict {
  const missing: string[] = [];
  const { app, printer, shopify } = seen;

  if (app.status !== expected.status) {
    if (app.status && SETTLED.includes(app.status)) {
      const why = app.problems.length > 0 ? `: ${app.problems.join('; ')}` : '';
      return { state: 'failed', reasons: [`the app has it ${app.status}, expected ${expected.status}${why}`] };
    }
    missing.push(`app status ${expected.status} (now ${app.status ?? 'unknown to the app'})`);
  }
  if (expected.waitedFor && !(app.waits ?? []).includes(expected.waitedFor)) {
    missing.push(`a wait (${expected.waitedFor}) in the order's history`);
  }
  if (!shopify.tags.includes(expected.tag)) {
    missing.push(`tag ${expected.tag} in Shopify (tags: ${shopify.tags.join(', ') || 'none'})`);
  }

  if (expected.printer === 'nothing') {
    if (printer.orders > 0) {
      return { state: 'failed', reasons: [`the print service has it (${printer.id}, ${printer.status}); nothing should have been sent`] };
    }
    const windowEnds = app.submitAfter ? Date.parse(app.submitAfter) : undefined;
    // A held order was mapped and refused here, so nothing will be sent; any other must be past its hold window
    // (with a second's grace for the submit job) before its absence at the printer means anything.
    if (app.status !== 'held' && (windowEnds === undefined || now.getTime() < windowEnds + 1_000)) {
      missing.push('the end of the hold window (to show nothing was sent)');
    }
  } else {
    if (printer.orders > 1) {
      return { state: 'failed', reasons: [`the print service has ${printer.orders} orders for ${expected.printer === 'shipped' ? 'one' : 'it'}: a duplicate`] };
    }
    if (printer.status !== expected.printer) {
      if (printer.status && ['shipped', 'cancelled', 'submissionerror', 'errored'].includes(printer.status)) {
        return { state: 'failed', reasons: [`the print service has it ${printer.status}, expected ${expected.printer}`] };
      }
      missing.push(`print service status ${expected.printer} (now ${printer.status ?? 'not received'})`);
    }
  }

  if (shopify.fulfillments.length > expected.fulfillments) {
    return { state: 'failed', reasons: [`${shopify.fulfillments.length} fulfillments in Shopify, expected ${expected.fulfillments}`] };
  }
  if (shopify.fulfillments.length < expected.fulfillments) {
    missing.push(`${expected.fulfillments} fulfillment(s) in Shopify (now ${shopify.fulfillments.length})`);
  } else if (expected.fulfillments > 0) {
    const printerNumbers = new Set(printer.shipments.map((s) => s.trackingNumber).filter(Boolean));
    const numbers = shopify.fulfillments.map((f) => f.tracking[0]?.number ?? null);
    if (numbers.some((n) => !n || !printerNumbers.has(n))) {
      missing.push('every fulfillment to carry a tracking number the printer reported');
    } else if (new Set(numbers).size !== numbers.length) {
      return { state: 'failed', reasons: ['two fulfillments carry the same tracking number'] };
    }
  }

  if (expected.artworkPath && printer.orders > 0 && !printer.componentPaths.includes(expected.artworkPath)) {
    return { state: 'failed', reasons: [`the print order's artwork paths do not include ${expected.artworkPath}: ${printer.componentPaths.join(', ')}`] };
  }
  if (expected.shipTo) {
    const want = expected.shipTo;
    const wrong = printer.shipments.filter((s) => s.shipTo.postcode !== want.postcode || s.shipTo.address1 !== want.address1);
    if (printer.shipments.length === 0 || wrong.length > 0) {
      const had = wrong.map((s) => `${s.shipTo.address1}, ${s.shipTo.postcode}`).join('; ');
      const message = `every print shipment addressed to ${want.address1}, ${want.postcode}${had ? ` (has ${had})` : ''}`;
      if (printer.status === 'shipped') return { state: 'failed', reasons: [`shipped to the old address: ${message}`] };
      missing.push(message);
    }
  }
  if (expected.service) {
    const problem = serviceModeProblem(expected.service, seen);
    if (problem?.settled) return { state: 'failed', reasons: [problem.text] };
    if (problem) missing.push(problem.text);
  }
  if (expected.problemMentions && !app.problems.some((p) => p.includes(expected.problemMentions!))) {
    missing.push(`a problem naming ${expected.problemMentions} (problems: ${app.problems.join('; ') || 'none'})`);
  }
  if (expected.appHoldNotes && !seen.shopify.appHolds.some((n) => n.includes(expected.appHoldNotes!))) {
    missing.push(`print-bridge's hold in Shopify saying "${expected.appHoldNotes}" (its holds: ${seen.shopify.appHolds.join('; ') || 'none'})`);
  }

  return missing.length === 0 ? { state: 'met' } : { state: 'pending', waitingFor: missing };
}

const sorted = (list: readonly string[]) => [...list].sort().join(', ');

/**
 * Fulfillment-service mode, from the printer and Shopify: the printer has only the printed lines; Shopify's request of
 * print-bridge's location was accepted and that fulfillment order is fulfilled (CLOSED); the merchant's own stays OPEN
 * with nothing fulfilled. Undefined when all of that holds; `settled` when waiting cannot mend it.
 */
function serviceModeProblem(want: NonNullable<Expectation['service']>, seen: Observation): { text: string; settled: boolean } | undefined {
  const { printer, shopify } = seen;
  if (printer.orders > 0 && sorted(printer.items ?? []) !== sorted(want.printerItems)) {
    return { settled: true, text: `the print order has ${sorted(printer.items ?? []) || 'no items'}; only the requested lines (${sorted(want.printerItems)}) should be there` };
  }
  const fos = shopify.fulfillmentOrders ?? [];
  const ours = fos.filter((fo) => fo.at === 'print-bridge');
  const merchants = fos.filter((fo) => fo.at === 'merchant');
  const skus = (list: FulfillmentOrderView[]) => sorted(list.flatMap((fo) => fo.lines.map((l) => `${l.sku}×${l.quantity}`)));
  if (ours.length !== 1) return { settled: fos.length > 0, text: `one fulfillment order at print-bridge's location (Shopify has ${ours.length})` };
  const service = ours[0]!;
  if (service.answers.includes('FULFILLMENT_REJECTED')) return { settled: true, text: `print-bridge rejected Shopify's request (${service.requestStatus})` };
  if (sorted(merchants.map((fo) => fo.status)) !== 'OPEN' || skus(merchants) !== sorted(want.merchantLines)) {
    return { settled: true, text: `the merchant's own fulfillment order should be OPEN with ${sorted(want.merchantLines)} (has ${merchants.map((fo) => `${fo.status}: ${skus([fo])}`).join('; ') || 'none'})` };
  }
  if (merchants.some((fo) => fo.lines.some((l) => l.remaining !== l.quantity))) {
    return { settled: true, text: "print-bridge fulfilled lines of the merchant's own fulfillment order" };
  }
  if (!service.answers.includes('FULFILLMENT_ACCEPTED')) return { settled: false, text: `print-bridge to accept Shopify's request (now ${service.requestStatus})` };
  if (service.status !== 'CLOSED') return { settled: false, text: `print-bridge's fulfillment order to be fulfilled and CLOSED (now ${service.status})` };
  return undefined;
}
