import type { OrderLink } from '../orders/model.js';
import { lineItemGid, parseOrderWebhook } from '../shopify/order-webhook.js';

/**
 * Merchant words (issue 26): what the app records about an order (problems, history, failed work, the print service's
 * answers) names things as the code does: gids, JSON paths into the Shopify order or the print order, job and webhook
 * topic names, shipments counted from 0. A merchant's page translates that text when it is shown, never what is
 * stored: `line item 2 (SKU MUG-1)` for `order.line_items[1]` or a line item gid, `#1001` for the order's gid,
 * `shipment 1` for shipment 0. The operator pages show the text as recorded.
 */

/** What the order's own lines are, by position in the Shopify order (from its stored body, when kept). */
export interface OrderLine {
  gid: string;
  sku?: string;
  title?: string;
}

/** The Shopify order's line items, in order, from a stored webhook body; none when it is not kept or not readable. */
export function orderLinesOf(body: string | undefined): OrderLine[] {
  const parsed = body ? parseOrderWebhook(body) : undefined;
  if (!parsed?.ok) return [];
  return parsed.order.line_items.map((l) => ({ gid: lineItemGid(l), sku: l.sku || undefined, title: l.title ?? undefined }));
}

export type Words = (text: string | undefined) => string;

/** Words for an operator: the text as recorded. */
export const asRecorded: Words = (text) => text ?? '';

const tail = (gid: string) => gid.slice(gid.lastIndexOf('/') + 1);

/** The print order's items (SKUs by position), from a test run's print order when there is one. */
function printItemsOf(order: unknown): { sku?: string }[] {
  const items = (order as { orderData?: { items?: unknown } } | undefined)?.orderData?.items;
  return Array.isArray(items) ? items.map((i) => ({ sku: typeof (i as { sku?: unknown }).sku === 'string' ? (i as { sku: string }).sku : undefined })) : [];
}

/** A translator of recorded text into merchant words for one order. */
export function orderWords(
  link: Pick<OrderLink, 'orderId' | 'orderName' | 'shipments' | 'fulfillmentRequest' | 'testRun'>,
  lines: readonly OrderLine[] = [],
  /** The carrier company for a printer's carrier code (the mapping's `tracking` table). */
  company?: (code: string) => string | undefined,
): Words & { line(gid: string, sku?: string | null): string; request(gid: string): string } {
  const byTail = new Map<string, { position?: number; sku?: string; title?: string }>();
  lines.forEach((l, i) => byTail.set(tail(l.gid), { position: i + 1, sku: l.sku, title: l.title }));
  const learn = (gid: string, sku?: string | null, title?: string) => {
    const known = byTail.get(tail(gid));
    byTail.set(tail(gid), { position: known?.position, sku: known?.sku ?? sku ?? undefined, title: known?.title ?? title });
  };
  for (const s of link.shipments) for (const li of s.lineItems) learn(li.lineItemId, li.sku, li.title);
  const requests = link.fulfillmentRequest?.fulfillmentOrders ?? [];
  const requestNumber = new Map(requests.map((fo, i) => [tail(fo.id), i + 1]));
  const requestLine = new Map<string, string>();
  for (const fo of requests) {
    for (const l of fo.lineItems) {
      learn(l.lineItemId, l.sku);
      requestLine.set(tail(l.id), l.lineItemId);
    }
  }
  const printItems = printItemsOf(link.testRun?.order);
  const orderName = link.orderName ?? 'the order';

  function line(gid: string, sku?: string | null): string {
    const known = byTail.get(tail(gid));
    const code = known?.sku ?? sku ?? undefined;
    if (known?.position) return `line item ${known.position}${code ? ` (SKU ${code})` : ''}`;
    return code ? `the line item with SKU ${code}` : 'a line item';
  }
  function request(gid: string): string {
    const n = requestNumber.get(tail(gid));
    return n ? `fulfillment request ${n}` : 'a fulfillment request';
  }
  function gidWords(type: string, id: string): string {
    const gid = `gid://shopify/${type}/${id}`;
    if (type === 'Order') return !link.orderId || tail(link.orderId) === id ? orderName : 'another order';
    if (type === 'LineItem') return line(gid);
    if (type === 'FulfillmentOrder') return request(gid);
    if (type === 'FulfillmentOrderLineItem') return requestLine.has(id) ? line(requestLine.get(id)!) : 'a requested line';
    if (type === 'Fulfillment') return 'the fulfillment';
    if (type === 'Location') return 'another location';
    return `a Shopify ${spaced(type).toLowerCase()}`;
  }
  function pathWords(path: string): string | undefined {
    const segments = [...path.matchAll(/([A-Za-z_]\w*)|\[([^[\]\s]*)\]/g)].map((m) => ({ name: m[1], key: m[2] }));
    const root = segments[0]?.name ?? '';
    if (!path.includes('[') && !PATH_ROOTS.has(root)) return undefined;
    const phrases: string[] = [];
    let ofOrder = false;
    for (let i = 0; i < segments.length; i++) {
      const name = segments[i]!.name;
      if (name === undefined) continue;
      const key = segments[i + 1]?.key;
      if (i === 0 && ORDER_ROOTS.has(name) && key === undefined) {
        ofOrder = true;
        continue;
      }
      if (key === undefined) {
        phrases.push(FIELD_WORDS[name] ?? spaced(name).toLowerCase());
        continue;
      }
      i += 1;
      const n = /^\d+$/.test(key) ? Number(key) : undefined;
      if (n === undefined) {
        phrases.push(name === 'components' ? `“${key}” artwork` : `${singular(name)} “${key}”`);
      } else if (name === 'line_items') {
        const known = lines[n];
        phrases.push(known ? line(known.gid) : `line item ${n + 1}`);
      } else if (name === 'items' && printItems[n]?.sku) {
        phrases.push(`print item ${n + 1} (SKU ${printItems[n].sku})`);
      } else {
        phrases.push(`${singular(name)} ${n + 1}`);
      }
    }
    if (phrases.length === 0) return 'the order';
    return ofOrder && !path.includes('[') ? `the order's ${phrases.join(', ')}` : phrases.join(', ');
  }
  // The printer's carrier codes this order's shipments carry, said as the companies the mapping names.
  const carriers = new Map<string, string>();
  for (const s of link.shipments) {
    const code = s.carrier?.code;
    const name = code && company?.(code);
    if (code && name && name !== code) carriers.set(code, name);
  }
  const carrierPattern = carriers.size ? new RegExp(`\\b(${[...carriers.keys()].map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\b`, 'g') : undefined;
  const translate = (text: string | undefined): string => {
    const said = translated(text ?? '')
      // A subject naming the line and then its path says the same line twice.
      .replace(SAID_TWICE, '$1');
    return carrierPattern ? said.replace(carrierPattern, (code) => carriers.get(code) ?? code) : said;
  };
  const translated = (text: string): string =>
    text.replace(PATTERN, (match, ...groups: (string | undefined)[]) => {
      const [gidType, gidId, subjectId, subjectSku, bareId, shipWord, shipNumbers, job, topic, webhookId, printId, path] = groups;
      if (gidType && gidId) return gidWords(gidType, gidId);
      if (subjectId) return line(`gid://shopify/LineItem/${subjectId}`, subjectSku === 'none' ? undefined : subjectSku);
      if (bareId) return line(`gid://shopify/LineItem/${bareId}`);
      if (shipWord && shipNumbers) return `${shipWord} ${shipNumbers.replace(/\d+/g, (n) => String(Number(n) + 1))}`;
      if (job) return jobWords(job.slice(0, job.indexOf('/')), job.slice(job.indexOf('/') + 1));
      if (topic) return topicWords(topic);
      if (webhookId) return '';
      if (printId) return `print order ${printId}`;
      if (path) return pathWords(path) ?? match;
      return match;
    });
  return Object.assign(translate, { line, request });
}

// One pass over the text, so nothing translated is translated again (shipment 0 → shipment 1, once).
//
// The text comes from outside (Shopify's hold notes, the printer's errors, postbacks), so every alternative is linear:
// no run may be read as another (a `[`, `(` or `"` ends the run that could contain it), and a run starts only where its
// own mark is. `[^\]\s]*` in a path once read `x[x[x[…` to its end from every `x`: 150,000 characters held a page for
// seconds. A SKU or title inside `(SKU …, "…")` is read for at most NAME_CHARS (Shopify's own limit is 255), so openings
// repeated without a close cost each a bounded read.
const NAME_CHARS = 600;
const SAID_TWICE = new RegExp(String.raw`(line item \d+(?: \(SKU [^)]{0,${NAME_CHARS}}\))?)(?:,? \1)+`, 'g');
const PATTERN = new RegExp(
  [
    String.raw`gid:\/\/shopify\/(\w+)\/(\d+)`,
    String.raw`\bline item (\d+) \(SKU "?([^,)"]{0,${NAME_CHARS}})"?(?:, "(?:[^"\\]|\\.){0,${NAME_CHARS}}")?\)`,
    String.raw`\bline item (\d{5,})\b`,
    String.raw`\b(shipments?) (\d+(?:(?:, | and )\d+)*)\b`,
    String.raw`\b((?:orders|shopify)\/(?:submit|cancel|amend-shipping|reexamine|sync|note|fulfil-held|fulfillment-requests|answer-requests|fulfillment-order)\b|webhooks\/[a-z_]+\/[a-z_]+|(?:events|maintenance)\/[a-z-]+)`,
    String.raw`\b((?:orders|fulfillment_orders|fulfillments|refunds|app|shop|customers|app_subscriptions)\/[a-z_]+)\b`,
    String.raw`\bwebhook ([0-9a-f-]{8,})`,
    String.raw`\b_id ([0-9a-f]{24})\b`,
    String.raw`\b([A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[[^[\]\s]*\])+)`,
  ].join('|'),
  'g',
);

const ORDER_ROOTS = new Set(['order', 'orderData', 'body']);
const PATH_ROOTS = new Set([...ORDER_ROOTS, 'items', 'shipments', 'line_items', 'stockItems', 'line', 'destination', 'shipTo', 'returnAddress', 'components', 'attachments', 'shipping_address', 'products']);

const FIELD_WORDS: Record<string, string> = {
  sourceOrderId: 'print reference',
  sourceItemId: 'item reference',
  sku: 'SKU',
  path: 'file URL',
  shipTo: 'ship-to address',
  shipping_address: 'shipping address',
  returnAddress: 'return address',
  isoCountry: 'country',
  address1: 'address line 1',
  address2: 'address line 2',
  shipmentIndex: 'shipment',
  shipByDate: 'ship-by date',
  alias: 'shipping service',
  line: 'line',
  destination: 'print service',
};

function singular(name: string): string {
  const words: Record<string, string> = { line_items: 'line item', items: 'print item', components: 'artwork', stockItems: 'stock item', products: 'mapping rule' };
  return words[name] ?? spaced(name).toLowerCase().replace(/s$/, '');
}

function spaced(name: string): string {
  return name.replace(/_/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2');
}

const TOPICS: Record<string, string> = {
  'orders/create': 'order placed',
  'orders/paid': 'order paid',
  'orders/updated': 'order changed',
  'orders/edited': 'order edited',
  'orders/cancelled': 'order cancelled',
  'orders/fulfilled': 'order fulfilled',
  'orders/partially_fulfilled': 'order partly fulfilled',
  'orders/delete': 'order deleted',
};

/** A Shopify webhook topic as the merchant reads it: `orders/paid` → "order paid (Shopify)". */
export function topicWords(topic: string): string {
  return `${TOPICS[topic] ?? spaced(topic.replace('/', ' ')).replace(/\borders\b/, 'order').replace(/\bfulfillment orders\b/, 'fulfillment order')} (Shopify)`;
}

const JOBS: Record<string, string> = {
  'orders/submit': 'sending the order to the printer',
  'orders/cancel': 'cancelling the order at the printer',
  'orders/amend-shipping': 'sending a new shipping address to the printer',
  'orders/reexamine': 'looking again at waiting orders',
  'shopify/sync': 'updating the order in Shopify (tags, status)',
  'shopify/note': 'adding a note to the order in Shopify',
  'shopify/fulfil-held': 'fulfilling the order in Shopify once its hold is released',
  'shopify/fulfillment-requests': "reading Shopify's fulfillment requests",
  'shopify/answer-requests': "answering Shopify's fulfillment requests",
  'shopify/fulfillment-order': 'reading a change to a fulfillment order in Shopify',
};

/** What a background job does, in a few words, for its queue and name (never the names themselves). */
export function jobWords(queue: string, name: string): string {
  const known = JOBS[`${queue}/${name}`];
  if (known) return known;
  if (queue === 'webhooks') return `reading Shopify's notification: ${topicWords(name)}`;
  if (queue === 'events') return `applying the printer's update (${spaced(name).replace(/-/g, ' ')})`;
  return 'background work on the order';
}

/** Merchant words for text about no order in particular (the mapping preview's problems and notes). */
export const merchantWords: Words = (text) => orderWords({ orderId: '', shipments: [] })(text);

/** Who an entry of the history comes from, for a merchant. */
export const SOURCE_WORDS: Record<string, string> = { shopify: 'Shopify', 'print-service': 'printer', worker: 'print-bridge', operator: 'action' };

/** An action's author as recorded (`<shop> user 42`, `operator`), for the merchant. */
export function actorWords(text: string, shop: string): string {
  return text.replace(new RegExp(`^${shop.replace(/\./g, '\\.')} user ([^:]+)`), 'a staff member of your store').replace(/^operator\b/, 'print-bridge support');
}
