import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPreview, type EmbeddedPreview } from '../../src/dev/embedded-preview/index.js';

/**
 * The demo's embedded preview signs a store's session tokens for whoever asks it: it answers only at the loopback
 * names it printed, so a page of another site that points a name of its own at 127.0.0.1 (DNS rebinding) gets nothing.
 */
let app: Server;
let preview: EmbeddedPreview;

beforeAll(async () => {
  app = createServer((_req, res) => res.end('app'));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  preview = await startEmbeddedPreview({
    appUrl: `http://127.0.0.1:${(app.address() as AddressInfo).port}`,
    shop: 'preview-shop.myshopify.com',
    apiKey: 'key',
    apiSecret: 'secret-of-the-app',
  });
});
afterAll(async () => {
  await preview.close();
  await new Promise<void>((resolve) => app.close(() => resolve()));
});

function get(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const url = new URL(path, preview.origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the demo preview and DNS rebinding', () => {
  it('hands a session token only to requests for the loopback host names it printed', async () => {
    const port = new URL(preview.origin).port;
    const own = await get('/_preview/session-token', { host: `127.0.0.1:${port}` });
    expect(own.status).toBe(200);
    expect(own.body.split('.')).toHaveLength(3);
    expect((await get('/_preview/session-token', { host: `localhost:${port}` })).status).toBe(200);

    const rebound = await get('/_preview/session-token', { host: `attacker.example:${port}` });
    expect(rebound.status).toBe(421);
    expect(rebound.body).not.toMatch(/^ey/);
    expect((await get('/', { host: `attacker.example:${port}` })).status).toBe(421);
    const crossSite = await get('/_preview/session-token', { host: `127.0.0.1:${port}`, origin: 'http://attacker.example' });
    expect(crossSite.status).toBe(403);
    expect((await get('/anything', { host: `127.0.0.1:${port}` })).body).toBe('app');
  });
});
