/** The six events, named exactly as DESIGN section 1 and the interface write them. */
export const EVENT_NAMES = [
  'Order Received',
  'Order Errored',
  'Order Cancelled',
  'Order Print Ready',
  'Shipment Shipped',
  'Order Submission Error',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/** One trigger of the print service (docs/triggers.md): an event, where it posts, and the body it renders. */
export interface PostbackTrigger {
  event: EventName;
  url: string;
  template: string;
  headers?: Record<string, string>;
}

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
 * The trigger list for all six events (what a merchant sets up in the print service, and the emulator's demo set-up), posting to `postbackUrl` (`APP_URL/postbacks/<POSTBACK_TOKEN>`)
 * with `headers` (e.g. basic auth). Pass it to `parseTriggers` / `startEmulator({ triggers })`.
 */
export function postbackTriggers(postbackUrl: string, headers?: Record<string, string>): PostbackTrigger[] {
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
