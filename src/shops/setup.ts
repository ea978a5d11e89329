import { z } from 'zod';
import type { HoldPolicy } from '../bridge/shopify-holds.js';
import { postbackTriggers } from '../print-service/postback-triggers.js';
import type { FileProblem } from '../mapping/errors.js';
import { loadStoreMapping } from '../mapping/store-mapping.js';
import { OPERATOR_AUTHOR, type AccountCheck, type PrintAccount, type PrintMode, type ShopSetup } from './model.js';
import type { ShopSettingsStore } from './settings-store.js';
import { accountAddressProblem } from './account-address.js';

/**
 * A store's set-up as its merchant (the app's Settings and Mapping pages) or the operator (`print-bridge shops ...`,
 * `mappings push/rollback`) changes it. Every change that can let waiting orders go (an account, going live, a mapping)
 * asks for a look at the store's waiting orders; each use case is idempotent.
 */

export interface SetupDeps {
  settings: Pick<
    ShopSettingsStore,
    'get' | 'setPrintAccount' | 'removePrintAccount' | 'recordAccountCheck' | 'setMode' | 'setAppHolds' | 'setHoldPolicy' | 'postbackToken' | 'hasPostbackToken' | 'printAccountOf' | 'pushMapping' | 'useMappingVersion' | 'mappingVersion' | 'clearMapping'
  >;
  /** One signed call with the account (checkPrintAccount on a client made for it). */
  checkAccount(account: PrintAccount): Promise<AccountCheck>;
  /** Forgets the cached client choice for the store (this process). */
  invalidate(shop: string): void;
  /** Makes this process's mapping registry serve the store's current version now. */
  refreshMappings(): Promise<void>;
  /** Queues a look at the store's waiting orders. */
  reexamine(shop: string, cause: string): Promise<void>;
  /** Queues the placing or release of print-bridge's own holds on the store's waiting orders (its switch changed). */
  resyncAppHolds?(shop: string): Promise<void>;
  /** Whether a mapping (the store's own version or a file) serves the store, with its problems if none does. */
  mappingServes(shop: string): boolean;
  /** The mapping's `submit.wait_for_holds` / `wait_for_risk` for the store, when a mapping serves it. */
  mappingHoldPolicy?(shop: string): HoldPolicy | undefined;
  /** APP_URL: the postback address shown to the merchant. */
  appUrl?: string;
  /**
   * Merchants' accounts must be https to public hosts (off with PRINT_ACCOUNT_PRIVATE_HOSTS, for development and the
   * demo); the operator's command line is trusted.
   */
  restrictAccountAddresses: boolean;
  clock: () => Date;
}

const httpsUrl = z
  .string()
  .trim()
  .url('must be a URL')
  .refine((v) => /^https?:\/\//.test(v), 'must start with https:// (or http:// for a local emulator)');

/** The account form (settings page) and the command's options, parsed the same way. */
export const printAccountInput = z.object({
  baseUrl: httpsUrl,
  ordersUrl: httpsUrl.optional().or(z.literal('').transform(() => undefined)),
  token: z.string().trim().min(1, 'the access token is required').max(500),
  secret: z.string().trim().min(1, 'the secret key is required').max(500),
  sourceAccount: z.string().trim().min(1, 'the source account name is required').max(200),
  destination: z.string().trim().max(200).optional().transform((v) => v || undefined),
});
export type PrintAccountInput = z.infer<typeof printAccountInput>;

export type ConnectOutcome = { kind: 'saved'; setup: ShopSetup; check?: AccountCheck } | { kind: 'refused'; check: AccountCheck };

/** Gives the store its own account, after one signed call proves it (unless `test: false`). */
export async function connectPrintAccount(deps: SetupDeps, shop: string, input: PrintAccountInput, options: { test?: boolean } = {}): Promise<ConnectOutcome> {
  if (deps.restrictAccountAddresses) {
    const problem = accountAddressProblem(input.baseUrl, 'Base URL') ?? (input.ordersUrl ? accountAddressProblem(input.ordersUrl, 'Orders URL') : undefined);
    if (problem) return { kind: 'refused', check: { ok: false, message: `${problem} (the print service must be reachable on the internet over https).`, at: deps.clock().toISOString() } };
  }
  const account: PrintAccount = { ...input, connectedAt: deps.clock().toISOString(), setBy: deps.restrictAccountAddresses ? 'merchant' : 'operator' };
  const check = options.test === false ? undefined : await deps.checkAccount(account);
  if (check && !check.ok) return { kind: 'refused', check };
  const setup = await deps.settings.setPrintAccount(shop, account, check);
  deps.invalidate(shop);
  await deps.reexamine(shop, 'print account connected');
  return { kind: 'saved', setup, ...(check ? { check } : {}) };
}

/** "Test connection" on the stored account; undefined when the store has none of its own. */
export async function testPrintAccount(deps: SetupDeps, shop: string): Promise<AccountCheck | undefined> {
  const own = await deps.settings.printAccountOf(shop);
  if (!own) return undefined;
  const check = await deps.checkAccount(own.account);
  await deps.settings.recordAccountCheck(shop, check);
  return check;
}

/**
 * Back to the operator's account. When the merchant does it, a mapping the merchant saved stops serving the store too:
 * on the operator's account the operator's mapping decides (otherwise a merchant could save a mapping on an account of
 * their own, then move to the operator's and have the operator billed for what it says). The versions are kept; on an
 * account of their own again the merchant can use one again. A version the operator stored keeps serving.
 */
export async function disconnectPrintAccount(deps: SetupDeps, shop: string, options: { merchant?: boolean } = {}): Promise<ShopSetup> {
  let setup = await deps.settings.removePrintAccount(shop);
  if (options.merchant && setup.mappingVersion) {
    const current = await deps.settings.mappingVersion(shop, setup.mappingVersion);
    if (!current || current.author !== OPERATOR_AUTHOR) {
      await deps.settings.clearMapping(shop);
      setup = { ...setup, mappingVersion: undefined };
      await deps.refreshMappings();
    }
  }
  deps.invalidate(shop);
  await deps.reexamine(shop, 'print account removed');
  return setup;
}

export interface ChecklistItem {
  key: 'account' | 'postback' | 'mapping' | 'test-order';
  label: string;
  done: boolean;
  detail: string;
}

/** What a store connecting its own account does before going live, in order. */
export async function onboardingChecklist(deps: Pick<SetupDeps, 'settings' | 'mappingServes'>, shop: string): Promise<{ setup: ShopSetup; items: ChecklistItem[]; ready: boolean }> {
  const setup = await deps.settings.get(shop);
  const items: ChecklistItem[] = [
    {
      key: 'account',
      label: 'Print account connected and tested',
      done: Boolean(setup.printAccount && setup.accountCheck?.ok),
      detail: !setup.printAccount ? 'Enter your print-service account below.' : (setup.accountCheck?.message ?? 'Press "Test connection".'),
    },
    {
      key: 'postback',
      label: 'Postback address set up at the print service',
      done: await deps.settings.hasPostbackToken(shop),
      detail: 'Paste your postback address and the trigger templates into your print service (shown below).',
    },
    {
      key: 'mapping',
      label: 'Mapping valid',
      done: deps.mappingServes(shop),
      detail: setup.mappingVersion ? `Your own mapping, version ${setup.mappingVersion}.` : 'The mapping files of this server serve your store until you save your own.',
    },
    {
      key: 'test-order',
      label: 'One test order validated by the print service',
      done: Boolean(setup.testValidatedAt),
      detail: setup.testValidatedAt ? `First valid test order at ${setup.testValidatedAt}.` : 'Place (or wait for) an order in your store: in test mode it is checked by the print service, not created.',
    },
  ];
  return { setup, items, ready: items.every((i) => i.done) };
}

export type ModeOutcome = { kind: 'done'; setup: ShopSetup; missing: string[] } | { kind: 'not-ready'; missing: string[] };

/**
 * Test or live. Going live from the app needs the checklist done (`force` is the operator's command, which says what
 * is missing and goes ahead). Orders kept back in test mode then go out, once each.
 */
export async function setPrintMode(
  deps: SetupDeps,
  shop: string,
  mode: PrintMode,
  options: { force?: boolean } = {},
): Promise<ModeOutcome> {
  let missing: string[] = [];
  if (mode === 'live') {
    const checklist = await onboardingChecklist(deps, shop);
    // A store on the operator's account has nothing of its own to check.
    if (checklist.setup.printAccount) missing = checklist.items.filter((i) => !i.done).map((i) => i.label);
    if (missing.length > 0 && !options.force) return { kind: 'not-ready', missing };
  }
  const setup = await deps.settings.setMode(shop, mode);
  deps.invalidate(shop);
  if (mode === 'live') await deps.reexamine(shop, 'store went live');
  return { kind: 'done', setup, missing };
}

/** The store's postback address and the triggers to paste into the print service. */
/**
 * The store's switch of print-bridge's own holds in Shopify: on, its waits show as a hold of the app's on the orders'
 * fulfillment orders; off, none is placed and those placed are released (src/bridge/app-holds-switch.ts).
 */
export async function setAppHolds(deps: SetupDeps, shop: string, on: boolean): Promise<ShopSetup> {
  const before = await deps.settings.get(shop);
  const setup = await deps.settings.setAppHolds(shop, on);
  if ((before.appHolds !== false) !== on) await deps.resyncAppHolds?.(shop);
  return setup;
}

export async function postbackSetup(deps: Pick<SetupDeps, 'settings' | 'appUrl'>, shop: string, options: { rotate?: boolean } = {}) {
  const { token, previousValidUntil } = await deps.settings.postbackToken(shop, options);
  const url = `${(deps.appUrl ?? 'http://127.0.0.1:3000').replace(/\/+$/, '')}/postbacks/${token}`;
  const triggers = postbackTriggers(url).map((t) => ({ event: t.event, url: t.url, method: 'POST', headers: { 'Content-Type': 'application/json' }, template: t.template }));
  return { url, token, previousValidUntil, triggers };
}

export type PushOutcome = { kind: 'saved'; version: number } | { kind: 'problems'; problems: FileProblem[] };


/**
 * Whether a merchant may change the store's mapping: only on a print account of the store's own (DESIGN section 9).
 * On the operator's account the operator's mapping decides what the operator is billed for: destination, carrier,
 * SKUs, order ids.
 */
export function merchantMayEditMapping(setup: Pick<ShopSetup, 'printAccount'>): boolean {
  return Boolean(setup.printAccount);
}

/** A merchant's save or rollback refused because the store prints on the operator's account; nothing changed. */
export type OperatorAccountRefusal = { kind: 'operator-account' };

/**
 * A merchant's save: refused unless the store is on its own account, checked here (not only by the page), so no route
 * or script can go around it.
 */
export async function merchantPushMapping(deps: SetupDeps, shop: string, yaml: string, author: string, note?: string): Promise<PushOutcome | OperatorAccountRefusal> {
  if (!merchantMayEditMapping(await deps.settings.get(shop))) return { kind: 'operator-account' };
  return pushMapping(deps, shop, yaml, author, note);
}

/** A merchant's rollback, refused on the operator's account as a save is. */
export async function merchantRollbackMapping(deps: SetupDeps, shop: string, version: number): Promise<PushOutcome | OperatorAccountRefusal | { kind: 'unknown' }> {
  if (!merchantMayEditMapping(await deps.settings.get(shop))) return { kind: 'operator-account' };
  return rollbackMapping(deps, shop, version);
}

/** Checks a mapping text as `mappings check` does and stores it as the store's next version (current from now on). */
export async function pushMapping(deps: SetupDeps, shop: string, yaml: string, author: string, note?: string): Promise<PushOutcome> {
  const loaded = loadStoreMapping(yaml, shop);
  if (!loaded.ok) return { kind: 'problems', problems: loaded.problems };
  const version = await deps.settings.pushMapping(shop, yaml, author, note?.trim() || undefined);
  await deps.refreshMappings();
  await deps.reexamine(shop, `mapping version ${version} saved`);
  return { kind: 'saved', version };
}

/** Makes an earlier version current again (itself checked again: a rule tightened since would be said now). */
export async function rollbackMapping(deps: SetupDeps, shop: string, version: number): Promise<PushOutcome | { kind: 'unknown' }> {
  const stored = await deps.settings.mappingVersion(shop, version);
  if (!stored) return { kind: 'unknown' };
  const loaded = loadStoreMapping(stored.yaml, shop, version);
  if (!loaded.ok) return { kind: 'problems', problems: loaded.problems };
  await deps.settings.useMappingVersion(shop, version);
  await deps.refreshMappings();
  await deps.reexamine(shop, `mapping rolled back to version ${version}`);
  return { kind: 'saved', version };
}
