/**
 * bench:flash-sale: N orders (default 10,000) from signed orders/paid webhook to acknowledged print order, end to
 * end through real processes: `print-bridge web` and `print-bridge worker` (by default one of each, as DESIGN deploys
 * them; `--workers-processes N` for more, `--start` for both roles in one process), the print-service emulator and the
 * Shopify Admin stand-in, each in its own process, Redis and PostgreSQL shared. Counts duplicates (a sourceOrderId created twice at the printer)
 * and losses (an order never created). Baseline in the same run: the same number of signed creates sent straight to
 * the emulator with the project's client, i.e. the printer's own ceiling on this machine.
 *
 *   npm run bench:flash-sale [-- --orders 10000 --concurrency 50 --workers 64 --worker-processes 1 | --start]
 */
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { PrintServiceClient } from '../src/print-service/client.js';
import { signedHeaders } from './bench-webhooks.js';
import { appEnv, benchMapping, benchOrder, cleanupPrefix, forkService, newPrefix, registerShop, SHOP, startApp } from './bench-support.js';

const { values } = parseArgs({
  options: {
    orders: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '50' },
    workers: { type: 'string', default: '64' },
    'worker-processes': { type: 'string', default: '1' },
    start: { type: 'boolean', default: false },
  },
});
const total = Number(values.orders);
const concurrency = Number(values.concurrency);

async function pool<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: size }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

const emulator = await forkService('emulator');
const emulatorUrl = String(emulator.info.url);
const standIn = await forkService('stand-in');
const prefix = newPrefix('flash');
const env = appEnv({
  prefix,
  emulatorUrl,
  standInOrigin: String(standIn.info.origin),
  mappingsDir: benchMapping(),
  port: 3000 + Math.floor(Math.random() * 2000),
  concurrency: Number(values.workers),
});

async function emulatorStats(): Promise<{ orders: number }> {
  const res = await request(`${emulatorUrl}/_emulator/stats`);
  return (await res.body.json()) as { orders: number };
}

const bodies = Array.from({ length: total }, () => benchOrder(2));
await new Promise<void>((resolve) => {
  standIn.child.once('message', () => resolve());
  standIn.child.send({ seed: bodies });
});

await registerShop(env);
// Workers first: the web role's 2xx then meets a pipeline that is already running.
const apps = values.start
  ? [await startApp('start', env)]
  : [...(await Promise.all(Array.from({ length: Number(values['worker-processes']) }, () => startApp('worker', env)))), await startApp('web', env)];
const layout = values.start ? '`start` (web + worker in one process)' : `\`web\` + ${values['worker-processes']} \`worker\` process(es)`;
const agent = new Agent({ connections: concurrency });
try {
  console.log(`bench:flash-sale  ${total} orders, ${concurrency} concurrent webhook senders, ${layout}, WORKER_CONCURRENCY ${values.workers}`);
  const started = performance.now();
  let refused = 0;
  // When each order's webhook was accepted (2xx), by order number: the start of its webhook → print order time.
  const acceptedAt = new Map<string, number>();
  const sending = pool(bodies, concurrency, async (body) => {
    for (;;) {
      const res = await request(`http://127.0.0.1:${env.PORT}/webhooks`, { method: 'POST', body, headers: signedHeaders(body, 'orders/paid', SHOP), dispatcher: agent });
      await res.body.dump();
      if (res.statusCode === 200) {
        acceptedAt.set(String((JSON.parse(body) as { order_number: number }).order_number), Date.now());
        return;
      }
      refused += 1; // Shopify would deliver again; so do we.
      await sleep(100);
    }
  });
  await sending;
  const sentAt = performance.now();
  let stored = 0;
  let lastChange = performance.now();
  while (stored < total && performance.now() - lastChange < 30_000) {
    await sleep(100);
    const now = (await emulatorStats()).orders;
    if (now !== stored) lastChange = performance.now();
    stored = now;
  }
  const doneAt = performance.now();

  const listing = (await (await request(`${emulatorUrl}/_emulator/orders`)).body.json()) as { data: { createdAt?: string; orderData: { sourceOrderId?: string } }[] };
  // Webhook accepted → print order acknowledged (the emulator's createdAt), per order; the sourceOrderId ends with the
  // order number (the bench mapping's `{{ shop.handle }}-{{ order.order_number }}`).
  const latencies = listing.data
    .map((o) => {
      const number = /-(\d+)$/.exec(o.orderData.sourceOrderId ?? '')?.[1];
      const accepted = number ? acceptedAt.get(number) : undefined;
      return accepted !== undefined && o.createdAt ? Date.parse(o.createdAt) - accepted : undefined;
    })
    .filter((ms): ms is number => ms !== undefined && Number.isFinite(ms))
    .sort((a, b) => a - b);
  const percentile = (q: number) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! : NaN);
  const counts = new Map<string, number>();
  for (const o of listing.data) counts.set(o.orderData.sourceOrderId ?? '', (counts.get(o.orderData.sourceOrderId ?? '') ?? 0) + 1);
  const duplicates = [...counts.values()].filter((n) => n > 1).length;
  const losses = total - counts.size;
  const seconds = (doneAt - started) / 1000;
  console.log(`  webhooks accepted in ${((sentAt - started) / 1000).toFixed(1)} s (${(total / ((sentAt - started) / 1000)).toFixed(0)}/s; ${refused} answered 503 and were resent)`);
  console.log(`  all ${counts.size} print orders acknowledged after ${seconds.toFixed(1)} s: ${(counts.size / seconds).toFixed(0)} orders/s end to end`);
  console.log(`  duplicates at the printer: ${duplicates}   losses: ${losses}`);
  console.log(`  webhook accepted → print order acknowledged: p50 ${(percentile(0.5) / 1000).toFixed(1)} s, p99 ${(percentile(0.99) / 1000).toFixed(1)} s (${latencies.length} orders)`);

  // Baseline: the printer's own ceiling, the same number of creates straight from the client.
  const client = new PrintServiceClient({ baseUrl: emulatorUrl, token: 'demo-token', secret: 'demo-secret', connections: concurrency });
  const orders = Array.from({ length: total }, (_, i) => ({
    destination: { name: 'demo-printer' },
    orderData: {
      sourceOrderId: `baseline-${i}`,
      items: [{ sourceItemId: '1', sku: 'BOOK-0', components: [{ code: 'cover', path: 'https://files.example.com/c.pdf', fetch: true }] }],
      shipments: [{ shipTo: { name: 'B', address1: 'A', town: 'T', postcode: 'P', isoCountry: 'GB' }, returnAddress: { name: 'R', address1: 'A', town: 'T', postcode: 'P', isoCountry: 'GB' }, carrier: { alias: 'standard' } }],
    },
  }));
  const baseStart = performance.now();
  await pool(orders, concurrency, async (order) => {
    await client.create(order);
  });
  const baseSeconds = (performance.now() - baseStart) / 1000;
  await client.close();
  console.log(`  baseline, creates straight to the emulator: ${(total / baseSeconds).toFixed(0)} orders/s`);
  const ratio = counts.size / seconds / (total / baseSeconds);
  console.log(`  ratio end to end / printer ceiling: ${ratio.toFixed(2)}`);
  console.log(`  target ≥ 0.2 of the printer ceiling, 0 duplicates, 0 losses: ${ratio >= 0.2 && duplicates === 0 && losses === 0 ? 'met' : 'NOT met'}`);
} finally {
  for (const app of apps) app.kill('SIGTERM');
  emulator.child.kill();
  standIn.child.kill();
  await agent.close();
  await sleep(500);
  await cleanupPrefix(prefix);
}
