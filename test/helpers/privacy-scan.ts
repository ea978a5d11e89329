import { Redis } from 'ioredis';
import pg from 'pg';
import { TEST_DATABASE_URL } from './database.js';
import { TEST_REDIS_URL } from './redis.js';

/**
 * Everything the app keeps, as lines of text to search: every row of every table of its schema, and every Redis key
 * under its prefix with its value. Generic on purpose: a table or a key added later is searched without a change here.
 */

/** `table: {row}` for every row of every table of `schema` (tables read from information_schema). */
export async function dumpSchema(schema: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name`,
      [schema],
    );
    const lines: string[] = [];
    for (const { table_name: table } of tables.rows) {
      // Every column, whatever its type, as PostgreSQL writes it as text (jsonb included).
      const rows = await client.query<{ row: string }>(`SELECT t::text AS row FROM "${schema}"."${table}" t`);
      lines.push(...rows.rows.map((r) => `${table}: ${r.row}`));
    }
    return lines;
  } finally {
    await client.end();
  }
}

/** `key type value` for every key under `prefix`: strings, hashes, lists, sets, sorted sets and stream entries. */
export async function dumpRedis(prefix: string): Promise<string[]> {
  const redis = new Redis(TEST_REDIS_URL);
  const lines: string[] = [];
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) {
        const type = await redis.type(key);
        const value =
          type === 'string' ? await redis.get(key)
          : type === 'hash' ? await redis.hgetall(key)
          : type === 'list' ? await redis.lrange(key, 0, -1)
          : type === 'set' ? await redis.smembers(key)
          : type === 'zset' ? await redis.zrange(key, 0, -1)
          : type === 'stream' ? await redis.xrange(key, '-', '+')
          : `(${type})`;
        lines.push(`${key} ${type} ${JSON.stringify(value)}`);
      }
    } while (cursor !== '0');
    return lines;
  } finally {
    redis.disconnect();
  }
}

/** The lines that mention any of `needles` (as written, or as JSON writes them). */
export function mentioning(lines: readonly string[], needles: readonly string[]): string[] {
  const forms = needles.flatMap((n) => [n, JSON.stringify(n).slice(1, -1)]);
  return lines.filter((line) => forms.some((n) => line.includes(n)));
}
