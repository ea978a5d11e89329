import { ofKind, replaceProblems } from '../orders/transitions.js';
import { PrintServiceBadRequestError, PrintServiceNotFoundError } from '../print-service/errors.js';
import { parseOrderWebhook } from '../shopify/order-webhook.js';
import { isOrderOfShop, refuseNotInShop } from './cancel-print-order.js';
import { OrderBusyError, OrderDataMissingError } from './errors.js';
import { shippingAddressHash } from '../shopify/order-webhook.js';
import type { BridgeDeps } from './ports.js';
import { isSubmittedStatus } from '../orders/status.js';

export type AmendOutcome =
  | { kind: 'amended'; shipments: number[] }
  | { kind: 'unchanged' }
  | { kind: 'not-submitted' }
  | { kind: 'refused'; reasons: string[] };

/**
 * Sends a shipping address changed in Shopify after submission to every shipment of the print order. The address
 * comes from the newest stored order version through the mapping, so it is shaped exactly as at submission.
 */
export async function amendShipping(deps: BridgeDeps, shop: string, orderId: string): Promise<AmendOutcome> {
  const link = await deps.store.get(shop, orderId);
  if (!link) throw new OrderDataMissingError(shop, orderId, 'the app has no record of this order');
  if (link.status === 'submitting') throw new OrderBusyError(`Order ${link.orderName ?? orderId} is being submitted; the address change waits.`);
  // Before submission the submit job reads the newest version anyway.
  if (!isSubmittedStatus(link.status) || !link.sourceOrderId) return { kind: 'not-submitted' };

  const stored = await deps.store.getOrderBody(shop, orderId);
  if (!stored) throw new OrderDataMissingError(shop, orderId, 'the order body is not stored');
  const body = parseOrderWebhook(stored.body);
  if (!body.ok) throw new OrderDataMissingError(shop, orderId, `the stored order body cannot be read: ${body.message}`);
  const hash = shippingAddressHash(body.order);
  if (hash === link.sentShipToHash) return { kind: 'unchanged' };
  if (!(await isOrderOfShop(deps, link))) {
    const refused = await refuseNotInShop(deps, shop, orderId, 'address change');
    return { kind: 'refused', reasons: [refused.reason] };
  }

  const mapped = await deps.mapping.map(shop, stored.body);
  if (!mapped.ok) {
    const reasons = mapped.problems.map((p) => p.message);
    await deps.store.note(shop, orderId, { event: 'address change not sent', source: 'worker', detail: reasons.join('; ') });
    return { kind: 'refused', reasons };
  }

  const amended: number[] = [];
  const reasons: string[] = [];
  for (const shipment of link.shipments.length ? link.shipments : [{ index: 0 }]) {
    const shipTo = mapped.order.orderData.shipments[shipment.index]?.shipTo ?? mapped.order.orderData.shipments[0]!.shipTo;
    try {
      await (await deps.printAccounts.forOrder(link.shop, link.printAccount)).updateShipping(link.sourceOrderId, shipment.index, { shipTo });
      amended.push(shipment.index);
    } catch (error) {
      if (error instanceof PrintServiceBadRequestError || error instanceof PrintServiceNotFoundError) {
        const reason = error instanceof PrintServiceBadRequestError ? error.serviceError.message : error.message;
        reasons.push(`shipment ${shipment.index}: ${reason}`);
        continue;
      }
      throw error;
    }
  }

  await deps.store.update(shop, orderId, (current) =>
    current
      ? {
          link: {
            ...replaceProblems(
              current,
              ofKind('amend-refused'),
              reasons.length ? [{ kind: 'amend-refused', message: `Address change not applied: ${reasons.join('; ')}`, at: deps.clock().toISOString() }] : [],
            ),
            // Recorded even when refused: the same change is not sent again; a newer one is.
            sentShipToHash: hash,
          },
          history: [
            {
              event: reasons.length ? 'address change partly refused' : 'address change sent',
              source: 'worker',
              detail: [amended.length ? `updated shipments ${amended.join(', ')}` : '', ...reasons].filter(Boolean).join('; '),
            },
          ],
        }
      : undefined,
  );
  if (reasons.length) {
    await deps.scheduler.syncShopify(shop, orderId);
    await deps.scheduler.noteShopify(shop, orderId, `print-bridge: the new shipping address could not be sent to the printer (${reasons.join('; ')}).`);
    return { kind: 'refused', reasons };
  }
  return { kind: 'amended', shipments: amended };
}
