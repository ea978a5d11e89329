import type { Redis } from 'ioredis';
import type { Database } from '../../src/db/database.js';
import { lazyTestDatabase } from './database.js';
import { testRedis } from './redis.js';

/**
 * What a use case's store needs, of this test file's own: a Redis key prefix and a PostgreSQL schema. `cleanup`
 * deletes both.
 */
export function testBackends(label: string): { redis: Redis; prefix: string; database: Database; schema: string; cleanup: () => Promise<void> } {
  const redis = testRedis(label);
  const db = lazyTestDatabase(label);
  return {
    redis: redis.redis,
    prefix: redis.prefix,
    database: db.database,
    schema: db.schema,
    cleanup: async () => {
      await Promise.all([redis.cleanup(), db.cleanup()]);
    },
  };
}
