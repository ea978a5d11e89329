import { Agent, request } from 'undici';
import type { Logger } from '../../logger.js';
import { renderTrigger, type EventName, type Trigger } from './triggers.js';

/**
 * Trigger delivery: each event is rendered through every trigger configured for it and POSTed to the trigger's URL.
 * A non-2xx answer or a network failure is retried with exponential backoff, a bounded number of times. The
 * deliveries of one order go out one after another, across all triggers, so a receiver sees an order's events in the
 * order they happened (a delivery given up on is skipped). The interface promises no order; the emulator picks the
 * friendliest one so that demos and tests are repeatable.
 */

export interface DeliveryAttempt {
  at: string;
  status?: number;
  error?: string;
  durationMs: number;
}

export interface DeliveryRecord {
  id: number;
  trigger: number;
  event: EventName;
  orderId: string;
  url: string;
  /** Header names only: values may carry credentials. */
  headers: string[];
  body: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: DeliveryAttempt[];
  createdAt: string;
  deliveredAt?: string;
  /** The start of the receiver's last answer, to see why it refused. */
  lastResponse?: string;
}

/** The log keeps the latest deliveries only, so a long demo run does not grow without end. */
export const MAX_LOG = 10_000;

export interface DeliveryOptions {
  triggers: readonly Trigger[];
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
  logger: Logger;
  now: () => Date;
}

export class DeliveryService {
  private triggers: readonly Trigger[];
  private readonly log: DeliveryRecord[] = [];
  private readonly chains = new Map<string, Promise<void>>();
  private readonly sleeping = new Set<{ timer: NodeJS.Timeout; wake: () => void }>();
  private readonly agent: Agent;
  /** Aborts the attempts in flight when the emulator closes. */
  private readonly stopping = new AbortController();
  private nextId = 1;
  /** Bumped by reset and close: a delivery of an older generation stops retrying. */
  private generation = 0;
  private closed = false;

  constructor(private readonly options: DeliveryOptions) {
    this.triggers = options.triggers;
    this.agent = new Agent({
      connectTimeout: options.timeoutMs,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  get triggerCount(): number {
    return this.triggers.length;
  }

  setTriggers(triggers: readonly Trigger[]): void {
    this.triggers = triggers;
  }

  /** Renders the event for each matching trigger now and queues its delivery. */
  emit(event: EventName, orderId: string, context: object): void {
    if (this.closed) return;
    // Triggers belong to an account at the print service: one set up for another account does not fire.
    const account = (context as { sourceAccountName?: unknown }).sourceAccountName;
    for (const trigger of this.triggers) {
      if (trigger.event !== event) continue;
      if (trigger.account !== undefined && trigger.account !== account) continue;
      const record: DeliveryRecord = {
        id: this.nextId++,
        trigger: trigger.index,
        event,
        orderId,
        url: trigger.url,
        headers: Object.keys(trigger.headers),
        body: '',
        state: 'pending',
        attempts: [],
        createdAt: this.options.now().toISOString(),
      };
      this.log.push(record);
      if (this.log.length > MAX_LOG) this.log.splice(0, this.log.length - MAX_LOG);
      try {
        record.body = renderTrigger(trigger, context);
      } catch (error) {
        record.state = 'failed';
        record.lastResponse = `the template could not be rendered: ${(error as Error).message}`;
        this.options.logger.warn({ trigger: trigger.index, event, orderId }, record.lastResponse);
        continue;
      }
      const key = orderId;
      const generation = this.generation;
      const chain = (this.chains.get(key) ?? Promise.resolve()).then(() => this.deliver(record, trigger, generation));
      this.chains.set(key, chain);
      void chain.finally(() => {
        if (this.chains.get(key) === chain) this.chains.delete(key);
      });
    }
  }

  private async deliver(record: DeliveryRecord, trigger: Trigger, generation: number): Promise<void> {
    const { maxAttempts, baseDelayMs, maxDelayMs, logger } = this.options;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      if (generation !== this.generation) return;
      const started = Date.now();
      const entry: DeliveryAttempt = { at: this.options.now().toISOString(), durationMs: 0 };
      try {
        const res = await request(trigger.url, {
          method: 'POST',
          dispatcher: this.agent,
          headers: { 'content-type': 'application/json', 'user-agent': 'print-service-emulator', ...trigger.headers },
          body: record.body,
          signal: this.stopping.signal,
        });
        entry.status = res.statusCode;
        const text = await res.body.text();
        record.lastResponse = text.slice(0, 500);
      } catch (error) {
        const err = error as Error & { code?: string };
        entry.error = err.code ? `${err.code} (${err.message})` : err.message;
      }
      entry.durationMs = Date.now() - started;
      record.attempts.push(entry);
      if (entry.status !== undefined && entry.status >= 200 && entry.status < 300) {
        record.state = 'delivered';
        record.deliveredAt = this.options.now().toISOString();
        logger.info({ delivery: record.id, event: record.event, orderId: record.orderId, status: entry.status }, 'trigger delivered');
        return;
      }
      const why = entry.error ?? `HTTP ${entry.status}`;
      // Reset or closed while this attempt was out: no retry for a forgotten delivery.
      if (generation !== this.generation) return;
      if (attempt === maxAttempts) break;
      const delay = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
      logger.warn({ delivery: record.id, event: record.event, attempt, retryInMs: delay }, `trigger delivery failed: ${why}`);
      await this.sleep(delay);
    }
    if (generation !== this.generation) return;
    record.state = 'failed';
    logger.error({ delivery: record.id, event: record.event, orderId: record.orderId }, `trigger delivery given up after ${maxAttempts} attempts`);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const sleeper = {
        timer: setTimeout(() => {
          this.sleeping.delete(sleeper);
          resolve();
        }, ms),
        wake: resolve,
      };
      this.sleeping.add(sleeper);
    });
  }

  list(filter: { event?: string; orderId?: string; state?: string } = {}): DeliveryRecord[] {
    return this.log.filter(
      (d) =>
        (filter.event === undefined || d.event === filter.event) &&
        (filter.orderId === undefined || d.orderId === filter.orderId) &&
        (filter.state === undefined || d.state === filter.state),
    );
  }

  /** Resolves once every queued delivery has been delivered or given up on. */
  async idle(): Promise<void> {
    while (this.chains.size > 0) await Promise.allSettled([...this.chains.values()]);
  }

  /** Forgets the log; deliveries still retrying stop at their next attempt. */
  reset(): void {
    this.generation++;
    this.log.length = 0;
    this.wakeAll();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.reset();
    // Abort attempts in flight rather than wait up to a time-out for a slow receiver.
    this.stopping.abort();
    await Promise.allSettled([...this.chains.values()]);
    await this.agent.destroy();
  }

  private wakeAll(): void {
    for (const sleeper of this.sleeping) {
      clearTimeout(sleeper.timer);
      sleeper.wake();
    }
    this.sleeping.clear();
  }
}
