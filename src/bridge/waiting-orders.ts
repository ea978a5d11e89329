import { clearProblems, moveTo, ofKind, replaceProblems } from '../orders/transitions.js';
import type { Logger } from 'pino';
import type { HistoryEntry, OrderLink } from '../orders/model.js';
import type { ConnectionsPort, MappingPort, Scheduler, SubmitSettings, OrderStore } from './ports.js';
import type { OrderStatus } from '../orders/status.js';
import type { PrintAccountsPort, PrintSetup } from '../shops/print-accounts.js';
import { moveToWaiting, release, releaseServiceWait, schedule, syncIfConnected } from './waiting-moves.js';
import { hasProblem, noMappingProblem, RELEASED_KINDS, sameProblems, WAIT_KINDS, waitsForShopify } from './waiting-problems.js';

export { hasProblem, noMappingProblem, noPrintAccountProblem, storeNotConnectedProblem, testModeProblem, WAIT_KINDS } from './waiting-problems.js';

/**
 * Orders kept back by something outside them that ends by itself, and the use case that looks at them again when
 * that may have changed (docs/pipeline.md, "Where an order can wait"):
 * - the store is not connected (no Admin API token): such orders never reach the printer (DESIGN section 9);
 * - no mapping serves the store;
 * - the mapping could not map the order (held), and the mapping has changed since.
 * The reason is one of the order's problems, so the order page and the problems page show it. Looking again is
 * idempotent: a release removes the blocking problems with a compare-and-set and queues a submit job whose id is the
 * order's version after it, so two runs (or a run and its retry) queue one job; the submit job checks everything again.
 * The problems an order waits with are in waiting-problems.ts; the moves this use case makes on an order (schedule,
 * release, wait) in waiting-moves.ts.
 */

/** Order topics that can be a mapping's submit topic. */
export const SUBMIT_TOPICS = ['orders/create', 'orders/paid'] as const;

/**
 * When each order topic first arrived. Orders recorded before the link kept them fall back to their history, where
 * every delivery is an entry `<topic> received`.
 */
export async function arrivedTopics(store: Pick<OrderStore, 'history'>, link: OrderLink): Promise<Record<string, string>> {
  if (link.topics && Object.keys(link.topics).length > 0) return link.topics;
  const found: Record<string, string> = {};
  for (const entry of await store.history(link.shop, link.orderId)) {
    const topic = topicOf(entry);
    // History is newest first: the last one seen is the first arrival.
    if (topic) found[topic] = entry.at;
  }
  return found;
}

function topicOf(entry: HistoryEntry): string | undefined {
  if (entry.source !== 'shopify') return undefined;
  const match = /^(orders\/[a-z_]+) received$/.exec(entry.event);
  return match?.[1];
}

export interface ReexamineDeps {
  store: Pick<OrderStore, 'get' | 'update' | 'history' | 'getOrderBody' | 'listOfShop' | 'listQuietSince'>;
  mapping: MappingPort;
  connections: ConnectionsPort;
  printAccounts: Pick<PrintAccountsPort, 'setupOf'>;
  scheduler: Pick<Scheduler, 'submit' | 'syncShopify'>;
  logger: Logger;
  clock: () => Date;
}

export interface ReexamineOptions {
  /** Why: "store connected", "mapping changed", "sweep", "operator". Written to the history of orders that move. */
  cause: string;
  /** Map held orders again (a mapping changed); without it only waits whose condition is gone are released. */
  remap: boolean;
}

export type ReexamineVerdict =
  | { kind: 'released'; message: string }
  | { kind: 'scheduled'; message: string; submitAt: string }
  | { kind: 'waiting'; message: string }
  | { kind: 'unchanged'; message: string };

/** Looks at one order again and moves it on if what kept it back is gone. */
export async function reexamineOrder(deps: ReexamineDeps, link: OrderLink, options: ReexamineOptions, context = new ShopConditions(deps)): Promise<ReexamineVerdict> {
  const name = link.orderName ?? link.orderId;
  const settings = context.settings(link.shop);
  const connected = await context.connected(link.shop);

  if (link.status === 'pending' && link.submitAfter && !link.fulfillmentRequest) return releaseServiceWait(deps, link, options.cause, context);
  if (link.status === 'pending' && !link.submitAfter) {
    const topics = await arrivedTopics(deps.store, link);
    if (!settings) {
      if (!SUBMIT_TOPICS.some((t) => topics[t])) return { kind: 'unchanged', message: `${name} waits for its first order webhook.` };
      return moveToWaiting(deps, link, noMappingProblem(link.shop, deps.clock().toISOString()), options.cause);
    }
    const arrived = topics[settings.on];
    if (!arrived) return { kind: 'unchanged', message: `${name} waits for ${settings.on}, the mapping's submit topic (received: ${Object.keys(topics).join(', ') || 'nothing yet'}).` };
    return schedule(deps, link, settings, arrived, options.cause, `${settings.on} arrived at ${arrived}`);
  }

  const blockedByStore = hasProblem(link, WAIT_KINDS.storeNotConnected);
  if (link.status === 'waiting') {
    if (blockedByStore && !connected) return { kind: 'waiting', message: `${name} waits until ${link.shop} is connected.` };
    // Shopify's hold or risk recommendation: only Shopify can say whether it still stands, so the submit job reads it
    // again (and sends the order if it is gone). The order keeps its reason meanwhile: nothing is released here.
    if (waitsForShopify(link) && connected) {
      await deps.scheduler.submit(link.shop, link.orderId, 0, deps.clock().getTime());
      return { kind: 'waiting', message: `${name} waits for Shopify (${link.problems.find((p) => p.kind === WAIT_KINDS.shopifyHold || p.kind === WAIT_KINDS.risk)!.message}); read again now.` };
    }
    // Set-up waits went through a submit job: once the set-up is done (an account, live) the order is due now. A test
    // order is run again when the mapping changed, so what the page shows is what the new mapping would send.
    if (hasProblem(link, WAIT_KINDS.noPrintAccount) || hasProblem(link, WAIT_KINDS.testMode)) {
      const setup = await context.setup(link.shop);
      if (setup.account === 'none') return { kind: 'waiting', message: `${name} waits for a print-service account for ${link.shop}.` };
      if (setup.mode === 'test' && !(options.remap && hasProblem(link, WAIT_KINDS.testMode))) return { kind: 'waiting', message: `${name} is a test-mode order of ${link.shop}; it goes out when the store goes live.` };
      if (settings) return release(deps, link, options.cause, setup.mode === 'test' ? 'the mapping changed; checking it again in test mode' : `${link.shop} is live with a print account`);
    }
    if (!settings) {
      if (!hasProblem(link, WAIT_KINDS.noMapping)) return moveToWaiting(deps, link, noMappingProblem(link.shop, deps.clock().toISOString()), options.cause);
      return { kind: 'waiting', message: `${name} waits for a mapping that serves ${link.shop}.` };
    }
    // It went through a submit job before (store not connected, or its mapping vanished during the hold window):
    // it was due then and is due now.
    if (blockedByStore || link.submitAfter) return release(deps, link, options.cause, blockedByStore ? `${link.shop} is connected` : `a mapping serves ${link.shop}`);
    const topics = await arrivedTopics(deps.store, link);
    const arrived = topics[settings.on];
    if (arrived) return schedule(deps, link, settings, arrived, options.cause, `a mapping serves ${link.shop}; ${settings.on} arrived at ${arrived}`);
    const { changed } = await deps.store.update(link.shop, link.orderId, (c) =>
      c && c.version === link.version && c.status === 'waiting'
        ? {
            link: clearProblems(moveTo(c, 'pending', deps.clock().toISOString()).link, (p) => RELEASED_KINDS.has(p.kind)),
            history: [{ event: 'no longer waiting', source: 'worker', status: 'pending', detail: `${options.cause}: a mapping serves ${link.shop}; the order is sent when ${settings.on} arrives` }],
          }
        : undefined,
    );
    if (changed) await syncIfConnected(deps, link.shop, link.orderId, connected);
    return { kind: 'released', message: `${name} no longer waits for a mapping; it is sent when ${settings.on} arrives.` };
  }

  if ((link.status === 'held' || link.status === 'error') && blockedByStore) {
    if (!connected) return { kind: 'waiting', message: `${name} waits until ${link.shop} is connected.` };
    return release(deps, link, options.cause, `${link.shop} is connected`);
  }

  if (link.status === 'held') {
    const blocking = link.problems.filter((p) => RELEASED_KINDS.has(p.kind));
    if (!settings) return { kind: 'waiting', message: `${name} is held and no mapping serves ${link.shop}.` };
    if (blocking.length === 0 && link.problems.length === 0) {
      // Released before (its problems were cleared) and the submit job may not have been queued: queue it again.
      return release(deps, link, options.cause, 'released before');
    }
    if (!options.remap || blocking.length === 0) return { kind: 'unchanged', message: `${name} is held: ${link.problems.map((p) => p.message).join('; ')}` };
    const stored = await deps.store.getOrderBody(link.shop, link.orderId);
    if (!stored) return { kind: 'unchanged', message: `${name} is held and its Shopify order body is no longer stored.` };
    const mapped = await deps.mapping.map(link.shop, stored.body);
    if (mapped.ok || mapped.problems.every((p) => p.mappingKind === 'empty')) {
      return release(deps, link, options.cause, mapped.ok ? 'the current mapping maps it' : 'the current mapping finds nothing to print');
    }
    const at = deps.clock().toISOString();
    const fresh = mapped.problems.map((p) => ({ kind: 'mapping', message: p.message, subject: p.subject, at }));
    const same = sameProblems(link.problems.filter((p) => p.kind === 'mapping'), fresh);
    if (!same) {
      await deps.store.update(link.shop, link.orderId, (c) =>
        c && c.status === 'held'
          ? {
              link: replaceProblems(c, ofKind('mapping', WAIT_KINDS.noMapping), fresh),
              history: [{ event: 'mapped again: still held', source: 'worker', detail: `${options.cause}: ${fresh.map((p) => (p.subject ? `${p.subject}: ${p.message}` : p.message)).join('; ')}` }],
            }
          : undefined,
      );
    }
    return { kind: 'waiting', message: `${name} still cannot be mapped.` };
  }
  return { kind: 'unchanged', message: `${name} is ${link.status}; nothing waits.` };
}

/** Settings and connection per shop, read once per run. */
export class ShopConditions {
  private readonly connections = new Map<string, Promise<boolean>>();
  private readonly setups = new Map<string, Promise<PrintSetup>>();
  constructor(private readonly deps: Pick<ReexamineDeps, 'mapping' | 'connections' | 'printAccounts'>) {}
  setup(shop: string): Promise<PrintSetup> {
    let known = this.setups.get(shop);
    if (!known) {
      // Fresh: a run may be the look a set-up change asks for (an account connected, live), often made in another
      // process (the web's), and this process may have read the store's set-up just before it: a stale read would
      // leave the orders waiting until the periodic check. One read a store a run, whatever asked for the run.
      known = this.deps.printAccounts.setupOf(shop, { fresh: true });
      this.setups.set(shop, known);
    }
    return known;
  }
  settings(shop: string): SubmitSettings | undefined {
    return this.deps.mapping.settingsFor(shop);
  }
  connected(shop: string): Promise<boolean> {
    let known = this.connections.get(shop);
    if (!known) {
      known = this.deps.connections.isConnected(shop);
      this.connections.set(shop, known);
    }
    return known;
  }
}

export interface ReexamineOutcome {
  examined: number;
  released: number;
  scheduled: number;
  waiting: number;
}

const PAGE = 200;
const CANDIDATE_STATUSES: readonly OrderStatus[] = ['waiting', 'held', 'pending', 'error'];

/**
 * Looks again at the waiting, held and unscheduled pending orders of a shop (`*`: of every shop), oldest first, at
 * most `limit` per status in one run (the periodic sweep and the next change carry on with the rest).
 */
export async function reexamineWaitingOrders(
  deps: ReexamineDeps,
  options: ReexamineOptions & { shop: string; limit?: number },
): Promise<ReexamineOutcome> {
  const outcome: ReexamineOutcome = { examined: 0, released: 0, scheduled: 0, waiting: 0 };
  const context = new ShopConditions(deps);
  const limit = options.limit ?? 5_000;
  const now = deps.clock().getTime();
  let failure: unknown;
  for (const status of CANDIDATE_STATUSES) {
    for await (const link of candidates(deps, options.shop, status, limit, now)) {
      if (!isCandidate(link, now)) continue;
      outcome.examined += 1;
      try {
        const verdict = await reexamineOrder(deps, link, options, context);
        if (verdict.kind === 'released') outcome.released += 1;
        if (verdict.kind === 'scheduled') outcome.scheduled += 1;
        if (verdict.kind === 'waiting') outcome.waiting += 1;
      } catch (error) {
        // One order that cannot be moved (a conflict storm, Redis blinking) must not keep the others back; the job
        // fails at the end so it is retried, and moving an order on is idempotent.
        deps.logger.warn({ err: error, shop: link.shop, orderId: link.orderId }, 'waiting order could not be looked at again');
        failure ??= error;
      }
    }
  }
  if (outcome.released + outcome.scheduled > 0) deps.logger.info({ shop: options.shop, cause: options.cause, ...outcome }, 'waiting orders looked at again');
  if (failure) throw failure;
  return outcome;
}

function isCandidate(link: OrderLink, now: number): boolean {
  switch (link.status) {
    case 'pending':
      // Unscheduled, or due and still pending: one that waited for a fulfillment request (releaseServiceWait).
      return !link.submitAfter || (!link.fulfillmentRequest && Date.parse(link.submitAfter) <= now);
    case 'waiting':
    case 'held':
      return true;
    case 'error':
      return hasProblem(link, WAIT_KINDS.storeNotConnected);
    default:
      return false;
  }
}

async function* candidates(deps: ReexamineDeps, shop: string, status: OrderStatus, limit: number, now: number): AsyncGenerator<OrderLink> {
  if (shop !== '*') {
    const { links } = await deps.store.listOfShop(shop, { status, limit });
    // listOfShop is newest first; the oldest waited longest.
    yield* links.reverse();
    return;
  }
  let seen = 0;
  for (let offset = 0; seen < limit; offset += PAGE) {
    const page = await deps.store.listQuietSince(status, now, PAGE, offset);
    for (const link of page) {
      seen += 1;
      yield link;
    }
    if (page.length < PAGE) return;
  }
}
