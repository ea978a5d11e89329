/**
 * bench:intake: signed webhooks per second accepted by `POST /webhooks` (verify HMAC with the Shopify library,
 * de-duplicate by webhook id, enqueue durably in Redis, answer), measured with autocannon, beside a bare Express
 * raw-body endpoint in the same run. The app runs as `print-bridge web` in its own process; its RSS after the run is
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
import { appEnv, benchMapping, benchOrder, cleanupPrefix, forkService, newPrefix, REDIS_URL, registerShop, SHOP, startApp } from './bench-support.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' } } });
const seconds = Number(values.seconds);
const connections = Number(values.connections);

const body = benchOrder(2);
const headers = signedHeaders(body, 'orders/paid', SHOP);

function load(url: string, duration: number, overallRate?: number): Promise<Result> {
  return autocannon({
    url,
    connections,
    duration,
    ...(overallRate ? { overallRate } : {}),
    requests: [
      {
        method: 'POST',
        path: '/webhooks',
        headers,
        body,
        // A fresh webhook id per request: every request is a new delivery to verify and queue, not a duplicate.
        setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-shopify-webhook-id': randomUUID() } }),
      },
    ],
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
  console.log(line('bare Express raw-body + HMAC endpoint', base));
  console.log(line('print-bridge web (verify, dedupe, queue)', result));
  console.log(`  ratio print-bridge / bare Express + HMAC: ${(result['2xx'] / Math.max(1, base['2xx'])).toFixed(2)}   (target ≥ 0.5)`);
  console.log(line('print-bridge web at an offered 1,000/s', atTarget));
  console.log(`  jobs queued during the run: ${queued} (answered 2xx: ${result['2xx']}); a 2xx without a job would be a lost order`);
  if (rssMb) console.log(`  RSS of the web process after the run: ${rssMb.toFixed(0)} MiB`);
  const rate = result['2xx'] / seconds;
  const met = rate >= 1000 && atTarget['2xx'] / seconds >= 990 && atTarget.latency.p99 < 50;
  console.log(`  target ≥ 1000/s, p99 < 50 ms at 1,000/s: ${met ? 'met' : 'NOT met'}`);
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
