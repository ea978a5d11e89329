import type { HoldPolicy } from '../bridge/shopify-holds.js';

/**
 * A store's own print set-up (issue 16): which print-service account its orders go to, whether they are created
 * (live) or only validated (test), and which mapping serves it. A store with nothing of its own is on the operator's
 * account from the environment, live, served by the mapping files: the single-account set-up, unchanged.
 */

export type PrintMode = 'test' | 'live';

/**
 * How the store's printed items reach the printer (docs/fulfillment.md): `merchant`, the app fulfils the merchant's own
 * fulfillment orders from the mapping (the default); `service`, the app is a Shopify fulfillment service and prints what
 * Shopify requests of its location.
 */
export type FulfillmentMode = 'merchant' | 'service';

/** The fulfillment service the app registered on a store, and its location. */
export interface FulfillmentServiceRecord {
  id: string;
  locationId: string;
  callbackUrl: string;
  createdAt: string;
}

/** A store's print-service account. `token` and `secret` are encrypted at rest and never shown again. */
export interface PrintAccount {
  baseUrl: string;
  /** Where creates go (`{orders_url}`); defaults to baseUrl. */
  ordersUrl?: string;
  token: string;
  secret: string;
  /** Source account name, for the cancel path. */
  sourceAccount: string;
  /** Destination (printer) account name; the mapping's `destination` wins when it names one. */
  destination?: string;
  connectedAt: string;
  /**
   * Who entered it: a merchant's (in the app) may reach public addresses only; the operator's (command line) is trusted.
   * Absent: a merchant's.
   */
  setBy?: 'merchant' | 'operator';
}

/** What a page may see of an account. */
export type PrintAccountView = Omit<PrintAccount, 'token' | 'secret'>;

/** The answer to the last "Test connection", in plain words. */
export interface AccountCheck {
  ok: boolean;
  message: string;
  at: string;
}

export interface ShopSetup {
  shop: string;
  mode: PrintMode;
  fulfillment: FulfillmentMode;
  /** In service mode: the location of the app's fulfillment service (what Shopify requests of). */
  fulfillmentLocation?: string;
  printAccount?: PrintAccountView;
  accountCheck?: AccountCheck;
  testValidatedAt?: string;
  /** Whether print-bridge's own waits show in Shopify as a fulfillment hold of the app's (`shops holds`); absent: on. */
  appHolds?: boolean;
  /** The store's current mapping version; undefined: the mapping files serve it. */
  mappingVersion?: number;
  /**
   * Which of Shopify's holds and risk recommendations keep the store's orders from the printer, as chosen on the
   * Settings page (or `shops hold-policy`); undefined: not chosen there, the mapping's keys decide.
   */
  holdPolicy?: HoldPolicy;
  /** Moves on every change (0: no row). */
  revision: number;
}

export interface MappingVersion {
  shop: string;
  version: number;
  yaml: string;
  note?: string;
  /** `operator`, or `<shop> user <id>` for a merchant in the app. */
  author: string;
  createdAt: string;
}

/** A version's author when the operator stored it (the command line, or the operator's admin session). */
export const OPERATOR_AUTHOR = 'operator';

/** Which account an order went to the printer with: its later calls (cancel, confirm, reconcile) use the same. */
export type AccountRef = 'env' | 'own';
