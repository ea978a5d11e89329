/**
 * bench:emulator: acknowledged creates per second of the print-service emulator, signature checks on, measured with
 * autocannon. The emulator runs in a child process with its normal processing (stage delays, schema checks), so the
 * figure includes that background work. Baseline, in the same run: a bare node:http server in a child process that
 * reads the same POSTs and answers `{}`. The ratio is the emulator's own cost per create.
 *
 * Real-shaped data (issue 27): the bodies are the create documents print-bridge sends for real-shaped Shopify orders
 * (bench/print-service-shape.ts `printOrderDocument`: the mapped order with item descriptions and extraData,
 * component barcodes and attributes, order extraData, a packing-slip attachment; 3–10 items, 7–23 KB), `--documents`
 * different ones cycled. Each request carries a sourceOrderId of its own (`acme-books-<n>`, n counted across the run,
 * in the sourceOrderId and the sourceShipmentId): print-bridge never sends one twice, and the emulator ends a second
 * create with the same sourceOrderId in a submission error, which would skip the rest of its processing. The signature
 * covers method, path and date only, so one signed set of headers serves every request, as before.
 *
 *   npm run bench:emulator [-- --seconds 10 --connections 50 --documents 200 --seed 27]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { request } from 'undici';
import { printOrderDocument } from '../bench/print-service-shape.js';
import { describeSizes, formatKb as kb, summariseSizes } from '../bench/body-sizes.js';
import { signRequest } from '../src/print-service/signing.js';
import { cpuProfileArgs } from './bench-support.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    documents: { type: 'string', default: '200' },
    seed: { type: 'string', default: '27' },
    server: { type: 'string' },
  },
});

/** Request numbers across the whole run (baseline and emulator), so no sourceOrderId is ever sent twice. */
let sent = 0;

if (values.server) {
  // A normal exit on the parent's kill, so a `--cpu-prof` run writes its profile.
  process.once('SIGTERM', () => process.exit(0));
}
if (values.server === 'emulator') {
  const { startEmulator } = await import('../src/dev/emulator/server.js');
  const emu = await startEmulator({ port: 0 });
  process.send?.({ port: emu.port });
} else if (values.server === 'baseline') {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
      res.end('{}');
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  });
} else {
  await main();
}

async function startChild(kind: 'emulator' | 'baseline'): Promise<{ child: ChildProcess; baseUrl: string }> {
  const child = fork(fileURLToPath(import.meta.url), ['--server', kind], { execArgv: ['--import', 'tsx', ...cpuProfileArgs()] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`the ${kind} process exited (${code}) before listening`)));
  });
  return { child, baseUrl: `http://127.0.0.1:${port}` };
}

/** The create documents: each split where its sourceOrderId goes, so every request gets one of its own. */
interface CreateDocument {
  parts: string[];
  /** Size as sent (the sourceOrderId of a request is as long, give or take a digit). */
  body: string;
  items: number;
}

function documents(count: number, seed: number): CreateDocument[] {
  return Array.from({ length: count }, (_, i) => {
    const doc = printOrderDocument(i + 1, seed);
    const id = doc.orderData.sourceOrderId;
    const body = JSON.stringify(doc);
    // The id is the sourceOrderId and the start of the shipment's sourceShipmentId (`<id>-1`).
    const parts = body.split(`"${id}`);
    if (parts.length < 2 || !/^acme-books-\d+$/.test(id)) throw new Error(`document ${i + 1}: unexpected sourceOrderId ${id}`);
    return { parts, body, items: doc.orderData.items.length };
  });
}

async function load(baseUrl: string, docs: readonly CreateDocument[], seconds: number, connections: number): Promise<Result> {
  // The signature covers method, path and date only, so one signed set of headers stays valid for 15 minutes.
  const headers = {
    ...signRequest({ method: 'POST', url: `${baseUrl}/api/order`, token: 'demo-token', secret: 'demo-secret' }),
    'content-type': 'application/json',
  };
  return autocannon({
    url: baseUrl,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: '/api/order',
        headers,
        // The next document, with a sourceOrderId of its own: `acme-books-<order number>`, numbers from 1,000,001.
        setupRequest: (req) => {
          const n = sent++;
          return { ...req, body: docs[n % docs.length]!.parts.join(`"acme-books-${1_000_001 + n}`) };
        },
      },
    ],
  });
}

function line(name: string, r: Result, seconds: number): string {
  const ok = r['2xx'] / seconds;
  return `  ${name.padEnd(34)} ${ok.toFixed(0).padStart(6)} acknowledged/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms   non-2xx ${r.non2xx}   errors ${r.errors}`;
}

async function main(): Promise<void> {
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const seed = Number(values.seed);
  const docs = documents(Number(values.documents), seed);
  const sizes = summariseSizes(docs.map((d) => ({ body: d.body, lineItems: d.items })));
  console.log(`bench:emulator  POST /api/order (signed), ${connections} connections, ${seconds} s each, autocannon`);
  console.log(`  real-shaped create documents (bench/print-service-shape.ts printOrderDocument, seed ${seed}), a sourceOrderId of its own a request:`);
  console.log(`    ${describeSizes(sizes, { bodies: 'documents', lines: 'items (count:documents)' })}`);

  const baseline = await startChild('baseline');
  let base: Result;
  try {
    await load(baseline.baseUrl, docs, 1, connections); // warm-up
    base = await load(baseline.baseUrl, docs, seconds, connections);
  } finally {
    baseline.child.kill();
  }

  const emulator = await startChild('emulator');
  let emu: Result;
  let warm: Stats;
  let after: Stats;
  let settled: Stats;
  try {
    await load(emulator.baseUrl, docs, 1, connections); // warm-up: JIT, and the first orders in memory
    warm = await stats(emulator.baseUrl);
    emu = await load(emulator.baseUrl, docs, seconds, connections);
    after = await stats(emulator.baseUrl);
    // The checks run 500 ms after each create (the emulator's stage delay): wait for the last ones, then count.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    settled = await stats(emulator.baseUrl);
  } finally {
    emulator.child.kill();
  }

  console.log(line('bare node:http answering {}', base, seconds));
  console.log(line('emulator (signature checked)', emu, seconds));
  const ratio = emu['2xx'] / Math.max(1, base['2xx']);
  console.log(`  ratio emulator / bare server: ${ratio.toFixed(2)}`);
  console.log(`  orders stored during the run: ${after.orders - warm.orders} (acknowledged: ${emu['2xx']}; up to one per connection was still in flight when the load stopped)`);
  const s = settled.byStatus;
  const rejected = s.submissionerror ?? 0;
  console.log(
    `  all ${settled.orders} orders 1.5 s after the load: submitted ${s.submitted ?? 0}, received ${s.received ?? 0}, ` +
      `printready ${s.printready ?? 0}, shipped ${s.shipped ?? 0}, submission errors ${rejected} (must be 0: every document passes the emulator's checks)`,
  );
  const target = 2000;
  const rate = emu['2xx'] / seconds;
  const of = `documents of ${kb(sizes.minKb)}–${kb(sizes.maxKb)}, median ${kb(sizes.medianKb)}`;
  if (rejected > 0 || emu.non2xx > 0 || emu.errors > 0) {
    console.log(`  target ≥ ${target} acknowledged/s (${of}): NOT met: ${rejected} submission errors, ${emu.non2xx} non-2xx, ${emu.errors} errors`);
    process.exitCode = 1;
    return;
  }
  console.log(
    rate >= target
      ? `  target ≥ ${target} acknowledged/s (${of}): met (${rate.toFixed(0)}/s)`
      : `  target ≥ ${target} acknowledged/s (${of}): NOT met (${rate.toFixed(0)}/s; other work on this machine lowers every figure; compare the ratio)`,
  );
}

interface Stats {
  orders: number;
  byStatus: Record<string, number>;
}

async function stats(baseUrl: string): Promise<Stats> {
  const res = await request(`${baseUrl}/_emulator/stats`);
  return (await res.body.json()) as Stats;
}
