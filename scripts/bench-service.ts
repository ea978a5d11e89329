/**
 * A service for the benchmarks, run in a child process of its own: `emulator`, `stand-in` or `baseline` (a bare
 * Express app with a raw-body POST /webhooks that checks the HMAC and answers 200). Reports its address to the parent over IPC, then
 * answers `rss` messages with its memory.
 */
import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import express from 'express';
import { startEmulator } from '../src/dev/emulator/server.js';
import { startAdminStandIn } from '../src/dev/admin-stand-in/index.js';
import { SHOP, SHOP_TOKEN, SHOPIFY_SECRET } from './bench-support.js';

const kind = process.argv[2];
// A normal exit on the parent's kill, so a `--cpu-prof` run (BENCH_CPU_PROF) writes its profile.
process.on('SIGTERM', () => process.exit(0));
process.on('message', (m) => {
  if (m === 'rss') process.send?.({ rss: process.memoryUsage().rss });
});

if (kind === 'emulator') {
  // Manual: orders are acknowledged and stored but not processed further, so the printer's own pipeline does not
  // share the cores with the app under test.
  const emu = await startEmulator({ port: 0, manual: process.argv[3] !== 'auto' });
  process.send?.({ url: emu.baseUrl });
} else if (kind === 'stand-in') {
  // The log keeps every request of a run, so the parent can count the Admin API requests an order cost.
  const standIn = await startAdminStandIn({ port: 0, bucket: { maximumAvailable: 20_000, restoreRate: 1_000 }, requestLogSize: 500_000 });
  standIn.registerShop(SHOP, SHOP_TOKEN);
  let counted = 0;
  // The parent seeds the orders it will send as webhooks, so the app's Shopify calls find them.
  process.on('message', (m) => {
    if (m === 'requests') {
      // The requests since the last ask, by their root fields (`query order`, `query nodes`, `mutation tagsAdd` ...).
      const all = standIn.requests();
      const byOperation: Record<string, number> = {};
      for (const r of all.slice(counted)) byOperation[r.operation ?? '(refused)'] = (byOperation[r.operation ?? '(refused)'] ?? 0) + 1;
      process.send?.({ requests: { total: all.length - counted, byOperation } });
      counted = all.length;
      return;
    }
    const seed = (m as { seed?: string[] }).seed;
    if (!seed) return;
    for (const body of seed) standIn.seedOrder(SHOP, JSON.parse(body));
    process.send?.({ seeded: seed.length });
  });
  process.send?.({ origin: standIn.origin });
} else if (kind === 'baseline') {
  const app = express();
  // The strongest fair baseline (issue 17): a raw-body endpoint that also checks the HMAC, in constant time, and
  // answers; no parsing, no de-duplication, nothing durable.
  const key = createSecretKey(Buffer.from(SHOPIFY_SECRET, 'utf8'));
  app.post('/webhooks', express.raw({ type: () => true, limit: '5mb' }), (req, res) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const given = Buffer.from(String(req.get('x-shopify-hmac-sha256') ?? ''), 'base64');
    const expected = createHmac('sha256', key).update(body).digest();
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.status(401).json({ ok: false });
      return;
    }
    res.status(200).json({ ok: true, outcome: 'queued' });
  });
  const server = app.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` });
  });
} else {
  throw new Error(`unknown service ${kind}`);
}
