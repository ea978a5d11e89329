import { formatFileProblem, formatMappingProblem } from '../mapping/errors.js';
import type { MappingRegistry } from '../mapping/registry.js';
import type { MappingRenderer } from '../mapping/render-task.js';
import { parseShopifyOrderJson, shopDomainOf, unwrapOrder } from '../mapping/shopify-order.js';
import type { MappingsView, PreviewResult } from './mapping-views.js';

/** What the mappings page needs of the mapping registry. */
export interface AdminMappingPort {
  /**
   * Files in use; with a shop (an embedded viewer), only the files that can serve it, naming no other store:
   * one merchant never learns which other stores the app serves.
   */
  files(shop?: string): MappingsView['files'];
  /** `FILE:LINE:COL message` lines; with a shop, only those of the files that can serve it. */
  problems(shop?: string): string[];
  warnings(shop?: string): string[];
  /** The print order a Shopify order body (JSON text) becomes for a shop with the mappings in force now. */
  preview(bodyText: string, shop?: string): Promise<PreviewResult>;
}

/** The shop used when neither the form nor the body names one; only the "*" file can serve it (as the CLI does). */
export const PREVIEW_SHOP = 'preview.myshopify.com';

/** Previews render with `renderer` (the app's render pool): a slow template never holds the web process. */
export function registryAdminMappings(registry: MappingRegistry, renderer: MappingRenderer): AdminMappingPort {
  const visible = (shop: string | undefined) => registry.mappings().filter((m) => !shop || m.shops.includes(shop) || m.shops.includes('*'));
  return {
    files: (shop) =>
      visible(shop).map((m) => ({ file: m.file, shops: shop ? m.shops.filter((s) => s === shop || s === '*') : m.shops, destination: m.config.destination.source })),
    problems: (shop) => {
      const files = shop ? new Set(visible(shop).map((m) => m.file)) : undefined;
      return registry.problems().filter((p) => !files || files.has(p.file)).map(formatFileProblem);
    },
    warnings: (shop) => {
      const files = shop ? new Set(visible(shop).map((m) => m.file)) : undefined;
      return registry.warnings().filter((p) => !files || files.has(p.file)).map(formatFileProblem);
    },
    async preview(bodyText, shopGiven) {
      let body: unknown;
      try {
        // Big ids stay exact, as in the pipeline.
        body = unwrapOrder(parseShopifyOrderJson(bodyText));
      } catch (error) {
        return { ok: false, shop: shopGiven, problems: [`The body is not JSON: ${(error as Error).message}`] };
      }
      if (!body || typeof body !== 'object' || Array.isArray(body)) {
        return { ok: false, shop: shopGiven, problems: ['The body is not a Shopify order: expected an object (a webhook body, or {"order": {...}}).'] };
      }
      const shop = shopGiven || shopDomainOf(body) || PREVIEW_SHOP;
      const mapping = registry.forShop(shop);
      if (!mapping) return { ok: false, shop, problems: [`No usable mapping file serves ${shop} (and there is no "*" file).`] };
      const result = await renderer.map({ shop, mapping, body, options: registry.mapOptions });
      if (!result.ok) return { ok: false, shop, problems: result.problems.map(formatMappingProblem) };
      const notes = [
        ...result.ignored.map((l) => `ignored: line item ${l.lineItem.id} (${l.lineItem.sku ?? 'no SKU'}): ${l.reason}`),
        ...result.skipped.map((l) => `skipped: line item ${l.lineItem.id} (${l.lineItem.sku ?? 'no SKU'}): ${l.reason}`),
      ];
      return { ok: true, shop, file: mapping.file, order: result.order, notes };
    },
  };
}
