import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';

/**
 * Finding a Redis for a run on a fresh machine: the one `REDIS_URL` names when it answers, else a private
 * `redis-server` started on a free port with a throw-away directory (no persistence), else a one-line explanation.
 */

export const HOW_TO_GET_REDIS =
  'Redis is needed: start one on 127.0.0.1:6379 (or set REDIS_URL), or install redis-server so the demo can start its own (apt-get install redis-server / brew install redis).';

export class RedisUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisUnavailableError';
  }
}

export interface ResolvedRedis {
  url: string;
  /** `existing`: REDIS_URL answered; `private`: started for this run and stopped by `stop`. */
  source: 'existing' | 'private';
  stop(): Promise<void>;
}

/** True when a Redis answers PING at `url` within `timeoutMs`. */
export async function pingRedis(url: string, timeoutMs = 1_000): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** Whether `port` can be listened on at `host` right now. */
export async function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `redis-server` on a free port of 127.0.0.1 with a temporary directory and no persistence. Throws
 * RedisUnavailableError when `redis-server` is not installed or does not come up.
 */
export async function startPrivateRedis(options: { command?: string; readyTimeoutMs?: number } = {}): Promise<ResolvedRedis & { port: number }> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'print-bridge-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  const child = spawn(options.command ?? 'redis-server', args, { stdio: 'ignore' });
  const spawnFailure = new Promise<Error>((resolve) => child.once('error', resolve));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `redis://127.0.0.1:${port}`;

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      child.kill('SIGTERM');
      const killed = await Promise.race([exited.then(() => true), sleep(3_000).then(() => false)]);
      if (!killed) {
        child.kill('SIGKILL');
        await exited;
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 5_000);
  let failure: string | undefined;
  void spawnFailure.then((error) => {
    failure = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'redis-server is not installed' : error.message;
  });
  void exited.then((code) => {
    failure ??= `redis-server exited with code ${code}`;
  });
  while (Date.now() < deadline) {
    if (failure) break;
    if (await pingRedis(url, 250)) return { url, port, source: 'private', stop };
    await sleep(50);
  }
  await stop();
  throw new RedisUnavailableError(failure ?? `redis-server did not answer on port ${port}`);
}

/** The Redis for a demo run: `preferredUrl` when it answers, else a private redis-server, else RedisUnavailableError. */
export async function resolveRedis(preferredUrl: string, options: { redisServerCommand?: string } = {}): Promise<ResolvedRedis> {
  if (await pingRedis(preferredUrl)) return { url: preferredUrl, source: 'existing', stop: async () => undefined };
  try {
    return await startPrivateRedis({ command: options.redisServerCommand });
  } catch (error) {
    throw new RedisUnavailableError(`No Redis at ${preferredUrl} and ${(error as Error).message}. ${HOW_TO_GET_REDIS}`);
  }
}
