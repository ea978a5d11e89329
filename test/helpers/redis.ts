import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { deleteByPrefix } from '../../src/redis.js';

export const TEST_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * A Redis connection and a key prefix of this test file's own; `cleanup` deletes every key under the prefix and
 * closes the connection. Never FLUSHALL: other suites and people share this Redis.
 */
export function testRedis(label: string): { redis: Redis; prefix: string; cleanup: () => Promise<void> } {
  const prefix = `pbtest:${label}:${randomBytes(4).toString('hex')}:`;
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  return {
    redis,
    prefix,
    cleanup: async () => {
      await deleteByPrefix(redis, prefix);
      redis.disconnect();
    },
  };
}

export { deleteByPrefix };
