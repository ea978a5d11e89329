import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSchema, TEST_DATABASE_URL, testSchemaName } from '../helpers/database.js';
import { buildStages, hostPath, materializeContext, parseDockerfile, run, type StageTree } from '../helpers/dockerfile.js';
import { testRedis } from '../helpers/redis.js';

/**
 * Issue 23, "the image builds and runs", without a Docker daemon: the Dockerfile's stages carried out in folders from
 * the build context a clean clone sends (`git ls-files` less .dockerignore, by Docker's rules), then docs/deploy.md's
 * `docker run` commands run in the image's tree through its ENTRYPOINT and CMD. `npm run docker:check` does the same
 * with Docker where it runs. About 35 s alone on a 2-core machine (a minute when the stages ran one after the other),
 * most of it `npm ci` twice (from npm's cache) and `npm run build`; the image's `npm ci` runs beside the build stage's
 * work, as BuildKit runs it (test/helpers/dockerfile.ts).
 */
const ROOT = resolve(import.meta.dirname, '../..');
const IMAGE = 'print-bridge';

interface DocsRun {
  text: string;
  detached: boolean;
  volume: boolean;
  args: string[];
}

/** docs/deploy.md's `docker run … print-bridge ARGS` lines: what an operator runs, and so what this test runs. */
function docsRuns(): DocsRun[] {
  const docs = readFileSync(join(ROOT, 'docs/deploy.md'), 'utf8');
  const runs: DocsRun[] = [];
  for (const line of docs.split('\n')) {
    if (!line.startsWith('docker run ')) continue;
    const words = line.replace(/\s+#.*$/, '').trim().split(/\s+/);
    const at = words.indexOf(IMAGE);
    if (at < 0) throw new Error(`docs/deploy.md: ${line} does not name the image ${IMAGE}`);
    const options = words.slice(2, at);
    runs.push({ text: line, detached: options.includes('-d'), volume: options.some((w) => w.endsWith(':/app/data')), args: words.slice(at + 1) });
  }
  return runs;
}

/** The build stage's and the image's RUN steps, each as the test carries it out here. */
async function runStep(step: string, stage: StageTree): Promise<void> {
  const cwd = hostPath(stage, '.');
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), ...stage.env };
  let match: RegExpExecArray | null;
  if ((match = /^npm ci((?:\s+--[a-z=-]+)*)$/.exec(step))) {
    // The Dockerfile's own flags, with npm's cache first (CI's `npm ci` has just filled it): 10 to 20 s, not minutes.
    await run('npm', ['ci', ...match[1]!.trim().split(/\s+/).filter(Boolean), '--prefer-offline'], { cwd, env, timeoutMs: 180_000 });
    stage.log.push(step);
  } else if ((match = /^npm run (\S+)$/.exec(step))) {
    await run('npm', ['run', match[1]!], { cwd, env, timeoutMs: 180_000 });
    stage.log.push(step);
  } else if (step === 'npm cache clean --force') {
    // Only the image's size: cleaning here would empty this machine's npm cache, which others share.
    stage.log.push(`skipped: ${step}`);
  } else if ((match = /^mkdir -p (.+)$/.exec(step))) {
    for (const dir of match[1]!.split(/\s+/)) await run('mkdir', ['-p', hostPath(stage, dir)], { cwd, env });
    stage.log.push(step);
  } else if (/^chown \S+ \S+$/.test(step)) {
    // No user `node` here, and the test's files are its own; build.test.ts checks the image runs as `node`.
    stage.log.push(`skipped: ${step}`);
  } else {
    throw new Error(`RUN ${step}: not known to this test; teach test/integration/image.test.ts what it means`);
  }
}

/** A started command of the image, its output gathered, ending with SIGTERM. */
function startCommand(image: StageTree, args: string[], env: Record<string, string>) {
  const argv = [...image.entrypoint!, ...args];
  // The image's `node` is this machine's node (the same major version as node:20, per package.json's engines).
  const program = argv[0] === 'node' ? process.execPath : argv[0]!;
  const child = spawn(program, argv.slice(1), {
    cwd: hostPath(image, '.'),
    env: { PATH: process.env.PATH ?? '', ...image.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const waiters: { pattern: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    for (const w of waiters.splice(0)) {
      const m = w.pattern.exec(stdout);
      if (m) w.resolve(m);
      else waiters.push(w);
    }
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return {
    /** Resolves when the output shows `pattern`; rejects if the process ends first. */
    waitFor(pattern: RegExp): Promise<RegExpExecArray> {
      const seen = pattern.exec(stdout);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolvePromise, reject) => {
        waiters.push({ pattern, resolve: resolvePromise });
        void exited.then((code) => reject(new Error(`${args.join(' ') || '(default)'} ended (${code}) before ${pattern}:\n${stdout}\n${stderr}`)));
      });
    },
    /** The exit code, when the process ends by itself. */
    ended: exited,
    /** SIGTERM, as `docker stop` sends; resolves with the exit code. */
    async stop(): Promise<number | null> {
      child.kill('SIGTERM');
      return exited;
    },
    output: () => `${stdout}\n${stderr}`,
  };
}

describe('the Docker image, built from a clean clone without Docker', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'pb-docker-'));
  const { prefix, cleanup } = testRedis('image');
  const schema = testSchemaName('image');
  let image: StageTree;
  let build: StageTree;
  let context: string[];

  // What an operator's .env holds (docs/deploy.md "What it needs"), with this machine's test Redis; PostgreSQL only
  // for the commands docs/deploy.md runs without the /app/data volume (web and worker scale apart only with it).
  const appEnv = (run: { volume: boolean }): Record<string, string> => ({
    PORT: '0',
    APP_URL: 'https://print-bridge.example.com',
    REDIS_URL: 'redis://127.0.0.1:6379',
    REDIS_PREFIX: prefix,
    REDIS_ALLOW_VOLATILE: 'true',
    SHOPIFY_API_KEY: 'image-key',
    SHOPIFY_API_SECRET: 'image-secret',
    ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    PRINT_API_BASE_URL: 'http://127.0.0.1:9',
    PRINT_API_TOKEN: 't',
    PRINT_API_SECRET: 's',
    PRINT_SOURCE_ACCOUNT: 'demo-brand',
    POSTBACK_TOKEN: 'pb-token-0123456789abcdef0123456789',
    ...(run.volume ? {} : { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema }),
  });

  beforeAll(async () => {
    const stages = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
    const contextDir = join(tmp, 'context');
    context = await materializeContext(ROOT, contextDir);
    const trees = await buildStages(stages, contextDir, join(tmp, 'stages'), runStep);
    build = trees[0]!;
    image = trees.at(-1)!;
  }, 240_000);

  // Two stages' node_modules, some 40,000 files: removing them took over the default 30 s hook limit once on a slow,
  // busy 2-core machine (CI, with two other test files beside it). Removed without blocking the event loop, beside the
  // Redis and PostgreSQL cleanup, with room for a slow disk.
  afterAll(async () => {
    await Promise.all([rm(tmp, { recursive: true, force: true, maxRetries: 3 }), cleanup(), dropSchema(schema)]);
  }, 180_000);

  it('builds: the build stage compiles the server and bundles the mapping editor from the build context alone', () => {
    expect(context).not.toContainEqual(expect.stringMatching(/^(test|node_modules|dist)\//));
    expect(build.log).toContain('npm run build');
    expect(existsSync(hostPath(build, 'dist/cli.js'))).toBe(true);
    expect(existsSync(hostPath(build, 'dist/assets/editor.js'))).toBe(true);
  });

  it('holds the compiled app and its render threads, with no sources, no TypeScript loader and no dev dependencies', () => {
    for (const file of ['dist/cli.js', 'dist/mapping/render-worker.js', 'dist/assets/editor.js', 'bin/print-bridge.js', 'mappings/default.yaml']) {
      expect(existsSync(hostPath(image, file)), file).toBe(true);
    }
    expect(existsSync(hostPath(image, 'drizzle/meta/_journal.json'))).toBe(true);
    // (typescript itself is there: a peer dependency of valibot, under @bull-board/api; nothing of ours loads it.)
    for (const absent of ['src', 'scripts', 'web', 'test', 'bin/ts-worker.mjs', 'node_modules/tsx', 'node_modules/esbuild']) {
      expect(existsSync(hostPath(image, absent)), absent).toBe(false);
    }
    expect(image.env.NODE_ENV).toBe('production');
    expect(image.user).toBe('node');
    expect(image.entrypoint).toEqual(['node', 'bin/print-bridge.js']);
    expect(image.cmd).toEqual(['start']);
  });

  it('renders an order in a render thread from dist/ (no bin/ts-worker.mjs, no tsx)', async () => {
    // A file, not `node -e`: a worker thread inherits the process's --input-type, which only `-e` accepts.
    const check = join(tmp, 'render-check.mjs');
    writeFileSync(
      check,
      `import { readFileSync } from 'node:fs';
      import { MappingRenderPool } from ${JSON.stringify(pathToFileURL(hostPath(image, 'dist/mapping/render-pool.js')).href)};
      const pool = new MappingRenderPool({ threads: 1 });
      const source = readFileSync('mappings/default.yaml', 'utf8');
      const body = readFileSync(${JSON.stringify(join(ROOT, 'test/fixtures/shopify/book-order.json'))}, 'utf8');
      const outcome = await pool.map({ shop: 'image.myshopify.com', mapping: { file: 'default.yaml', key: 'k', source }, body });
      await pool.close();
      process.stdout.write(JSON.stringify(outcome.ok ? { sku: outcome.order.orderData.items[0].sku } : outcome.problems));`,
    );
    const out = await run(process.execPath, [check], { cwd: hostPath(image, '.'), env: { PATH: process.env.PATH ?? '', ...image.env } });
    expect(JSON.parse(out)).toEqual({ sku: 'A5-SOFTCOVER' });
  });

  it("has npm run docker:check run docs/deploy.md's commands too, with Docker", () => {
    const script = readFileSync(join(ROOT, 'scripts/docker-check.sh'), 'utf8');
    const checked = script
      .split('\n')
      .filter((line) => /\bdocker run\b.*"\$IMAGE"/.test(line) && !line.trimStart().startsWith('echo'))
      .map((line) => ({ detached: /\s-d\s/.test(line), volume: line.includes(':/app/data'), args: /"\$IMAGE"([^)"]*)/.exec(line)![1]!.trim() }));
    expect(checked).toEqual(docsRuns().map((r) => ({ detached: r.detached, volume: r.volume, args: r.args.join(' ') })));
    expect(script).toContain('docker build -t "$IMAGE" .');
  });

  it("runs docs/deploy.md's commands through the image's ENTRYPOINT: db migrate, start, web and worker", async () => {
    const runs = docsRuns();
    expect(runs.map((r) => r.args.join(' '))).toEqual(['db migrate', '', 'web', 'worker']);
    // In the docs' order, as an operator runs them: a one-off command (`docker run --rm`) is waited for; a detached
    // one (`docker run -d`) is not, and is checked (then stopped) while the ones after it start.
    const detached: Promise<void>[] = [];
    for (const docsRun of runs) {
      const args = docsRun.args.length > 0 ? docsRun.args : image.cmd!;
      const command = startCommand(image, args, appEnv(docsRun));
      if (!docsRun.detached) {
        // A one-off command: it ends by itself.
        expect(await command.ended, `${docsRun.text}\n${command.output()}`).toBe(0);
        if (args.join(' ') === 'db migrate') expect(command.output()).toMatch(/[1-9]\d* migration\(s\) applied, the schema is current/);
        continue;
      }
      detached.push(
        (async () => {
          try {
            if (args[0] === 'worker') {
              await command.waitFor(/"msg":"worker: taking jobs"/);
            } else {
              const listening = await command.waitFor(/"url":"(http:\/\/[^"]+)","msg":"web: listening"/);
              const health = await fetch(`${listening[1]}/healthz`);
              expect(health.status, command.output()).toBe(200);
              const ready = await fetch(`${listening[1]}/readyz`);
              expect(ready.status, `${docsRun.text}: ${await ready.text()}`).toBe(200);
            }
          } finally {
            expect(await command.stop(), `${docsRun.text}\n${command.output()}`).toBe(0);
          }
        })(),
      );
    }
    // Every detached command checked and stopped before the first failure, if any, is reported.
    const failures = (await Promise.allSettled(detached)).filter((r) => r.status === 'rejected');
    if (failures.length > 0) throw failures[0]!.reason;
  }, 60_000);
});
