import type { CarrierNames, TrackingLookup } from '../bridge/ports.js';
import type { MappingRegistry } from './registry.js';
import type { TrackingRenderer } from './render-task.js';
import { carrierCompany, trackingEntry, trackingFor } from './tracking.js';

/**
 * The events worker's tracking lookup on the mapping registry: the `tracking` table of the mapping serving the shop,
 * read at each event so a hot-reloaded file applies to the next shipment. A shop no mapping serves gets the carrier
 * code as the company, as an unknown code does. A URL template renders in the render pool within the budget
 * (`renderer`), never on this thread: a store's template is code, and one that takes a second a render held every
 * store's webhooks while it ran here.
 */
export function registryTrackingLookup(registry: MappingRegistry, renderer: TrackingRenderer): TrackingLookup {
  return async (shop, carrierCode, trackingNumber) => {
    const mapping = registry.forShop(shop);
    if (!mapping) return { company: carrierCode };
    const url = trackingEntry(mapping, carrierCode)?.url;
    // No URL, or one without Liquid in it: a lookup with nothing to run, done here.
    if (!url || url.kind === 'const') return trackingFor(mapping, carrierCode, trackingNumber);
    return renderer.tracking({ shop, mapping, carrierCode, trackingNumber });
  };
}

/** The company the mapping serving the shop names for a carrier code (the pages' words): a lookup, nothing rendered. */
export function registryCarrierNames(registry: MappingRegistry): CarrierNames {
  return (shop, carrierCode) => {
    const mapping = registry.forShop(shop);
    return mapping ? carrierCompany(mapping, carrierCode) : carrierCode;
  };
}
