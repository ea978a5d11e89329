import { formatPath, parseOrder, type PrintOrder } from '../print-service/schema.js';
import { lineItemOfIssue } from '../orders/shopify-order.js';
import { mappingProblem, type LineItemRef, type MappingProblem } from './errors.js';
import type { LoadedMapping } from './load.js';
import type { MappingFile } from './schema.js';
import { lineItemId, orderId, propertiesMap, shopifyOrderSchema, type ShopifyLineItem, type ShopifyOrder } from './shopify-order.js';
import type { ArtworkUrlPolicy } from './artwork-url.js';
import { cleanText } from '../clean-text.js';
import { compileTemplate, orderRenderBudget } from './templates.js';
import { compact } from './compact.js';
import { Renderer, type OrderRenderState, type Scope } from './field-renderer.js';
import { chooseRule, matchableLine, refundedQuantities } from './line-selection.js';
import { buildPrintItem } from './print-item.js';
import { renderShipment, renderShipTo, type ShipmentContext } from './shipments.js';

/**
 * Shopify order → print order. A pure function of (order body, mapping, shop): no clock, no I/O, no randomness, so
 * mapping the same order twice gives the same document (same sourceOrderId, sourceItemIds and item order) and
 * re-processing stays idempotent.
 *
 * The result is either an order that passes the print service's strict schema, or every problem found (all line items
 * are tried, so a merchant sees everything to fix at once): never both, and never a partial order unless the mapping
 * says `unmapped: skip`.
 */

export interface ShopRef {
  domain: string;
  /** The domain without `.myshopify.com`. */
  handle: string;
}

export function shopRef(domain: string): ShopRef {
  const d = domain.trim().toLowerCase();
  return { domain: d, handle: d.replace(/\.myshopify\.com$/, '') };
}

export interface LeftOutLine {
  lineItem: LineItemRef;
  reason: string;
  rule?: string;
}

export interface MappedLine {
  lineItem: LineItemRef;
  quantity: number;
  shipmentIndex: number;
}

export type MapResult =
  | {
      ok: true;
      order: PrintOrder;
      /** The Shopify lines the print order carries: line item, quantity in Shopify, and the shipment it travels in. */
      lines: MappedLine[];
      /** Lines left out on purpose: ignore rules, gift cards, lines without shipping, removed or refunded lines. */
      ignored: LeftOutLine[];
      /** Lines no rule maps, left out because the mapping says `unmapped: skip`. */
      skipped: LeftOutLine[];
      /** The Shopify line item of each print item (`order.orderData.items[i]`), to name it in a later problem. */
      itemLines: LineItemRef[];
    }
  | { ok: false; problems: MappingProblem[] };

const DEFAULT_SOURCE_ORDER_ID = compileTemplate('{{ shop.handle }}-{{ order.order_number }}');

/** What mapping an order needs besides the order and the file: the server's rules for artwork URLs. */
export interface MapOptions {
  artwork?: ArtworkUrlPolicy;
}

function mappingOf(m: MappingFile | LoadedMapping): MappingFile {
  return 'config' in m ? m.config : m;
}

/** Maps a Shopify order body (webhook body, already unwrapped) with a loaded mapping for one store. */
export function mapOrder(body: unknown, mapping: MappingFile | LoadedMapping, shopDomain: string, options: MapOptions = {}): MapResult {
  const config = mappingOf(mapping);
  const parsed = shopifyOrderSchema.safeParse(body);
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.map((issue) => {
        // A line item's issue names the line item, as every other line-level problem does.
        const lineItem = lineItemOfIssue(body, issue.path);
        const message = `the Shopify order cannot be read: ${issue.message}`;
        return mappingProblem({ kind: 'order', field: `order.${formatPath(issue.path)}`, message, ...(lineItem ? { lineItem } : {}) });
      }),
    };
  }
  const order = parsed.data;
  const shop = shopRef(shopDomain);
  const exactOrderId = orderId(order);
  // Templates see the body as it came (every key), with exact ids.
  const raw = body as Record<string, unknown>;
  const orderCtx: Record<string, unknown> = exactOrderId ? { ...raw, id: exactOrderId } : raw;
  const baseScope: Scope = { order: orderCtx, shop };
  const state: OrderRenderState = { budget: orderRenderBudget(), artwork: options.artwork ?? {}, overBudget: false };
  return new OrderMapper(config, order, raw.line_items as Record<string, unknown>[], baseScope, state).run();
}

interface PendingItem {
  item: Record<string, unknown>;
  ref: LineItemRef;
  shipmentKey: string;
  componentCodes: string[];
}

class OrderMapper {
  private readonly problems: MappingProblem[] = [];
  private readonly items: PendingItem[] = [];
  private readonly stock: { item: Record<string, unknown>; ref: LineItemRef; shipmentKey: string }[] = [];
  /** Each Shopify line that went to the printer, with its quantity and shipment key: what a fulfillment covers. */
  private readonly mappedLines: { ref: LineItemRef; quantity: number; shipmentKey: string }[] = [];
  private readonly ignored: LeftOutLine[] = [];
  private readonly skipped: LeftOutLine[] = [];
  /** Shipment keys in order of first appearance along the line items. */
  private readonly shipmentKeys: string[] = [];
  private nextItemIndex = 0;
  private nextStockIndex = 0;
  /** Quantity refunded per line item id. */
  private readonly refunded: Map<string, number>;

  constructor(
    private readonly config: MappingFile,
    private readonly order: ShopifyOrder,
    private readonly rawLines: readonly Record<string, unknown>[],
    private readonly baseScope: Scope,
    private readonly state: OrderRenderState,
  ) {
    this.refunded = refundedQuantities(order);
  }

  run(): MapResult {
    this.order.line_items.forEach((line, index) => this.mapLine(line, index));
    if (this.problems.length > 0) return { ok: false, problems: this.problems };
    if (this.items.length === 0) {
      const left = [...this.ignored, ...this.skipped];
      return {
        ok: false,
        problems: [
          mappingProblem({
            kind: 'empty',
            field: 'items',
            message:
              `nothing to print: no line item maps to a print item` +
              (left.length ? ` (${left.map((l) => `${l.lineItem.id}: ${l.reason}`).join('; ')})` : ''),
          }),
        ],
      };
    }
    return this.assemble();
  }

  private mapLine(line: ShopifyLineItem, index: number): void {
    const id = lineItemId(line);
    const ref: LineItemRef = { id: id ?? String(line.id), sku: line.sku || null, title: line.title };
    if (id === undefined) {
      this.problems.push(
        mappingProblem({
          kind: 'order',
          lineItem: ref,
          field: `order.line_items[${index}].id`,
          message:
            'the id is above 2^53 and was read imprecisely, and the line item has no admin_graphql_api_id: ' +
            'read the raw body with parseShopifyOrderJson',
        }),
      );
      return;
    }
    const quantity = line.current_quantity ?? Math.max(0, line.quantity - (this.refunded.get(id) ?? 0));
    if (quantity === 0) {
      this.ignored.push({ lineItem: ref, reason: 'removed or refunded (current quantity 0)' });
      return;
    }
    const properties = propertiesMap(line.properties);
    const matchable = matchableLine(line, properties);
    const scope: Scope = {
      ...this.baseScope,
      line: { ...this.rawLines[index], id, current_quantity: quantity, properties },
    };

    const choice = chooseRule(this.config, line, matchable);
    switch (choice.kind) {
      case 'ignore':
        this.ignored.push({ lineItem: ref, reason: choice.reason, rule: `ignore[${choice.index}]` });
        return;
      case 'product':
        this.mapProduct(choice.index, scope, ref, quantity);
        return;
      case 'stock':
        this.mapStock(choice.index, scope, ref, quantity, line);
        return;
      case 'left-out':
        this.ignored.push({ lineItem: ref, reason: choice.reason });
        return;
      case 'unmapped':
        if (this.config.unmapped === 'skip') {
          this.skipped.push({ lineItem: ref, reason: choice.reason });
        } else {
          this.problems.push(
            mappingProblem({
              kind: 'unmapped',
              lineItem: ref,
              field: `order.line_items[${index}]`,
              message: `${choice.reason}; unmapped: hold keeps the order back`,
            }),
          );
        }
    }
  }

  private mapProduct(ruleIndex: number, scope: Scope, ref: LineItemRef, lineQuantity: number): void {
    const rule = this.config.products[ruleIndex];
    if (!rule) return;
    const ruleName = `products[${ruleIndex}]`;
    const r = new Renderer(scope, this.problems, ref, ruleName, this.state);
    const shipmentKey = rule.shipment ? (r.raw(rule.shipment, 'shipment') ?? '') : '';
    const several = rule.items.length > 1;
    rule.items.forEach((itemRule, k) => {
      const index = this.nextItemIndex++;
      const suffix = several ? `-${k + 1}` : '';
      const built = buildPrintItem(itemRule, new Renderer(scope, this.problems, ref, ruleName, this.state), `items[${index}]`, {
        sourceItemId: `${ref.id}${suffix}`,
        quantity: lineQuantity,
      });
      if (built && !r.failed) {
        this.items.push({ ...built, ref, shipmentKey });
        this.noteShipmentKey(shipmentKey);
      }
    });
    this.mappedLines.push({ ref, quantity: lineQuantity, shipmentKey });
  }

  private noteShipmentKey(key: string): void {
    if (!this.shipmentKeys.includes(key)) this.shipmentKeys.push(key);
  }

  private mapStock(ruleIndex: number, scope: Scope, ref: LineItemRef, lineQuantity: number, line: ShopifyLineItem): void {
    const rule = this.config.stockItems[ruleIndex];
    if (!rule) return;
    const field = `stockItems[${this.nextStockIndex++}]`;
    const r = new Renderer(scope, this.problems, ref, `stockItems[${ruleIndex}]`, this.state);
    const price = line.price === null || line.price === undefined ? NaN : Number(line.price);
    const item = compact({
      code: r.required(rule.code, `${field}.code`),
      name: r.optional(rule.name, `${field}.name`),
      quantity: r.int(rule.quantity, `${field}.quantity`, 1) ?? lineQuantity,
      // The price the customer paid is what customs and carriers ask for.
      unitPrice: r.number(rule.unitPrice, `${field}.unitPrice`) ?? (Number.isFinite(price) && price >= 0 ? price : undefined),
    });
    const shipmentKey = rule.shipment ? (r.raw(rule.shipment, 'shipment') ?? '') : '';
    if (!r.failed) {
      this.stock.push({ item, ref, shipmentKey });
      this.noteShipmentKey(shipmentKey);
      this.mappedLines.push({ ref, quantity: lineQuantity, shipmentKey });
    }
  }

  private assemble(): MapResult {
    const keys = this.shipmentKeys;
    const indexOf = (key: string) => keys.indexOf(key);
    const items = this.items.map((p) => ({ ...p.item, shipmentIndex: indexOf(p.shipmentKey) }));
    const stockItems = this.stock.map((s) => ({ ...s.item, shipmentIndex: indexOf(s.shipmentKey) }));

    const orderRenderer = new Renderer(this.baseScope, this.problems, undefined, undefined, this.state);
    const shipmentContext: ShipmentContext = { config: this.config, order: this.order, baseScope: this.baseScope, problems: this.problems, state: this.state };
    const shipTo = renderShipTo(shipmentContext);
    const shipments = keys.map((key, index) => renderShipment(shipmentContext, key, index, shipTo));
    const o = this.config.order;
    const input = {
      destination: { name: orderRenderer.required(this.config.destination, 'destination.name') },
      orderData: compact({
        sourceOrderId: orderRenderer.required(o?.sourceOrderId ?? DEFAULT_SOURCE_ORDER_ID, 'sourceOrderId'),
        customerName: o?.customerName ? orderRenderer.optional(o.customerName, 'customerName') : shipTo?.name,
        extraData: o?.extraData ? orderRenderer.data(o.extraData, 'extraData') : undefined,
        items,
        stockItems: stockItems.length ? stockItems : undefined,
        shipments,
      }),
    };
    if (this.problems.length > 0) return { ok: false, problems: this.problems };

    // Control characters and bidi overrides, from a template or straight from the customer's address, never reach
    // the printer (clean-text.ts).
    const result = parseOrder(cleanText(input), 'strict');
    if (!result.ok) {
      return {
        ok: false,
        problems: result.problems.map((p) => {
          const { field, lineItem } = this.locate(p.path);
          return mappingProblem({ kind: 'schema', field, message: p.message, ...(lineItem ? { lineItem } : {}) });
        }),
      };
    }
    const lines = this.mappedLines.map((l) => ({ lineItem: l.ref, quantity: l.quantity, shipmentIndex: indexOf(l.shipmentKey) }));
    return { ok: true, order: result.order, lines, ignored: this.ignored, skipped: this.skipped, itemLines: this.items.map((p) => p.ref) };
  }

  /** A schema path (`orderData.items[1].components[0].path`) as a mapping field, with its line item. */
  private locate(path: string): { field: string; lineItem?: LineItemRef } {
    const field = path.replace(/^orderData\./, '');
    const item = /^items\[(\d+)\](?:\.components\[(\d+)\])?(.*)$/.exec(field);
    if (item) {
      const pending = this.items[Number(item[1])];
      if (pending) {
        const code = item[2] !== undefined ? pending.componentCodes[Number(item[2])] : undefined;
        const f = `items[${item[1]}]` + (item[2] !== undefined ? `.components[${code ?? item[2]}]` : '') + item[3];
        return { field: f, lineItem: pending.ref };
      }
    }
    const stock = /^stockItems\[(\d+)\]/.exec(field);
    const s = stock ? this.stock[Number(stock[1])] : undefined;
    return s ? { field, lineItem: s.ref } : { field };
  }
}
