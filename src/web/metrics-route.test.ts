import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { Metrics } from '../metrics.js';
import { createWebApp } from './app.js';

/**
 * DESIGN section 5's `GET /metrics`: metrics name stores and reveal volumes, so on the public port they need
 * METRICS_TOKEN as a bearer token, from anywhere. Without the token they are not served there, and the answer says what
 * to set (contract review: a bare 404 said nothing). Serving loopback requests only was tried and dropped: a proxy on
 * the same host that adds no forwarding header (the review showed one) makes every client local.
 */
async function serve(metricsToken?: string): Promise<{ url: string; server: Server }> {
  const app = createWebApp({
    logger: silentLogger,
    readiness: [],
    metrics: new Metrics({ defaultMetrics: false }),
    ...(metricsToken ? { metricsToken } : {}),
    webhooks: { verify: () => ({ ok: false, reason: 'unused' }), claim: async () => 'new', enqueue: async () => undefined } as never,
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, server };
}

describe('GET /metrics', () => {
  let open: { url: string; server: Server };
  let guarded: { url: string; server: Server };
  const TOKEN = 'metrics-route-token-0123456789abcdef0123';
  beforeAll(async () => {
    open = await serve();
    guarded = await serve(TOKEN);
  });
  afterAll(() => {
    open.server.close();
    guarded.server.close();
  });

  it('without METRICS_TOKEN: not served on this port, even to this machine, and the answer says what to set', async () => {
    const local = await fetch(`${open.url}/metrics`);
    expect(local.status).toBe(404);
    const body = await local.text();
    expect(body).toContain('METRICS_TOKEN');
    expect(body).not.toContain('print_bridge_webhooks_total');
  });

  it('with METRICS_TOKEN: needs the bearer token, from this machine too', async () => {
    expect((await fetch(`${guarded.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${guarded.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-wrong-token-wrong-token' } })).status).toBe(401);
    const right = await fetch(`${guarded.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(right.status).toBe(200);
    expect(await right.text()).toContain('print_bridge_webhooks_total');
  });
});
