import { Worker } from 'node:worker_threads';
import { mappingProblem } from './errors.js';
import type { MappingRenderer, RenderOutcome, RenderOutcomeData, RenderRequest, RenderTask } from './render-task.js';
import { ORDER_RENDER_BUDGET_MS } from './templates.js';

/**
 * Where stores' mappings render: a few worker threads, each stopped hard when an order overruns its budget (DESIGN
 * section 9). A merchant's template is code: inside the process's own event loop, one slow `assign` held webhook intake,
 * every other store's orders and `/healthz` for seconds. Here it holds one thread at most until the budget plus a
 * little grace, after which the thread is terminated (whatever the template is doing, even inside one filter) and
 * replaced, and the order gets a problem saying so. Each thread's heap is capped too (`maxMemoryMb`).
 *
 * Fair between stores: a store has at most `threads - 1` threads (one when there are two or fewer) while another
 * store's order waits, so one store's slow mapping never stands in front of every other store's orders.
 */

export interface RenderPoolOptions {
  /** Threads (default 2). */
  threads?: number;
  /** The order's render budget; the thread is stopped `graceMs` after it. */
  budgetMs?: number;
  graceMs?: number;
  /** Heap of one thread in MiB (old generation; at least 64). */
  maxMemoryMb?: number;
}

interface Pending {
  task: RenderTask;
  resolve(outcome: RenderOutcome): void;
  reject(error: Error): void;
}

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

export class MappingRenderPool implements MappingRenderer {
  private readonly slots: Slot[] = [];
  private readonly queues = new Map<string, Pending[]>();
  private readonly runningByShop = new Map<string, number>();
  private readonly threads: number;
  private readonly hardLimitMs: number;
  private readonly maxMemoryMb: number;
  private nextId = 1;
  private stopped = 0;
  private closed = false;
  /** Round-robin start among stores, so none is always looked at first. */
  private turn = 0;

  constructor(options: RenderPoolOptions = {}) {
    this.threads = Math.max(1, options.threads ?? 2);
    this.hardLimitMs = (options.budgetMs ?? ORDER_RENDER_BUDGET_MS) + (options.graceMs ?? 250);
    // Below this a thread's own start-up leaves too little room, and V8 may abort the whole process instead of the thread.
    this.maxMemoryMb = Math.max(MIN_MEMORY_MB, options.maxMemoryMb ?? 128);
  }

  /** Maps one order with a store's mapping in a render thread. */
  map(request: RenderRequest): Promise<RenderOutcome> {
    if (this.closed) return Promise.reject(new Error('the mapping render pool is closed'));
    // One allocation larger than what is left of a thread's heap makes V8 abort the process, not stop the thread: a body
    // that could come near the cap is refused here (webhooks are at most 5 MB, far below it).
    if (typeof request.body === 'string' && request.body.length > (this.maxMemoryMb * 1024 * 1024) / 4) return Promise.resolve(stoppedOutcome('too-large'));
    return new Promise<RenderOutcome>((resolve, reject) => {
      const task: RenderTask = { id: this.nextId++, shop: request.shop, mapping: { file: request.mapping.file, key: request.mapping.key, source: request.mapping.source }, body: request.body, options: request.options ?? {} };
      const queue = this.queues.get(request.shop) ?? [];
      queue.push({ task, resolve, reject });
      this.queues.set(request.shop, queue);
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
        if (slot.running) {
          clearTimeout(slot.running.timer);
          slot.running.pending.reject(new Error('the mapping render pool is closed'));
        }
        return slot.worker.terminate();
      }),
    );
  }

  private dispatch(): void {
    for (;;) {
      const slot = this.freeSlot();
      if (!slot) return;
      const pending = this.nextPending();
      if (!pending) return;
      this.start(slot, pending);
    }
  }

  private freeSlot(): Slot | undefined {
    const idle = this.slots.find((s) => !s.running);
    if (idle) return idle;
    if (this.slots.length < this.threads) return this.spawn();
    return undefined;
  }

  /** The next order to render: stores with the fewest running first, in turn; none past its share while others wait. */
  private nextPending(): Pending | undefined {
    const waiting = [...this.queues.entries()].filter(([, q]) => q.length > 0);
    if (waiting.length === 0) return undefined;
    const share = waiting.length > 1 || this.busyShopsOtherThan(waiting[0]![0]) ? Math.max(1, this.threads - 1) : this.threads;
    const start = this.turn++ % waiting.length;
    let best: [string, Pending[]] | undefined;
    for (let i = 0; i < waiting.length; i++) {
      const entry = waiting[(start + i) % waiting.length]!;
      const running = this.runningByShop.get(entry[0]) ?? 0;
      if (running >= share) continue;
      if (!best || running < (this.runningByShop.get(best[0]) ?? 0)) best = entry;
    }
    if (!best) return undefined;
    const pending = best[1].shift()!;
    if (best[1].length === 0) this.queues.delete(best[0]);
    return pending;
  }

  private busyShopsOtherThan(shop: string): boolean {
    for (const [other, n] of this.runningByShop) if (other !== shop && n > 0) return true;
    return false;
  }

  private start(slot: Slot, pending: Pending): void {
    const shop = pending.task.shop;
    this.runningByShop.set(shop, (this.runningByShop.get(shop) ?? 0) + 1);
    // The budget counts from when the order reaches a thread; a thread still starting up gets the time it needs.
    const timer = setTimeout(() => this.stop(slot, 'budget'), this.hardLimitMs + (slot.ready ? 0 : STARTUP_ALLOWANCE_MS));
    slot.running = { pending, timer };
    slot.worker.postMessage(pending.task);
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

  /** The thread overran the budget or its memory, or died: the order gets the reason, and a new thread takes the slot. */
  private stop(slot: Slot, why: 'budget' | 'memory' | 'crash', detail?: string): void {
    const pending = this.finish(slot);
    this.stopped += why === 'crash' ? 0 : 1;
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    slot.worker.removeAllListeners();
    slot.worker.on('error', () => undefined);
    void slot.worker.terminate();
    if (pending) pending.resolve(stoppedOutcome(why, detail));
    if (!this.closed) this.dispatch();
  }

  private spawn(): Slot {
    const worker = createRenderWorker(this.maxMemoryMb);
    const slot: Slot = { worker, ready: false };
    worker.on('message', (message: { id: number; result?: RenderOutcomeData; error?: string; ready?: boolean }) => {
      if (message.ready) {
        slot.ready = true;
        return;
      }
      slot.ready = true;
      const pending = this.finish(slot);
      if (pending && pending.task.id === message.id) {
        if (message.result) pending.resolve({ ...message.result, lineGids: new Map(message.result.lineGids) });
        else pending.reject(new Error(`mapping the order failed in its render thread: ${message.error ?? 'no answer'}`));
      }
      this.dispatch();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      this.stop(slot, error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : 'crash', error.message);
    });
    worker.on('exit', () => {
      if (this.slots.includes(slot)) this.stop(slot, 'crash', 'the render thread exited');
    });
    worker.unref();
    this.slots.push(slot);
    return slot;
  }
}

/** A thread's first order also waits for the thread to load its code (a cold start under tsx compiles TypeScript). */
const STARTUP_ALLOWANCE_MS = 10_000;

const MIN_MEMORY_MB = 64;

function stoppedOutcome(why: 'budget' | 'memory' | 'crash' | 'too-large', detail?: string): RenderOutcome {
  const message =
    why === 'budget'
      ? `rendering this order's templates took longer than the ${ORDER_RENDER_BUDGET_MS} ms budget and was stopped (rendering is bounded; simplify the slow template)`
      : why === 'memory'
        ? 'mapping this order used more memory than a render thread may (MAPPING_RENDER_MEMORY_MB) and was stopped (rendering is bounded; simplify the template)'
        : why === 'too-large'
          ? 'the order is too large to map within a render thread\'s memory (MAPPING_RENDER_MEMORY_MB)'
          : `rendering this order's templates stopped unexpectedly${detail ? ` (${detail})` : ''}`;
  return { ok: false, problems: [mappingProblem({ kind: 'template', field: '', message })], lineGids: new Map() };
}

/**
 * The render thread's code: the compiled file next to this one in `dist/`; from the TypeScript sources (tests, `npx
 * print-bridge` without a build) through bin/ts-worker.mjs, which registers tsx in the thread first.
 */
function createRenderWorker(maxMemoryMb: number): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: maxMemoryMb, stackSizeMb: 4 };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./render-worker.js', import.meta.url), { resourceLimits });
  const entry = new URL('./render-worker.ts', import.meta.url).href;
  return new Worker(new URL('../../bin/ts-worker.mjs', import.meta.url), { workerData: { entry }, resourceLimits });
}
