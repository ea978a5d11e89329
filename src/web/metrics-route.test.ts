import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../logger.js';
import { Metrics } from '../metrics.js';
import { createWebApp } from './app.js';

/**
 * DESIGN section 5's `GET /metrics` answers out of the box (contract review: it was 404 without METRICS_TOKEN), but
 * only to this machine: metrics name stores and reveal volumes, so a request through a proxy or from elsewhere is
 * refused until the operator sets METRICS_TOKEN (then the bearer token is needed from anywhere).
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

  it('without METRICS_TOKEN: serves a direct scrape from this machine, and refuses one a proxy forwarded', async () => {
    const local = await fetch(`${open.url}/metrics`);
    expect(local.status).toBe(200);
    expect(local.headers.get('content-type')).toMatch(/text\/plain/);
    expect(await local.text()).toContain('print_bridge_webhooks_total');
    const proxies: Record<string, string>[] = [{ 'x-forwarded-for': '203.0.113.9' }, { forwarded: 'for=203.0.113.9' }, { 'x-real-ip': '203.0.113.9' }];
    for (const header of proxies) {
      const proxied = await fetch(`${open.url}/metrics`, { headers: header });
      expect(proxied.status, JSON.stringify(header)).toBe(403);
      expect(await proxied.text()).toContain('METRICS_TOKEN');
    }
  });

  it('with METRICS_TOKEN: needs the bearer token, from this machine too', async () => {
    expect((await fetch(`${guarded.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${guarded.url}/metrics`, { headers: { authorization: 'Bearer wrong-token-wrong-token-wrong-token' } })).status).toBe(401);
    expect((await fetch(`${guarded.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });
});
