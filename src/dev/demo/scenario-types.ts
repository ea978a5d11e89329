import type { OrderLink } from '../../orders/model.js';
import type { OrderStatus } from '../../orders/status.js';
import type { OrderBody } from './orders.js';

/**
 * What a demo scenario is: its order, the script that plays it, the actions that script may take (the runner binds
 * them to the order, scenario-actions.ts) and the end state it must reach (checked by verify.ts). The scenarios
 * themselves are in scenarios.ts.
 */

export type ExpectedStatus = Extract<OrderStatus, 'shipped' | 'held' | 'cancelled'>;

export interface Expectation {
  /** The order's status in the app's order store. */
  status: ExpectedStatus;
  /** The print-bridge tag the order must carry in Shopify. */
  tag: string;
  /** What the print service must have: the order shipped, cancelled, or never received at all. */
  printer: 'shipped' | 'cancelled' | 'nothing';
  /** Fulfillments in Shopify, each with a tracking number of its own that the printer reported. */
  fulfillments: number;
  /** An artwork path that must be among the print order's component paths (taken from a line item property). */
  artworkPath?: string;
  /** The address every print shipment must have at the printer (after a change in Shopify). */
  shipTo?: { address1: string; postcode: string };
  /** Text the order's problems must mention (a held order's readable reason). */
  problemMentions?: string;
  /**
   * Text print-bridge's own fulfillment hold (handle `print-bridge`) must show in Shopify on the order's fulfillment
   * order: the app's wait, where merchants and their other apps look.
   */
  appHoldNotes?: string;
  /** A problem kind the order must have waited with on its way (its history shows the wait), e.g. `no-mapping`. */
  waitedFor?: string;
  /**
   * Fulfillment-service mode: Shopify requests the printed lines of print-bridge's location, which accepts, prints and
   * fulfils that fulfillment order only; the merchant's own fulfillment order stays open and untouched.
   */
  service?: {
    /** The print order's items, print SKU × quantity: the requested lines and nothing else. */
    printerItems: string[];
    /** The store's SKU × quantity on the merchant's own fulfillment order. */
    merchantLines: string[];
  };
}

/** What a scenario's script can do; the runner provides it, bound to one order. */
export interface ScenarioActions {
  /** Sends a signed webhook for this order to the app; throws unless the app answers 2xx. */
  send(topic: 'orders/create' | 'orders/paid' | 'orders/updated' | 'orders/cancelled', body: OrderBody): Promise<void>;
  /** Waits (polling) until `check` holds; throws with `what` when the run's time is up. */
  waitUntil(what: string, check: () => boolean | Promise<boolean>): Promise<void>;
  /** The order's link in the app's order store. */
  appLink(): Promise<OrderLink | undefined>;
  /** The printer takes the order in and keeps it in its queue (its processing clock stops) until released. */
  holdAtPrinter(): Promise<void>;
  releaseAtPrinter(): Promise<void>;
  /** The shipping addresses of the order's shipments at the printer. */
  printerShipTo(): { address1?: string; postcode?: string }[];
  /** The merchant cancels the order in Shopify admin (the stand-in cancels its fulfillment orders). */
  cancelInShopify(): void;
  /** Shopify holds the order's fulfillment order (a fraud check, an address to confirm): it cannot be fulfilled. */
  holdInShopify(reason: 'HIGH_RISK_OF_FRAUD' | 'INCORRECT_ADDRESS' | 'AWAITING_PAYMENT' | 'OTHER', notes?: string): void;
  /** The merchant releases the hold; Shopify sends `fulfillment_orders/hold_released` to the app. */
  releaseHoldInShopify(): void;
  /** The order's fulfillment orders in Shopify: at print-bridge's location (service mode) or the merchant's own. */
  fulfillmentOrdersInShopify(): { at: 'print-bridge' | 'merchant'; status: string; requestStatus: string; answers: string[] }[];
  /** A line shown under the live table, e.g. "address changed in Shopify". */
  note(text: string): void;
  /** The store's merchant in the app inside the Shopify admin (session tokens, the app's own pages and forms). */
  merchant: MerchantActions;
  /** The merchant saves a mapping file (the app's registry picks it up as it changes). */
  writeMapping(fileName: string, yaml: string): void;
  sleep(ms: number): Promise<void>;
  now(): Date;
}

export interface MerchantActions {
  /** Opens the app from the Shopify admin: the first visit installs it (token exchange). */
  openApp(): Promise<void>;
  /** Sends one of the app's forms as its page script does (bearer session token); throws with the app's refusal. */
  submit(path: string, fields: Record<string, string>): Promise<void>;
  /** A page of the app, as the merchant sees it. */
  page(path: string): Promise<string>;
  /** The merchant's print account as their print service shows it (the demo's second emulator account). */
  printAccount(): Record<string, string>;
  /** The merchant sets up their print service's triggers for their account, posting to `url`. */
  setUpTriggers(url: string): void;
}

export interface DemoScenario {
  /** Short name for tables and logs. */
  name: string;
  /** The store the order belongs to; default the demo store. */
  shop?: string;
  /** One line: what happens to this order. */
  story: string;
  order: OrderBody;
  sourceOrderId: string;
  expected: Expectation;
  /** The script: what the demo does to the order (it is passed in, so a test may change the order). */
  play(actions: ScenarioActions, context: { order: OrderBody; holdMs: number }): Promise<void>;
}
