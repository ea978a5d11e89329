import { createHash } from 'node:crypto';
import type { PrintServicePort } from '../bridge/ports.js';
import type { PrintServiceClient } from '../print-service/client.js';
import {
  PrintServiceError,
  PrintServiceForbiddenError,
  PrintServiceNetworkError,
  PrintServiceTimeoutError,
  PrintServiceUnauthorizedError,
} from '../print-service/errors.js';
import type { HoldPolicy } from '../bridge/shopify-holds.js';
import type { AccountCheck, AccountRef, PrintAccount, PrintMode } from './model.js';
import type { ShopSettingsStore } from './settings-store.js';

/**
 * Which print-service client a store's orders use (issue 16). A store with its own account gets a client for that
 * account; every other store the operator's account from the environment (when one is configured). Clients are made
 * once per account (two stores on one account share one) and kept; a store's account is read again when its settings
 * change in this process (`invalidate`), at most `refreshMs` after a change made by another process, and at once for
 * a look at its waiting orders (`fresh`), which such a change asks for.
 */

export type PrintSetup = (
  | { account: AccountRef; mode: PrintMode; service: PrintServicePort; destination?: string }
  /** Neither an account of its own nor one in the environment: its orders wait, visibly. */
  | { account: 'none'; mode: PrintMode }
) & {
  /** Fulfillment-service mode: the app's location, whose requested lines alone are printed (docs/fulfillment.md). */
  fulfillmentLocation?: string;
  /** The store's own choice of Shopify's holds and risk it waits for (the Settings page); absent: the mapping's keys. */
  holdPolicy?: HoldPolicy;
};

export interface PrintAccountsPort {
  /**
   * The store's set-up for a new submission. `fresh` reads past what this process keeps of it: a look that a change
   * made by another process asked for must see that change.
   */
  setupOf(shop: string, options?: { fresh?: boolean }): Promise<PrintSetup>;
  /** The client for an order that went out with `account` (its cancel, amend, confirm and reconcile calls). */
  forOrder(shop: string, account: AccountRef | undefined): Promise<PrintServicePort>;
  /** A test-mode order the print service found valid (the onboarding checklist's last item). */
  recordTestValidated?(shop: string): Promise<void>;
}

/** The order went out with an account the store no longer has (it was removed or the store moved to another). */
export class PrintAccountGoneError extends Error {
  readonly retryable = false;
  constructor(
    readonly shop: string,
    readonly account: AccountRef,
  ) {
    super(
      account === 'own'
        ? `${shop} no longer has its own print-service account, which this order was sent with: connect it again in the app's Settings (or print-bridge shops print-account) to reach the order at the printer`
        : `the operator's print-service account (PRINT_API_*) is not configured, and this order of ${shop} was sent with it`,
    );
    this.name = 'PrintAccountGoneError';
  }
}

type Client = PrintServicePort & { close(): Promise<void> };

export interface PrintAccountsOptions {
  settings: Pick<ShopSettingsStore, 'get' | 'printAccountOf' | 'markTestValidated'>;
  /** The operator's account (PRINT_API_*), when configured. */
  envClient?: PrintServicePort;
  /** Makes a client for a store's account. */
  createClient(account: PrintAccount): Client;
  /** How long a store's set-up read from the database is used before it is read again. */
  refreshMs?: number;
  clock?: () => number;
}

export class PrintAccounts implements PrintAccountsPort {
  private readonly clients = new Map<string, Client>();
  private readonly cache = new Map<string, { at: number; setup: Promise<PrintSetup> }>();
  private readonly refreshMs: number;
  private readonly now: () => number;

  constructor(private readonly options: PrintAccountsOptions) {
    this.refreshMs = options.refreshMs ?? 2_000;
    this.now = options.clock ?? Date.now;
  }

  setupOf(shop: string, options: { fresh?: boolean } = {}): Promise<PrintSetup> {
    const cached = this.cache.get(shop);
    if (cached && !options.fresh && this.now() - cached.at < this.refreshMs) return cached.setup;
    const setup = this.read(shop);
    this.cache.set(shop, { at: this.now(), setup });
    setup.catch(() => this.cache.delete(shop));
    return setup;
  }

  async forOrder(shop: string, account: AccountRef | undefined): Promise<PrintServicePort> {
    // Orders sent before stores had accounts of their own went out on the operator's.
    if ((account ?? 'env') === 'env') {
      if (!this.options.envClient) throw new PrintAccountGoneError(shop, 'env');
      return this.options.envClient;
    }
    const setup = await this.setupOf(shop);
    if (setup.account !== 'own') throw new PrintAccountGoneError(shop, 'own');
    return setup.service;
  }

  recordTestValidated(shop: string): Promise<void> {
    return this.options.settings.markTestValidated(shop);
  }

  /** Forgets what is known of the store's set-up (after a change in this process). */
  invalidate(shop: string): void {
    this.cache.delete(shop);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.clients.values()].map((c) => c.close()));
    this.clients.clear();
  }

  private async read(shop: string): Promise<PrintSetup> {
    const [settings, own] = await Promise.all([this.options.settings.get(shop), this.options.settings.printAccountOf(shop)]);
    const shared = { fulfillmentLocation: settings.fulfillmentLocation, ...(settings.holdPolicy ? { holdPolicy: settings.holdPolicy } : {}) };
    if (own) {
      return { account: 'own', mode: settings.mode, service: this.clientFor(own.account), destination: own.account.destination, ...shared };
    }
    if (!this.options.envClient) return { account: 'none', mode: settings.mode, ...shared };
    return { account: 'env', mode: settings.mode, service: this.options.envClient, ...shared };
  }

  private clientFor(account: PrintAccount): Client {
    const key = fingerprint(account);
    let client = this.clients.get(key);
    if (!client) {
      client = this.options.createClient(account);
      this.clients.set(key, client);
    }
    return client;
  }
}

function fingerprint(account: PrintAccount): string {
  return createHash('sha256')
    .update([account.baseUrl, account.ordersUrl ?? '', account.token, account.secret, account.sourceAccount].join('\0'))
    .digest('hex');
}

/**
 * "Test connection": one signed read (the account's order list, one entry) and the answer in plain words. It proves
 * the address, the token and the secret; a wrong one of each reads differently.
 */
export async function checkPrintAccount(client: Pick<PrintServiceClient, 'list'>, account: Pick<PrintAccount, 'baseUrl'>, now: Date): Promise<AccountCheck> {
  const at = now.toISOString();
  try {
    const list = await client.list({ page: 1, pagesize: 1 });
    return { ok: true, message: `Connected: the print service at ${account.baseUrl} accepted the token and the signature (${list.count} order${list.count === 1 ? '' : 's'} on the account).`, at };
  } catch (error) {
    return { ok: false, message: describeCheckFailure(error, account.baseUrl), at };
  }
}

function describeCheckFailure(error: unknown, baseUrl: string): string {
  if (error instanceof PrintServiceUnauthorizedError) {
    const said = error.serviceError?.message ?? '';
    if (/unknown access token|token/i.test(said) && !/signature/i.test(said)) {
      return `The print service does not know this access token (HTTP 401: ${said}). Check the token you copied from the print service.`;
    }
    if (/signature/i.test(said)) {
      return `The print service knows the token but the signature did not match (HTTP 401: ${said}). The secret key is wrong, or this machine's clock is off.`;
    }
    return `The print service refused the token or the secret (HTTP 401${said ? `: ${said}` : ''}). Check both, and this machine's clock.`;
  }
  if (error instanceof PrintServiceForbiddenError) {
    return `The print service accepted the credentials but this account may not list orders (HTTP 403${error.serviceError ? `: ${error.serviceError.message}` : ''}).`;
  }
  if (error instanceof PrintServiceNetworkError || error instanceof PrintServiceTimeoutError) {
    return `The print service at ${baseUrl} could not be reached: ${error.message} Check the base URL.`;
  }
  if (error instanceof PrintServiceError) return `The print service answered with an error: ${error.message}`;
  return `The check failed: ${(error as Error).message}`;
}
