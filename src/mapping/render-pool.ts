import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { mappingProblem } from './errors.js';
import type { LoadedMapping } from './load.js';
import type { MappingRenderer, MapTask, RenderOutcome, RenderOutcomeData, RenderRequest, RenderTask, TrackingRenderer, TrackingRequest, TrackingTask } from './render-task.js';
import { ORDER_RENDER_BUDGET_MS } from './templates.js';
import { carrierCompany, trackingProblem, type TrackingOutcome } from './tracking.js';

/**
 * Where stores' mappings render: a few worker threads, each stopped hard when an order overruns its budget (DESIGN
 * section 9). A merchant's template is code: inside the process's own event loop, one slow `assign` held webhook intake,
 * every other store's orders and `/healthz` for seconds. Here it holds one thread at most until the budget plus a
 * little grace, after which the thread is terminated (whatever the template is doing, even inside one filter) and
 * replaced, and the order gets a problem saying so. Each thread's heap is capped too (`maxMemoryMb`).
 *
 * Fair between stores, counted in the machine's cores as well as the pool's threads: one store renders on at most
 * `min(threads, cores) - 1` threads at once (at least one), whether or not another store is waiting yet. So however
 * slow one store's templates are, a thread is free when another store's order comes, and that order's render shares
 * the CPU with at most `cores - 1` of the slow store's threads: it starts at once and takes about twice its time alone
 * at most (docs/operations.md, "Render threads"). Holding only the thread count, a store that came first took every
 * thread, and every thread's core: another store's first orders waited seconds behind renders held at their budget.
 */

export interface RenderPoolOptions {
  /** Threads (default 2). */
  threads?: number;
  /** The machine's cores (default `os.availableParallelism()`): one store's share is one less than these. */
  cores?: number;
  /** The order's render budget; the thread is stopped `graceMs` after it. */
  budgetMs?: number;
  graceMs?: number;
  /** Heap of one thread in MiB (old generation; at least 64). */
  maxMemoryMb?: number;
  /** Told when a thread dies or cannot start (the app logs it: it is not a merchant's problem). */
  onEvent?: (event: { kind: 'thread-failed'; detail: string }) => void;
  /** Starts a render thread (tests start broken ones). */
  createWorker?: (maxMemoryMb: number) => Worker;
}

interface Pending {
  task: RenderTask;
  /** The thread's answer, as the caller gets it. */
  answer(data: unknown): void;
  /** The thread was stopped at the budget or its heap cap: the outcome that says so. */
  stopped(why: 'budget' | 'memory'): void;
  reject(error: Error): void;
}

/** What a render that answers `T` needs from the pool. */
type Job<T> = (Omit<MapTask, 'id'> | Omit<TrackingTask, 'id'>) & { resolveWith: (data: unknown) => T; stoppedWith: (why: 'budget' | 'memory') => T };

interface Slot {
  worker: Worker;
  running?: { pending: Pending; timer: NodeJS.Timeout };
  ready: boolean;
}

export interface RenderPoolStats {
  threads: number;
  running: number;
  queued: number;
  /** Threads stopped at the budget or over their memory cap since start. */
  stopped: number;
}

export class MappingRenderPool implements MappingRenderer, TrackingRenderer {
  private readonly slots: Slot[] = [];
  private readonly queues = new Map<string, Pending[]>();
  private readonly runningByShop = new Map<string, number>();
  private readonly threads: number;
  /** Threads one store may hold at once (the class comment). */
  private readonly share: number;
  private readonly hardLimitMs: number;
  private readonly maxMemoryMb: number;
  private nextId = 1;
  private stopped = 0;
  private closed = false;
  /** Threads in a row that failed before they were ready, and when the next may be started. */
  private startFailures = 0;
  private spawnBlockedUntil = 0;
  private readonly onEvent: RenderPoolOptions['onEvent'];
  private readonly createWorker: (maxMemoryMb: number) => Worker;
  /** Round-robin start among stores, so none is always looked at first. */
  private turn = 0;

  constructor(options: RenderPoolOptions = {}) {
    this.threads = Math.max(1, options.threads ?? 2);
    this.share = Math.max(1, Math.min(this.threads, options.cores ?? availableParallelism()) - 1);
    this.hardLimitMs = (options.budgetMs ?? ORDER_RENDER_BUDGET_MS) + (options.graceMs ?? 250);
    // Below this a thread's own start-up leaves too little room, and V8 may abort the whole process instead of the thread.
    this.maxMemoryMb = Math.max(MIN_MEMORY_MB, options.maxMemoryMb ?? 128);
    this.onEvent = options.onEvent;
    this.createWorker = options.createWorker ?? createRenderWorker;
  }

  /** Maps one order with a store's mapping in a render thread. */
  map(request: RenderRequest): Promise<RenderOutcome> {
    if (this.closed) return Promise.reject(new Error('the mapping render pool is closed'));
    if (this.slots.length === 0 && Date.now() < this.spawnBlockedUntil) return Promise.reject(new RenderThreadError('render threads failed to start; waiting before the next try'));
    // One allocation larger than what is left of a thread's heap makes V8 abort the process, not stop the thread: a body
    // that could come near the cap is refused here (webhooks are at most 5 MB, far below it).
    if (typeof request.body === 'string' && request.body.length > (this.maxMemoryMb * 1024 * 1024) / 4) return Promise.resolve(stoppedOutcome('too-large'));
    return this.run({
      kind: 'map',
      shop: request.shop,
      mapping: mappingOf(request),
      body: request.body,
      options: request.options ?? {},
      resolveWith: (data) => {
        const result = data as RenderOutcomeData;
        return { ...result, lineGids: new Map(result.lineGids) };
      },
      stoppedWith: stoppedOutcome,
    });
  }

  /**
   * Renders a shipment's tracking URL with the store's mapping in a render thread, within the order budget. A template
   * stopped at the budget gives the company without a URL and the reason, never a wait.
   */
  tracking(request: TrackingRequest): Promise<TrackingOutcome> {
    if (this.closed) return Promise.reject(new Error('the mapping render pool is closed'));
    if (this.slots.length === 0 && Date.now() < this.spawnBlockedUntil) return Promise.reject(new RenderThreadError('render threads failed to start; waiting before the next try'));
    return this.run({
      kind: 'tracking',
      shop: request.shop,
      mapping: mappingOf(request),
      carrierCode: request.carrierCode,
      trackingNumber: request.trackingNumber,
      resolveWith: (data) => data as TrackingOutcome,
      stoppedWith: (why) => ({ company: carrierCompany(request.mapping.config, request.carrierCode), problem: trackingProblem(request.carrierCode, stoppedMessage(why)) }),
    });
  }

  private run<T>(job: Job<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const { resolveWith, stoppedWith, ...task } = job;
      const pending: Pending = {
        task: { ...task, id: this.nextId++ } as RenderTask,
        answer: (data) => resolve(resolveWith(data)),
        stopped: (why) => resolve(stoppedWith(why)),
        reject,
      };
      const queue = this.queues.get(job.shop) ?? [];
      queue.push(pending);
      this.queues.set(job.shop, queue);
      this.dispatch();
    });
  }

  stats(): RenderPoolStats {
    let queued = 0;
    for (const q of this.queues.values()) queued += q.length;
    return { threads: this.threads, running: this.slots.filter((s) => s.running).length, queued, stopped: this.stopped };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const queue of this.queues.values()) for (const p of queue.splice(0)) p.reject(new Error('the mapping render pool is closed'));
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        // No answer still in the port may start anything once closed.
        slot.worker.removeAllListeners();
        slot.worker.on('error', () => undefined);
        if (slot.running) {
          clearTimeout(slot.running.timer);
          slot.running.pending.reject(new Error('the mapping render pool is closed'));
          slot.running = undefined;
        }
        return slot.worker.terminate();
      }),
    );
  }

  /** Gives waiting orders to idle threads, starting a thread only for an order that can run now. */
  private dispatch(): void {
    while (!this.closed) {
      const idle = this.slots.find((s) => !s.running);
      if (!idle && (this.slots.length >= this.threads || Date.now() < this.spawnBlockedUntil)) return;
      const pending = this.nextPending();
      if (!pending) return;
      this.start(idle ?? this.spawn(), pending);
    }
  }

  /** The next render: stores with the fewest running first, in turn; none past its share, even while alone. */
  private nextPending(): Pending | undefined {
    const waiting = [...this.queues.entries()].filter(([, q]) => q.length > 0);
    if (waiting.length === 0) return undefined;
    const start = this.turn++ % waiting.length;
    let best: [string, Pending[]] | undefined;
    for (let i = 0; i < waiting.length; i++) {
      const entry = waiting[(start + i) % waiting.length]!;
      const running = this.runningByShop.get(entry[0]) ?? 0;
      if (running >= this.share) continue;
      if (!best || running < (this.runningByShop.get(best[0]) ?? 0)) best = entry;
    }
    if (!best) return undefined;
    const pending = best[1].shift()!;
    if (best[1].length === 0) this.queues.delete(best[0]);
    return pending;
  }

  private start(slot: Slot, pending: Pending): void {
    const shop = pending.task.shop;
    this.runningByShop.set(shop, (this.runningByShop.get(shop) ?? 0) + 1);
    // The budget counts from when the thread is ready: a thread still loading its code gets a start-up allowance, and
    // the budget's own timer replaces it when `ready` comes (spawn).
    const timer = this.armTimer(slot, slot.ready ? this.hardLimitMs : STARTUP_ALLOWANCE_MS);
    slot.running = { pending, timer };
    slot.worker.postMessage(pending.task);
  }

  private armTimer(slot: Slot, ms: number): NodeJS.Timeout {
    return setTimeout(() => this.stop(slot, slot.ready ? 'budget' : 'crash', slot.ready ? undefined : 'the render thread did not start in time'), ms);
  }

  private finish(slot: Slot): Pending | undefined {
    const running = slot.running;
    if (!running) return undefined;
    clearTimeout(running.timer);
    slot.running = undefined;
    const shop = running.pending.task.shop;
    const left = (this.runningByShop.get(shop) ?? 1) - 1;
    if (left > 0) this.runningByShop.set(shop, left);
    else this.runningByShop.delete(shop);
    return running.pending;
  }

  /**
   * The thread overran the budget or its heap (the order's doing: it gets the reason as a mapping problem), or died or
   * never started (not the order's doing: the job is retried, `RenderThreadError`). A new thread takes the slot when
   * an order needs it; threads that keep failing to start are given time before the next try.
   */
  private stop(slot: Slot, why: 'budget' | 'memory' | 'crash', detail?: string): void {
    const index = this.slots.indexOf(slot);
    if (index < 0) return;
    this.slots.splice(index, 1);
    const pending = this.finish(slot);
    slot.worker.removeAllListeners();
    slot.worker.on('error', () => undefined);
    void slot.worker.terminate();
    const orders = why !== 'crash' && slot.ready;
    if (orders) {
      this.stopped += 1;
      this.startFailures = 0;
      pending?.stopped(why);
    } else {
      if (!slot.ready) this.startFailures += 1;
      this.onEvent?.({ kind: 'thread-failed', detail: detail ?? why });
      pending?.reject(new RenderThreadError(detail ?? why));
      if (this.startFailures >= 3) {
        // A thread that cannot start (a broken build, too little heap) would be started again for every order: wait,
        // and let the queued orders' jobs retry later.
        this.spawnBlockedUntil = Date.now() + Math.min(60_000, 1_000 * 2 ** (this.startFailures - 3));
        for (const queue of this.queues.values()) for (const p of queue.splice(0)) p.reject(new RenderThreadError(`render threads fail to start (${detail ?? why})`));
        this.queues.clear();
      }
    }
    this.dispatch();
  }

  private spawn(): Slot {
    const worker = this.createWorker(this.maxMemoryMb);
    const slot: Slot = { worker, ready: false };
    worker.on('message', (message: { id: number; result?: unknown; error?: string; ready?: boolean }) => {
      if (message.ready) {
        slot.ready = true;
        this.startFailures = 0;
        if (slot.running) {
          clearTimeout(slot.running.timer);
          slot.running.timer = this.armTimer(slot, this.hardLimitMs);
        }
        return;
      }
      const pending = this.finish(slot);
      if (pending && pending.task.id === message.id) {
        if (message.result) pending.answer(message.result);
        else pending.reject(new Error(`rendering failed in its render thread: ${message.error ?? 'no answer'}`));
      } else if (pending) {
        pending.reject(new RenderThreadError(`the render thread answered task ${message.id} while running ${pending.task.id}`));
      }
      this.dispatch();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      this.stop(slot, error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : 'crash', error.message);
    });
    worker.on('exit', () => this.stop(slot, 'crash', 'the render thread exited'));
    worker.unref();
    this.slots.push(slot);
    return slot;
  }
}

/** A render thread died or could not start: not the order's doing, so its job is retried. */
export class RenderThreadError extends Error {
  readonly retryable = true;
  constructor(detail: string) {
    super(`the order could not be mapped now: ${detail}; it is tried again`);
    this.name = 'RenderThreadError';
  }
}

/** A thread's first order also waits for the thread to load its code (a cold start under tsx compiles TypeScript). */
const STARTUP_ALLOWANCE_MS = 10_000;

const MIN_MEMORY_MB = 64;

function stoppedMessage(why: 'budget' | 'memory' | 'too-large'): string {
  return why === 'budget'
    ? `rendering this order's templates took longer than the ${ORDER_RENDER_BUDGET_MS} ms budget and was stopped (rendering is bounded; simplify the slow template)`
    : why === 'memory'
      ? 'mapping this order used more memory than a render thread may (MAPPING_RENDER_MEMORY_MB) and was stopped (rendering is bounded; simplify the template)'
      : 'the order is too large to map within a render thread\'s memory (MAPPING_RENDER_MEMORY_MB)';
}

function stoppedOutcome(why: 'budget' | 'memory' | 'too-large'): RenderOutcome {
  return { ok: false, problems: [mappingProblem({ kind: 'template', field: '', message: stoppedMessage(why) })], lineGids: new Map() };
}

function mappingOf(request: { mapping: Pick<LoadedMapping, 'file' | 'key' | 'source'> }): RenderTask['mapping'] {
  return { file: request.mapping.file, key: request.mapping.key, source: request.mapping.source };
}

/**
 * The render thread's code: the compiled file next to this one in `dist/`; from the TypeScript sources (tests, `npx
 * print-bridge` without a build) through bin/ts-worker.mjs, which registers tsx in the thread first.
 */
export function createRenderWorker(maxMemoryMb: number): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: maxMemoryMb, stackSizeMb: 4 };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./render-worker.js', import.meta.url), { resourceLimits });
  const entry = new URL('./render-worker.ts', import.meta.url).href;
  return new Worker(new URL('../../bin/ts-worker.mjs', import.meta.url), { workerData: { entry }, resourceLimits });
}
