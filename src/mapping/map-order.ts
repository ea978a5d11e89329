import { formatPath, parseOrder, type PrintOrder } from '../print-service/schema.js';
import { mappingProblem, type LineItemRef, type MappingProblem } from './errors.js';
import type { LoadedMapping } from './load.js';
import { matches, exactId, type CompiledMatch, type MatchableLine } from './match.js';
import {
  TEMPLATE_LEAF,
  toBool,
  toInt,
  toNumber,
  type Convert,
  type ItemRule,
  type MappingFile,
  type ShipToOverride,
  type Typed,
} from './schema.js';
import {
  lineItemId,
  orderId,
  propertiesMap,
  shopifyOrderSchema,
  type ShopifyAddress,
  type ShopifyLineItem,
  type ShopifyOrder,
} from './shopify-order.js';
import { artworkUrlProblem, type ArtworkUrlPolicy } from './artwork-url.js';
import { cleanText } from '../clean-text.js';
import { compileTemplate, orderRenderBudget, renderTemplate, type RenderBudget, type Tmpl } from './templates.js';

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

type Scope = Record<string, unknown>;

/** What mapping an order needs besides the order and the file: the server's rules for artwork URLs. */
export interface MapOptions {
  artwork?: ArtworkUrlPolicy;
}

/** Shared by every renderer of one order: one render budget, reported once when it runs out. */
interface OrderRenderState {
  budget: RenderBudget;
  artwork: ArtworkUrlPolicy;
  overBudget: boolean;
}

/** Renders templates for one context, collecting problems instead of throwing. */
class Renderer {
  failed = false;
  constructor(
    private readonly scope: Scope,
    private readonly problems: MappingProblem[],
    private readonly lineItem: LineItemRef | undefined,
    private readonly rule: string | undefined,
    private readonly state: OrderRenderState,
  ) {}

  private problem(kind: MappingProblem['kind'], field: string, message: string): undefined {
    this.failed = true;
    if (this.state.overBudget) return undefined; // One problem says the budget ran out; the rest would repeat it.
    this.problems.push(
      mappingProblem({
        kind,
        field,
        message,
        ...(this.lineItem ? { lineItem: this.lineItem } : {}),
        ...(this.rule ? { rule: this.rule } : {}),
      }),
    );
    return undefined;
  }

  /** The rendered text; templates are trimmed (multi-line `{% if %}` blocks), constants are kept as written. */
  raw(t: Tmpl, field: string): string | undefined {
    return this.render(t, field)?.value;
  }

  private render(t: Tmpl, field: string): { value: string; emptyPart?: string | true } | undefined {
    const r = renderTemplate(t, this.scope, this.state.budget);
    if (!r.ok) {
      const problem = this.problem('template', field, r.message);
      if (r.message.includes('budget')) this.state.overBudget = true;
      return problem;
    }
    const value = t.kind === 'const' ? r.value : r.value.trim();
    return r.emptyPart === undefined ? { value } : { value, emptyPart: r.emptyPart };
  }

  required(t: Tmpl, field: string): string | undefined {
    const r = this.render(t, field);
    if (r === undefined) return undefined;
    if (r.value === '') return this.problem('value', field, `is required but ${describeEmpty(t)}`);
    // A required value with a part that printed nothing is as wrong as an empty one: "/posters/.pdf" is no file.
    if (r.emptyPart !== undefined) {
      const part = r.emptyPart === true ? 'a part of it' : `{{ ${r.emptyPart} }}`;
      return this.problem(
        'value',
        field,
        `is required but ${part} rendered empty in ${JSON.stringify(truncate(t.source))}` +
          ` (write "| default: '...'" after a part that may be missing)`,
      );
    }
    return r.value;
  }

  /** A URL the printer fetches: required, and https to a public host (artwork-url.ts). */
  url(t: Tmpl, field: string): string | undefined {
    const v = this.required(t, field);
    if (v === undefined) return undefined;
    const problem = artworkUrlProblem(v, this.state.artwork);
    return problem ? this.problem('value', field, problem) : v;
  }

  /** Optional text: empty output leaves the field out. */
  optional(t: Tmpl | undefined, field: string): string | undefined {
    if (t === undefined) return undefined;
    const v = this.raw(t, field);
    return v === '' ? undefined : v;
  }

  int(f: Typed<number> | undefined, field: string, min: number): number | undefined {
    return this.typed(f, field, toInt(min));
  }

  number(f: Typed<number> | undefined, field: string): number | undefined {
    return this.typed(f, field, toNumber);
  }

  bool(f: Typed<boolean> | undefined, field: string): boolean | undefined {
    return this.typed(f, field, toBool);
  }

  private typed<T>(f: Typed<T> | undefined, field: string, convert: Convert<T>): T | undefined {
    if (f === undefined) return undefined;
    if (f.kind === 'value') return f.value;
    const s = this.raw(f.tmpl, field);
    if (s === undefined || s === '') return undefined;
    const v = convert(s);
    if (v !== null && typeof v === 'object' && 'error' in v) {
      return this.problem('value', field, `${v.error}; the template rendered ${JSON.stringify(truncate(s))}`);
    }
    return v as T;
  }

  data(value: unknown, field: string): unknown {
    if (value === null || typeof value !== 'object') return value;
    if (TEMPLATE_LEAF in value) return this.raw((value as { [TEMPLATE_LEAF]: Tmpl })[TEMPLATE_LEAF], field) ?? '';
    if (Array.isArray(value)) return value.map((v, i) => this.data(v, `${field}[${i}]`));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = this.data(v, `${field}.${k}`);
    return out;
  }

  attributes(attrs: Record<string, Tmpl | number | boolean>, field: string): Record<string, string | number | boolean> {
    const out: Record<string, string | number | boolean> = {};
    for (const [k, v] of Object.entries(attrs)) {
      if (typeof v === 'object') {
        const s = this.raw(v, `${field}.${k}`);
        if (s !== undefined && s !== '') out[k] = s;
      } else {
        out[k] = v;
      }
    }
    return out;
  }
}

function describeEmpty(t: Tmpl): string {
  return t.kind === 'const' ? 'the mapping gives an empty value' : `the template ${JSON.stringify(truncate(t.source))} rendered empty`;
}

function truncate(s: string): string {
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
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
      problems: parsed.error.issues.map((issue) =>
        mappingProblem({ kind: 'order', field: `order.${formatPath(issue.path)}`, message: `the Shopify order cannot be read: ${issue.message}` }),
      ),
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
  private readonly refunded = new Map<string, number>();

  constructor(
    private readonly config: MappingFile,
    private readonly order: ShopifyOrder,
    private readonly rawLines: readonly Record<string, unknown>[],
    private readonly baseScope: Scope,
    private readonly state: OrderRenderState,
  ) {
    for (const refund of order.refunds ?? []) {
      for (const r of refund.refund_line_items ?? []) {
        const id = exactId(r.line_item_id);
        if (id) this.refunded.set(id, (this.refunded.get(id) ?? 0) + r.quantity);
      }
    }
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
    const matchable: MatchableLine = {
      sku: line.sku ?? '',
      variantId: exactId(line.variant_id),
      productId: exactId(line.product_id),
      vendor: line.vendor ?? '',
      productType: line.product_type ?? '',
      title: line.title ?? '',
      properties,
      requiresShipping: line.requires_shipping ?? true,
      giftCard: line.gift_card ?? false,
    };
    const scope: Scope = {
      ...this.baseScope,
      line: { ...this.rawLines[index], id, current_quantity: quantity, properties },
    };

    const ignoreIndex = firstMatch(this.config.ignore, matchable);
    if (ignoreIndex >= 0) {
      const rule = this.config.ignore[ignoreIndex];
      this.ignored.push({ lineItem: ref, reason: rule?.reason ?? 'ignore rule', rule: `ignore[${ignoreIndex}]` });
      return;
    }
    const productIndex = firstMatch(this.config.products, matchable);
    if (productIndex >= 0) {
      this.mapProduct(productIndex, scope, ref, quantity);
      return;
    }
    const stockIndex = firstMatch(this.config.stockItems, matchable);
    if (stockIndex >= 0) {
      this.mapStock(stockIndex, scope, ref, quantity, line);
      return;
    }
    if (matchable.giftCard) {
      this.ignored.push({ lineItem: ref, reason: 'gift card' });
      return;
    }
    if (!matchable.requiresShipping) {
      this.ignored.push({ lineItem: ref, reason: 'does not require shipping' });
      return;
    }
    const what =
      `no rule of products, stockItems or ignore matches it (sku ${JSON.stringify(matchable.sku)}, ` +
      `variant ${matchable.variantId ?? describeMissingId(line.variant_id)}, product ${matchable.productId ?? describeMissingId(line.product_id)}, ` +
      `vendor ${JSON.stringify(matchable.vendor)})`;
    if (this.config.unmapped === 'skip') {
      this.skipped.push({ lineItem: ref, reason: what });
    } else {
      this.problems.push(
        mappingProblem({ kind: 'unmapped', lineItem: ref, field: `order.line_items[${index}]`, message: `${what}; unmapped: hold keeps the order back` }),
      );
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
      const built = this.buildItem(itemRule, new Renderer(scope, this.problems, ref, ruleName, this.state), `items[${index}]`, {
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

  private buildItem(
    rule: ItemRule,
    r: Renderer,
    field: string,
    defaults: { sourceItemId: string; quantity: number },
  ): { item: Record<string, unknown>; componentCodes: string[] } | undefined {
    const item: Record<string, unknown> = {
      sourceItemId: rule.sourceItemId ? r.required(rule.sourceItemId, `${field}.sourceItemId`) : defaults.sourceItemId,
      sku: r.required(rule.sku, `${field}.sku`),
      quantity: r.int(rule.quantity, `${field}.quantity`, 1) ?? defaults.quantity,
      description: r.optional(rule.description, `${field}.description`),
      dispatchAlert: r.optional(rule.dispatchAlert, `${field}.dispatchAlert`),
      unitWeight: r.number(rule.unitWeight, `${field}.unitWeight`),
      slaDays: r.int(rule.slaDays, `${field}.slaDays`, 0),
      barcode: r.optional(rule.barcode, `${field}.barcode`),
      extraData: rule.extraData ? r.data(rule.extraData, `${field}.extraData`) : undefined,
    };
    const codes: string[] = [];
    item.components = rule.components.map((c, ci) => {
      const code = r.required(c.code, `${field}.components[${ci}].code`);
      codes.push(code ?? String(ci));
      const cf = `${field}.components[${code ?? ci}]`;
      const fetch = r.bool(c.fetch, `${cf}.fetch`);
      const localFile = r.bool(c.localFile, `${cf}.localFile`);
      const attributes = { ...(rule.attributes ?? {}), ...(c.attributes ?? {}) };
      return compact({
        code,
        // A file already at the printer is named, not fetched; anything fetched must be a public https URL.
        path: localFile === true && fetch !== true ? r.required(c.path, `${cf}.path`) : r.url(c.path, `${cf}.path`),
        // Artwork is fetched from its URL unless the mapping says the file is already at the printer.
        fetch: fetch ?? localFile !== true,
        localFile,
        preflight: r.bool(c.preflight, `${cf}.preflight`),
        duplicate: r.int(c.duplicate, `${cf}.duplicate`, 1),
        barcode: r.optional(c.barcode, `${cf}.barcode`),
        sourceComponentId: r.optional(c.sourceComponentId, `${cf}.sourceComponentId`),
        attributes: nonEmpty(r.attributes(attributes, `${cf}.attributes`)),
        extraData: c.extraData ? r.data(c.extraData, `${cf}.extraData`) : undefined,
      });
    });
    if (r.failed) return undefined;
    return { item: compact(item), componentCodes: codes };
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
    const shipTo = this.shipTo();
    const shipments = keys.map((key, index) => this.shipment(key, index, shipTo));
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

  private shipTo(): Record<string, string> | undefined {
    const address = this.order.shipping_address;
    const base = address ? addressToShipTo(address, this.order) : undefined;
    const overrides = this.config.shipments.shipTo;
    if (!base && !overrides?.address1) {
      this.problems.push(
        mappingProblem({
          kind: 'address',
          field: 'shipments[0].shipTo',
          message: 'the order has items to ship but no shipping address',
        }),
      );
      return undefined;
    }
    const out: Record<string, string> = { ...(base ?? {}) };
    if (overrides) {
      const scope = { ...this.baseScope, address: base ?? {} };
      const or = new Renderer(scope, this.problems, undefined, 'shipments.shipTo', this.state);
      for (const [key, t] of Object.entries(overrides) as [keyof ShipToOverride, Tmpl | undefined][]) {
        if (!t) continue;
        const v = or.raw(t, `shipments[0].shipTo.${key}`);
        if (v === undefined) continue;
        if (v === '') delete out[key];
        else out[key] = v;
      }
    }
    return out;
  }

  private shipment(key: string, index: number, shipTo: Record<string, string> | undefined): Record<string, unknown> {
    const s = this.config.shipments;
    const scope = { ...this.baseScope, shipment: { index, key } };
    const r = new Renderer(scope, this.problems, undefined, 'shipments', this.state);
    const f = `shipments[${index}]`;
    const returnAddress: Record<string, string | undefined> = {};
    for (const [k, t] of Object.entries(s.returnAddress) as [string, Tmpl | undefined][]) {
      if (t) returnAddress[k] = r.optional(t, `${f}.returnAddress.${k}`);
    }
    return compact({
      sourceShipmentId: r.optional(s.sourceShipmentId, `${f}.sourceShipmentId`),
      shipByDate: r.optional(s.shipByDate, `${f}.shipByDate`),
      slaDays: r.int(s.slaDays, `${f}.slaDays`, 0),
      canShipEarly: r.bool(s.canShipEarly, `${f}.canShipEarly`),
      shipTo,
      returnAddress: compact(returnAddress),
      carrier: this.carrier(r, f),
      attachments: s.attachments?.map((a, i) =>
        compact({ path: r.url(a.path, `${f}.attachments[${i}].path`), type: r.optional(a.type, `${f}.attachments[${i}].type`) }),
      ),
    });
  }

  /** The shipping line's code, then its title, then the default carrier. */
  private carrier(r: Renderer, field: string): { alias: string | undefined } | undefined {
    const s = this.config.shipments;
    const line = this.order.shipping_lines?.[0];
    const table = s.carriers ?? {};
    const lower = new Map(Object.entries(table).map(([k, v]) => [k.trim().toLowerCase(), v]));
    let chosen = s.carrier;
    for (const candidate of [line?.code, line?.title]) {
      if (!candidate) continue;
      const found = table[candidate] ?? lower.get(candidate.trim().toLowerCase());
      if (found) {
        chosen = found;
        break;
      }
    }
    if (!chosen) {
      this.problems.push(
        mappingProblem({
          kind: 'carrier',
          field: `${field}.carrier`,
          message:
            `no carrier for the shipping line (code ${JSON.stringify(line?.code ?? null)}, title ${JSON.stringify(line?.title ?? null)}) ` +
            'and no default shipments.carrier',
        }),
      );
      return undefined;
    }
    return { alias: r.required(chosen.alias, `${field}.carrier.alias`) };
  }
}

function firstMatch(rules: readonly { match: CompiledMatch }[], line: MatchableLine): number {
  for (let i = 0; i < rules.length; i++) if (matches((rules[i] as { match: CompiledMatch }).match, line)) return i;
  return -1;
}

function nonEmpty<T extends object>(o: T): T | undefined {
  return Object.keys(o).length > 0 ? o : undefined;
}

function describeMissingId(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  return `${String(value)} (imprecise: above 2^53)`;
}

function addressToShipTo(a: ShopifyAddress, order: ShopifyOrder): Record<string, string> {
  const name = a.name?.trim() || [a.first_name, a.last_name].filter(Boolean).join(' ').trim();
  return compact({
    name,
    companyName: a.company,
    address1: a.address1,
    address2: a.address2,
    town: a.city,
    postcode: a.zip,
    state: a.province,
    isoCountry: a.country_code,
    country: a.country,
    phone: a.phone ?? order.phone,
    email: order.email || order.contact_email,
  }) as Record<string, string>;
}

/** Drops undefined, null and empty-string fields, so optional fields the mapping leaves empty are not sent. */
function compact<T extends Record<string, unknown>>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const k in o) {
    const v = o[k];
    if (v !== undefined && v !== null && v !== '') out[k] = v;
  }
  return out as T;
}
