import { PrintServiceNotFoundError } from '../print-service/errors.js';
import { errorTexts, type PrintEvent } from '../print-service/postback.js';
import { printStatusWord, type OrderRecord } from '../print-service/schema.js';
import type { OrderLink } from '../orders/model.js';

/**
 * Whoever holds a postback token can claim an order shipped (Shopify e-mails the customer the tracking), cancelled,
 * or errored or failed at submission (the order leaves the line with the sender's text as its problem). Those claims
 * are confirmed with the
 * print service itself before anything changes (`PRINT_CONFIRM_EVENTS`): the order is read by its sourceOrderId, with
 * the account of the store the order belongs to, and must show the shipment shipped with that tracking number, the
 * order cancelled, or the order errored (status word `errored`) or failed at submission (`submissionerror`, or no order
 * at all; docs/print-service-api.md). An unreachable service
 * throws (the job retries); a claim the service contradicts is refused with the reason.
 */

/** The events whose claim is read back at the print service before it acts. */
export const CONFIRMED_EVENT_KINDS = ['shipped', 'cancelled', 'errored', 'submission-error'] as const;

export function needsConfirmation(kind: PrintEvent['kind']): boolean {
  return (CONFIRMED_EVENT_KINDS as readonly string[]).includes(kind);
}

export type Confirmation =
  /** `errors`: for a confirmed errored order, what the service itself reports (preferred over the postback's text). */
  | { confirmed: true; errors?: string[] }
  | { confirmed: false; reason: string };

/** The order the event is about: its store, and the print account it went out with. */
export type EventOrder = Pick<OrderLink, 'shop' | 'printAccount'>;

/** Reads an order at the print-service account the order was sent with. */
export type ReadPrintOrder = (order: EventOrder, sourceOrderId: string) => Promise<OrderRecord>;

export type ConfirmPrintEvent = (order: EventOrder, sourceOrderId: string, event: PrintEvent) => Promise<Confirmation>;

export function printEventConfirmer(read: ReadPrintOrder): ConfirmPrintEvent {
  return async (order, sourceOrderId, event) => {
    let record: OrderRecord;
    try {
      record = await read(order, sourceOrderId);
    } catch (error) {
      if (error instanceof PrintServiceNotFoundError) {
        // A submission that failed may have left nothing at the printer: that is what the claim says.
        if (event.kind === 'submission-error') return { confirmed: true };
        return { confirmed: false, reason: `the print service has no order ${sourceOrderId}` };
      }
      throw error;
    }
    const status = printStatusWord(record.status);
    if (event.kind === 'cancelled') {
      return status === 'cancelled' ? { confirmed: true } : { confirmed: false, reason: `the print service reports ${sourceOrderId} as ${record.status ?? 'without a status'}, not cancelled` };
    }
    if (event.kind === 'errored' || event.kind === 'submission-error') {
      const word = event.kind === 'errored' ? 'errored' : 'submissionerror';
      if (status !== word) return { confirmed: false, reason: `the print service reports ${sourceOrderId} as ${record.status ?? 'without a status'}, not ${word}` };
      const errors = errorTexts((record as Record<string, unknown>).errors);
      return errors.length > 0 ? { confirmed: true, errors } : { confirmed: true };
    }
    if (event.kind !== 'shipped') return { confirmed: true };
    const shipments = record.orderData.shipments ?? [];
    const index = event.shipmentIndex ?? 0;
    const shipment = shipments.find((s, i) => (typeof s.shipmentIndex === 'number' ? s.shipmentIndex : i) === index);
    const shipped = printStatusWord(typeof shipment?.status === 'string' ? shipment.status : undefined) === 'shipped' || status === 'shipped';
    if (!shipped) return { confirmed: false, reason: `the print service does not report shipment ${index} of ${sourceOrderId} as shipped` };
    const tracking = typeof shipment?.trackingNumber === 'string' ? shipment.trackingNumber.trim() : undefined;
    if (event.trackingNumber && tracking !== undefined && tracking !== event.trackingNumber.trim()) {
      return { confirmed: false, reason: `the print service reports tracking ${tracking} for shipment ${index} of ${sourceOrderId}, not ${event.trackingNumber}` };
    }
    if (event.trackingNumber && tracking === undefined) {
      return { confirmed: false, reason: `the print service reports no tracking number for shipment ${index} of ${sourceOrderId}` };
    }
    return { confirmed: true };
  };
}

