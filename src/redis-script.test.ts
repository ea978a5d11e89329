import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisScript } from './redis-script.js';

const redis = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
afterAll(() => redis.disconnect());

describe('RedisScript', () => {
  it('runs by its SHA, sending its text only to a Redis that does not have it yet', async () => {
    // A script text no Redis has seen: the first call meets NOSCRIPT and sends the text, the second runs by SHA.
    const nonce = randomBytes(8).toString('hex');
    const script = new RedisScript(`return ARGV[1] .. '-${nonce}'`);
    expect(Number(((await redis.script('EXISTS', script.sha)) as number[])[0])).toBe(0);
    expect(await script.run(redis, [], ['a'])).toBe(`a-${nonce}`);
    expect(Number(((await redis.script('EXISTS', script.sha)) as number[])[0])).toBe(1);
    expect(await script.run(redis, [], ['b'])).toBe(`b-${nonce}`);
  });

  it('passes other errors on', async () => {
    const script = new RedisScript(`return redis.error_reply('refused ${randomBytes(4).toString('hex')}')`);
    await expect(script.run(redis, [], [])).rejects.toThrow(/refused/);
  });
});
