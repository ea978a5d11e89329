import type { Redis } from 'ioredis';

/**
 * The action runs Flow sent in the last day, by store and `action_run_id`, with the answer each got: Flow sends a run
 * again after a timeout, a 202 or a 5xx, and a run must do its work once. A run under way answers "try later" to a
 * second delivery; a run whose answer was "try later" is forgotten, so the next delivery does the work.
 */
export interface FlowActionRuns {
  /** `started`: this delivery does the work; otherwise the answer of the delivery that did, or `running`. */
  claim(shop: string, runId: string): Promise<{ kind: 'started' } | { kind: 'running' } | { kind: 'answered'; answer: FlowActionAnswer }>;
  finish(shop: string, runId: string, answer: FlowActionAnswer): Promise<void>;
  forget(shop: string, runId: string): Promise<void>;
}

export interface FlowActionAnswer {
  status: number;
  message: string;
}

/** How long a run's answer is kept: Flow resends a run for up to a day. */
export const ACTION_RUN_TTL_MS = 24 * 3600 * 1000;
/** A run's claim outlives a crash of the process that made it by this much, then the next delivery does the work. */
const RUNNING_TTL_MS = 60_000;

export class RedisFlowActionRuns implements FlowActionRuns {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(shop: string, runId: string): string {
    return `${this.prefix}flow-run:${shop}:${runId}`;
  }

  async claim(shop: string, runId: string): Promise<{ kind: 'started' } | { kind: 'running' } | { kind: 'answered'; answer: FlowActionAnswer }> {
    const key = this.key(shop, runId);
    const set = await this.redis.set(key, 'running', 'PX', RUNNING_TTL_MS, 'NX');
    if (set === 'OK') return { kind: 'started' };
    const value = await this.redis.get(key);
    if (value === null) return this.claim(shop, runId);
    if (value === 'running') return { kind: 'running' };
    return { kind: 'answered', answer: JSON.parse(value) as FlowActionAnswer };
  }

  async finish(shop: string, runId: string, answer: FlowActionAnswer): Promise<void> {
    await this.redis.set(this.key(shop, runId), JSON.stringify(answer), 'PX', ACTION_RUN_TTL_MS);
  }

  async forget(shop: string, runId: string): Promise<void> {
    await this.redis.del(this.key(shop, runId));
  }
}
