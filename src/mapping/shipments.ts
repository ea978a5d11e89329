import { compact } from './compact.js';
import { mappingProblem, type MappingProblem } from './errors.js';
import { Renderer, type OrderRenderState, type Scope } from './field-renderer.js';
import type { MappingFile, ShipToOverride } from './schema.js';
import type { ShopifyAddress, ShopifyOrder } from './shopify-order.js';
import type { Tmpl } from './templates.js';

/** What the shipments of one order are rendered from; problems are collected into `problems`. */
export interface ShipmentContext {
  config: MappingFile;
  order: ShopifyOrder;
  baseScope: Scope;
  problems: MappingProblem[];
  state: OrderRenderState;
}

/** The address every shipment goes to: the order's shipping address with the mapping's `shipments.shipTo` overrides. */
export function renderShipTo(ctx: ShipmentContext): Record<string, string> | undefined {
  const address = ctx.order.shipping_address;
  const base = address ? addressToShipTo(address, ctx.order) : undefined;
  const overrides = ctx.config.shipments.shipTo;
  if (!base && !overrides?.address1) {
    ctx.problems.push(
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
    const scope = { ...ctx.baseScope, address: base ?? {} };
    const or = new Renderer(scope, ctx.problems, undefined, 'shipments.shipTo', ctx.state);
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

/** The shipment with key `key` (first appearance `index` along the line items). */
export function renderShipment(ctx: ShipmentContext, key: string, index: number, shipTo: Record<string, string> | undefined): Record<string, unknown> {
  const s = ctx.config.shipments;
  const scope = { ...ctx.baseScope, shipment: { index, key } };
  const r = new Renderer(scope, ctx.problems, undefined, 'shipments', ctx.state);
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
    carrier: carrier(ctx, r, f),
    attachments: s.attachments?.map((a, i) =>
      compact({ path: r.url(a.path, `${f}.attachments[${i}].path`), type: r.optional(a.type, `${f}.attachments[${i}].type`) }),
    ),
  });
}

/** The shipping line's code, then its title, then the default carrier. */
function carrier(ctx: ShipmentContext, r: Renderer, field: string): { alias: string | undefined } | undefined {
  const s = ctx.config.shipments;
  const line = ctx.order.shipping_lines?.[0];
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
    ctx.problems.push(
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
