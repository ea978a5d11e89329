import { compact, nonEmpty } from './compact.js';
import type { Renderer } from './field-renderer.js';
import type { ItemRule } from './schema.js';

/**
 * One print item of a product rule, rendered for its line item: the item as the print order carries it, and its
 * components' codes (to name a component in a later schema problem). Undefined when a field failed to render.
 */
export function buildPrintItem(
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
