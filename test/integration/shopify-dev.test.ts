import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config.js';
import { DEV_SECRETS_FILE } from '../../src/dev/start-dev.js';
import { freePort } from '../helpers/private-redis.js';
import { deleteByPrefix, TEST_REDIS_URL } from '../helpers/redis.js';
import { runCliInProcess } from '../helpers/run-cli.js';

/**
 * Issue 23: `shopify app dev` from a clean clone. `npm run dev` with only what the Shopify CLI provides starts the app
 * against the local print-service emulator and serves /healthz; `.env.example` lists every variable of the
 * configuration, so neither can drift from the other.
 */

const REPO = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(REPO, path), 'utf8');

/** Exactly what `shopify app dev` gives the web process (shopify.web.toml), and nothing else. */
function shopifyCliEnv(port: number): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    SHOPIFY_API_KEY: 'dev-test-client-id',
    SHOPIFY_API_SECRET: 'dev-test-client-secret',
    SHOPIFY_APP_URL: 'https://dev-test.trycloudflare.com',
    PORT: String(port),
    SCOPES: 'read_orders,write_orders',
  };
}

/** The `dev` script of package.json as argv for node, its script path made absolute in this repository. */
function devCommand(): string[] {
  const script = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.dev!;
  const [node, bin, ...args] = script.split(/\s+/);
  expect(node).toBe('node');
  return [join(REPO, bin!), ...args];
}

/**
 * A working directory laid out as a fresh clone is for the app (its mappings/), outside the repository: the run's
 * data directory (./data) is written there.
 */
function cloneLikeDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pb-shopify-dev-'));
  cpSync(join(REPO, 'mappings'), join(dir, 'mappings'), { recursive: true });
  return dir;
}

const dirs: string[] = [];
const prefixes: string[] = [];
afterAll(async () => {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    for (const prefix of prefixes) await deleteByPrefix(redis, prefix);
  } finally {
    redis.disconnect();
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs `npm run dev`'s command until it has started (the log line of its last start-up step), checks /healthz and
 * readiness, then stops it with SIGTERM.
 */
async function runDevUntilHealthy(cwd: string): Promise<{ log: string; code: number | null }> {
  const port = await freePort();
  const child = spawn(process.execPath, devCommand(), { cwd, env: shopifyCliEnv(port), stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  // The triggers are set once the web role listens; the line follows "web: listening".
  const started = new Promise<void>((resolvePromise) => {
    const read = (d: Buffer) => {
      log += d.toString();
      if (log.includes("the emulator's triggers post to this app's own postback address")) resolvePromise();
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', () => resolvePromise());
  });
  const exited = new Promise<number | null>((resolvePromise) => child.once('close', (code) => resolvePromise(code)));
  const base = `http://127.0.0.1:${port}`;
  try {
    await started;
    const health = await fetch(`${base}/healthz`).catch(() => undefined);
    expect(health?.status, log).toBe(200);
    // Redis, the embedded database and the clone's mapping file: ready for orders, not just alive.
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status, await ready.clone().text()).toBe(200);
    child.kill('SIGTERM');
    // 'close': the process has ended and its output is all read.
    const code = await exited;
    return { log, code };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

describe('npm run dev with only the Shopify CLI variables (issue 23)', () => {
  it('starts against the local emulator, serves /healthz and /readyz, says so in the log, and stops cleanly; a second run keeps its development secrets', async () => {
    const cwd = cloneLikeDir();
    dirs.push(cwd);
    const first = await runDevUntilHealthy(cwd);
    const secretsFile = join(cwd, 'data', DEV_SECRETS_FILE);
    expect(existsSync(secretsFile), first.log).toBe(true);
    const secrets = JSON.parse(readFileSync(secretsFile, 'utf8')) as { encryptionKey: string; postbackToken: string; redisId: string };
    prefixes.push(`print-bridge-dev:${secrets.redisId}:`);

    expect(first.code, first.log).toBe(0);
    expect(first.log).toMatch(/no print account configured: using the local print-service emulator at http:\/\/127\.0\.0\.1:\d+; orders are printed nowhere/);
    expect(first.log).toContain(`ENCRYPTION_KEY is the development key generated once and kept in ${secretsFile}`);
    expect(first.log).toContain('the embedded database (PGlite) in ./data');
    expect(first.log).toContain('mapping file loaded');
    expect(first.log).toContain('"msg":"stopped"');
    // Nothing secret in the log.
    expect(first.log).not.toContain(secrets.encryptionKey);
    expect(first.log).not.toContain(secrets.postbackToken);
    expect(first.log).not.toContain('dev-test-client-secret');
    expect(first.log).not.toMatch(/"level":(50|60)/);

    // Generated once: the same key (the stored tokens stay readable), token and Redis keys on the next start.
    const second = await runDevUntilHealthy(cwd);
    expect(second.code, second.log).toBe(0);
    expect(JSON.parse(readFileSync(secretsFile, 'utf8'))).toEqual(secrets);
    expect(second.log).toContain(`keys under print-bridge-dev:${secrets.redisId}:`);
  }, 120_000);

  it('leaves production `start` refusing to run with the same variables, every missing setting named', async () => {
    const { PATH: _path, ...env } = shopifyCliEnv(await freePort());
    const result = await runCliInProcess(['start'], env);
    expect(result.code).toBe(1);
    for (const key of ['PRINT_API_BASE_URL', 'PRINT_API_TOKEN', 'PRINT_API_SECRET', 'PRINT_SOURCE_ACCOUNT', 'POSTBACK_TOKEN']) {
      expect(result.stderr).toContain(`${key}: required but not set`);
    }
    expect(result.stderr).not.toContain('APP_URL: required');
  });
});

describe('.env.example', () => {
  const lines = read('.env.example').split('\n');
  const listed = lines.flatMap((line, i) => {
    const match = /^#?\s?([A-Z][A-Z0-9_]*)=/.exec(line);
    return match ? [{ name: match[1]!, comment: lines[i - 1] ?? '' }] : [];
  });

  it('lists exactly the variables of the configuration schema, each once', () => {
    const names = listed.map((v) => v.name);
    expect(new Set(names).size, 'a variable listed twice').toBe(names.length);
    expect([...names].sort()).toEqual(Object.keys(configSchema.shape).sort());
  });

  it('says what each one is and its default, on the line above it', () => {
    for (const { name, comment } of listed) {
      expect(comment, name).toMatch(/^# \S/);
      expect(comment, name).toMatch(/Default: |Required for start; no default/);
    }
  });

  it('shows each default as the configuration has it', () => {
    for (const { name, comment } of listed) {
      const value = lines.find((line) => line.startsWith(`# ${name}=`))!.slice(`# ${name}=`.length);
      if (value === '') continue;
      const parsed = (configSchema.shape as Record<string, { parse: (v: unknown) => unknown }>)[name]!.parse(undefined);
      expect(Array.isArray(parsed) ? parsed.join(',') : String(parsed), `${name} (${comment})`).toBe(value);
    }
  });
});
