import type { TrackingLookup } from '../bridge/ports.js';
import type { MappingRegistry } from './registry.js';
import { trackingFor } from './tracking.js';

/**
 * The events worker's tracking lookup on the mapping registry: the `tracking` table of the file serving the shop,
 * read at each event so a hot-reloaded file applies to the next shipment. A shop no file serves gets the carrier
 * code as the company, as an unknown code does.
 */
export function registryTrackingLookup(registry: MappingRegistry): TrackingLookup {
  return (shop, carrierCode, trackingNumber) => {
    const mapping = registry.forShop(shop);
    return mapping ? trackingFor(mapping, carrierCode, trackingNumber) : { company: carrierCode };
  };
}
