import { describe, expect, it } from 'vitest';
import { LivenessMonitor } from './liveness.js';

function blockFor(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // a stuck synchronous loop
  }
}

describe('LivenessMonitor', () => {
  it('reports a stalled event loop once, then recovers', async () => {
    const monitor = new LivenessMonitor({ maxStallMs: 100 });
    await new Promise((r) => setTimeout(r, 50));
    expect(monitor.check()).toEqual({ ok: true, problems: [] });
    blockFor(250);
    await new Promise((r) => setTimeout(r, 30));
    const stalled = monitor.check();
    expect(stalled.ok).toBe(false);
    expect(stalled.problems[0]).toMatch(/event loop stalled for \d+ ms \(limit 100 ms\)/);
    await new Promise((r) => setTimeout(r, 50));
    expect(monitor.check().ok).toBe(true);
    monitor.close();
  });

  it('reports a worker that stopped, except while the process is stopping', () => {
    let stopping = false;
    const monitor = new LivenessMonitor({
      maxStallMs: 10_000,
      workers: () => [
        { name: 'orders', isRunning: () => false },
        { name: 'events', isRunning: () => true },
      ],
      stopping: () => stopping,
    });
    expect(monitor.check()).toEqual({ ok: false, problems: ['worker of the orders queue is not running'] });
    stopping = true;
    expect(monitor.check().ok).toBe(true);
    monitor.close();
  });
});
