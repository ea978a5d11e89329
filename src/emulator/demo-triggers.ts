import type { EventName, TriggerInput } from './triggers.js';

/**
 * The postback templates of docs/triggers.md, one per event: the one source the emulator's demo configuration, the
 * tests and the documentation share (a test checks that the doc and docs/triggers.example.json say the same).
 * Each renders JSON with the order document as Liquid context (docs/emulator.md).
 */
export const POSTBACK_TEMPLATES: Record<EventName, string> = {
  'Order Received':
    '{"event": {{ event | json }}, "orderId": {{ _id | json }}, "sourceOrderId": {{ orderData.sourceOrderId | json }}, "status": {{ status | json }}, "timestamp": {{ timestamp | json }}}',
  'Order Errored':
    '{"event": {{ event | json }}, "orderId": {{ _id | json }}, "sourceOrderId": {{ orderData.sourceOrderId | json }}, "status": {{ status | json }}, "errors": {{ errors | json }}, "timestamp": {{ timestamp | json }}}',
  'Order Cancelled':
    '{"event": {{ event | json }}, "orderId": {{ _id | json }}, "sourceOrderId": {{ orderData.sourceOrderId | json }}, "status": {{ status | json }}, "timestamp": {{ timestamp | json }}}',
  'Order Print Ready':
    '{"event": {{ event | json }}, "orderId": {{ _id | json }}, "sourceOrderId": {{ orderData.sourceOrderId | json }}, "status": {{ status | json }}, "timestamp": {{ timestamp | json }}}',
  'Shipment Shipped':
    '{"event": {{ event | json }}, "orderId": {{ _id | json }}, "sourceOrderId": {{ orderData.sourceOrderId | json }}, "shipmentIndex": {{ shipmentIndex }}, "trackingNumber": {{ trackingNumber | json }}, "carrier": {{ carrier | json }}, "timestamp": {{ timestamp | json }}}',
  'Order Submission Error':
    '{"event": {{ event | json }}, "TimeStamp": {{ TimeStamp | json }}, "OrderId": {{ OrderId | json }}, "status": {{ status | json }}, "errorsClean": {{ errorsClean | json }}}',
};

/** The placeholder docs/triggers.example.json uses for the postback URL. */
export const POSTBACK_URL_PLACEHOLDER = 'https://APP_URL/postbacks/POSTBACK_TOKEN';

/**
 * The emulator's trigger list for all six events, posting to `postbackUrl` (`APP_URL/postbacks/<POSTBACK_TOKEN>`)
 * with `headers` (e.g. basic auth). Pass it to `parseTriggers` / `startEmulator({ triggers })`.
 */
export function demoTriggers(postbackUrl: string, headers?: Record<string, string>): TriggerInput[] {
  return (Object.keys(POSTBACK_TEMPLATES) as EventName[]).map((event) => ({
    event,
    url: postbackUrl,
    template: POSTBACK_TEMPLATES[event],
    ...(headers && Object.keys(headers).length > 0 ? { headers } : {}),
  }));
}

/** `Authorization` header value for POSTBACK_BASIC_AUTH (`user:password`). */
export function basicAuthHeader(userPassword: string): string {
  return `Basic ${Buffer.from(userPassword, 'utf8').toString('base64')}`;
}
