import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { LiveProgress, stageOf, STAGES, type DemoOutput, type ProgressRow, type Style, type SummaryEntry } from './render.js';
import { actionsFor, type ScriptedOrder } from './scenario-actions.js';
import type { DemoScenario } from './scenarios.js';
import type { DemoStack } from './stack.js';
import { evidenceOf } from './summary.js';
import { observe, verdict, type Observation, type Verdict } from './verify.js';

/** The run itself: every scenario's script played against the stack, and the live progress of its order until it settles. */

export interface WatchOptions {
  out: DemoOutput;
  style: Style;
  json: boolean;
  live: boolean;
  holdMs: number;
  deadline: number;
  staggerMs: number;
  signal?: AbortSignal;
}

interface Tracked extends ScriptedOrder {
  row: ProgressRow;
  seen?: Observation;
  verdict?: Verdict;
  /** The script stopped with an error (a webhook refused, a wait that timed out). */
  scriptError?: string;
}

/** Plays every scenario's script at once (staggered) and polls the real systems until each order has settled. */
export async function playAndWatch(stack: DemoStack, scenarios: DemoScenario[], options: WatchOptions): Promise<SummaryEntry[]> {
  const progress = new LiveProgress(options.json ? { write: () => undefined } : options.out, options.style, options.live);
  const tracked: Tracked[] = scenarios.map((scenario) => ({
    scenario,
    row: { orderName: scenario.order.name, scenario: scenario.name, status: 'not sent', state: 'running' },
  }));
  // Ends the scripts still waiting when the watch is over (or Ctrl-C).
  const scripts = new AbortController();
  // Every script waits on it at once (and a script's own waits add one each): more than Node's default warning level of 10.
  setMaxListeners(2 * tracked.length + 10, scripts.signal);
  const onAbort = () => scripts.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const running = tracked.map(async (t, index) => {
    try {
      await sleep(index * options.staggerMs, undefined, { signal: scripts.signal });
      await t.scenario.play(actionsFor(stack, t, progress, options, scripts.signal), { order: t.scenario.order, holdMs: options.holdMs });
    } catch (error) {
      if (!scripts.signal.aborted) t.scriptError = (error as Error).message;
    }
  });

  try {
    for (;;) {
      const now = new Date();
      for (const t of tracked) {
        if (t.row.state !== 'running') continue;
        t.seen = await observe(stack, t.scenario);
        t.verdict = t.scriptError ? { state: 'failed', reasons: [t.scriptError] } : verdict(t.scenario.expected, t.seen, now);
        const stage = stageOf(t.seen.app.status);
        if (stage && (!t.row.furthest || STAGES.indexOf(stage) > STAGES.indexOf(t.row.furthest))) t.row.furthest = stage;
        t.row.status = statusText(t);
        if (t.verdict.state !== 'pending') t.row.state = t.verdict.state;
      }
      const timedOut = Date.now() > options.deadline;
      if (timedOut) {
        for (const t of tracked.filter((x) => x.row.state === 'running')) {
          const waiting = t.verdict?.state === 'pending' ? t.verdict.waitingFor : [];
          t.verdict = { state: 'failed', reasons: [`timed out; still waiting for ${waiting.join('; ') || 'the order to settle'}`] };
          t.row.state = 'failed';
        }
      }
      progress.update(tracked.map((t) => t.row));
      if (tracked.every((t) => t.row.state !== 'running')) break;
      await sleep(100, undefined, { signal: options.signal });
    }
  } finally {
    scripts.abort();
    options.signal?.removeEventListener('abort', onAbort);
    await Promise.all(running);
  }

  return tracked.map((t) => {
    const seen = t.seen as Observation;
    const v = t.verdict as Verdict;
    return {
      orderName: t.scenario.order.name,
      scenario: t.scenario.name,
      expected: t.scenario.expected,
      seen,
      ok: v.state === 'met',
      reasons: v.state === 'failed' ? v.reasons : [],
      evidence: evidenceOf(t.scenario, seen),
    };
  });
}

function statusText(t: Tracked): string {
  const status = t.seen?.app.status;
  if (!status) return t.activity ?? 'sending';
  if (status === 'pending' && t.seen?.app.submitAfter) return 'pending, hold window';
  const printer = t.seen?.printer;
  const settled = ['shipped', 'cancelled', 'held', 'error'].includes(status);
  const atPrinter = printer && printer.orders > 0 && t.activity && !settled ? `, ${t.activity}` : '';
  return `${status}${atPrinter}`;
}
