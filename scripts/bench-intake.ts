/**
 * bench:intake: signed webhooks per second accepted by `POST /webhooks` (verify the HMAC, check the body agrees with
 * the headers, de-duplicate by webhook and event id, keep the body and enqueue durably in Redis, answer), measured with
 * autocannon, beside a bare Express raw-body endpoint that checks the HMAC, in the same run. The bodies are real-shaped
 * `orders/paid` bodies (bench/shopify-order-shape.ts: 3–10 line items with properties, tax and discount lines,
 * customer and addresses; about 10–26 KB, median about 13 KB), a different one per request in turn, the same set for
 * both endpoints. The app runs as `print-bridge web` in its own process; its RSS after the run is
 * reported too. Then the same load against `print-bridge start` (web and worker in one process, the worker mapping
 * and submitting to the emulator as it goes), for the memory of the default deployment under intake load.
 *
 *   npm run bench:intake [-- --seconds 10 --connections 50]
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { bullPrefix } from '../src/queue/queues.js';
import { signedHeaders } from './bench-webhooks.js';
import { describeSizes, summariseSizes } from '../bench/body-sizes.js';
import { shopifyOrder } from '../bench/shopify-order-shape.js';
import { appEnv, benchMapping, cleanupPrefix, forkService, newPrefix, REDIS_URL, registerShop, SHOP, startApp } from './bench-support.js';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' }, bodies: { type: 'string', default: '200' }, seed: { type: 'string', default: '27' } },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);

// Real-shaped bodies, each signed once; every request takes the next one (autocannon cycles through `requests`).
const orders = Array.from({ length: Number(values.bodies) }, (_, i) => shopifyOrder({ seed: Number(values.seed), serial: i + 1 }));
const requests = orders.map((order) => ({
  method: 'POST' as const,
  path: '/webhooks',
  headers: signedHeaders(order.body, 'orders/paid', SHOP),
  body: order.body,
  // A fresh webhook id per request: every request is a new delivery to verify and queue, not a duplicate.
  setupRequest: (req: Record<string, unknown> & { headers?: Record<string, string> }) => ({ ...req, headers: { ...req.headers, 'x-shopify-webhook-id': randomUUID() } }),
}));

function load(url: string, duration: number, overallRate?: number): Promise<Result> {
  return autocannon({
    url,
    connections,
    duration,
    ...(overallRate ? { overallRate } : {}),
    requests,
  });
}

function line(name: string, r: Result): string {
  return `  ${name.padEnd(40)} ${(r['2xx'] / seconds).toFixed(0).padStart(6)} accepted/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms   non-2xx ${r.non2xx}   errors ${r.errors}`;
}

const prefix = newPrefix('intake');
const baseline = await forkService('baseline');
const baseUrl = String(baseline.info.url);
await load(baseUrl, 1);
const base = await load(baseUrl, seconds);
// The same offered rate as the latency target, so the harness's own share of p99 (autocannon on the same 2 cores) shows.
const baseAtTarget = await load(baseUrl, seconds, 1000);
baseline.child.kill();

const env = appEnv({ prefix, emulatorUrl: 'http://127.0.0.1:9', standInOrigin: 'http://127.0.0.1:9', mappingsDir: benchMapping(), port: 3000 + Math.floor(Math.random() * 2000) });
const app = await startApp('web', env);
let rssMb = 0;
try {
  await load(`http://127.0.0.1:${env.PORT}`, 1);
  const redis = new Redis(REDIS_URL);
  const queue = new Queue('webhooks', { connection: redis, prefix: bullPrefix(prefix) });
  const before = await queue.count();
  const result = await load(`http://127.0.0.1:${env.PORT}`, seconds);
  const queued = (await queue.count()) - before;
  // Latency at the target's offered rate (1,000 webhooks/s), not at saturation where it only measures queueing.
  const atTarget = await load(`http://127.0.0.1:${env.PORT}`, seconds, 1000);
  rssMb = Number((await (await fetch(`http://127.0.0.1:${env.PORT}/healthz`)).json() as { rss?: number }).rss ?? 0) / 2 ** 20;
  await queue.close();
  redis.disconnect();

  console.log(`bench:intake  POST /webhooks (signed orders/paid, unique webhook ids), ${connections} connections, ${seconds} s, autocannon`);
  console.log(`  real-shaped bodies: ${describeSizes(summariseSizes(orders))}`);
  console.log(line('bare Express raw-body + HMAC endpoint', base));
  console.log(line('print-bridge web (verify, dedupe, queue)', result));
  const ratio = result['2xx'] / Math.max(1, base['2xx']);
  console.log(`  ratio print-bridge / bare Express + HMAC: ${ratio.toFixed(2)}   (target ≥ 0.6)`);
  console.log(line('bare Express + HMAC at an offered 1,000/s', baseAtTarget));
  console.log(line('print-bridge web at an offered 1,000/s', atTarget));
  console.log(`  jobs queued during the run: ${queued} (answered 2xx: ${result['2xx']}); a 2xx without a job would be a lost order`);
  if (rssMb) console.log(`  RSS of the web process after the run: ${rssMb.toFixed(0)} MiB`);
  const met = ratio >= 0.6 && atTarget['2xx'] / seconds >= 990 && atTarget.latency.p99 < 25;
  console.log(`  target ≥ 0.6 of bare Express + HMAC, p99 < 25 ms at an offered 1,000/s: ${met ? 'met' : 'NOT met'}`);
} finally {
  app.kill('SIGTERM');
  await cleanupPrefix(prefix);
}

// The default deployment: web and worker in one process under the same load.
const emulator = await forkService('emulator');
const standIn = await forkService('stand-in');
const startPrefix = newPrefix('intake-start');
const startEnv = appEnv({
  prefix: startPrefix,
  emulatorUrl: String(emulator.info.url),
  standInOrigin: String(standIn.info.origin),
  mappingsDir: benchMapping(),
  port: 3000 + Math.floor(Math.random() * 2000),
});
await registerShop(startEnv);
const both = await startApp('start', startEnv);
try {
  await load(`http://127.0.0.1:${startEnv.PORT}`, 1);
  const result = await load(`http://127.0.0.1:${startEnv.PORT}`, seconds);
  const rss = Number((await (await fetch(`http://127.0.0.1:${startEnv.PORT}/healthz`)).json() as { rss?: number }).rss ?? 0) / 2 ** 20;
  console.log(line('print-bridge start (web + worker)', result));
  console.log(`  RSS of the start process after the run: ${rss.toFixed(0)} MiB`);
} finally {
  both.kill('SIGTERM');
  emulator.child.kill();
  standIn.child.kill();
  await cleanupPrefix(startPrefix);
}
