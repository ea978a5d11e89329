import type { MapOutcome, MappingPort, PlannedShipment } from '../bridge/ports.js';
import { formatMappingProblem, type LineItemRef, type MappingProblem } from '../mapping/errors.js';
import type { MappingRegistry } from '../mapping/registry.js';
import type { MappingRenderer } from '../mapping/render-task.js';

/**
 * The pipeline's view of the mapping registry: submit settings per shop, and orders mapped with Shopify line gids by
 * the renderer (the app's render pool).
 */
export function registryMappingPort(registry: MappingRegistry, renderer: MappingRenderer): MappingPort {
  return {
    settingsFor(shop) {
      const mapping = registry.forShop(shop);
      if (!mapping) return undefined;
      const submit = mapping.config.submit;
      return { on: submit.on, holdMinutes: submit.holdMinutes, validate: submit.validate, holdPolicy: { waitForHolds: submit.wait_for_holds, waitForRisk: submit.wait_for_risk } };
    },
    async map(shop, body): Promise<MapOutcome> {
      const mapping = registry.forShop(shop);
      // No mapping: the registry's problem says so, nothing to render.
      const result = mapping ? await renderer.map({ shop, mapping, body, options: registry.mapOptions }) : { ...registry.mapOrder(body, shop), lineGids: new Map<string, string>() };
      if (!result.ok) return { ok: false, problems: result.problems.map((p) => ({ ...toProblem(p), mappingKind: p.kind })) };
      const gids = result.lineGids;
      const shipments = new Map<number, PlannedShipment>();
      for (const line of result.lines) {
        const shipment = shipments.get(line.shipmentIndex) ?? { index: line.shipmentIndex, lineItems: [] };
        shipment.lineItems.push({
          lineItemId: gids.get(line.lineItem.id) ?? `gid://shopify/LineItem/${line.lineItem.id}`,
          quantity: line.quantity,
          sku: line.lineItem.sku ?? undefined,
          title: line.lineItem.title ?? undefined,
        });
        shipments.set(line.shipmentIndex, shipment);
      }
      return {
        ok: true,
        order: result.order,
        shipments: [...shipments.values()].sort((a, b) => a.index - b.index),
        leftOut: [...result.ignored, ...result.skipped].map((l) => ({ lineItemId: l.lineItem.id, reason: l.reason })),
        itemSubjects: result.itemLines.map(lineItemSubject),
      };
    },
  };
}

function toProblem(problem: MappingProblem): { message: string; subject?: string } {
  if (!problem.lineItem) return { message: problem.field ? `${problem.field}: ${problem.message}` : problem.message };
  return { subject: `${lineItemSubject(problem.lineItem)}${problem.field ? ` ${problem.field}` : ''}`, message: problem.message };
}

/** A Shopify line item as problems name it: `line item 123 (SKU PRINT-A5, "Poster")`. */
export function lineItemSubject(line: LineItemRef): string {
  return `line item ${line.id} (SKU ${line.sku ?? 'none'}, ${JSON.stringify(line.title ?? '')})`;
}


export { formatMappingProblem };
