import { createHash } from 'node:crypto';
import { z } from 'zod';
import { cleanString } from '../clean-text.js';
import { jsonDepthExceeds } from '../json-depth.js';
import { repairJson } from './postback-json-repair.js';

export { repairJson } from './postback-json-repair.js';

/**
 * Postbacks from the print service's triggers. Their bodies come from templates people write inside the service, so
 * the parser is tolerant about names and shapes (PascalCase or camelCase keys, any case in status words, every value
 * a string) and strict about meaning: an event it cannot name, or that names no order, is "not understood" and the
 * route answers 400 and keeps the body for an operator. docs/triggers.md lists exactly what is accepted and repaired.
 */

/**
 * `noted`: an event print-bridge does not act on (Site Flow also sends "Shipment Updated", "Component Printed", ...).
 * It is acknowledged and recorded in the order's history, so the service does not retry it and nobody has to clear it.
 */
export const PRINT_EVENT_KINDS = ['received', 'errored', 'cancelled', 'print-ready', 'shipped', 'submission-error', 'noted'] as const;
export type PrintEventKind = (typeof PRINT_EVENT_KINDS)[number];

/**
 * Length limits of what a postback may carry (docs/triggers.md). A value over its limit is a body not understood
 * (400, kept for an operator), never truncated into Shopify: a cut tracking number would send the customer to someone
 * else's parcel. Error texts are only shown, so they are cut instead.
 */
export const POSTBACK_LIMITS = {
  reference: 200,
  trackingNumber: 100,
  carrierField: 100,
  eventName: 100,
  timestamp: 64,
  errorText: 1_000,
  errors: 50,
  /** Nesting of the JSON body; the templates people write produce two or three levels. */
  depth: 32,
} as const;

export const printEventSchema = z.object({
  kind: z.enum(PRINT_EVENT_KINDS),
  /** The event word as the service sent it (cleaned), for `noted` events. */
  name: z.string().max(POSTBACK_LIMITS.eventName).optional(),
  sourceOrderId: z.string().min(1).max(POSTBACK_LIMITS.reference).optional(),
  /** The service's 24-hex `_id`. */
  printOrderId: z.string().regex(/^[0-9a-f]{24}$/).optional(),
  shipmentIndex: z.number().int().min(0).max(10_000).optional(),
  trackingNumber: z.string().min(1).max(POSTBACK_LIMITS.trackingNumber).optional(),
  carrier: z
    .object({
      code: z.string().max(POSTBACK_LIMITS.carrierField).optional(),
      service: z.string().max(POSTBACK_LIMITS.carrierField).optional(),
      alias: z.string().max(POSTBACK_LIMITS.carrierField).optional(),
    })
    .optional(),
  errors: z.array(z.string().max(POSTBACK_LIMITS.errorText)).max(POSTBACK_LIMITS.errors),
  /** When the service says the event happened (ISO 8601 when it could be read as a time). */
  timestamp: z.string().max(POSTBACK_LIMITS.timestamp).optional(),
});
export type PrintEvent = z.infer<typeof printEventSchema>;

export type ParsedPostback =
  | { ok: true; event: PrintEvent; /** What was repaired to read the body; empty for valid JSON. */ repairs: string[] }
  | { ok: false; error: string };

const HEX_ID = /^[0-9a-f]{24}$/i;

/**
 * The event words acted on, compared exactly after normalising case and spacing: letters only, with spaces,
 * underscores, hyphens or nothing between the words (`Shipment Shipped`, `SHIPMENT_SHIPPED`, `shipmentShipped`,
 * `shipment   shipped`). Anything else in the word (`Shipment Shipped 🚚`, `not shipped`, `shipped?`) is not one of
 * them: a near miss must never fulfil an order.
 */
const KIND_WORDS: Record<string, PrintEventKind> = {
  received: 'received',
  orderreceived: 'received',
  errored: 'errored',
  ordererrored: 'errored',
  error: 'errored',
  ordererror: 'errored',
  cancelled: 'cancelled',
  canceled: 'cancelled',
  ordercancelled: 'cancelled',
  ordercanceled: 'cancelled',
  printready: 'print-ready',
  orderprintready: 'print-ready',
  shipped: 'shipped',
  shipmentshipped: 'shipped',
  ordershipped: 'shipped',
  submissionerror: 'submission-error',
  ordersubmissionerror: 'submission-error',
};

export function eventKindOf(word: string): PrintEventKind | undefined {
  const w = word.normalize('NFKC').trim();
  if (!/^[A-Za-z]+(?:[\s_-]+[A-Za-z]+)*$/.test(w)) return undefined;
  return KIND_WORDS[w.toLowerCase().replace(/[\s_-]+/g, '')];
}

// Values at the boundary: a template may render any scalar as a string or a number.
// Control characters and bidi overrides never reach Shopify (or the admin pages): they are removed here.
const scalar = z.union([z.string(), z.number(), z.boolean()]).transform((v) => cleanString(String(v)).trim());
const indexValue = z.union([
  z.number().int().min(0),
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform((v) => Number(v)),
]);
const carrierValue = z.union([
  scalar.transform((code) => (code ? { code } : undefined)),
  z.record(z.string(), z.unknown()).transform((raw) => {
    const keyed = normaliseKeys(raw);
    const pick = (k: string) => {
      const parsed = scalar.safeParse(keyed.get(k));
      return parsed.success && parsed.data ? parsed.data : undefined;
    };
    const carrier = { code: pick('code'), service: pick('service'), alias: pick('alias') };
    return carrier.code || carrier.service || carrier.alias ? dropUndefined(carrier) : undefined;
  }),
  z.null().transform(() => undefined),
]);
const errorsValue = z
  .union([z.array(z.unknown()), scalar, z.null()])
  .transform((v) => {
    const list = v === null ? [] : Array.isArray(v) ? v : [v];
    return list
      .map((e) => {
        if (typeof e === 'string' || typeof e === 'number') return cleanString(String(e)).trim();
        if (e && typeof e === 'object') {
          const keyed = normaliseKeys(e as Record<string, unknown>);
          const message = keyed.get('message') ?? keyed.get('error') ?? keyed.get('text');
          return cleanString(typeof message === 'string' ? message : JSON.stringify(e)).trim();
        }
        return '';
      })
      .filter((e) => e.length > 0)
      .slice(0, POSTBACK_LIMITS.errors)
      .map((e) => (e.length > POSTBACK_LIMITS.errorText ? `${e.slice(0, POSTBACK_LIMITS.errorText - 1)}…` : e));
  });

/** Error texts as a postback's `errors` are read (cleaned, at most 50 of 1,000 characters): for a record's `errors` too. */
export function errorTexts(value: unknown): string[] {
  return errorsValue.safeParse(value ?? null).data ?? [];
}

/** Parses a raw postback body into an event, or says plainly why it cannot. */
export function parsePostback(rawBody: string): ParsedPostback {
  const body = rawBody.replace(/^\uFEFF/, '');
  if (body.trim() === '') return { ok: false, error: 'empty body' };
  // Checked on the text, before anything walks the value: a hostile body 50,000 levels deep must be a 400, not a
  // stack overflow somewhere downstream.
  if (jsonDepthExceeds(body, POSTBACK_LIMITS.depth)) return { ok: false, error: `the body is nested deeper than ${POSTBACK_LIMITS.depth} levels` };
  let value: unknown;
  let repairs: string[] = [];
  try {
    value = JSON.parse(body);
  } catch (error) {
    const repaired = repairJson(body);
    if (!repaired.ok) return { ok: false, error: `not JSON (${(error as Error).message}) and not repairable: ${repaired.error}` };
    try {
      value = JSON.parse(repaired.text);
      repairs = repaired.repairs;
    } catch (again) {
      return { ok: false, error: `not JSON (${(error as Error).message}); even after repairs: ${(again as Error).message}` };
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: 'the body is not a JSON object' };
  const understood = eventFromObject(value as Record<string, unknown>);
  return understood.ok ? { ok: true, event: understood.event, repairs } : understood;
}

function eventFromObject(raw: Record<string, unknown>): { ok: true; event: PrintEvent } | { ok: false; error: string } {
  const keyed = normaliseKeys(raw);
  const problems: string[] = [];

  // `event` names the trigger; a record `status` in the same body may lag behind it (printready while a shipment ships).
  let kind: PrintEventKind | undefined;
  let name: string | undefined;
  for (const key of ['event', 'eventname', 'orderstatus', 'status']) {
    const v = keyed.get(key);
    if (typeof v !== 'string' || v.trim() === '') continue;
    name ??= cleanString(v).trim();
    kind = eventKindOf(v);
    if (kind) break;
  }
  if (!name) problems.push('no event, Event, status or OrderStatus field');
  else if (!kind) kind = 'noted'; // an event we do not act on: acknowledged and recorded, never an error
  if (name && name.length > POSTBACK_LIMITS.eventName) problems.push(`event: longer than ${POSTBACK_LIMITS.eventName} characters`);

  const text = (key: string): string | undefined => {
    const v = keyed.get(key);
    if (v === undefined || v === null) return undefined;
    const parsed = scalar.safeParse(v);
    if (!parsed.success) {
      problems.push(`${key}: must be a string or a number`);
      return undefined;
    }
    return parsed.data || undefined;
  };

  let sourceOrderId = text('sourceorderid');
  let printOrderId: string | undefined;
  for (const key of ['id', 'printorderid']) {
    const v = text(key);
    if (v && HEX_ID.test(v)) printOrderId ??= v.toLowerCase();
  }
  // `OrderId` is the service's `_id` when it looks like one; the submission error's OrderId is the sourceOrderId.
  const orderId = text('orderid');
  if (orderId) {
    if (HEX_ID.test(orderId) && !printOrderId) printOrderId = orderId.toLowerCase();
    else if (!HEX_ID.test(orderId)) sourceOrderId ??= orderId;
  }
  if (!sourceOrderId && !printOrderId) problems.push('no order reference (sourceOrderId, SourceOrderId, OrderId or a 24-hex _id)');

  let shipmentIndex: number | undefined;
  const rawIndex = keyed.get('shipmentindex');
  if (rawIndex !== undefined && rawIndex !== null && rawIndex !== '') {
    const parsed = indexValue.safeParse(rawIndex);
    if (parsed.success) shipmentIndex = parsed.data;
    else problems.push(`shipmentIndex: must be a whole number, got ${JSON.stringify(rawIndex)}`);
  }

  const trackingNumber = text('trackingnumber');
  let carrier: PrintEvent['carrier'];
  const rawCarrier = keyed.get('carrier') ?? keyed.get('carriercode');
  if (rawCarrier !== undefined) {
    const parsed = carrierValue.safeParse(rawCarrier);
    if (parsed.success) carrier = parsed.data;
    else problems.push('carrier: must be a string or {code, service}');
  }

  const rawErrors = keyed.get('errorsclean') ?? keyed.get('errors') ?? keyed.get('error') ?? keyed.get('message');
  const errors = rawErrors === undefined ? [] : (errorsValue.safeParse(rawErrors).data ?? []);

  let timestamp = text('timestamp') ?? text('time') ?? text('date');
  if (timestamp && !Number.isNaN(Date.parse(timestamp))) timestamp = new Date(Date.parse(timestamp)).toISOString();

  if (problems.length > 0 || !kind) return { ok: false, error: problems.join('; ') };
  const candidate = dropUndefined({ kind, name: kind === 'noted' ? name : undefined, sourceOrderId, printOrderId, shipmentIndex, trackingNumber, carrier, errors, timestamp });
  const checked = printEventSchema.safeParse(candidate);
  if (!checked.success) return { ok: false, error: checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
  return { ok: true, event: checked.data };
}

/** Keys compared without case and without `_`, `-` or spaces: `SourceOrderId`, `sourceOrderId`, `source_order_id`, `_id`. */
function normaliseKeys(raw: Record<string, unknown>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const [k, v] of Object.entries(raw)) {
    const key = k.toLowerCase().replace(/[^a-z0-9]/g, '');
    if (!out.has(key)) out.set(key, v);
  }
  return out;
}

function dropUndefined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * A fingerprint of what an event means (not of its bytes), so the same postback delivered again, re-indented or with
 * its keys in another order, is recognised cheaply. Correctness does not depend on it: the use cases are idempotent.
 */
export function printEventHash(event: PrintEvent): string {
  const canonical = JSON.stringify([
    // `name` only for noted events, so the hashes of the events acted on stay what they were.
    event.name === undefined ? event.kind : `${event.kind}:${event.name}`,
    event.sourceOrderId ?? '',
    event.printOrderId ?? '',
    event.shipmentIndex ?? '',
    event.trackingNumber ?? '',
    event.carrier?.code ?? '',
    event.carrier?.service ?? '',
    event.errors,
    event.timestamp ?? '',
  ]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 32);
}
