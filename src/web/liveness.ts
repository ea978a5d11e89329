export interface LivenessResult {
  ok: boolean;
  problems: string[];
}

/**
 * What makes a process "stuck" and worth restarting, as opposed to "not ready" (Redis down, no mapping: a restart
 * would not help, so those belong to /readyz):
 * - its event loop stalled for longer than `maxStallMs` since the last check (a synchronous loop, a runaway regex);
 * - a worker that should be taking jobs has stopped running (its Redis connection closed for good, say).
 */
export class LivenessMonitor {
  private readonly timer: NodeJS.Timeout;
  private lastTick = performance.now();
  private worstStallMs = 0;

  constructor(
    private readonly options: {
      maxStallMs: number;
      /** Workers that must be running while the process is not stopping. */
      workers?: () => { name: string; isRunning: () => boolean }[];
      stopping?: () => boolean;
    },
  ) {
    // A tick that comes late by more than its own interval measures how long the loop was blocked. (perf_hooks'
    // monitorEventLoopDelay drops the first sample after a reset, so a stall right after a check would go unseen.)
    const intervalMs = 20;
    this.timer = setInterval(() => {
      const now = performance.now();
      this.worstStallMs = Math.max(this.worstStallMs, now - this.lastTick - intervalMs);
      this.lastTick = now;
    }, intervalMs).unref();
  }

  check(): LivenessResult {
    const problems: string[] = [];
    const now = performance.now();
    const maxDelayMs = Math.max(this.worstStallMs, now - this.lastTick - 20);
    this.worstStallMs = 0;
    if (maxDelayMs > this.options.maxStallMs) problems.push(`event loop stalled for ${Math.round(maxDelayMs)} ms (limit ${this.options.maxStallMs} ms)`);
    if (!this.options.stopping?.()) {
      for (const worker of this.options.workers?.() ?? []) {
        if (!worker.isRunning()) problems.push(`worker of the ${worker.name} queue is not running`);
      }
    }
    return { ok: problems.length === 0, problems };
  }

  close(): void {
    clearInterval(this.timer);
  }
}
