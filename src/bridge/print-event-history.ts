import type { PrintEvent } from '../print-service/postback.js';
import type { ApplyPrintEventDeps } from './apply-print-event.js';

/** How a print event is dated and described in the order's history. */

export function eventTime(deps: ApplyPrintEventDeps, event: PrintEvent): string {
  return event.timestamp && !Number.isNaN(Date.parse(event.timestamp)) ? event.timestamp : deps.clock().toISOString();
}

export function describe(event: PrintEvent): string {
  const parts = [
    event.shipmentIndex !== undefined ? `shipment ${event.shipmentIndex}` : '',
    event.trackingNumber ? `tracking ${event.trackingNumber}` : '',
    event.carrier?.code ? `carrier ${event.carrier.code}${event.carrier.service ? `/${event.carrier.service}` : ''}` : '',
    event.errors.length ? event.errors.join('; ') : '',
    event.timestamp ? `at ${event.timestamp}` : '',
  ];
  return parts.filter(Boolean).join(', ');
}
