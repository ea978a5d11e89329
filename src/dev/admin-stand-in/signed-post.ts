import { createHmac } from 'node:crypto';

/**
 * One POST as Shopify signs its webhooks and fulfillment-service pings: the HMAC-SHA256 of the raw body with the app's
 * secret in `X-Shopify-Hmac-Sha256`. The answer's status lands on `entry` (0: no answer), and the delivery is tracked
 * in `inFlight` until it ends, so a test can wait for every delivery to be answered.
 */
export function postSigned(
  url: string,
  raw: string,
  secret: string,
  headers: Record<string, string>,
  entry: { status: number | null },
  inFlight: Set<Promise<unknown>>,
): void {
  const delivery = fetch(url, {
    method: 'POST',
    body: raw,
    headers: { 'content-type': 'application/json', ...headers, 'x-shopify-hmac-sha256': createHmac('sha256', secret).update(raw, 'utf8').digest('base64') },
    signal: AbortSignal.timeout(5_000),
  }).then(
    async (res) => {
      entry.status = res.status;
      await res.arrayBuffer().catch(() => undefined);
    },
    () => {
      entry.status = 0;
    },
  );
  const tracked: Promise<unknown> = delivery.finally(() => inFlight.delete(tracked));
  inFlight.add(tracked);
}
