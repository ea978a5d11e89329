import type { ShippingUpdate } from '../../print-service/schema.js';
import type { CarrierService, EmulatorAccount } from './accounts.js';
import { isPlainObject } from './http.js';
import type { ShipmentRecord, StoredOrder } from './store.js';

/**
 * An emulated order's shipments: which it has once its checks passed, how update shipping amends one, and the
 * carrier reported when one ships. The processor (processor.ts) and the API (api.ts) both use them.
 */

/** The carrier reported at dispatch when the account has no mapping for the alias (docs/emulator.md). */
export const DEFAULT_CARRIER_CODE = 'royalmail';

export function shipmentsOf(order: StoredOrder): ShipmentRecord[] {
  const shipments = order.record.orderData.shipments;
  // Before the checks pass, the document is the raw submission and its shipments are not yet the service's.
  if (order.record.status === 'submitted' || order.record.status === 'submissionerror') return [];
  return Array.isArray(shipments) ? (shipments as ShipmentRecord[]) : [];
}

/** Update shipping: a new address replaces the old one; a carrier keeps the shipment's alias beside its code. */
export function applyShippingUpdate(shipment: Record<string, unknown>, update: ShippingUpdate): void {
  if (update.shipTo) shipment.shipTo = update.shipTo;
  if (update.carrier) {
    const alias = isPlainObject(shipment.carrier) ? shipment.carrier.alias : undefined;
    shipment.carrier = { ...(typeof alias === 'string' ? { alias } : {}), ...update.carrier };
  }
  if (update.trackingNumber !== undefined) shipment.trackingNumber = update.trackingNumber;
}

/**
 * The carrier reported at dispatch: one amended through update shipping (it has a code) stays as it was given, with
 * no service when none was given (the alias is print-bridge's word, not a service of that carrier); otherwise the alias
 * maps through the account's `carriers`, or to `royalmail` with the alias as the service.
 */
export function carrierAtDispatch(
  account: EmulatorAccount,
  current: ShipmentRecord['carrier'],
): { alias?: string; code: string; service?: string } {
  const alias = current?.alias;
  if (current?.code) return { ...(alias ? { alias } : {}), code: current.code, ...(current.service ? { service: current.service } : {}) };
  const mapped: CarrierService | undefined = alias ? account.carriers?.get(alias) : undefined;
  if (mapped) return { alias, code: mapped.code, service: mapped.service };
  return { ...(alias ? { alias } : {}), code: DEFAULT_CARRIER_CODE, service: alias ?? 'standard' };
}
