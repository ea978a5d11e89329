import type { AccountInput } from '../emulator/accounts.js';
import { describeExpected, paint, type DemoOutput, type Style, type SummaryEntry } from './render.js';
import { RedisUnavailableError } from '../../local-redis.js';
import { playAndWatch } from './play-and-watch.js';
import { demoScenarios, type DemoScenario } from './scenarios.js';
import { DemoSetupError, startDemoStack, type DemoStack } from './stack.js';
import { jsonResult, sayStillRunning, saySummary } from './summary.js';

/**
 * `print-bridge demo`: starts the whole loop on this machine (stack.ts), plays the sample orders (scenarios.ts)
 * against it, shows their progress live, and checks every order's end state in the real systems (verify.ts).
 * A function of its options and an output stream, so a test runs exactly what a user runs. The run's steps are in
 * play-and-watch.ts and scenario-actions.ts, the summary in summary.ts.
 */

export const DEMO_DEFAULTS = {
  /** Emulator stage delays divided by 2: 250 ms to Received, 1 s to Print Ready, 1.5 s per shipment. */
  speed: 2,
  holdSeconds: 3,
  timeoutSeconds: 60,
  /** Orders arrive this far apart, as a trickle of checkouts would. */
  staggerMs: 200,
} as const;

export interface RunDemoOptions {
  out: DemoOutput;
  /** Redis to use when it answers (REDIS_URL); otherwise a private redis-server is started. */
  redisUrl: string;
  speed?: number;
  holdSeconds?: number;
  timeoutSeconds?: number;
  /** App web port; default any free port. */
  port?: number;
  /** Leave everything running after the summary; the caller closes `stack`. */
  keepRunning?: boolean;
  color?: boolean;
  /** The final result as JSON instead of the tables (no live progress). */
  json?: boolean;
  /** Redraw the progress table in place; default: when `out` is a terminal. */
  live?: boolean;
  /** Aborted on Ctrl-C: everything is stopped and cleaned up, and the exit code is 130. */
  signal?: AbortSignal;
  /** The orders to play; default `demoScenarios()`. */
  scenarios?: DemoScenario[];
  /** The emulator's accounts; default the demo account set up for the demo's print SKUs. */
  printerAccounts?: AccountInput[];
  staggerMs?: number;
  /** Command to start a private Redis with (default `redis-server`). */
  redisServerCommand?: string;
  /** ADMIN_TOKEN when set, so the admin pages open with a token the person chose. */
  adminToken?: string;
}

export interface DemoResult {
  exitCode: 0 | 1 | 130;
  entries: SummaryEntry[];
  /** With `keepRunning` (and not interrupted): the running stack, for the caller to close. */
  stack?: DemoStack;
  /** Where the run kept its state and logs (once its stack had started). */
  run?: { redisUrl: string; redisPrefix: string; logFile: string };
}

export async function runDemo(options: RunDemoOptions): Promise<DemoResult> {
  const { out } = options;
  const style: Style = { color: options.color ?? false };
  const say = (line = '') => {
    if (!options.json) out.write(`${line}\n`);
  };
  const speed = options.speed ?? DEMO_DEFAULTS.speed;
  const holdSeconds = options.holdSeconds ?? DEMO_DEFAULTS.holdSeconds;
  const timeoutMs = (options.timeoutSeconds ?? DEMO_DEFAULTS.timeoutSeconds) * 1000;
  const interrupted = () => options.signal?.aborted === true;

  let stack: DemoStack | undefined;
  let run: DemoResult['run'];
  let keep = false;
  try {
    say(paint(style, 'bold', 'print-bridge demo: the print-service emulator, a Shopify stand-in and the app, on this machine'));
    try {
      stack = await startDemoStack({
        redisUrl: options.redisUrl,
        speed,
        holdSeconds,
        port: options.port,
        printerAccounts: options.printerAccounts,
        redisServerCommand: options.redisServerCommand,
        adminToken: options.adminToken,
      });
    } catch (error) {
      if (error instanceof RedisUnavailableError || error instanceof DemoSetupError) {
        out.write(`${options.json ? JSON.stringify({ ok: false, error: error.message }) : error.message}\n`);
        return { exitCode: 1, entries: [] };
      }
      throw error;
    }
    run = { redisUrl: stack.redis.url, redisPrefix: stack.config.REDIS_PREFIX, logFile: stack.logFile };
    if (interrupted()) {
      // Ctrl-C while the stack was starting (the embedded database takes a second or two): the same words as later.
      say('Interrupted: stopping the app, the emulator and the stand-in, and deleting the demo’s keys.');
      return { exitCode: 130, entries: [], run };
    }

    say(`  Redis             ${stack.redis.url}${stack.redis.source === 'private' ? ' (a private redis-server, stopped at the end)' : ''}, keys under ${stack.config.REDIS_PREFIX}`);
    say(`  print service     ${stack.emulator.baseUrl}  (emulator, speed ${speed}; account ${stack.config.PRINT_SOURCE_ACCOUNT})`);
    say(`  Shopify Admin     ${stack.standIn.origin}  (stand-in; store ${stack.shop})`);
    say(`  service mode      ${stack.service.shop}: print-bridge is its fulfillment service; its location stocks the ${stack.service.stockedSkus.length} printed products, the merchant ships the rest`);
    say(`  app               ${stack.appUrl}  (web + worker; hold window ${holdSeconds} s)`);
    say(`  logs              ${stack.logFile}`);
    say();

    const scenarios = options.scenarios ?? demoScenarios();
    say(`Sending ${scenarios.length} orders as signed webhooks:`);
    for (const s of scenarios) say(`  ${s.order.name}  ${s.name.padEnd(21)} ${s.story} → ${describeExpected(s.expected)}`);
    say();
    for (const s of scenarios) stack.standIn.seedOrder(s.shop ?? stack.shop, s.order);

    const entries = await playAndWatch(stack, scenarios, {
      out,
      style,
      json: options.json === true,
      live: options.live ?? Boolean(out.isTTY),
      holdMs: holdSeconds * 1000,
      deadline: Date.now() + timeoutMs,
      staggerMs: options.staggerMs ?? DEMO_DEFAULTS.staggerMs,
      signal: options.signal,
    });
    const failed = entries.filter((e) => !e.ok);
    const exitCode = failed.length === 0 ? 0 : 1;

    if (options.json) {
      out.write(`${JSON.stringify(jsonResult(entries), null, 2)}\n`);
    } else {
      saySummary(say, style, entries, stack.logFile);
    }

    if (options.keepRunning) {
      keep = true;
      sayStillRunning(say, style, stack);
      return { exitCode, entries, stack, run };
    }
    return { exitCode, entries, run };
  } catch (error) {
    if (interrupted()) {
      say();
      say('Interrupted: stopping the app, the emulator and the stand-in, and deleting the demo’s keys.');
      return { exitCode: 130, entries: [], run };
    }
    throw error;
  } finally {
    if (stack && !keep) await stack.close();
  }
}
