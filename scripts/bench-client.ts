/**
 * bench:client: requests per second of PrintServiceClient against a local server that answers at once, beside the
 * same requests made with undici alone in the same run. The ratio is the client's own overhead (signing, URL building,
 * answer parsing with zod, error mapping).
 *
 *   npm run bench:client [-- --seconds 5 --concurrency 32]
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { PrintServiceClient } from '../src/print-service/client.js';
import { signRequest } from '../src/print-service/signing.js';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '5' }, concurrency: { type: 'string', default: '32' }, server: { type: 'boolean', default: false } },
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
  // Child process: answer every request at once so the client side is what is measured.
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

async function main(): Promise<void> {
  const seconds = Number(values.seconds);
  const concurrency = Number(values.concurrency);
  const child = fork(fileURLToPath(import.meta.url), ['--server'], { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m: { port: number }) => resolve(m.port)));
  const baseUrl = `http://127.0.0.1:${port}`;

  const client = new PrintServiceClient({ baseUrl, token: 'bench', secret: 'bench-secret', connections: concurrency });
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 10_000 });
  const url = new URL(`${baseUrl}/api/order/bysourceid/bench-1`);

  const viaClient = () => client.getBySourceId('bench-1');
  const viaUndici = async () => {
    // The baseline still signs (that is what a bare integration would have to do) but skips everything else.
    const headers = signRequest({ method: 'GET', url, token: 'bench', secret: 'bench-secret' });
    const res = await request(url, { method: 'GET', headers, dispatcher: agent });
    await res.body.json();
  };

  await run(viaUndici, concurrency, 1); // warm-up of both paths
  await run(viaClient, concurrency, 1);
  const rounds: { client: number; undici: number }[] = [];
  for (let i = 0; i < 2; i++) {
    const undici = await run(viaUndici, concurrency, seconds / 2);
    const clientRate = await run(viaClient, concurrency, seconds / 2);
    rounds.push({ client: clientRate, undici });
  }
  const undiciRate = rounds.reduce((a, r) => a + r.undici, 0) / rounds.length;
  const clientRate = rounds.reduce((a, r) => a + r.client, 0) / rounds.length;
  console.log(`bench:client  concurrency ${concurrency}, ${seconds}s per side, GET /api/order/bysourceid/<id> against a local server`);
  console.log(`  undici alone (signed, JSON.parse):       ${undiciRate.toFixed(0)} req/s`);
  console.log(`  PrintServiceClient.getBySourceId:        ${clientRate.toFixed(0)} req/s`);
  console.log(`  ratio client / undici:                   ${(clientRate / undiciRate).toFixed(2)}`);
  await client.close();
  await agent.close();
  child.kill();
}

async function run(call: () => Promise<unknown>, concurrency: number, seconds: number): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        await call();
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}
