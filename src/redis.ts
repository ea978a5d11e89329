import { Redis, type RedisOptions } from 'ioredis';

/**
 * Two kinds of connection. Request paths (webhook intake, postbacks) must fail fast so the caller answers 503 and
 * the sender retries; workers must wait out a Redis restart instead of failing jobs (BullMQ requires
 * `maxRetriesPerRequest: null` for them).
 */
export type RedisRole = 'request' | 'worker';

export function createRedis(url: string, role: RedisRole, extra: RedisOptions = {}): Redis {
  const options: RedisOptions =
    role === 'request'
      ? {
          enableOfflineQueue: false,
          // No auto-pipelining (issue 17 had it on): intake now sends one script per step (claim with the body, the
          // job, the confirmation), and ioredis builds a pipeline object for every tick's batch, which cost more than
          // the system calls it saved (issue 27, bench:intake on real-shaped bodies: 0.42 with it, 0.47 without).
          enableAutoPipelining: false,
          maxRetriesPerRequest: 1,
          commandTimeout: 2_000,
          connectTimeout: 2_000,
          retryStrategy: (times) => Math.min(times * 100, 1_000),
        }
      : {
          maxRetriesPerRequest: null,
          enableReadyCheck: true,
          retryStrategy: (times) => Math.min(times * 200, 2_000),
        };
  const redis = new Redis(url, { lazyConnect: false, ...options, ...extra });
  // Connection errors surface through the commands that fail (and /readyz); without a listener ioredis prints each
  // reconnect attempt to stderr.
  redis.on('error', () => undefined);
  return redis;
}

/** Resolves once the connection is ready, or rejects after `timeoutMs`. */
export async function waitForRedis(redis: Redis, timeoutMs = 5_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis did not become ready within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off('ready', onReady);
    };
    redis.on('ready', onReady);
  });
}

/** Deletes every key under a prefix (a test run's, a demo's); never FLUSHALL a Redis others share. */
export async function deleteByPrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}
