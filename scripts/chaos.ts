/**
 * npm run chaos: the whole loop under every fault at once, through real processes, and a count of what went wrong.
 *
 * - N orders (default 2,000) arrive as signed orders/paid webhooks at `print-bridge web`, resent while answered 503
 *   (as Shopify does); real-shaped bodies (bench/shopify-order-shape.ts, issue 27: 3–10 line items, about 12 KB, each
 *   its own ids and order number; sizes printed), in the Shopify stand-in too, mapped by the benches' pipeline mapping
 *   (bench/pipeline-mapping.ts);
 * - `print-bridge worker` processes (default 2) are killed with SIGKILL at random moments and restarted;
 * - Redis (its own, with an append-only file) is restarted once, mid-burst;
 * - PostgreSQL (its own cluster, the system of record) is crashed (immediate shutdown) and restarted once while orders
 *   are being printed, shipped and fulfilled;
 * - the print-service emulator answers 30% of creates with 503 and stores 10% but drops the connection;
 * - its triggers post every event through a relay that forwards it to the app and replays it three more times at
 *   random moments: late, repeated, out of order.
 *
 * Then it waits until every order is shipped and fulfilled and everything is quiet, and reports orders lost, orders
 * duplicated at the print service, fulfillments duplicated in Shopify (and orders whose lines were fulfilled beyond
 * their quantity: all must be 0) and the time to drain. Exit 1 when any count is not 0 or the loop did not drain.
 *
 *   npm run chaos [-- --orders 2000 --workers 2 --kill-every 4000 --seed 1 --timeout 900 --order-seed 27]
 *
 * `--seed` drives the faults; `--order-seed` the orders' shapes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { openDatabase } from '../src/db/database.js';
import { PostgresOrderStore } from '../src/storage/order-store.js';
import { ORDER_STATUSES } from '../src/orders/status.js';
import { postbackTriggers } from '../src/print-service/postback-triggers.js';
import { createQueues } from '../src/queue/queues.js';
import { pipelineMappingDir } from '../bench/pipeline-mapping.js';
import { describeSizes, summariseSizes } from '../bench/body-sizes.js';
import { shopifyOrder } from '../bench/shopify-order-shape.js';
import { signedHeaders } from './bench-webhooks.js';
import { appEnv, BIN, forkService, newPrefix, registerShop, SHOP, startApp } from './bench-support.js';
import { AofRedis, freePort, PostbackRelay, PrivatePostgres, seededRandom } from './chaos-support.js';

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '2000' },
    workers: { type: 'string', default: '2' },
    'kill-every': { type: 'string', default: '4000' },
    concurrency: { type: 'string', default: '25' },
    seed: { type: 'string', default: '1' },
    timeout: { type: 'string', default: '900' },
    'order-seed': { type: 'string', default: '27' },
  },
});
const TOTAL = Number(values.orders);
const WORKERS = Number(values.workers);
const KILL_EVERY_MS = Number(values['kill-every']);
const SEED = Number(values.seed);
const random = seededRandom(SEED);
const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
const say = (line: string) => console.log(`[${elapsed().padStart(7)}] ${line}`);

async function pool<T>(items: T[], width: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await run(items[next++]!);
  }));
}

const redis = await AofRedis.start();
const postgres = await PrivatePostgres.start();
const prefix = newPrefix('chaos');
const appPort = await freePort();
const emulatorPort = await freePort();
const standIn = await forkService('stand-in');
const env: Record<string, string> = {
  ...appEnv({ prefix, emulatorUrl: `http://127.0.0.1:${emulatorPort}`, standInOrigin: String(standIn.info.origin), mappingsDir: pipelineMappingDir(), port: appPort, concurrency: 16 }),
  REDIS_URL: redis.url,
  DATABASE_URL: postgres.url,
  DATABASE_SCHEMA: 'public',
  // A killed worker's jobs come back after this long.
  JOB_LOCK_MS: '5000',
  RECONCILE_SILENT_MINUTES: '0',
  RECONCILE_LOOKBACK_HOURS: '0',
};
const relay = new PostbackRelay(`http://127.0.0.1:${appPort}/postbacks/${env.POSTBACK_TOKEN!}`, { replays: 3, replayWindowMs: 20_000, random });
await relay.start();
const triggersFile = join(mkdtempSync(join(tmpdir(), 'pb-chaos-')), 'triggers.json');
writeFileSync(triggersFile, JSON.stringify(postbackTriggers(relay.url)));

const emulator = spawn(
  process.execPath,
  [BIN, 'emulator', '--port', String(emulatorPort), '--speed', '5', '--fail-rate', '0.3', '--drop-rate', '0.1', '--seed', String(SEED),
    '--triggers', triggersFile, '--delivery-attempts', '30', '--delivery-backoff', '500', '--quiet'],
  { stdio: 'ignore' },
);
const emulatorUrl = `http://127.0.0.1:${emulatorPort}`;
for (let i = 0; ; i++) {
  if ((await fetch(`${emulatorUrl}/_emulator/health`).catch(() => undefined))?.ok) break;
  if (i > 200) throw new Error('the emulator did not start');
  await sleep(100);
}

const orders = Array.from({ length: TOTAL }, (_, i) => shopifyOrder({ seed: Number(values['order-seed']), serial: i + 1 }));
const bodies = orders.map((o) => o.body);
const expected = new Set(orders.map((o) => `${SHOP.replace('.myshopify.com', '')}-${o.orderNumber}`));
await new Promise<void>((resolve) => {
  standIn.child.once('message', () => resolve());
  standIn.child.send({ seed: bodies });
});

await registerShop(env);
const web = await startApp('web', env);
const workers: ChildProcess[] = [];
const spawnWorker = () => spawn(process.execPath, [BIN, 'worker'], { env, stdio: 'ignore' });
for (let i = 0; i < WORKERS; i++) workers.push(spawnWorker());

const monitor = new Redis(redis.url, { maxRetriesPerRequest: 3 });
monitor.on('error', () => undefined);
const monitorDb = await openDatabase({ url: env.DATABASE_URL, schema: env.DATABASE_SCHEMA, poolSize: 2 });
const store = new PostgresOrderStore({ database: monitorDb, redis: monitor, prefix });
const queues = createQueues(monitor, prefix);

console.log(`chaos: ${TOTAL} orders, ${WORKERS} workers killed every ~${KILL_EVERY_MS} ms, Redis restarted once, PostgreSQL crashed and restarted once, emulator 30% 503 / 10% dropped, every postback replayed 3× shuffled, seed ${SEED}`);
console.log(`  real-shaped orders/paid bodies (order seed ${values['order-seed']}): ${describeSizes(summariseSizes(orders))}`);

// ---- the faults
let kills = 0;
let killing = true;
const killer = (async () => {
  while (killing) {
    await sleep(KILL_EVERY_MS * (0.5 + random()));
    if (!killing) break;
    const i = Math.floor(random() * workers.length);
    const victim = workers[i]!;
    if (victim.exitCode === null) {
      const exited = new Promise((resolve) => victim.once('exit', resolve));
      victim.kill('SIGKILL');
      await exited;
      kills += 1;
    }
    await sleep(300);
    workers[i] = spawnWorker();
  }
})();

let webhooks503 = 0;
let sent = 0;
let redisRestarted = false;
const redisRestartAt = Math.floor(TOTAL * (0.3 + random() * 0.3));
await pool(bodies, Number(values.concurrency), async (body) => {
  for (;;) {
    const answer = await fetch(`http://127.0.0.1:${appPort}/webhooks`, { method: 'POST', body, headers: signedHeaders(body, 'orders/paid', SHOP) }).catch(() => undefined);
    await answer?.arrayBuffer();
    if (answer?.status === 200) break;
    webhooks503 += 1;
    await sleep(250);
  }
  sent += 1;
  if (sent === redisRestartAt && !redisRestarted) {
    redisRestarted = true;
    say(`restarting Redis after ${sent} webhooks`);
    void redis.restart(1_500).then(() => say('Redis is back'));
  }
});
say(`all ${TOTAL} webhooks accepted (${webhooks503} answers were not 2xx and were resent)`);

// ---- the drain
interface StandInOrder {
  id: string;
  lineItems: { id: string; currentQuantity: number }[];
  fulfillments: { lineItems: { lineItemId: string; quantity: number }[] }[];
}
/** Each line's quantity in the order's fulfillments, against the line's own: every line fully fulfilled, or any beyond. */
function fulfilment(o: StandInOrder): { full: boolean; over: boolean } {
  const done = new Map<string, number>();
  for (const f of o.fulfillments) for (const l of f.lineItems) done.set(l.lineItemId, (done.get(l.lineItemId) ?? 0) + l.quantity);
  return {
    full: o.lineItems.every((l) => (done.get(l.id) ?? 0) >= l.currentQuantity),
    over: o.lineItems.some((l) => (done.get(l.id) ?? 0) > l.currentQuantity),
  };
}
const readShopifyOrders = async (): Promise<StandInOrder[]> =>
  ((await (await fetch(`${String(standIn.info.origin)}/_stand-in/shops/${SHOP}/orders`)).json()) as { orders: StandInOrder[] }).orders;
const deadline = performance.now() + Number(values.timeout) * 1000;
let drained = false;
let lastReport = 0;
let printerIds = new Map<string, number>();
let postgresRestarted = false;
let shopifyOrders: StandInOrder[] = [];
while (performance.now() < deadline) {
  await sleep(1_000);
  try {
    const listing = (await (await fetch(`${emulatorUrl}/_emulator/orders`)).json()) as { data: { orderData: { sourceOrderId?: string } }[] };
    printerIds = new Map();
    for (const o of listing.data) printerIds.set(o.orderData.sourceOrderId ?? '', (printerIds.get(o.orderData.sourceOrderId ?? '') ?? 0) + 1);
    const counts = await store.countByStatus(ORDER_STATUSES);
    // The stand-in's listing carries each order's whole body (about 25 KB an order with real-shaped bodies): read it
    // when it can end the wait or for the progress line, not every second.
    const reportDue = performance.now() - lastReport > 5_000;
    if (reportDue || (counts.shipped ?? 0) === TOTAL) shopifyOrders = await readShopifyOrders();
    const fulfilled = shopifyOrders.filter((o) => fulfilment(o).full).length;
    const busy = await Promise.all([queues.webhooks, queues.orders, queues.events, queues.shopify].map((q) => q.getJobCounts('waiting', 'active', 'delayed', 'prioritized')));
    const pendingJobs = busy.reduce((n, c) => n + Object.values(c).reduce((a, b) => a + b, 0), 0);
    // PostgreSQL goes down hard once a fifth of the orders have shipped: workers are then writing shipments,
    // fulfillments and history, and their jobs must fail, retry and lose nothing.
    if (!postgresRestarted && (counts.shipped ?? 0) >= TOTAL / 5) {
      postgresRestarted = true;
      say(`crashing PostgreSQL (immediate shutdown) with ${counts.shipped ?? 0} orders shipped`);
      await postgres.restart(2_000);
      say('PostgreSQL is back');
    }
    if (killing && (counts.shipped ?? 0) === TOTAL) {
      killing = false;
      say('every order shipped: no more kills; waiting for replays and queues to settle');
    }
    if (reportDue) {
      lastReport = performance.now();
      say(`at the printer ${printerIds.size}/${TOTAL}, shipped ${counts.shipped ?? 0}, fulfilled in Shopify ${fulfilled}, jobs pending ${pendingJobs}, postbacks ${relay.stats.forwarded} + ${relay.stats.replayed} replays (${relay.stats.pendingReplays} to come), kills ${kills}`);
    }
    if ((counts.shipped ?? 0) === TOTAL && fulfilled === TOTAL && relay.stats.pendingReplays === 0 && pendingJobs === 0 && redisRestarted && postgresRestarted) {
      drained = true;
      break;
    }
  } catch (error) {
    say(`(monitor: ${(error as Error).message})`);
  }
}
const drainSeconds = (performance.now() - started) / 1000;
killing = false;
await killer;

// The counts below must come from this read, never from an older one: a failed read fails the run (after the clean-up).
let finalReadError: string | undefined;
shopifyOrders = await readShopifyOrders().catch((error: Error) => {
  finalReadError = error.message;
  return shopifyOrders;
});
const lost = [...expected].filter((id) => !printerIds.has(id)).length;
const duplicatedAtPrinter = [...printerIds.values()].filter((n) => n > 1).length;
const duplicatedFulfillments = shopifyOrders.reduce((n, o) => n + Math.max(0, o.fulfillments.length - 1), 0);
const overFulfilled = shopifyOrders.filter((o) => fulfilment(o).over).length;
const stats = (await (await fetch(`${emulatorUrl}/_emulator/stats`)).json()) as { faults: unknown };

console.log('');
console.log('chaos result');
console.log(`  orders                                 ${TOTAL}`);
console.log(`  workers killed with SIGKILL            ${kills}`);
console.log(`  Redis restarts                         ${redisRestarted ? 1 : 0}`);
console.log(`  PostgreSQL crashes and restarts        ${postgresRestarted ? 1 : 0}`);
console.log(`  webhook answers not 2xx (resent)       ${webhooks503}`);
console.log(`  emulator faults                        ${JSON.stringify(stats.faults)}`);
console.log(`  postbacks forwarded / replayed         ${relay.stats.forwarded} / ${relay.stats.replayed} (${relay.stats.replayFailures} replays never accepted)`);
console.log(`  orders lost                            ${lost}`);
console.log(`  orders duplicated at the print service ${duplicatedAtPrinter}`);
console.log(`  fulfillments duplicated in Shopify     ${duplicatedFulfillments} (orders over-fulfilled: ${overFulfilled})`);
console.log(`  drained                                ${drained ? `yes, ${drainSeconds.toFixed(1)} s from the first webhook` : `NO, gave up after ${values.timeout} s`}`);
if (finalReadError) console.log(`  final read of Shopify's orders         FAILED (${finalReadError}): the counts above are from an older read`);
const ok = finalReadError === undefined && drained && lost === 0 && duplicatedAtPrinter === 0 && duplicatedFulfillments === 0 && overFulfilled === 0;
console.log(`  verdict                                ${ok ? 'PASS' : 'FAIL'}`);

for (const w of workers) if (w.exitCode === null) w.kill('SIGTERM');
web.kill('SIGTERM');
emulator.kill('SIGTERM');
standIn.child.kill();
await relay.close();
await queues.close();
monitor.disconnect();
await monitorDb.close();
await sleep(500);
await postgres.stop();
await redis.stop();
process.exit(ok ? 0 : 1);
