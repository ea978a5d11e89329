/**
 * Shared pieces of the end-to-end benchmarks: child processes for the emulator, the Admin stand-in and the app, and the
 * app's environment (the order bodies: bench/shopify-order-shape.ts). Each process runs on its own so that the figures
 * include real HTTP and the two cores are shared the way they would be in a deployment on one machine.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { deleteByPrefix } from '../src/redis.js';

export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
/** BENCH_APP_ROOT runs another checkout's app (a before/after comparison in one run); the harness stays this one. */
export const BIN = join(process.env.BENCH_APP_ROOT ? resolve(process.env.BENCH_APP_ROOT) : ROOT, 'bin/print-bridge.js');
export const SHOP = 'bench-shop.myshopify.com';
export const SHOP_TOKEN = 'shpat_bench';
export const SHOPIFY_SECRET = 'shpss_bench_secret';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The benchmarks' PostgreSQL; each run works in a schema of its own, named after its Redis prefix. */
export const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** `pbbench:flash:1a2b3c4d:` → `pbbench_flash_1a2b3c4d`. */
export function schemaOf(prefix: string): string {
  return prefix.replace(/[^a-z0-9]+/gi, '_').replace(/^_+|_+$/g, '').toLowerCase();
}

/** The benchmarks' mapping: every BOOK-* line prints as itself with a cover and a text; `order` adds order-level keys. */
export function benchMappingYaml(options: { validate?: boolean; order?: string } = {}): string {
  return `shops: ["*"]
destination: demo-printer
${options.order ? `order:\n${options.order}\n` : ''}submit: { on: orders/paid, holdMinutes: 0, validate: ${options.validate ?? false} }
shipments:
  carrier: { alias: standard }
  returnAddress: { name: "Acme Returns", address1: "1 Mill Lane", town: "Leeds", postcode: "LS1 1AA", isoCountry: GB }
products:
  - match: { sku: "BOOK-*" }
    sku: "{{ line.sku }}"
    components:
      - { code: cover, path: "https://files.example.com/{{ line.sku }}/cover.pdf" }
      - { code: text, path: "https://files.example.com/{{ line.sku }}/text.pdf" }
`;
}

export function benchMapping(options: { validate?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'pb-bench-mappings-'));
  writeFileSync(join(dir, 'default.yaml'), benchMappingYaml(options));
  return dir;
}

/** BENCH_CPU_PROF=<dir>: the flags that make a bench's child process write its CPU profile there when it exits. */
export function cpuProfileArgs(): string[] {
  return process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
}

/** Starts a child that runs `fn` (a module path exporting `start`) and reports `{port}` or `{origin}` back. */
export async function forkService(kind: string, args: string[] = []): Promise<{ child: ChildProcess; info: Record<string, unknown> }> {
  const child = fork(join(ROOT, 'scripts/bench-service.ts'), [kind, ...args], {
    execArgv: ['--import', 'tsx', ...cpuProfileArgs()],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const info = await new Promise<Record<string, unknown>>((resolvePromise, reject) => {
    child.once('message', (m) => resolvePromise(m as Record<string, unknown>));
    child.once('exit', (code) => reject(new Error(`the ${kind} process exited (${code}) before it was ready`)));
  });
  return { child, info };
}

export function appEnv(options: { prefix: string; emulatorUrl: string; standInOrigin: string; mappingsDir: string; port: number; concurrency?: number }): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    PORT: String(options.port),
    APP_URL: `http://127.0.0.1:${options.port}`,
    REDIS_URL,
    REDIS_PREFIX: options.prefix,
    DATABASE_URL,
    DATABASE_SCHEMA: schemaOf(options.prefix),
    SHOPIFY_API_KEY: 'bench-key',
    SHOPIFY_API_SECRET: SHOPIFY_SECRET,
    ENCRYPTION_KEY: Buffer.alloc(32, 5).toString('base64'),
    SHOPIFY_ADMIN_API_ORIGIN: options.standInOrigin,
    PRINT_API_BASE_URL: options.emulatorUrl,
    PRINT_API_TOKEN: 'demo-token',
    PRINT_API_SECRET: 'demo-secret',
    PRINT_SOURCE_ACCOUNT: 'demo-brand',
    POSTBACK_TOKEN: 'bench-postback-token-0123456789abcdef',
    REDIS_ALLOW_VOLATILE: 'true',
    // The benchmark's artwork hosts are made up and this machine has no DNS.
    ARTWORK_RESOLVE: 'false',
    MAPPINGS_DIR: options.mappingsDir,
    WORKER_CONCURRENCY: String(options.concurrency ?? 32),
    LOG_LEVEL: 'error',
  };
}

/** Runs `print-bridge <role>` as a user would, and waits until /healthz answers when it has a web role. */
export async function startApp(role: 'start' | 'web' | 'worker', env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...cpuProfileArgs(), BIN, role], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (role === 'worker') {
    await sleep(1500);
    return child;
  }
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`print-bridge ${role} exited with ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${env.PORT}/healthz`);
      if (res.ok) return child;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`print-bridge ${role} did not start`);
}

export async function registerShop(env: Record<string, string>): Promise<void> {
  await new Promise<void>((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, 'shops', 'add', SHOP, '--token', SHOP_TOKEN, '--no-check'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('exit', (code) => (code === 0 ? resolvePromise() : reject(new Error(`shops add exited with ${code}`))));
  });
}

export function newPrefix(label: string): string {
  return `pbbench:${label}:${randomBytes(4).toString('hex')}:`;
}

export async function cleanupPrefix(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  await deleteByPrefix(redis, prefix);
  redis.disconnect();
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schemaOf(prefix)}" CASCADE`);
  await client.end();
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
