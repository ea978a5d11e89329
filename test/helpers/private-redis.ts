import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from '../../src/local-redis.js';

export { freePort } from '../../src/local-redis.js';

/** A redis-server of a test's own, for tests that stop and restart Redis. */
export async function startPrivateRedis(options: { port?: number; appendonly?: boolean; dir?: string } = {}) {
  const port = options.port ?? (await freePort());
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'pb-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir, '--appendonly', options.appendonly ? 'yes' : 'no'];
  const child: ChildProcess = spawn('redis-server', args, { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // Refused connections while the server starts are expected; without a listener ioredis prints each one.
  probe.on('error', () => undefined);
  for (let i = 0; i < 100; i++) {
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch {
      probe.disconnect();
      await sleep(50);
    }
  }
  probe.disconnect();
  return {
    url,
    port,
    dir,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
