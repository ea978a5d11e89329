/**
 * bench:flash-sale (issue 27): real-shaped orders/paid webhooks (bench/shopify-order-shape.ts: 3–10 line items, artwork
 * paths from line item properties through Liquid, about 12 KB) from signed webhook to acknowledged print order, end to
 * end through real processes, for two pipelines on the same orders in alternating rounds:
 *
 *   - print-bridge: `print-bridge web` and `print-bridge worker` (by default one of each, as DESIGN deploys them;
 *     `--worker-processes N` for more, `--start` for both roles in one process);
 *   - the bare durable pipeline (bench/bare-pipeline.ts): the least a connector must do with the same guarantees and
 *     parts (HMAC, one INSERT, one BullMQ job, a worker that maps with a fixed function, one signed create, one UPDATE),
 *     also a web and a worker process.
 *
 * Both send to the same print-service emulator; the Shopify Admin stand-in serves print-bridge's Admin calls; Redis
 * and PostgreSQL are shared (a database of the run's own on the PostgreSQL server, dropped at the end, so that its
 * transaction count is the two pipelines' alone; Redis counts are the server's). For each pipeline: orders/s, webhook accepted → print order acknowledged p50/p99, CPU ms
 * per order per process, PostgreSQL transactions, Redis commands and bytes in per order, losses and duplicates at the
 * printer, and the ratio print-bridge / bare. Then the old baseline: the same number of small signed creates straight
 * to the emulator with the project's client, the printer's own ceiling.
 *
 *   npm run bench:flash-sale [-- --orders 3000 --rounds 2 --concurrency 50 --workers 64 --worker-processes 1 | --start]
 *
 * `--orders` is per pipeline, split over `--rounds` rounds each; the rounds alternate print-bridge, bare, bare,
 * print-bridge, ... so neither always runs first.
 */
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Agent, request } from 'undici';
import { PrintServiceClient } from '../src/print-service/client.js';
import { cpuMs, redisCounters, serverCpuMs, startBare, xactCommits } from '../bench/measure.js';
import { pipelineMappingDir } from '../bench/pipeline-mapping.js';
import { describeSizes, summariseSizes } from '../bench/body-sizes.js';
import { type GeneratedOrder, shopifyOrder } from '../bench/shopify-order-shape.js';
import { signedHeaders } from './bench-webhooks.js';
import { pct, type PipelineName, printComparison, ratioOf, type RoundResult, secs, summarise } from './flash-sale-report.js';
import {
  appEnv,
  cleanupPrefix,
  DATABASE_URL,
  forkService,
  newPrefix,
  REDIS_URL,
  registerShop,
  ROOT,
  schemaOf,
  SHOP,
  SHOPIFY_SECRET,
  startApp,
} from './bench-support.js';

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '50' },
    workers: { type: 'string', default: '64' },
    'worker-processes': { type: 'string', default: '1' },
    start: { type: 'boolean', default: false },
    seed: { type: 'string', default: '27' },
  },
});
const total = Number(values.orders);
const rounds = Math.max(1, Number(values.rounds));
const perRound = Math.ceil(total / rounds);
const concurrency = Number(values.concurrency);
const seed = Number(values.seed);
const SHOP_HANDLE = SHOP.replace(/\.myshopify\.com$/, '');

async function pool<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

interface Pipeline {
  name: PipelineName;
  url: string;
  processes: { role: string; child: ChildProcess }[];
}

// Orders: round r of each pipeline has the same shapes (index), with ids and order numbers of its own (serial).
const plan: { pipeline: PipelineName; round: number; orders: GeneratedOrder[] }[] = [];
let serial = 0;
for (let r = 0; r < rounds; r++) {
  const count = Math.min(perRound, total - r * perRound);
  if (count <= 0) break;
  const order: PipelineName[] = r % 2 === 0 ? ['print-bridge', 'bare'] : ['bare', 'print-bridge'];
  for (const pipeline of order) {
    const orders = Array.from({ length: count }, (_, i) => shopifyOrder({ seed, index: r * perRound + i + 1, serial: ++serial }));
    plan.push({ pipeline, round: r + 1, orders });
  }
}

const emulator = await forkService('emulator');
const emulatorUrl = String(emulator.info.url);
const standIn = await forkService('stand-in');
const prefix = newPrefix('flash');
const barePrefix = newPrefix('bare');
const port = 3000 + Math.floor(Math.random() * 2000);
const env = appEnv({
  prefix,
  emulatorUrl,
  standInOrigin: String(standIn.info.origin),
  mappingsDir: pipelineMappingDir(),
  port,
  concurrency: Number(values.workers),
});
// A database of the run's own, so that pg_stat_database counts this run's transactions and nobody else's.
const runDatabase = schemaOf(prefix);
const admin = new pg.Client({ connectionString: DATABASE_URL });
await admin.connect();
await admin.query(`CREATE DATABASE "${runDatabase}"`);
const runDatabaseUrl = (() => {
  const url = new URL(DATABASE_URL);
  url.pathname = `/${runDatabase}`;
  return url.toString();
})();
env.DATABASE_URL = runDatabaseUrl;
const bareEnv: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  BARE_PORT: String(port + 1),
  REDIS_URL,
  BARE_PREFIX: barePrefix,
  DATABASE_URL: runDatabaseUrl,
  BARE_SCHEMA: schemaOf(barePrefix),
  SHOPIFY_API_SECRET: SHOPIFY_SECRET,
  PRINT_API_BASE_URL: emulatorUrl,
  PRINT_API_TOKEN: 'demo-token',
  PRINT_API_SECRET: 'demo-secret',
  WORKER_CONCURRENCY: String(values.workers),
};

const redis = new Redis(REDIS_URL);
const db = new pg.Client({ connectionString: runDatabaseUrl });
await db.connect();
await db.query(`CREATE SCHEMA IF NOT EXISTS "${bareEnv.BARE_SCHEMA}"`);
await db.query(`CREATE TABLE IF NOT EXISTS "${bareEnv.BARE_SCHEMA}".orders (
  shop text NOT NULL, order_id text NOT NULL, body text NOT NULL, print_id text,
  received_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (shop, order_id))`);

// print-bridge reads the orders from the Admin API too: the stand-in knows them.
const pbBodies = plan.filter((p) => p.pipeline === 'print-bridge').flatMap((p) => p.orders.map((o) => o.body));
await new Promise<void>((resolve) => {
  standIn.child.once('message', () => resolve());
  standIn.child.send({ seed: pbBodies });
});

await registerShop(env);
// Workers first: the web role's 2xx then meets a pipeline that is already running.
const pbWorkers = values.start ? [] : await Promise.all(Array.from({ length: Number(values['worker-processes']) }, () => startApp('worker', env)));
const pbWeb = await startApp(values.start ? 'start' : 'web', env);
const bareWorker = await startBare(ROOT, 'worker', bareEnv);
const bareWeb = await startBare(ROOT, 'web', bareEnv);
const pipelines: Record<PipelineName, Pipeline> = {
  'print-bridge': {
    name: 'print-bridge',
    url: `http://127.0.0.1:${port}/webhooks`,
    processes: [{ role: values.start ? 'start' : 'web', child: pbWeb }, ...pbWorkers.map((child, i) => ({ role: pbWorkers.length > 1 ? `worker ${i + 1}` : 'worker', child }))],
  },
  bare: { name: 'bare', url: `http://127.0.0.1:${port + 1}/webhooks`, processes: [{ role: 'web', child: bareWeb }, { role: 'worker', child: bareWorker }] },
};
const layout = values.start ? '`start` (web + worker in one process)' : `\`web\` + ${values['worker-processes']} \`worker\` process(es)`;


async function emulatorCount(): Promise<number> {
  const res = await request(`${emulatorUrl}/_emulator/stats`);
  return ((await res.body.json()) as { orders: number }).orders;
}

const agent = new Agent({ connections: concurrency });

/**
 * CPU ms so far of what the pipelines share on these cores: the print-service emulator, the Admin API stand-in (which
 * stands for Shopify, whose work is not on the merchant's cores in production), PostgreSQL and Redis.
 */
function sharedCpu(): Record<string, number> {
  return {
    'print-service emulator': cpuMs(emulator.child.pid),
    'Admin API stand-in (Shopify)': cpuMs(standIn.child.pid),
    'PostgreSQL server': serverCpuMs(['postgres']),
    'Redis server': serverCpuMs(['redis-server']),
  };
}

/** The Admin API requests the stand-in answered since the last ask. */
function standInRequests(): Promise<{ total: number; byOperation: Record<string, number> }> {
  return new Promise((resolve) => {
    const listen = (m: unknown) => {
      const requests = (m as { requests?: { total: number; byOperation: Record<string, number> } }).requests;
      if (!requests) return;
      standIn.child.off('message', listen);
      resolve(requests);
    };
    standIn.child.on('message', listen);
    standIn.child.send('requests');
  });
}

async function runRound(p: Pipeline, round: number, orders: GeneratedOrder[]): Promise<RoundResult> {
  await standInRequests();
  const cpuBefore = p.processes.map((x) => cpuMs(x.child.pid));
  const sharedBefore = sharedCpu();
  const redisBefore = await redisCounters(redis);
  const xactBefore = await xactCommits(db);
  const countBefore = await emulatorCount();
  const startedAt = Date.now();
  let refused = 0;
  const acceptedAt = new Map<number, number>();
  await pool(orders, concurrency, async (order) => {
    // Shopify delivers a webhook up to 8 times over 4 hours; here 20 times, 100 ms apart, then the order counts as lost.
    for (let attempt = 0; attempt < 20; attempt++) {
      const res = await request(p.url, { method: 'POST', body: order.body, headers: signedHeaders(order.body, 'orders/paid', SHOP), dispatcher: agent });
      await res.body.dump();
      if (res.statusCode === 200) {
        acceptedAt.set(order.orderNumber, Date.now());
        return;
      }
      refused += 1; // Shopify would deliver again; so do we.
      await sleep(100);
    }
  });
  const acceptSeconds = (Date.now() - startedAt) / 1000;
  let seen = 0;
  let lastChange = Date.now();
  while (seen < orders.length && Date.now() - lastChange < 30_000) {
    await sleep(50);
    const now = (await emulatorCount()) - countBefore;
    if (now !== seen) lastChange = Date.now();
    seen = now;
  }
  const cpuAfter = p.processes.map((x) => cpuMs(x.child.pid));
  const sharedAfter = sharedCpu();
  const redisAfter = await redisCounters(redis);
  const redisSeconds = (Date.now() - startedAt) / 1000;
  // A backend reports its transaction counts when idle, and waits up to 10 s (PGSTAT_IDLE_INTERVAL) to do so.
  await sleep(PG_STATS_WAIT_MS);
  const xactAfter = await xactCommits(db);
  // After the statistics' wait, so the status syncs that trail the creates are counted with their round.
  const shopify = await standInRequests();
  const xactSeconds = (Date.now() - startedAt) / 1000;

  const wanted = new Set(orders.map((o) => o.orderNumber));
  const listing = (await (await request(`${emulatorUrl}/_emulator/orders`)).body.json()) as { data: { createdAt?: string; orderData: { sourceOrderId?: string } }[] };
  const counts = new Map<number, number>();
  const latencies: number[] = [];
  let lastAck = startedAt;
  for (const o of listing.data) {
    const match = /^(.+)-(\d+)$/.exec(o.orderData.sourceOrderId ?? '');
    const number = match && match[1] === SHOP_HANDLE ? Number(match[2]) : NaN;
    if (!wanted.has(number)) continue;
    counts.set(number, (counts.get(number) ?? 0) + 1);
    const created = o.createdAt ? Date.parse(o.createdAt) : NaN;
    if (Number.isFinite(created)) lastAck = Math.max(lastAck, created);
    const accepted = acceptedAt.get(number);
    if (accepted !== undefined && Number.isFinite(created) && counts.get(number) === 1) latencies.push(created - accepted);
  }
  latencies.sort((a, b) => a - b);
  const cpu: Record<string, number> = {};
  p.processes.forEach((x, i) => (cpu[x.role] = cpuAfter[i]! - cpuBefore[i]!));
  const shared = Object.fromEntries(Object.keys(sharedAfter).map((k) => [k, sharedAfter[k]! - sharedBefore[k]!]));
  return {
    pipeline: p.name,
    round,
    orders: orders.length,
    seconds: (lastAck - startedAt) / 1000,
    acceptSeconds,
    refused,
    latencies,
    cpu,
    shared,
    // Less what every process does when idle (both pipelines are up throughout), measured before the rounds.
    xacts: xactAfter - xactBefore - idle.xactsPerSecond * xactSeconds,
    redisCommands: redisAfter.commands - redisBefore.commands - idle.redisCommandsPerSecond * redisSeconds,
    redisBytesIn: redisAfter.bytesIn - redisBefore.bytesIn - idle.redisBytesPerSecond * redisSeconds,
    shopify,
    acknowledged: counts.size,
    duplicates: [...counts.values()].filter((n) => n > 1).length,
    losses: orders.length - counts.size,
  };
}

const PG_STATS_WAIT_MS = 11_000;
/** The servers' counts while both pipelines are up and idle, per second: subtracted from each round's. */
async function idleRates(ms: number): Promise<{ xactsPerSecond: number; redisCommandsPerSecond: number; redisBytesPerSecond: number }> {
  await sleep(PG_STATS_WAIT_MS); // start-up's own transactions reported first
  const x0 = await xactCommits(db);
  const r0 = await redisCounters(redis);
  const t0 = Date.now();
  await sleep(ms);
  const r1 = await redisCounters(redis);
  const redisSeconds = (Date.now() - t0) / 1000;
  await sleep(PG_STATS_WAIT_MS);
  const x1 = await xactCommits(db);
  const xactSeconds = (Date.now() - t0) / 1000;
  return {
    xactsPerSecond: (x1 - x0) / xactSeconds,
    redisCommandsPerSecond: (r1.commands - r0.commands) / redisSeconds,
    redisBytesPerSecond: (r1.bytesIn - r0.bytesIn) / redisSeconds,
  };
}
let idle = { xactsPerSecond: 0, redisCommandsPerSecond: 0, redisBytesPerSecond: 0 };

const results: RoundResult[] = [];
// Interrupted: stop the processes and remove the run's keys and schemas all the same.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`bench:flash-sale: ${signal}, cleaning up`);
    void shutdown().finally(() => process.exit(130));
  });
}
try {
  const sizes = summariseSizes(plan.flatMap((p) => p.orders));
  console.log(`bench:flash-sale  ${total} orders per pipeline in ${plan.length / 2} alternating round(s) each, ${concurrency} concurrent webhook senders, WORKER_CONCURRENCY ${values.workers}`);
  console.log(`  print-bridge: ${layout}; bare pipeline: \`web\` + \`worker\` processes (bench/bare-pipeline.ts)`);
  console.log(`  real-shaped orders/paid bodies (seed ${seed}): ${describeSizes(sizes)}`);
  idle = await idleRates(5_000);
  console.log(
    `  idle, both pipelines up (subtracted from each round): ${idle.xactsPerSecond.toFixed(1)} PostgreSQL transactions/s, ` +
      `${idle.redisCommandsPerSecond.toFixed(1)} Redis commands/s, ${(idle.redisBytesPerSecond / 1024).toFixed(1)} KB/s into Redis`,
  );
  for (const step of plan) {
    const r = await runRound(pipelines[step.pipeline], step.round, step.orders);
    results.push(r);
    console.log(
      `  round ${r.round} ${r.pipeline.padEnd(12)} ${r.orders} orders: ${(r.acknowledged / r.seconds).toFixed(0)} orders/s end to end ` +
        `(webhooks accepted in ${r.acceptSeconds.toFixed(1)} s, ${r.refused} answered non-2xx and were resent), ` +
        `p50 ${secs(pct(r.latencies, 0.5))} p99 ${secs(pct(r.latencies, 0.99))}, lost ${r.losses}, duplicated ${r.duplicates}`,
    );
  }

  const pb = summarise(results, 'print-bridge');
  const bare = summarise(results, 'bare');
  printComparison(pb, bare);
  console.log(`  (CPU from /proc/<pid>/stat, 10 ms ticks; PostgreSQL: the run's own database ${runDatabase}; Redis: the server's counts, others' traffic included; both less the idle rate)`);

  // The old baseline: the printer's own ceiling, the same number of small creates straight from the client.
  const client = new PrintServiceClient({ baseUrl: emulatorUrl, token: 'demo-token', secret: 'demo-secret', connections: concurrency });
  const creates = Array.from({ length: total }, (_, i) => ({
    destination: { name: 'demo-printer' },
    orderData: {
      sourceOrderId: `baseline-${i}`,
      items: [{ sourceItemId: '1', sku: 'BOOK-0', components: [{ code: 'cover', path: 'https://files.example.com/c.pdf', fetch: true }] }],
      shipments: [{ shipTo: { name: 'B', address1: 'A', town: 'T', postcode: 'P', isoCountry: 'GB' }, returnAddress: { name: 'R', address1: 'A', town: 'T', postcode: 'P', isoCountry: 'GB' }, carrier: { alias: 'standard' } }],
    },
  }));
  const baseStart = performance.now();
  await pool(creates, concurrency, async (order) => {
    await client.create(order);
  });
  const baseSeconds = (performance.now() - baseStart) / 1000;
  await client.close();
  const ceiling = total / baseSeconds;
  console.log(`  baseline, small creates straight to the emulator: ${ceiling.toFixed(0)} orders/s (print-bridge end to end ${ratioOf(pb.perSecond, ceiling)} of it, bare ${ratioOf(bare.perSecond, ceiling)})`);
  const ratio = pb.perSecond / bare.perSecond;
  const ok = ratio >= 0.5 && pb.losses === 0 && pb.duplicates === 0;
  console.log(`  target print-bridge ≥ 0.5 of the bare pipeline's orders/s, 0 lost, 0 duplicated: ${ok ? 'met' : 'NOT met'} (${ratio.toFixed(2)})`);
  if (bare.losses > 0 || bare.duplicates > 0) console.log('  the bare pipeline lost or duplicated orders: its figures are not a fair baseline');
} finally {
  await shutdown();
}

async function shutdown(): Promise<void> {
  for (const p of Object.values(pipelines)) for (const x of p.processes) x.child.kill('SIGTERM');
  emulator.child.kill();
  standIn.child.kill();
  await agent.close();
  await sleep(800);
  redis.disconnect();
  await db.end();
  await cleanupPrefix(prefix);
  await cleanupPrefix(barePrefix);
  await admin.query(`DROP DATABASE IF EXISTS "${runDatabase}" WITH (FORCE)`);
  await admin.end();
}
