import { fail, type MetafieldInput, type MetafieldRecord, type OrderRecord, type RecordLookup, type Result, type UserError } from './records.js';

/**
 * Order metafields, as `metafieldsSet` writes them: at most 25 a call, all or nothing, with Shopify's rules on the
 * namespace, the key, the type and the value; the app's own namespace is `$app`.
 */

/**
 * The namespace Shopify gives the calling app's own metafields: `$app` (and `$app:sub`) resolve to `app--<app id>`,
 * as they do in Shopify, on writes and on reads.
 */
export const STAND_IN_APP_NAMESPACE = 'app--31337';

export function resolveAppNamespace(namespace: string): string {
  if (namespace === '$app') return STAND_IN_APP_NAMESPACE;
  if (namespace.startsWith('$app:')) return `${STAND_IN_APP_NAMESPACE}--${namespace.slice('$app:'.length)}`;
  return namespace;
}

const METAFIELD_TYPES = new Set([
  'single_line_text_field',
  'multi_line_text_field',
  'json',
  'number_integer',
  'boolean',
  'date_time',
  'url',
]);

export function setMetafields(records: RecordLookup, shop: string, inputs: MetafieldInput[]): Result<MetafieldRecord[]> {
  if (inputs.length > 25) return fail(['metafields'], 'Exceeded the maximum of 25 metafields per request.', 'LESS_THAN_OR_EQUAL_TO');
  const checked = checkMetafields(records, shop, inputs);
  if (!checked.ok) return checked;
  return { ok: true, value: saveMetafields(records, checked.value, inputs) };
}

/**
 * The metafields of `orderUpdate`'s `OrderInput.metafields` ("new metafields to add to the existing metafields"): the
 * same upsert as `metafieldsSet` on the order being updated, by namespace and key, leaving its other metafields alone.
 * Checked before anything of the update is written, so a refused metafield leaves the order as it was.
 */
export function checkOrderMetafields(records: RecordLookup, shop: string, order: OrderRecord, inputs: Omit<MetafieldInput, 'ownerId'>[]): Result<() => MetafieldRecord[]> {
  const owned = inputs.map((input) => ({ ...input, ownerId: order.id }));
  const checked = checkMetafields(records, shop, owned);
  if (!checked.ok) return checked;
  return { ok: true, value: () => saveMetafields(records, checked.value, owned) };
}

/** Shopify's checks of each input (owner, namespace, key, type, value); the owners of the inputs when all pass. */
function checkMetafields(records: RecordLookup, shop: string, inputs: MetafieldInput[]): Result<OrderRecord[]> {
  const errors: UserError[] = [];
  const owners: OrderRecord[] = [];
  inputs.forEach((input, index) => {
    const field = (name: string) => ['metafields', String(index), name];
    const order = records.findOrder(shop, input.ownerId);
    if (!order) {
      errors.push({ field: field('ownerId'), message: 'Owner does not exist.', code: 'INVALID', elementIndex: index });
      return;
    }
    owners[index] = order;
    const namespace = resolveAppNamespace(input.namespace ?? '');
    if (namespace.length < 3 || namespace.length > 255 || !/^[A-Za-z0-9_-]+$/.test(namespace)) {
      errors.push({ field: field('namespace'), message: 'Namespace must be 3 to 255 letters, digits, - or _.', code: 'INVALID', elementIndex: index });
    }
    if (input.key.length < 2 || input.key.length > 64 || !/^[A-Za-z0-9_-]+$/.test(input.key)) {
      errors.push({ field: field('key'), message: 'Key must be 2 to 64 letters, digits, - or _.', code: 'INVALID', elementIndex: index });
    }
    const existing = order.metafields.find((m) => m.namespace === namespace && m.key === input.key);
    const type = input.type ?? existing?.type;
    if (!type) {
      errors.push({ field: field('type'), message: "Type can't be blank.", code: 'BLANK', elementIndex: index });
      return;
    }
    if (!METAFIELD_TYPES.has(type)) {
      errors.push({ field: field('type'), message: `Type '${type}' is not supported by the stand-in.`, code: 'INVALID_TYPE', elementIndex: index });
      return;
    }
    if (existing && existing.type !== type) {
      errors.push({
        field: field('type'),
        message: `Type '${type}' must be consistent with the existing metafield's type '${existing.type}'.`,
        code: 'INVALID_TYPE',
        elementIndex: index,
      });
      return;
    }
    const problem = metafieldValueProblem(type, input.value);
    if (problem) errors.push({ field: field('value'), message: problem, code: 'INVALID_VALUE', elementIndex: index });
  });
  if (errors.length > 0) return { ok: false, userErrors: errors };
  return { ok: true, value: owners };
}

function saveMetafields(records: RecordLookup, owners: OrderRecord[], inputs: MetafieldInput[]): MetafieldRecord[] {
  const at = records.now();
  return inputs.map((input, index) => {
    const order = owners[index]!;
    const namespace = resolveAppNamespace(input.namespace!);
    const existing = order.metafields.find((m) => m.namespace === namespace && m.key === input.key);
    if (existing) {
      if (existing.value !== input.value) {
        existing.value = input.value;
        existing.updatedAt = at;
        order.updatedAt = at;
      }
      return existing;
    }
    const created: MetafieldRecord = {
      id: records.nextGid('Metafield'),
      ownerId: order.id,
      namespace,
      key: input.key,
      type: input.type!,
      value: input.value,
      createdAt: at,
      updatedAt: at,
    };
    order.metafields.push(created);
    order.updatedAt = at;
    return created;
  });
}

function metafieldValueProblem(type: string, value: string): string | undefined {
  switch (type) {
    case 'single_line_text_field':
      return /[\r\n]/.test(value) ? 'Value must be a single line of text.' : undefined;
    case 'json':
      try {
        JSON.parse(value);
        return undefined;
      } catch {
        return 'Value must be valid JSON.';
      }
    case 'number_integer':
      return /^-?\d+$/.test(value) ? undefined : 'Value must be an integer.';
    case 'boolean':
      return value === 'true' || value === 'false' ? undefined : "Value must be 'true' or 'false'.";
    case 'date_time':
      return Number.isNaN(Date.parse(value)) ? 'Value must be an ISO 8601 date and time.' : undefined;
    case 'url':
      return URL.canParse(value) ? undefined : 'Value must be a URL.';
    default:
      return undefined;
  }
}
