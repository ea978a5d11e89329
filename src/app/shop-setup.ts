import type { Queue } from 'bullmq';
import type { Config } from '../config.js';
import type { MappingRegistry } from '../mapping/registry.js';
import { PrintServiceClient, type PrintServiceClientOptions } from '../print-service/client.js';
import { enqueueAppHoldsResync, enqueueReexamine, type OrderJob, type ShopifyJob } from '../queue/queues.js';
import type { PrintAccount } from '../shops/model.js';
import { checkPrintAccount } from '../shops/print-accounts.js';
import { publicOnlyLookup, publicOnlyLookupVia } from '../shops/account-address.js';
import type { HostLookup } from '../net/host-lookup.js';
import type { SetupDeps } from '../shops/setup.js';
import type { ShopSettingsStore } from '../shops/settings-store.js';

/**
 * The set-up use cases' dependencies, for the app's pages (a running process: its registry and account cache are
 * refreshed at once) and for the command line (a process of its own: the running app notices within seconds).
 */
export function shopSetupDeps(options: {
  config: Pick<Config, 'APP_URL' | 'PRINT_API_CONNECT_TIMEOUT_MS' | 'PRINT_ACCOUNT_PRIVATE_HOSTS'>;
  /** The operator's command line: accounts it sets are trusted (any address). */
  operator?: boolean;
  settings: ShopSettingsStore;
  orders: Queue<OrderJob>;
  /** Where the placing or release of the app's holds goes when a store's switch changes. */
  shopifyJobs?: Queue<ShopifyJob>;
  registry: Pick<MappingRegistry, 'forShop'>;
  refreshMappings?: () => Promise<void>;
  invalidate?: (shop: string) => void;
  clock?: () => Date;
  /** The app's host lookup (tests and the demo answer for their own names); the system resolver otherwise. */
  lookup?: HostLookup;
}): SetupDeps {
  const clock = options.clock ?? (() => new Date());
  const restrict = !options.operator && !options.config.PRINT_ACCOUNT_PRIVATE_HOSTS;
  return {
    settings: options.settings,
    restrictAccountAddresses: restrict,
    checkAccount: (account) => checkAccountOnce(account, options.config.PRINT_API_CONNECT_TIMEOUT_MS, clock, restrict, options.lookup),
    invalidate: options.invalidate ?? (() => undefined),
    refreshMappings: options.refreshMappings ?? (async () => undefined),
    reexamine: async (shop, cause) => {
      await enqueueReexamine(options.orders, shop, cause, true);
    },
    resyncAppHolds: async (shop) => {
      if (options.shopifyJobs) await enqueueAppHoldsResync(options.shopifyJobs, shop);
    },
    mappingServes: (shop) => options.registry.forShop(shop) !== undefined,
    mappingHoldPolicy: (shop) => {
      const submit = options.registry.forShop(shop)?.config.submit;
      return submit ? { waitForHolds: submit.wait_for_holds, waitForRisk: submit.wait_for_risk } : undefined;
    },
    appUrl: options.config.APP_URL,
    clock,
  };
}

/**
 * What a client for a store's own account is made of: its addresses and credentials, and, for an account a merchant
 * entered, connections that refuse private addresses (src/shops/account-address.ts).
 */
export function accountClientOptions(account: PrintAccount, publicOnly: boolean, lookup?: HostLookup): PrintServiceClientOptions {
  return {
    baseUrl: account.baseUrl,
    ordersUrl: account.ordersUrl ?? account.baseUrl,
    token: account.token,
    secret: account.secret,
    sourceAccount: account.sourceAccount,
    ...(publicOnly ? { lookup: lookup ? publicOnlyLookupVia(lookup) : publicOnlyLookup } : {}),
  };
}

/** One signed call, no retries (a person waits for the answer), with a client made for the account and closed after. */
export async function checkAccountOnce(account: PrintAccount, connectTimeoutMs: number, clock: () => Date, publicOnly = false, lookup?: HostLookup) {
  const client = new PrintServiceClient({
    ...accountClientOptions(account, publicOnly, lookup),
    connectTimeoutMs,
    responseTimeoutMs: 15_000,
    retry: { maxAttempts: 1 },
    connections: 1,
  });
  try {
    return await checkPrintAccount(client, account, clock());
  } finally {
    await client.close();
  }
}
