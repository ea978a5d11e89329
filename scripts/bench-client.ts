/**
 * bench:client: requests per second of print-bridge's PrintServiceClient against a local server that answers at once,
 * beside the strongest baseline and HP's own client in the same run (issues 17 and 27):
 * - raw undici: `Pool.request`, signing each request, `JSON.stringify` of a create body, a status check and
 *   `body.json()` of the answer: the least a bare integration must do;
 * - print-bridge: `client.getBySourceId` / `client.create`, with signing, the check of the answer, the typed error
 *   mapping and the retry wrapper;
 * - oneflow-sdk-js: HP's JavaScript SDK (`request(method, path, body)`, axios), a development dependency for this
 *   benchmark.
 * Real-shaped data (issue 27, bench/print-service-shape.ts): `--orders` distinct orders of 3–10 items; a read answers
 * the order record the service keeps for one (18–65 KB, wrapped as `{order, success}`), a create sends the create
 * document (7–23 KB) and is answered with such a record. Each caller walks through the orders. Rounds alternate the
 * three contenders, each starting in turn; per operation and concurrency, the median of the rounds is reported for
 * each, and a ratio is the median of the rounds' ratios. The CPU time per request of this process (the callers' side;
 * the server is a child process) is printed beside: on a shared machine it is the steadier figure.
 *
 *   npm run bench:client [-- --seconds 30 --rounds 30 --concurrency 16,32 --ops get,create --orders 64 --answers real|tiny
 *                        --answer-file ../shared/fixtures/print-service/03-hpinc-submit-order-response.json]
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { loadavg, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { printOrderDocument, printOrderRecord, type PrintDocument } from '../bench/print-service-shape.js';
import { PrintServiceClient } from '../src/print-service/client.js';
import { computeSignature, formatServiceDate } from '../src/print-service/signing.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    rounds: { type: 'string', default: '30' },
    concurrency: { type: 'string', default: '16,32' },
    ops: { type: 'string', default: 'get,create' },
    orders: { type: 'string', default: '64' },
    // `tiny`: the one-item record of issue 17's bench (and a bare acknowledgement), to compare with what it measured.
    answers: { type: 'string', default: 'real' },
    // A file whose JSON answers every read (e.g. a real answer from ../shared/fixtures), instead of the generated records.
    'answer-file': { type: 'string' },
    server: { type: 'boolean', default: false },
  },
});

const ORDERS = Number(values.orders);
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const levels = String(values.concurrency).split(',').map(Number);
const ops = String(values.ops).split(',') as Op[];
const TOKEN = 'bench';
const SECRET = 'bench-secret';
const sourceId = (i: number) => `bench-${i}`;
/** One call of a contender; `i` is the order to read or create. */
type Contender = { name: string; call: (i: number) => Promise<unknown>; close?: () => Promise<void> };
type Op = 'get' | 'create';
const UNDICI = 'raw undici Pool';
const OURS = 'print-bridge client';
const SDK = 'oneflow-sdk-js';


if (values.server) {
  // Child process: answer every request at once from records made in advance, so the client side is what is measured.
  const { createServer } = await import('node:http');
  const records: Buffer[] = [];
  const acknowledgements: Buffer[] = [];
  for (let i = 0; i < ORDERS; i++) {
    const doc = printOrderDocument(i);
    doc.orderData.sourceOrderId = sourceId(i);
    records.push(Buffer.from(values.answers === 'tiny' ? tinyRecord(i) : printOrderRecord(doc, i)));
    acknowledgements.push(Buffer.from(values.answers === 'tiny' ? tinyAcknowledgement() : printOrderRecord(doc, i, { acknowledgement: true })));
  }
  const answerFile = values['answer-file'];
  if (answerFile) {
    const { readFileSync } = await import('node:fs');
    records.fill(Buffer.from(JSON.stringify(JSON.parse(readFileSync(answerFile, 'utf8')))));
  }
  let created = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      let body: Buffer | undefined;
      if (req.method === 'POST') body = acknowledgements[created++ % ORDERS];
      else body = records[Number(req.url?.slice(req.url.lastIndexOf('-') + 1))];
      if (!body) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"success":false,"error":{"name":"NotFound","code":404,"message":"no such order"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.end(body);
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

async function main(): Promise<void> {
  const serverArgs = ['--server', '--orders', String(ORDERS), '--answers', String(values.answers)];
  if (values['answer-file']) serverArgs.push('--answer-file', values['answer-file']);
  const child = fork(fileURLToPath(import.meta.url), serverArgs, {
    execArgv: ['--import', 'tsx'],
  });
  try {
    await compare(child);
  } finally {
    child.kill();
  }
}

async function compare(child: ChildProcess): Promise<void> {
  const port = await new Promise<number>((resolve) => child.once('message', (m: { port: number }) => resolve(m.port)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const require = createRequire(import.meta.url);
  const OneFlowClient = require('oneflow-sdk-js') as (
    base: string,
    token: string,
    secret: string,
    options?: object,
  ) => { request(method: string, path: string, data?: unknown): Promise<unknown> };
  const docs: PrintDocument[] = Array.from({ length: ORDERS }, (_, i) => {
    const doc = printOrderDocument(i);
    doc.orderData.sourceOrderId = sourceId(i);
    return doc;
  });
  const docBytes = docs.map((d) => Buffer.byteLength(JSON.stringify(d))).sort((a, b) => a - b);

  console.log(`bench:client  against a local server; ${rounds} rounds of ${(seconds / rounds / 3).toFixed(1)} s per contender, median`);
  const answers = values['answer-file'] ?? (values.answers === 'tiny' ? "issue 17's one-item record (about 450 bytes)" : 'real-shaped order records (bench/print-service-shape.ts)');
  if (ops.includes('get')) console.log(`  get:    GET /api/order/bysourceid/<id>, answers: ${answers}`);
  if (ops.includes('create')) {
    const acknowledgement = values.answers === 'tiny' ? 'the four fields of an acknowledgement' : 'the stored record and the four fields of an acknowledgement';
    console.log(`  create: POST /api/order, ${ORDERS} create documents (median ${(median(docBytes) / 1024).toFixed(1)} KB), answered with ${acknowledgement}`);
  }
  console.log(`  machine: ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}, node ${process.version}`);
  const results: string[] = [];
  for (const op of ops) {
    for (const concurrency of levels) {
      const pool = new Pool(baseUrl, { connections: concurrency, keepAliveTimeout: 10_000 });
      const client = new PrintServiceClient({ baseUrl, token: TOKEN, secret: SECRET, connections: concurrency });
      const sdk = OneFlowClient(`${baseUrl}/api`, TOKEN, SECRET);
      const contenders: Contender[] = [
        {
          name: UNDICI,
          // What a bare integration must do at least: sign, send, check the status, parse the JSON answer.
          call: async (i) => {
            const method = op === 'get' ? 'GET' : 'POST';
            const path = op === 'get' ? `/api/order/bysourceid/${sourceId(i)}` : '/api/order';
            const date = formatServiceDate(new Date());
            const headers: Record<string, string> = {
              'x-service-date': date,
              'x-service-authorization': `${TOKEN}:${computeSignature(SECRET, method, path, date)}`,
            };
            let body: string | undefined;
            if (op === 'create') {
              body = JSON.stringify(docs[i]);
              headers['content-type'] = 'application/json';
            }
            const res = await pool.request({ path, method, headers, body });
            const json: unknown = await res.body.json();
            if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
            return json;
          },
          close: () => pool.close(),
        },
        {
          name: OURS,
          call: (i) => (op === 'get' ? client.getBySourceId(sourceId(i)) : client.create(docs[i])),
          close: () => client.close(),
        },
        {
          name: SDK,
          call: (i) => (op === 'get' ? sdk.request('GET', `/order/bysourceid/${sourceId(i)}`) : sdk.request('POST', '/order', docs[i])),
        },
      ];
      for (const c of contenders) await run(c.call, concurrency, 1); // warm-up
      const rates = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
      const cpus = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
      for (let r = 0; r < rounds; r++) {
        // Alternated, each starting in turn: no contender always runs on a warmer or colder machine.
        const order = contenders.map((_, i) => contenders[(i + r) % contenders.length]!);
        for (const c of order) {
          const { rate, cpuUs } = await run(c.call, concurrency, seconds / rounds / contenders.length);
          rates.get(c.name)!.push(rate);
          cpus.get(c.name)!.push(cpuUs);
        }
      }
      const med = (name: string) => median(rates.get(name)!);
      const cpuOf = (name: string) => median(cpus.get(name)!);
      const undici = med(UNDICI);
      const ours = med(OURS);
      const hp = med(SDK);
      // Ratios of the same round (run side by side in time), then their median: slow changes of the machine's load
      // cancel out, where a ratio of two medians taken from different rounds keeps them.
      const paired = (name: string) => median(rates.get(OURS)!.map((v, r) => v / rates.get(name)![r]!));
      const vsUndici = paired(UNDICI);
      const vsSdk = paired(SDK);
      console.log(`\n  ${op}, concurrency ${concurrency}  (load ${loadavg()[0]!.toFixed(2)})`);
      for (const c of contenders) {
        const perRound = rates.get(c.name)!.map((v) => v.toFixed(0)).join(', ');
        console.log(`    ${c.name.padEnd(22)} ${med(c.name).toFixed(0).padStart(7)} req/s  ${cpuOf(c.name).toFixed(0).padStart(5)} µs CPU/req   (rounds: ${perRound})`);
      }
      console.log(`    print-bridge / raw undici Pool: ${vsUndici.toFixed(2)}   (target ≥ 0.9; CPU per request ${(cpuOf(OURS) / cpuOf(UNDICI)).toFixed(2)}×)`);
      console.log(`    print-bridge / oneflow-sdk-js:  ${vsSdk.toFixed(2)}`);
      const us = (name: string) => cpuOf(name).toFixed(0);
      results.push(
        `| ${op} | ${concurrency} | ${undici.toFixed(0)} (${us(UNDICI)} µs) | ${ours.toFixed(0)} (${us(OURS)} µs) | ${hp.toFixed(0)} (${us(SDK)} µs) | ${vsUndici.toFixed(2)} | ${vsSdk.toFixed(2)} | ${(cpuOf(OURS) / cpuOf(UNDICI)).toFixed(2)} | ${loadavg()[0]!.toFixed(2)} |`,
      );
      for (const c of contenders) await c.close?.();
    }
  }
  console.log(
    '\n| op | callers | raw undici Pool req/s (CPU/req) | print-bridge | oneflow-sdk-js | ÷ undici | ÷ SDK | CPU/req ÷ undici | load |\n|---|---|---|---|---|---|---|---|---|',
  );
  for (const line of results) console.log(line);
}

/** Issue 17's answer: a one-item record of about 450 bytes. */
function tinyRecord(i: number): string {
  return JSON.stringify({
    _id: '6541a0f0c0ffee0000000001',
    status: 'printready',
    sourceAccountId: '6541a0f0c0ffee00000000aa',
    destination: { name: 'demo-printer' },
    orderData: {
      sourceOrderId: sourceId(i),
      items: [{ sourceItemId: '1', sku: 'A5', quantity: 1, components: [{ code: 'cover', path: 'https://x/c.pdf', fetch: true }] }],
      shipments: [{ shipmentIndex: 0, status: 'pending', shipTo: { name: 'A', address1: 'B', town: 'C', postcode: 'D', isoCountry: 'GB' }, carrier: { alias: 'standard' } }],
    },
  });
}

function tinyAcknowledgement(): string {
  return JSON.stringify({ _id: '6541a0f0c0ffee0000000001', url: 'http://127.0.0.1/orders/1.json', timestamp: '2026-11-25T12:00:00.000Z', sourceAccountId: 'acc-1' });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Requests per second, and the CPU time of this process (the callers' side; the server is a child) per request. */
async function run(fn: (i: number) => Promise<unknown>, concurrency: number, seconds: number): Promise<{ rate: number; cpuUs: number }> {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, caller) => {
      // Each caller walks through the orders from its own starting point.
      for (let i = caller % ORDERS; performance.now() < until; i = (i + 1) % ORDERS) {
        await fn(i);
        done += 1;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { rate: done / ((performance.now() - started) / 1000), cpuUs: (used.user + used.system) / done };
}
