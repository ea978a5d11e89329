/**
 * Real-shaped print-service documents for bench:client (issue 27): the create document print-bridge sends for a
 * real-shaped Shopify order (bench/shopify-order-shape.ts), and the order record the service answers for it.
 *
 * - **Create document:** the bench pipeline's fixed mapping (bench/pipeline-mapping.ts) of the order, with what a full
 *   mapping carries beside it: item descriptions, the line's customer-visible properties and the personaliser's saved
 *   design as item `extraData` (returned in postbacks), component barcodes, ids and attributes, the Shopify ids as
 *   order `extraData` with what a packing slip and invoice need (customer, billing address, shipping lines, totals, taxes), a packing-slip
 *   attachment and a ship-by date. 7–23 KB, median about 10 KB (300 orders, seed 27).
 * - **Order record** (`GET /api/order/bysourceid/<id>`, `GET /api/order/<id>`, cancel): the service stores the
 *   submitted structure and adds its own fields, as in a real answer (HP's published `submit_order_output`): `__v`,
 *   `source`, `files` (one per component, each with its versions), `logs`, per item and component `_id`, `status`,
 *   `barcode`, product settings (colour, finish, paper, pages, impositions), per shipment `_id`, carrier code and
 *   service, packages, job ids; answered wrapped as `{order, success: true}`. 18–65 KB, median about 28 KB.
 *
 * The create answer: the interface names `_id`, `url`, `timestamp`, `sourceAccountId`; a real service answers the
 * stored order beside them, so the bench answers the record with those four fields.
 *
 *   npx tsx bench/print-service-shape.ts [--count 200 --seed 27]   (prints the size distributions)
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gidTail, type ShopifyOrderBody, toPrintOrder } from './pipeline-mapping.js';
import { type Rng, seededRng } from './seeded-random.js';
import { shopifyOrder } from './shopify-order-shape.js';

const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
const int = (rng: Rng, min: number, max: number): number => min + Math.floor(rng() * (max - min + 1));
const hex = (rng: Rng, n: number): string => Array.from({ length: n }, () => Math.floor(rng() * 16).toString(16)).join('');

interface PrintComponent {
  code: string;
  path: string;
  fetch: boolean;
  [key: string]: unknown;
}
interface PrintItem {
  sourceItemId: string;
  sku: string;
  quantity: number;
  shipmentIndex: number;
  components: PrintComponent[];
  [key: string]: unknown;
}
interface PrintShipment {
  shipTo: Record<string, unknown>;
  returnAddress: Record<string, unknown>;
  carrier: { alias: string };
  [key: string]: unknown;
}
export interface PrintDocument {
  destination: { name: string };
  orderData: { sourceOrderId: string; customerName?: string; items: PrintItem[]; shipments: PrintShipment[]; [key: string]: unknown };
}

const ATTRIBUTES: Record<string, Record<string, string>> = {
  cover: { substrate: 'Silk', substrateWeight: '350 gsm', lamination: 'Matt', orientation: 'Portrait' },
  text: { substrate: 'Uncoated', substrateWeight: '120 gsm', binding: 'PUR', orientation: 'Portrait' },
  poster: { substrate: 'Fine Art Matte', substrateWeight: '200 gsm', finish: 'none' },
  front: { substrate: 'Coated', substrateWeight: '300 gsm', cut: 'To Trim' },
  back: { substrate: 'Coated', substrateWeight: '300 gsm', cut: 'To Trim' },
};

/** The create document for real-shaped order number `index` (the same seed and index give the same document). */
export function printOrderDocument(index: number, seed = 27): PrintDocument {
  const generated = shopifyOrder({ serial: index, seed });
  // Shopify's ids are above 2^53; the mapping reads the exact `gid://` strings, so a lossy parse of the ids is fine.
  const order = JSON.parse(generated.body) as ShopifyOrderBody & {
    line_items: (ShopifyOrderBody['line_items'][number] & { title: string; variant_title: string; price: string; [field: string]: unknown })[];
    note_attributes?: { name: string; value: string }[];
    name: string;
    created_at: string;
    [field: string]: unknown;
  };
  const doc = toPrintOrder(order, 'acme-books') as PrintDocument;
  const rng = seededRng((seed * 0x27d4eb2d + index * 0x165667b1) >>> 0);
  doc.orderData.extraData = {
    shop: 'acme-books.myshopify.com',
    orderGid: order.admin_graphql_api_id,
    orderName: order.name,
    placedAt: order.created_at,
    noteAttributes: order.note_attributes ?? [],
    // For the printer's packing slip and invoice: who pays, what was charged, and how it ships.
    customer: order.customer,
    billingAddress: order.billing_address,
    shippingLines: order.shipping_lines,
    discountCodes: order.discount_codes,
    totals: { subtotal: order.subtotal_price_set, tax: order.total_tax_set, total: order.total_price_set },
  };
  doc.orderData.items.forEach((item, i) => {
    const line = order.line_items[i]!;
    item.description = `${line.title} – ${line.variant_title}`;
    item.barcode = `PB${hex(rng, 10).toUpperCase()}`;
    item.extraData = {
      lineItemGid: line.admin_graphql_api_id,
      price: line.price,
      priceSet: line.price_set,
      taxLines: line.tax_lines,
      discountAllocations: line.discount_allocations,
      // What the customer chose (shown back in postbacks); the saved design is kept for reprints.
      properties: Object.fromEntries(line.properties.map((p) => [p.name, p.value])),
    };
    item.components.forEach((component, c) => {
      component.sourceComponentId = `${gidTail(line.admin_graphql_api_id)}-${c}`;
      component.barcode = `PC${hex(rng, 10).toUpperCase()}`;
      component.preflight = rng() < 0.5;
      component.attributes = ATTRIBUTES[component.code] ?? {};
    });
  });
  const shipment = doc.orderData.shipments[0]!;
  shipment.sourceShipmentId = `${doc.orderData.sourceOrderId}-1`;
  shipment.shipByDate = `2026-11-${String(int(rng, 23, 30)).padStart(2, '0')}`;
  shipment.attachments = [{ path: `https://acme-books.example.com/packing-slips/${hex(rng, 16)}.pdf`, type: 'packingSlip' }];
  return doc;
}

const objectId = (rng: Rng): string => `6541${hex(rng, 20)}`;

/**
 * The record the service answers for a stored document (`{order, success: true}`), with the server-added fields of a
 * real answer. `acknowledgement` adds the four fields the interface names for a create answer.
 */
export function printOrderRecord(doc: PrintDocument, index: number, options: { acknowledgement?: boolean } = {}): string {
  const rng = seededRng((index * 0x9e3779b1 + 0x5bd1e995) >>> 0);
  const id = objectId(rng);
  const account = { id: objectId(rng), name: 'acme-books' };
  const time = new Date(Date.UTC(2026, 10, 21, 9, 0, 0) + index * 1_000).toISOString();
  const files: Record<string, unknown>[] = [];
  const logs: Record<string, unknown>[] = [{ level: 'info', message: 'Order created', resourceId: id, resourceType: 'order', timestamp: time }];
  const items = doc.orderData.items.map((item) => ({
    _id: objectId(rng),
    attributes: [],
    binding: item.sku.startsWith('BOOK-') ? 'perfect' : 'none',
    dispatchAlert: '',
    folding: 'none',
    printQuantity: item.quantity,
    productDescription: item.description,
    reprintCount: 0,
    scanned: 0,
    status: 'live',
    totalPages: int(rng, 2, 48),
    unitCost: Number((rng() * 6).toFixed(2)),
    unitPrice: Number((rng() * 30).toFixed(2)),
    unitWeight: int(rng, 50, 900),
    ...item,
    components: item.components.map((component) => {
      const componentId = objectId(rng);
      const fileId = objectId(rng);
      const versionId = objectId(rng);
      const localFilename = component.path.replace(/^.*\//, '').replace(/\?.*$/, '');
      files.push({
        __v: 0,
        _id: fileId,
        barcodes: [],
        componentId,
        created: time,
        currentRevision: 1,
        currentVersionId: versionId,
        destination: doc.destination,
        duplicate: 1,
        error: { code: 0, message: '' },
        errorCheck: true,
        fetch: true,
        fetchUrl: component.path,
        fileSize: int(rng, 80_000, 40_000_000),
        infotech: false,
        infotechCopies: 1,
        infotechExternal: false,
        infotechImpose: false,
        infotechPadding: 1,
        legacyWorkQueue: true,
        localFile: false,
        localInfo: '',
        localProgress: 0,
        localStatus: 'notreceived',
        orderId: id,
        orderTime: time,
        pageCount: int(rng, 1, 48),
        pageRotation: 0,
        path: localFilename,
        preflight: component.preflight,
        preflightImageRes: 300,
        preflightProfile: '',
        preflightReport: [],
        proof: false,
        simplex: false,
        source: account,
        status: 'notreceived',
        syncComplete: false,
        syncRequired: false,
        type: 'artwork',
        versions: [
          {
            _id: versionId,
            error: { code: 0, message: '' },
            fileSize: 0,
            pageConfigs: [],
            pageCount: 0,
            pages: [],
            paths: { fetchUrl: component.path, localFilename, pageThumbnailPath: '', thumbnailPath: '' },
            preflightReport: [],
            revision: 1,
            status: 'notreceived',
            syncComplete: false,
          },
        ],
      });
      logs.push({ level: 'info', message: 'Added file to order', resourceId: fileId, resourceType: 'file', timestamp: time });
      return {
        _id: componentId,
        barcodes: [],
        batchImpositionId: objectId(rng),
        colour: { side1: '4process', side2: pick(rng, ['4process', 'none']) },
        duplicate: 1,
        errorCheck: true,
        fileId,
        finish: { side1: pick(rng, ['none', 'matt laminate', 'gloss laminate']), side2: 'none' },
        height: int(rng, 148, 700),
        infotech: false,
        infotechCopies: 1,
        infotechExternal: false,
        infotechImpose: false,
        infotechPadding: 1,
        legacyWorkQueue: true,
        localFile: false,
        nup: 1,
        pages: int(rng, 1, 48),
        paperId: objectId(rng),
        preflightImageRes: 300,
        preflightProfile: '',
        proof: false,
        reprintCount: 0,
        route: [],
        simplex: false,
        status: 'live',
        type: 'press',
        weight: String(int(rng, 80, 350)),
        width: int(rng, 105, 500),
        ...component,
      };
    }),
  }));
  const shipments = doc.orderData.shipments.map((shipment, s) => ({
    _id: objectId(rng),
    agentJobs: [],
    canShipEarly: true,
    componentIds: [],
    expectedQuantity: 0,
    itemIds: items.map((i) => i._id),
    items: [],
    jobIds: [],
    labelName: 'default',
    labelNotRequired: false,
    manuallyPacked: false,
    packages: [],
    partial: false,
    printJobs: [],
    pspBranding: true,
    scannedQuantity: 0,
    shipmentIndex: s,
    singleItem: false,
    status: 'live',
    stockItems: [],
    trackingRequired: false,
    ...shipment,
    carrier: { ...shipment.carrier, code: 'royalmail', service: shipment.carrier.alias === 'express' ? 'tracked24' : 'tracked48', serviceId: objectId(rng) },
  }));
  const record: Record<string, unknown> = {
    __v: 1,
    _id: id,
    destination: { id: objectId(rng), ...doc.destination },
    files,
    logs,
    orderData: {
      amount: 0,
      attributes: [],
      colour: 'black',
      consolidatedInvoice: false,
      currency: 'GBP',
      date: time,
      messages: [],
      postbackAddress: 'https://print-bridge.example.com/print-events',
      postbackMethod: 'http',
      printType: 'digital',
      publicUploads: false,
      reprint: false,
      reprintCount: 0,
      slaTimestamp: time,
      status: 'received',
      stockItems: [],
      tags: [],
      ...doc.orderData,
      items,
      shipments,
    },
    source: account,
    sourceAccountId: account.id,
    status: 'received',
  };
  if (options.acknowledgement) Object.assign(record, { url: `https://orders.print.example.com/api/order/${id}/original`, timestamp: time });
  return JSON.stringify({ order: record, success: true });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}
function describe(sizes: number[]): string {
  const s = [...sizes].sort((a, b) => a - b);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  return `min ${kb(s[0]!)}, p10 ${kb(percentile(s, 0.1))}, median ${kb(percentile(s, 0.5))}, p90 ${kb(percentile(s, 0.9))}, max ${kb(s[s.length - 1]!)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { count: { type: 'string', default: '200' }, seed: { type: 'string', default: '27' } } });
  const docs: number[] = [];
  const records: number[] = [];
  let items = 0;
  for (let i = 0; i < Number(values.count); i++) {
    const doc = printOrderDocument(i, Number(values.seed));
    items += doc.orderData.items.length;
    docs.push(Buffer.byteLength(JSON.stringify(doc)));
    records.push(Buffer.byteLength(printOrderRecord(doc, i)));
  }
  console.log(`create documents: ${describe(docs)}; ${(items / docs.length).toFixed(1)} items per order`);
  console.log(`order records:    ${describe(records)}`);
}
