/**
 * An open-loop load generator for the benches: requests sent at a fixed rate whatever the answers, latencies counted
 * from when each was due, and the one-line summary the benches print.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher, Pool } from 'undici';
import { percentile } from './bench-support.js';

export interface Figures {
  sent: number;
  ok: number;
  failed: number;
  /** Milliseconds from when each request was due to its answer, sorted. */
  latencies: number[];
  /** When the slowest answer's request was due (performance.now()). */
  slowestDue: number;
}

/**
 * An open loop: request i is due at start + i / rate whatever the answers before it, and its latency counts from
 * then (no coordinated omission: a slow answer cannot lower the offered rate or hide the wait of those due behind it).
 */
export async function openLoop(target: Pool, rate: number, duration: number, request: () => Dispatcher.RequestOptions): Promise<Figures> {
  const total = Math.round(rate * duration);
  const figures: Figures = { sent: 0, ok: 0, failed: 0, latencies: [], slowestDue: 0 };
  let slowest = -1;
  const inFlight: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; i < total; ) {
    const now = performance.now();
    for (; i < total && started + (i * 1000) / rate <= now; i++) {
      const due = started + (i * 1000) / rate;
      figures.sent += 1;
      inFlight.push(
        target
          .request({ ...request(), signal: AbortSignal.timeout(30_000) })
          .then(async (res) => {
            await res.body.dump();
            const latency = performance.now() - due;
            figures.latencies.push(latency);
            if (latency > slowest) [slowest, figures.slowestDue] = [latency, due];
            if (res.statusCode >= 200 && res.statusCode < 300) figures.ok += 1;
            else figures.failed += 1;
          })
          .catch(() => {
            figures.failed += 1;
          }),
      );
    }
    await sleep(1);
  }
  await Promise.all(inFlight);
  figures.latencies.sort((a, b) => a - b);
  return figures;
}

const ms = (n: number) => `${n.toFixed(0).padStart(4)} ms`;
export function line(name: string, f: Figures, duration: number): string {
  return `  ${name.padEnd(24)} ${(f.ok / duration).toFixed(0).padStart(4)} accepted/s of ${(f.sent / duration).toFixed(0)}/s offered   p50 ${ms(percentile(f.latencies, 50))}   p99 ${ms(percentile(f.latencies, 99))}   max ${ms(f.latencies.at(-1) ?? 0)}   failed ${f.failed}`;
}
