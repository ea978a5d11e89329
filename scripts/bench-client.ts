/**
 * bench:client: requests per second of print-bridge's PrintServiceClient against a local server that answers one order
 * record at once, beside the strongest baseline and HP's own client in the same run (issue 17):
 * - raw undici: `Pool.request` + `body.json()`, signing each request (what a bare integration must do at least);
 * - print-bridge: `client.getBySourceId`, with signing, zod parsing of the answer and error mapping;
 * - oneflow-sdk-js: HP's JavaScript SDK (`request('GET', path)`, axios), a development dependency for this benchmark.
 * Rounds alternate the three, the median of the rounds is reported, at each concurrency.
 *
 *   npm run bench:client [-- --seconds 12 --rounds 4 --concurrency 16,32]
 */
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { loadavg, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { PrintServiceClient } from '../src/print-service/client.js';
import { signRequest } from '../src/print-service/signing.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '12' },
    rounds: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '16,32' },
    server: { type: 'boolean', default: false },
  },
});

const RECORD = JSON.stringify({
  _id: '6541a0f0c0ffee0000000001',
  status: 'printready',
  sourceAccountId: '6541a0f0c0ffee00000000aa',
  destination: { name: 'demo-printer' },
  orderData: {
    sourceOrderId: 'bench-1',
    items: [{ sourceItemId: '1', sku: 'A5', quantity: 1, components: [{ code: 'cover', path: 'https://x/c.pdf', fetch: true }] }],
    shipments: [{ shipmentIndex: 0, status: 'pending', shipTo: { name: 'A', address1: 'B', town: 'C', postcode: 'D', isoCountry: 'GB' }, carrier: { alias: 'standard' } }],
  },
});

if (values.server) {
  // Child process: answer every request at once, so the client side is what is measured.
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(RECORD) });
      res.end(RECORD);
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  });
} else {
  await main();
}

type Contender = { name: string; call: () => Promise<unknown>; close?: () => Promise<void> };

async function main(): Promise<void> {
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const levels = String(values.concurrency).split(',').map(Number);
  const child = fork(fileURLToPath(import.meta.url), ['--server'], { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m: { port: number }) => resolve(m.port)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const path = '/api/order/bysourceid/bench-1';
  const require = createRequire(import.meta.url);
  const OneFlowClient = require('oneflow-sdk-js') as (base: string, token: string, secret: string, options?: object) => { request(method: string, path: string): Promise<unknown> };

  console.log(`bench:client  GET ${path} against a local server; ${rounds} rounds of ${(seconds / rounds / 3).toFixed(1)} s per contender, median`);
  console.log(`  machine: ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}, node ${process.version}`);
  const results: string[] = [];
  for (const concurrency of levels) {
    const pool = new Pool(baseUrl, { connections: concurrency, keepAliveTimeout: 10_000 });
    const client = new PrintServiceClient({ baseUrl, token: 'bench', secret: 'bench-secret', connections: concurrency });
    const sdk = OneFlowClient(`${baseUrl}/api`, 'bench', 'bench-secret');
    const signedUrl = new URL(`${baseUrl}${path}`);
    const contenders: Contender[] = [
      {
        name: 'raw undici Pool',
        call: async () => {
          const headers = signRequest({ method: 'GET', url: signedUrl, token: 'bench', secret: 'bench-secret' });
          const res = await pool.request({ path, method: 'GET', headers });
          return res.body.json();
        },
        close: () => pool.close(),
      },
      { name: 'print-bridge client', call: () => client.getBySourceId('bench-1'), close: () => client.close() },
      { name: 'oneflow-sdk-js', call: () => sdk.request('GET', '/order/bysourceid/bench-1') },
    ];
    for (const c of contenders) await run(c.call, concurrency, 1); // warm-up
    const rates = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
    for (let r = 0; r < rounds; r++) {
      // Alternated, each starting in turn: no contender always runs on a warmer or colder machine.
      const order = contenders.map((_, i) => contenders[(i + r) % contenders.length]!);
      for (const c of order) rates.get(c.name)!.push(await run(c.call, concurrency, seconds / rounds / contenders.length));
    }
    const med = (name: string) => median(rates.get(name)!);
    const undici = med('raw undici Pool');
    const ours = med('print-bridge client');
    const hp = med('oneflow-sdk-js');
    console.log(`\n  concurrency ${concurrency}`);
    for (const c of contenders) console.log(`    ${c.name.padEnd(22)} ${med(c.name).toFixed(0).padStart(7)} req/s   (rounds: ${rates.get(c.name)!.map((v) => v.toFixed(0)).join(', ')})`);
    console.log(`    print-bridge / raw undici Pool: ${(ours / undici).toFixed(2)}   (target ≥ 0.8)`);
    console.log(`    print-bridge / oneflow-sdk-js:  ${(ours / hp).toFixed(2)}   (target ≥ 6)`);
    results.push(`| ${concurrency} | ${undici.toFixed(0)} | ${ours.toFixed(0)} | ${hp.toFixed(0)} | ${(ours / undici).toFixed(2)} | ${(ours / hp).toFixed(2)} |`);
    for (const c of contenders) await c.close?.();
  }
  console.log('\n| concurrency | raw undici Pool req/s | print-bridge req/s | oneflow-sdk-js req/s | ÷ undici | ÷ SDK |\n|---|---|---|---|---|---|');
  for (const line of results) console.log(line);
  child.kill();
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function run(fn: () => Promise<unknown>, concurrency: number, seconds: number): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await fn();
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}
