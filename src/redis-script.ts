import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * A Lua script run by its SHA (EVALSHA), its text sent only when this Redis does not have it yet (NOSCRIPT: a
 * restarted server, or the first call). `EVAL` with the text sent the whole script with every call: on webhook intake
 * that was a fifth of what went to Redis (issue 27).
 */
export class RedisScript {
  readonly sha: string;

  constructor(readonly text: string) {
    this.sha = createHash('sha1').update(text).digest('hex');
  }

  async run(redis: Redis, keys: readonly string[], args: readonly (string | number | Buffer)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.text, keys.length, ...keys, ...args);
    }
  }
}
