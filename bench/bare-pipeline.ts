/**
 * The bare durable pipeline (issue 27): the least a connector must do per order with the same guarantees and the
 * same parts as print-bridge, as two processes, run by `npm run bench:flash-sale` beside print-bridge.
 *
 *   web:    Express `POST /webhooks` → HMAC of the raw body (node:crypto, constant time) → one INSERT of the body into
 *           PostgreSQL (a schema of its own) → one BullMQ job (jobId = shop and order id, so a redelivery while the job
 *           waits is one job) → 200. Nothing is acknowledged before both are durable; a failure answers 503 and
 *           Shopify delivers again.
 *   worker: reads the body (one SELECT; an order that already has a print id is done: a redelivery after completion
 *           sends nothing), maps it with a fixed function (bench/pipeline-mapping.ts: no Liquid, no mapping files),
 *           sends one signed create with the project's PrintServiceClient (the same client, signing and
 *           acknowledgement check print-bridge uses), and records the print id with one UPDATE.
 *
 * So per order: 3 PostgreSQL transactions (INSERT, SELECT, UPDATE), one queue job, one create. Each statement is a
 * named prepared one (parsed once per connection, its generic plan kept after five runs), as print-bridge's order path
 * runs its statements (src/db/database.ts, RowsOptions): the strongest form of the same work.
 * Not done, on purpose: reconciling by sourceOrderId when a create's outcome is unknown (a timeout, or a crash between
 * the create and the UPDATE) before sending it again. The bare pipeline retries such a job, which could create the
 * order twice at a printer; print-bridge asks get-by-source-id first. No such failure happens in the bench (the
 * emulator answers every create), so the count of duplicates is still a fair check.
 *
 * Run as a child process: `node --import tsx bench/bare-pipeline.ts web|worker`, configured by environment
 * (BARE_PORT, REDIS_URL, BARE_PREFIX, DATABASE_URL, BARE_SCHEMA, SHOPIFY_API_SECRET, PRINT_API_BASE_URL,
 * PRINT_API_TOKEN, PRINT_API_SECRET, WORKER_CONCURRENCY). Reports `{ ready: true }` over IPC when it serves.
 */
import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import express from 'express';
import { Redis } from 'ioredis';
import pg from 'pg';
import { PrintServiceClient } from '../src/print-service/client.js';
import { gidTail, type ShopifyOrderBody, toPrintOrder } from './pipeline-mapping.js';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`bare-pipeline: ${name} is not set`);
  return value;
};

const QUEUE = 'bare-orders';
const role = process.argv[2];

function config() {
  const schema = env('BARE_SCHEMA');
  if (!/^[a-z0-9_]+$/.test(schema)) throw new Error(`bare-pipeline: BARE_SCHEMA ${schema} is not a plain name`);
  return {
    // BullMQ writes `${prefix}:${queue}:…`.
    prefix: env('BARE_PREFIX').replace(/:+$/, ''),
    table: `"${schema}".orders`,
    concurrency: Number(env('WORKER_CONCURRENCY', '32')),
    connection: () => new Redis(env('REDIS_URL', 'redis://127.0.0.1:6379'), { maxRetriesPerRequest: null }),
  };
}

/** The schema and table; run by the harness before either process starts. */
export const BARE_DDL = (s: string) => [
  `CREATE SCHEMA IF NOT EXISTS "${s}"`,
  `CREATE TABLE IF NOT EXISTS "${s}".orders (
     shop text NOT NULL,
     order_id text NOT NULL,
     body text NOT NULL,
     print_id text,
     received_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (shop, order_id))`,
];

async function web(): Promise<void> {
  const { prefix, table, connection } = config();
  const pool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 20 });
  const queue = new Queue(QUEUE, { connection: connection(), prefix });
  const key = createSecretKey(Buffer.from(env('SHOPIFY_API_SECRET'), 'utf8'));
  const app = express();
  let warned = false;
  app.post('/webhooks', express.raw({ type: () => true, limit: '5mb' }), async (req, res) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const given = Buffer.from(String(req.get('x-shopify-hmac-sha256') ?? ''), 'base64');
    const expected = createHmac('sha256', key).update(body).digest();
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.status(401).end();
      return;
    }
    const shop = String(req.get('x-shopify-shop-domain') ?? '');
    let orderId: string;
    try {
      // The order id exactly: the bare integer is above 2^53, its gid is text.
      orderId = gidTail((JSON.parse(body.toString('utf8')) as { admin_graphql_api_id: string }).admin_graphql_api_id);
    } catch {
      res.status(400).end();
      return;
    }
    try {
      // A redelivery finds the row there (nothing written) and adds a job again: one job while one waits, and the
      // worker sends nothing for an order that already has a print id.
      await pool.query({ name: 'bare-insert', text: `INSERT INTO ${table} (shop, order_id, body) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, values: [shop, orderId, body.toString('utf8')] });
      await queue.add('order', { shop, orderId }, { jobId: `${shop}.${orderId}`, attempts: 5, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: true, removeOnFail: false });
      res.status(200).end();
    } catch (error) {
      if (!warned) console.error(`bare web: ${String(error)} (answered 503; said once)`);
      warned = true;
      res.status(503).end();
    }
  });
  const server = app.listen(Number(env('BARE_PORT')), '127.0.0.1', () => process.send?.({ ready: true }));
  process.once('SIGTERM', () => {
    server.close();
    void Promise.allSettled([queue.close(), pool.end()]).then(() => process.exit(0));
  });
}

async function worker(): Promise<void> {
  const { prefix, table, concurrency, connection } = config();
  const pool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: Math.max(4, Math.min(concurrency, 32)) });
  const client = new PrintServiceClient({
    baseUrl: env('PRINT_API_BASE_URL'),
    token: env('PRINT_API_TOKEN'),
    secret: env('PRINT_API_SECRET'),
    connections: concurrency,
  });
  const worker = new Worker<{ shop: string; orderId: string }>(
    QUEUE,
    async (job) => {
      const { shop, orderId } = job.data;
      const found = await pool.query<{ body: string; print_id: string | null }>({ name: 'bare-read', text: `SELECT body, print_id FROM ${table} WHERE shop = $1 AND order_id = $2`, values: [shop, orderId] });
      const row = found.rows[0];
      if (!row) throw new Error(`order ${orderId} of ${shop} is not stored`);
      if (row.print_id) return row.print_id;
      const order = toPrintOrder(JSON.parse(row.body) as ShopifyOrderBody, shop.replace(/\.myshopify\.com$/, ''));
      const ack = await client.create(order);
      await pool.query({ name: 'bare-update', text: `UPDATE ${table} SET print_id = $3 WHERE shop = $1 AND order_id = $2`, values: [shop, orderId, ack._id] });
      return ack._id;
    },
    { connection: connection(), prefix, concurrency },
  );
  await worker.waitUntilReady();
  process.send?.({ ready: true });
  process.once('SIGTERM', () => {
    void Promise.allSettled([worker.close(), client.close(), pool.end()]).then(() => process.exit(0));
  });
}

if (role === 'web') await web();
else if (role === 'worker') await worker();
else if (role !== undefined) throw new Error(`bare-pipeline: unknown role ${role} (web or worker)`);
