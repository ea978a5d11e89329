import type { Redis } from 'ioredis';

/**
 * Slows down guessing the operator token and ends operator sessions on logout. Kept in Redis so that every web
 * process counts the same failures and honours the same logouts: with per-process counters, N processes behind a
 * load balancer allowed N times the guesses, and a stolen cookie outlived its logout for 12 hours.
 *
 * Two counters per window: one per client address (`req.ip`, which TRUST_PROXY decides), and one for all addresses
 * together, so an attacker who rotates addresses still meets a limit. The global one is generous: reaching it slows
 * every operator's login for the rest of the window, which is the price of not being guessable from a botnet.
 */
export interface LoginGuard {
  /** Seconds to wait when logins from this address (or from everyone) are blocked; 0 when not. */
  blockedFor(client: string): Promise<number>;
  fail(client: string): Promise<void>;
  succeed(client: string): Promise<void>;
  revoke(sessionId: string, expiresAtMs: number): Promise<void>;
  isRevoked(sessionId: string): Promise<boolean>;
}

export const LOGIN_LIMITS = { perAddress: 10, overall: 100, windowMs: 15 * 60_000 } as const;

export class RedisLoginGuard implements LoginGuard {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly clock: () => Date = () => new Date(),
    private readonly limits: { perAddress: number; overall: number; windowMs: number } = LOGIN_LIMITS,
  ) {}

  private failKey(client: string): string {
    return `${this.prefix}admin:login-failures:${client}`;
  }

  private get overallKey(): string {
    return `${this.prefix}admin:login-failures-all`;
  }

  async blockedFor(client: string): Promise<number> {
    const replies = (await this.redis.multi().get(this.failKey(client)).pttl(this.failKey(client)).get(this.overallKey).pttl(this.overallKey).exec()) ?? [];
    const [mine, mineTtl, all, allTtl] = replies.map(([, value]) => value);
    const wait = (count: unknown, ttl: unknown, limit: number) => (Number(count ?? 0) >= limit ? Math.max(1, Math.ceil(Number(ttl) / 1000)) : 0);
    return Math.max(wait(mine, mineTtl, this.limits.perAddress), wait(all, allTtl, this.limits.overall));
  }

  async fail(client: string): Promise<void> {
    await this.redis
      .multi()
      .incr(this.failKey(client))
      .pexpire(this.failKey(client), this.limits.windowMs, 'NX')
      .incr(this.overallKey)
      .pexpire(this.overallKey, this.limits.windowMs, 'NX')
      .exec();
  }

  async succeed(client: string): Promise<void> {
    await this.redis.del(this.failKey(client));
  }

  async revoke(sessionId: string, expiresAtMs: number): Promise<void> {
    const ttl = Math.max(1, expiresAtMs - this.clock().getTime());
    await this.redis.set(`${this.prefix}admin:revoked:${sessionId}`, '1', 'PX', ttl);
  }

  async isRevoked(sessionId: string): Promise<boolean> {
    return (await this.redis.exists(`${this.prefix}admin:revoked:${sessionId}`)) === 1;
  }
}

/** One process's memory: for tests that build the router alone. */
export class MemoryLoginGuard implements LoginGuard {
  private readonly failures = new Map<string, { count: number; resetAt: number }>();
  private readonly revoked = new Map<string, number>();
  constructor(private readonly clock: () => Date = () => new Date(), private readonly limits = LOGIN_LIMITS) {}

  async blockedFor(client: string): Promise<number> {
    const now = this.clock().getTime();
    const wait = (entry: { count: number; resetAt: number } | undefined, limit: number) =>
      entry && entry.resetAt > now && entry.count >= limit ? Math.ceil((entry.resetAt - now) / 1000) : 0;
    return Math.max(wait(this.failures.get(client), this.limits.perAddress), wait(this.failures.get('\0all'), this.limits.overall));
  }

  async fail(client: string): Promise<void> {
    const now = this.clock().getTime();
    for (const key of [client, '\0all']) {
      const entry = this.failures.get(key);
      const current = entry && entry.resetAt > now ? entry : { count: 0, resetAt: now + this.limits.windowMs };
      current.count += 1;
      if (this.failures.size > 10_000) this.failures.clear();
      this.failures.set(key, current);
    }
  }

  async succeed(client: string): Promise<void> {
    this.failures.delete(client);
  }

  async revoke(sessionId: string, expiresAtMs: number): Promise<void> {
    this.revoked.set(sessionId, expiresAtMs);
  }

  async isRevoked(sessionId: string): Promise<boolean> {
    const until = this.revoked.get(sessionId);
    return until !== undefined && until > this.clock().getTime();
  }
}
