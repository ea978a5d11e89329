/**
 * A service for the benchmarks, run in a child process of its own: `emulator`, `stand-in` or `baseline` (a bare
 * Express app with a raw-body POST /webhooks that answers 200). Reports its address to the parent over IPC, then
 * answers `rss` messages with its memory.
 */
import express from 'express';
import { startEmulator } from '../src/emulator/server.js';
import { startAdminStandIn } from '../src/shopify/admin-stand-in/index.js';
import { SHOP, SHOP_TOKEN } from './bench-support.js';

const kind = process.argv[2];
process.on('message', (m) => {
  if (m === 'rss') process.send?.({ rss: process.memoryUsage().rss });
});

if (kind === 'emulator') {
  // Manual: orders are acknowledged and stored but not processed further, so the printer's own pipeline does not
  // share the cores with the app under test.
  const emu = await startEmulator({ port: 0, manual: process.argv[3] !== 'auto' });
  process.send?.({ url: emu.baseUrl });
} else if (kind === 'stand-in') {
  const standIn = await startAdminStandIn({ port: 0, bucket: { maximumAvailable: 20_000, restoreRate: 1_000 } });
  standIn.registerShop(SHOP, SHOP_TOKEN);
  // The parent seeds the orders it will send as webhooks, so the app's Shopify calls find them.
  process.on('message', (m) => {
    const seed = (m as { seed?: string[] }).seed;
    if (!seed) return;
    for (const body of seed) standIn.seedOrder(SHOP, JSON.parse(body));
    process.send?.({ seeded: seed.length });
  });
  process.send?.({ origin: standIn.origin });
} else if (kind === 'baseline') {
  const app = express();
  app.post('/webhooks', express.raw({ type: () => true, limit: '5mb' }), (_req, res) => {
    res.status(200).json({ ok: true, outcome: 'queued' });
  });
  const server = app.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` });
  });
} else {
  throw new Error(`unknown service ${kind}`);
}
