import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AccountInput } from '../emulator/accounts.js';
import type { StoredOrder } from '../emulator/store.js';
import {
  describeExpected,
  LiveProgress,
  paint,
  stageOf,
  STAGES,
  summaryTable,
  type DemoOutput,
  type ProgressRow,
  type Style,
  type SummaryEntry,
} from './render.js';
import { RedisUnavailableError } from '../../local-redis.js';
import { demoScenarios, type DemoScenario, type MerchantActions, type ScenarioActions } from './scenarios.js';
import { DEMO_OWN_ACCOUNT, DEMO_OWN_DESTINATION } from './mapping.js';
import { signSessionToken } from '../admin-stand-in/oauth.js';
import { DemoSetupError, startDemoStack, type DemoStack } from './stack.js';
import { observe, printerOrdersOf, verdict, type Observation, type Verdict } from './verify.js';

/**
 * `print-bridge demo`: starts the whole loop on this machine (stack.ts), plays the sample orders (scenarios.ts)
 * against it, shows their progress live, and checks every order's end state in the real systems (verify.ts).
 * A function of its options and an output stream, so a test runs exactly what a user runs.
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
      say();
      say(paint(style, 'bold', 'Demo summary'));
      for (const line of summaryTable(entries, style)) say(`  ${line}`);
      say();
      for (const e of entries) for (const line of e.evidence) say(`  ${e.orderName}  ${line}`);
      say();
      if (failed.length === 0) {
        say(paint(style, 'green', `All ${entries.length} orders reached their expected end state.`));
      } else {
        say(paint(style, 'red', `${failed.length} of ${entries.length} orders did not reach their expected end state:`));
        for (const e of failed) for (const reason of e.reasons) say(`  ${e.orderName} ${e.scenario}: ${reason}`);
        say(`  (the app's log: ${stack.logFile})`);
      }
    }

    if (options.keepRunning) {
      keep = true;
      say();
      say(paint(style, 'bold', 'Still running; Ctrl-C stops everything.'));
      say(`  app               ${stack.appUrl}`);
      say(`  admin pages       ${stack.appUrl}/admin  (log in with ADMIN_TOKEN ${stack.config.ADMIN_TOKEN})`);
      say(`  print service     ${stack.emulator.baseUrl}  (hooks: ${stack.emulator.hooksUrl}; token ${stack.config.PRINT_API_TOKEN}, secret ${stack.config.PRINT_API_SECRET})`);
      say(`  Shopify stand-in  ${stack.standIn.origin}/_stand-in/shops/${stack.shop}/orders`);
      say(`  mappings          ${stack.mappingsDir}`);
      say(`  logs              ${stack.logFile}`);
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

interface WatchOptions {
  out: DemoOutput;
  style: Style;
  json: boolean;
  live: boolean;
  holdMs: number;
  deadline: number;
  staggerMs: number;
  signal?: AbortSignal;
}

interface Tracked {
  scenario: DemoScenario;
  row: ProgressRow;
  seen?: Observation;
  verdict?: Verdict;
  /** The script stopped with an error (a webhook refused, a wait that timed out). */
  scriptError?: string;
  /** What the script is doing while the app's status does not move (e.g. "held at the printer"). */
  activity?: string;
}

/** Plays every scenario's script at once (staggered) and polls the real systems until each order has settled. */
async function playAndWatch(stack: DemoStack, scenarios: DemoScenario[], options: WatchOptions): Promise<SummaryEntry[]> {
  const progress = new LiveProgress(options.json ? { write: () => undefined } : options.out, options.style, options.live);
  const tracked: Tracked[] = scenarios.map((scenario) => ({
    scenario,
    row: { orderName: scenario.order.name, scenario: scenario.name, status: 'not sent', state: 'running' },
  }));
  // Ends the scripts still waiting when the watch is over (or Ctrl-C).
  const scripts = new AbortController();
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

/** The script's handle on its order, bound to the running stack. */
function actionsFor(stack: DemoStack, t: Tracked, progress: LiveProgress, options: WatchOptions, signal: AbortSignal): ScenarioActions {
  const { order, sourceOrderId } = t.scenario;
  const shop = t.scenario.shop ?? stack.shop;
  const printerOrder = (): StoredOrder | undefined => printerOrdersOf(stack, sourceOrderId)[0];
  const waitUntil = async (what: string, check: () => boolean | Promise<boolean>, intervalMs = 20) => {
    while (!(await check())) {
      if (Date.now() > options.deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(intervalMs, undefined, { signal });
    }
  };
  return {
    async send(topic, body) {
      const { status } = await stack.sendWebhook(topic, body, shop);
      if (status < 200 || status > 299) throw new Error(`the app answered ${status} to the ${topic} webhook`);
    },
    waitUntil,
    appLink: () => stack.runtime.store.get(shop, order.admin_graphql_api_id),
    async holdAtPrinter() {
      let held: StoredOrder | undefined;
      // Polled often: the order must be caught between Order Received and the file fetching that follows.
      await waitUntil(
        'the printer to receive the order',
        () => {
          const o = printerOrder();
          if (o && o.record.status !== 'submitted') held = o;
          return held !== undefined;
        },
        5,
      );
      const o = held as StoredOrder;
      // A processing step that was already under way schedules the next one when it ends: stop that one too.
      do {
        stack.emulator.processor.forget(o);
        await sleep(5, undefined, { signal });
      } while (o.timer || o.busy);
      t.activity = 'paused at printer';
      progress.note(`${order.name} the printer keeps the order in its queue for now (status ${o.record.status})`);
    },
    async releaseAtPrinter() {
      const o = printerOrder();
      t.activity = undefined;
      if (!o || !['received', 'printready'].includes(o.record.status)) return;
      // Advancing to the state it is already in takes no step and restarts its processing clock.
      await stack.emulator.processor.advance(o, o.record.status === 'printready' ? 'printready' : 'received');
      progress.note(`${order.name} the printer carries on with the order`);
    },
    printerShipTo() {
      const o = printerOrder();
      const shipments = o && Array.isArray(o.record.orderData.shipments) ? (o.record.orderData.shipments as Record<string, unknown>[]) : [];
      return shipments.map((s) => {
        const shipTo = (s.shipTo ?? {}) as Record<string, unknown>;
        return { address1: typeof shipTo.address1 === 'string' ? shipTo.address1 : undefined, postcode: typeof shipTo.postcode === 'string' ? shipTo.postcode : undefined };
      });
    },
    cancelInShopify() {
      const result = stack.standIn.cancelOrder(shop, order.admin_graphql_api_id);
      if (!result.ok) throw new Error(`Shopify refused to cancel ${order.name}: ${result.userErrors.map((e) => e.message).join('; ')}`);
    },
    holdInShopify(reason, notes) {
      const result = stack.standIn.placeHold(shop, order.admin_graphql_api_id, { reason, reasonNotes: notes ?? null });
      if (!result.ok) throw new Error(`Shopify refused to hold ${order.name}: ${result.userErrors.map((e) => e.message).join('; ')}`);
    },
    releaseHoldInShopify() {
      const result = stack.standIn.releaseHold(shop, order.admin_graphql_api_id);
      if (!result.ok) throw new Error(`Shopify refused to release ${order.name}: ${result.userErrors.map((e) => e.message).join('; ')}`);
    },
    note: (text) => progress.note(`${order.name} ${text}`),
    merchant: merchantOf(stack, shop),
    writeMapping: (fileName, yaml) => writeFileSync(join(stack.mappingsDir, basename(fileName)), yaml),
    sleep: (ms) => sleep(ms, undefined, { signal }),
    now: () => new Date(),
  };
}

/** Lines that show, from the systems themselves, what each scenario was about. */
function evidenceOf(scenario: DemoScenario, seen: Observation): string[] {
  const lines: string[] = [];
  const { expected } = scenario;
  if (expected.artworkPath && seen.printer.componentPaths.includes(expected.artworkPath)) {
    lines.push(`artwork from the line item property, at the printer: ${expected.artworkPath}`);
  }
  if (expected.shipTo && seen.printer.shipments.length > 0) {
    const to = seen.printer.shipments.map((s) => `${s.shipTo.address1}, ${s.shipTo.town} ${s.shipTo.postcode}`);
    lines.push(`the printer shipped to the new address: ${[...new Set(to)].join('; ')}`);
  }
  if (expected.status === 'held' && seen.app.problems.length > 0) {
    lines.push(`held, tagged ${seen.shopify.tags.filter((tag) => tag.startsWith('print-bridge:')).join(', ')}: ${seen.app.problems.join('; ')}`);
  }
  if (expected.printer === 'nothing' && seen.printer.orders === 0 && expected.status === 'cancelled') {
    lines.push('cancelled before the hold window ended: the print service never received it');
  }
  if (expected.printer === 'cancelled' && seen.printer.status === 'cancelled') {
    lines.push(`cancelled at the print service (${seen.printer.id}) before it shipped`);
  }
  if (expected.waitedFor === 'fulfillment-hold' && (seen.app.waits ?? []).includes('fulfillment-hold') && seen.shopify.fulfillments.length === 1) {
    lines.push(`the tracking waited while Shopify held the fulfillment order, then was fulfilled once released: ${seen.shopify.fulfillments[0]!.name}`);
  } else if (expected.waitedFor === 'test-mode' && (seen.app.waits ?? []).includes('test-mode') && seen.printer.orders === 1) {
    lines.push(`set up in the app with its own print account: checked in test mode (nothing created), then sent once when the merchant went live, on its own account (${seen.printer.account ?? '?'})`);
  } else if (expected.waitedFor && (seen.app.waits ?? []).includes(expected.waitedFor) && seen.printer.orders === 1) {
    lines.push(`waited (${expected.waitedFor.replace(/-/g, ' ')}), then went out by itself once a mapping served its store: one print order`);
  }
  if (expected.fulfillments > 1 && seen.shopify.fulfillments.length === expected.fulfillments) {
    lines.push(`${seen.shopify.fulfillments.length} print shipments, ${seen.shopify.fulfillments.length} fulfillments with their own tracking`);
  }
  return lines;
}

function jsonResult(entries: SummaryEntry[]) {
  return {
    ok: entries.every((e) => e.ok),
    orders: entries.map((e) => ({
      order: e.orderName,
      scenario: e.scenario,
      expected: describeExpected(e.expected),
      ok: e.ok,
      appStatus: e.seen.app.status ?? null,
      printerStatus: e.seen.printer.status ?? null,
      printOrderId: e.seen.printer.id ?? null,
      tags: e.seen.shopify.tags,
      fulfillments: e.seen.shopify.fulfillments,
      problems: e.seen.app.problems,
      reasons: e.reasons,
    })),
  };
}

/**
 * The merchant of a store in the app, as the Shopify admin drives it: each request carries a fresh session token signed
 * with the app's secret (what App Bridge gets from the admin); forms are sent as the page's script sends them.
 */
function merchantOf(stack: DemoStack, shop: string): MerchantActions {
  const token = () => signSessionToken({ apiKey: stack.config.SHOPIFY_API_KEY!, apiSecret: stack.config.SHOPIFY_API_SECRET! }, shop, { user: '1001' });
  const host = Buffer.from(`admin.shopify.com/store/${shop.split('.')[0]}`).toString('base64url');
  return {
    async openApp() {
      const answer = await fetch(`${stack.appUrl}/?embedded=1&shop=${shop}&host=${host}&id_token=${token()}`);
      await answer.arrayBuffer();
      if (!answer.ok) throw new Error(`the app answered ${answer.status} to the Shopify admin`);
      if (!(await stack.runtime.sessions.accessToken(shop))) throw new Error(`opening the app did not install it on ${shop}`);
    },
    async submit(path, fields) {
      const answer = await fetch(`${stack.appUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token()}`, accept: 'application/json' },
        body: new URLSearchParams(fields),
      });
      const result = (await answer.json().catch(() => ({}))) as { location?: string; error?: string };
      const flash = result.location ? new URL(result.location, stack.appUrl).searchParams.get('flash') : null;
      if (!answer.ok || !result.location) throw new Error(`the app refused ${path}: ${result.error ?? answer.status}`);
      // The message the page shows next: a refusal is a failed step of the story.
      const page = await (await fetch(`${stack.appUrl}${result.location}&id_token=${token()}`)).text();
      const tone = /<s-banner tone="(\w+)" id="flash">([^<]*)</.exec(page);
      if (flash && tone && tone[1] !== 'success') throw new Error(`${path}: ${tone[2]}`);
    },
    async page(path) {
      return (await fetch(`${stack.appUrl}${path}?embedded=1&shop=${shop}&host=${host}&id_token=${token()}`)).text();
    },
    printAccount: () => ({
      baseUrl: stack.emulator.baseUrl,
      ordersUrl: stack.emulator.ordersUrl,
      token: DEMO_OWN_ACCOUNT.token,
      secret: DEMO_OWN_ACCOUNT.secret,
      sourceAccount: DEMO_OWN_ACCOUNT.name,
      destination: DEMO_OWN_DESTINATION,
    }),
    setUpTriggers: (url) => stack.addPrintServiceTriggers(DEMO_OWN_ACCOUNT.name, url),
  };
}
