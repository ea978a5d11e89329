import type { Logger } from 'pino';
import type { PrintServiceClient } from '../print-service/client.js';
import type { AssignedFulfillmentOrders, RequestRejection, CreateFulfillmentInput, FulfillmentSummary, OrderForFulfillment, OrderStanding, StatusChange, StatusShown, TrackingInfo } from './shopify-data.js';
import type { HoldPolicy } from './shopify-holds.js';
import type { PrintOrder } from '../print-service/schema.js';
import type { FulfillmentOrderChange } from './fulfillment-order-changed.js';
import type { ShipmentLineItem } from '../orders/model.js';
import type { HistoryEntry, Mutation, OrderLink } from '../orders/model.js';
import type { OrderStatus } from '../orders/status.js';
import type { PrintAccountsPort } from '../shops/print-accounts.js';
import type { AppHoldsPort } from './app-holds.js';

/**
 * What the use cases need from the outside, as narrow interfaces: tests pass in-memory fakes, the app passes the
 * real mapping registry, print-service client, Admin API and queues.
 */

export interface SubmitSettings {
  on: 'orders/create' | 'orders/paid';
  holdMinutes: number;
  validate: boolean;
  /** Which of Shopify's holds and risk recommendations keep an order from the printer; absent: every hold, and CANCEL. */
  holdPolicy?: HoldPolicy;
}

export interface PlannedShipment {
  index: number;
  lineItems: ShipmentLineItem[];
}

export type MapOutcome =
  | {
      ok: true;
      order: PrintOrder;
      /** Which Shopify line items, and how many of each, travel in each print shipment. */
      shipments: PlannedShipment[];
      /** Line items left out (ignored or unmapped with `unmapped: skip`), with why. */
      leftOut: { lineItemId: string; reason: string }[];
      /** How a problem names each print item (`order.orderData.items[i]`): its Shopify line item. */
      itemSubjects?: string[];
    }
  | {
      ok: false;
      /** The mapping engine's problem kind; `empty` means nothing of the order is for the printer. */
      problems: { message: string; subject?: string; mappingKind?: string }[];
    };

export interface MappingPort {
  /** The submit settings of the mapping file serving this shop; undefined when no file serves it. */
  settingsFor(shop: string): SubmitSettings | undefined;
  /**
   * Maps a Shopify order (its webhook body's text) with the store's mapping, where the store's templates cannot hold
   * this process (a render thread stopped at the budget).
   */
  map(shop: string, body: string): Promise<MapOutcome>;
}

/**
 * The effects the pipeline has in Shopify, called by the Shopify queue's jobs (use cases ask for them through the
 * Scheduler). Every call must be idempotent (tags are a set, notes are de-duplicated).
 */
export interface ShopifyEffects extends StatusShowing, ShopOrders {
  appendNote(shop: string, orderId: string, line: string): Promise<void>;
}

/**
 * Which orders a store has. A webhook's HMAC covers its body, not the shop header: a genuine body of one store re-sent
 * with another store's domain is refused by asking that store's Admin API before anything reaches the printer.
 */
/** Whose orders a print-id lookup prefers: one store's, or those sent with the operator's account. */
export type PrintIdScope = { shop: string } | 'env-account';

export interface ShopOrders {
  /**
   * The order's standing in Shopify (its risk recommendation, its fulfillment orders' holds); null when the shop has
   * no such order. Throws the Admin API's typed (retryable) errors.
   */
  orderInShop(shop: string, orderId: string): Promise<OrderStanding | null>;
  /** The line items (LineItem gids) on one of the shop's fulfillment orders; null when it has no such one. */
  fulfillmentOrderLineItemIds(shop: string, fulfillmentOrderId: string): Promise<string[] | null>;
  /**
   * Whether Shopify shows the order cancelled; null when it cannot say: the shop has no such order (or no longer shows
   * it to the app), or the app has no working token there. Throws the Admin API's retryable errors.
   */
  orderCancelled(shop: string, orderId: string): Promise<boolean | null>;
}

/**
 * How the app shows an order's print status in Shopify (its print-bridge tags and the `$app:print_status` metafield):
 * read what the order shows, then write only what differs, in one request (shopify-sync.ts).
 */
export interface StatusShowing {
  /** Null when the shop has no such order (deleted). */
  orderShows(shop: string, orderId: string): Promise<StatusShown | null>;
  showStatus(shop: string, orderId: string, change: StatusChange): Promise<void>;
}

/**
 * What applying print events needs of Shopify: the Admin API operations, addressed by shop. The app builds it on
 * ShopifyAdminApi (`adminApiFulfillmentPort` in src/adapters/fulfillment-port.ts). Errors are the Admin API's typed
 * errors, which carry `retryable` and `retryAfterMs`.
 */
export interface ShopifyFulfillmentPort extends StatusShowing {
  getOrderForFulfillment(shop: string, orderId: string): Promise<OrderForFulfillment | null>;
  /** The order gid a fulfillment order belongs to (null when the shop has none such): fulfillment-order webhooks name only it. */
  getFulfillmentOrderOrder(shop: string, fulfillmentOrderId: string): Promise<{ orderId: string; status: string } | null>;
  createFulfillment(shop: string, input: CreateFulfillmentInput): Promise<FulfillmentSummary>;
  updateFulfillmentTracking(shop: string, fulfillmentId: string, tracking: TrackingInfo, notifyCustomer: boolean): Promise<FulfillmentSummary>;
  /** Adds a line to the order note unless the note already has it. */
  appendOrderNote(shop: string, orderId: string, line: string): Promise<void>;
  /** Releases exactly these holds of a fulfillment order (print-bridge's own, before it fulfils). */
  releaseHolds(shop: string, fulfillmentOrderId: string, holdIds: readonly string[]): Promise<void>;
}

/**
 * The mapping's `tracking` table: print carrier code → the tracking company and URL Shopify shows the customer. The
 * URL is a store's template, rendered within the render budget off this thread; `problem` says why there is none
 * when the template could not give one (over its budget, an error).
 */
export type TrackingLookup = (shop: string, carrierCode: string, trackingNumber: string) => TrackingFound | Promise<TrackingFound>;

export interface TrackingFound {
  company?: string;
  url?: string;
  problem?: string;
}

/** The company the mapping names for a printer's carrier code (a table lookup: nothing of a store's is run). */
export type CarrierNames = (shop: string, carrierCode: string) => string | undefined;

/** What a redaction erases of one store's job records (src/queue/job-records.ts). */
export interface JobMentions {
  /** The store whose records these are. */
  shop: string;
  /** Every record of the store (shop/redact); otherwise those that mention `ids` or quote `texts`. */
  everyRecord?: boolean;
  /** Order gids, sourceOrderIds, print ids: matched as whole words inside the store's records. */
  ids?: readonly string[];
  /** Free text a result or an error may quote (a problem's message), matched anywhere inside the store's records. */
  texts?: readonly string[];
  /** The print service's references of the store's orders (sourceOrderId, `_id`): the operator account's postbacks. */
  printReferences?: readonly string[];
  /** The store's webhook deliveries (X-Shopify-Webhook-Id) whose jobs' results may name the order. */
  webhookIds?: readonly string[];
}

export interface Scheduler {
  /** A submit job after `delayMs`; the same (shop, order, generation) twice is one job. */
  submit(shop: string, orderId: string, delayMs: number, generation?: number): Promise<void>;
  cancel(shop: string, orderId: string): Promise<void>;
  amendShipping(shop: string, orderId: string, generation: string): Promise<void>;
  /**
   * Brings what the Shopify order shows (tags, metafield) in line with the link, soon, on the Shopify queue (paced by
   * Shopify's limits). `settling`: the status is one the printer usually moves on from soon (isSettling), so it is
   * shown only if nothing newer comes within a minute; a later request of the order brings the sync forward again.
   */
  syncShopify(shop: string, orderId: string, options?: { settling?: boolean }): Promise<void>;
  /** Appends a line to the Shopify order's note, once, on the Shopify queue. */
  noteShopify(shop: string, orderId: string, line: string): Promise<void>;
  /** Acts on a fulfillment-order webhook soon, on the Shopify queue (it needs the Admin API to find the order). */
  fulfillmentOrderChanged(shop: string, change: FulfillmentOrderChange, webhookId: string): Promise<void>;
  /** Reads the store's pending fulfillment and cancellation requests soon, on the Shopify queue (service mode); repeats while one waits are one. */
  takeFulfillmentRequests(shop: string, cause: string): Promise<void>;
  /** Sends the order's pending answers to Shopify's requests soon, on the Shopify queue. */
  answerFulfillmentRequests(shop: string, orderId: string): Promise<void>;
  /**
   * Starts the store's workflows of a Flow trigger for one event of the order, soon, on the Shopify queue; the same
   * (shop, order, handle, event) again is the same job (src/flow/announce.ts).
   */
  flowTrigger(shop: string, orderId: string, handle: string, event: string): Promise<void>;
  /** Drops the shop's jobs that have not run yet (uninstall). Returns how many. */
  dropPendingForShop(shop: string): Promise<number>;
  /**
   * Redaction, within one store's own job records only (src/queue/job-records.ts): every record of the store and its
   * event-stream entries (`everyRecord`, a store's redaction), or those that mention `ids` or quote `texts` (a
   * customer's: finished ones removed, those still to run keep running with their error texts blanked). Returns how
   * many records.
   */
  eraseJobRecords(mentions: JobMentions): Promise<number>;
  /**
   * Has the shop's waiting and held orders looked at again soon (`*`: every shop's), because what kept them back may
   * have changed: the store was connected, a mapping serving it appeared or changed. Repeats while one waits are one.
   */
  reexamine(shop: string, cause: string): Promise<void>;
}

/**
 * The app's Shopify Flow triggers in a store (src/flow/): which ones the store uses in an enabled workflow (Flow's
 * lifecycle callbacks), and starting those workflows. A trigger is only ever sent to a store that uses it.
 */
export interface FlowTriggersPort {
  /** The handles the store uses, each with when Flow said so. */
  enabledOf(shop: string): Promise<Map<string, Date>>;
  /** `flowTriggerReceive` in the store; throws the Admin API's typed errors (a refusal is a ShopifyUserError). */
  send(shop: string, handle: string, payload: Record<string, string>): Promise<void>;
  /** Forgets which triggers the store uses (uninstall, shop/redact); returns how many. */
  forgetShop(shop: string): Promise<number>;
}

/** Whether the app can act for a store in Shopify: it holds an Admin API access token (OAuth or `shops add`). */
export interface ConnectionsPort {
  isConnected(shop: string): Promise<boolean>;
}

export type PrintServicePort = Pick<
  PrintServiceClient,
  'validate' | 'create' | 'findBySourceId' | 'getBySourceId' | 'cancel' | 'updateShipping' | 'backoffDelay' | 'retryPolicy'
>;

export interface SessionsPort {
  deleteShopSessions(shop: string): Promise<number>;
  /** Records the scopes Shopify now grants the app on the store; false when the app holds no session there. */
  updateScopes?(shop: string, scopes: readonly string[]): Promise<boolean>;
}

/** Resolves the hosts the printer will fetch from, just before an order is sent (src/mapping/artwork-hosts.ts). */
export interface ArtworkHostsPort {
  /** Problems for hosts that do not exist or resolve to a non-public address; throws a retryable error when DNS cannot answer now. */
  problems(order: PrintOrder, itemSubjects?: readonly string[]): Promise<{ subject?: string; message: string }[]>;
}

/**
 * The orders' records as the use cases need them: the link of each Shopify order to its print order, its history, the
 * Shopify body it was mapped from, the per-account sourceOrderId claims and the short leases that keep two workers off
 * one order. The system of record is PostgreSQL (`PostgresOrderStore`, src/storage/order-store.ts); use-case tests may
 * pass the in-memory one (test/helpers/memory-order-store.ts). Every write is a compare-and-set on the order's version.
 */
export interface OrderStore {
  get(shop: string, orderId: string): Promise<OrderLink | undefined>;
  /** A new record for an order seen for the first time. */
  blank(shop: string, orderId: string): OrderLink;
  /**
   * Reads, lets `mutate` decide, and writes only if nobody wrote in between; otherwise reads again. `mutate` returns
   * undefined to change nothing. `known`: the link as the caller last read or wrote it, tried before a read; `null`:
   * the caller's read found no such order (the first write is then tried as the insert).
   */
  update(
    shop: string,
    orderId: string,
    mutate: (current: OrderLink | undefined) => Mutation | undefined,
    known?: OrderLink | null,
  ): Promise<{ link: OrderLink | undefined; changed: boolean }>;
  /** Newest first. */
  history(shop: string, orderId: string, limit?: number): Promise<HistoryEntry[]>;
  /** A history line without a change of the link. */
  note(shop: string, orderId: string, entry: Omit<HistoryEntry, 'at'>): Promise<void>;
  /** Replaces every history detail of the order with `marker` (customers/redact); returns how many. */
  redactHistory(shop: string, orderId: string, marker: string): Promise<number>;
  /** Claims a sourceOrderId for one order on the print account it goes out with (`namespace`, claimNamespace). */
  claimSourceOrderId(
    shop: string,
    orderId: string,
    sourceOrderId: string,
    namespace?: string,
  ): Promise<{ ok: true } | { ok: false; owner: { shop: string; orderId: string } }>;
  /** The order a sourceOrderId was claimed for, among the claims `scope` (a shop) may reach; none: the operator's account. */
  findBySourceOrderId(sourceOrderId: string, scope?: string): Promise<OrderLink | undefined>;
  /**
   * The order sent under this print `_id`, the oldest first; with `scope`, the oldest of that scope's when it has one
   * (a store's own, or `env-account`: those sent with the operator's account). Print ids are the services' own: two
   * stores on two accounts (one a service of the store's choosing) may hold the same one, and a postback must reach
   * the order its token may act on, not be refused for another store's, however many others share the id.
   */
  findByPrintOrderId(printOrderId: string, scope?: PrintIdScope): Promise<OrderLink | undefined>;
  indexPrintOrderId(link: OrderLink): Promise<void>;
  listOfShop(shop: string, options?: { status?: OrderStatus; offset?: number; limit?: number }): Promise<{ total: number; links: OrderLink[] }>;
  /** Orders in `status` since before `beforeMs`, oldest first. */
  listQuietSince(status: OrderStatus, beforeMs: number, limit: number, offset?: number): Promise<OrderLink[]>;
  /** Keeps the order's Shopify body unless a newer one is kept; false when it was not newer. */
  saveOrderBody(shop: string, orderId: string, updatedAt: string, rawBody: string): Promise<boolean>;
  /**
   * saveOrderBody and a read of the order's link in one step (issue 27: one statement less per webhook); the link is
   * as it was before this call, `null` when there is none (a first guess for `update`).
   */
  saveOrderBodyAndRead(shop: string, orderId: string, updatedAt: string, rawBody: string): Promise<{ newest: boolean; link: OrderLink | null }>;
  getOrderBody(shop: string, orderId: string): Promise<{ updatedAt: string; body: string } | undefined>;
  deleteOrderBody(shop: string, orderId: string): Promise<void>;
  /** The order, its body and its history, gone (a customer's or a shop's redaction). */
  deleteOrder(shop: string, orderId: string): Promise<void>;
  orderIdsOfShop(shop: string): Promise<string[]>;
  /** Marks the store as sending orders (its first order webhook), kept until forgotten (uninstall). */
  markShopActive(shop: string): Promise<void>;
  shopActiveSince(shop: string): Promise<string | undefined>;
  forgetShopActive(shop: string): Promise<void>;
  /** Removes what the store knows of the shop itself (shop/redact). */
  removeShop(shop: string): Promise<void>;
  saveDataRequest(shop: string, requestId: string, report: unknown): Promise<void>;
  redactDataRequests(shop: string, orderIds?: readonly string[]): Promise<number>;
  /** A lease on one order for `ttlMs`: its token, or undefined when another worker holds it. */
  tryLease(shop: string, orderId: string, ttlMs: number): Promise<string | undefined>;
  renewLease(shop: string, orderId: string, token: string, ttlMs: number): Promise<boolean>;
  releaseLease(shop: string, orderId: string, token: string): Promise<void>;
  /** Webhook bodies between intake and worker. */
  webhookBodies(): WebhookBodiesPort;
  /** Postbacks kept because they could not be read. */
  unreadablePostbacks(): { removeMentioning(references: readonly string[]): Promise<number> };
}

/** The bodies of webhooks between intake and worker (Redis, src/storage/webhook-bodies.ts). */
export interface WebhookBodiesPort {
  keep(shop: string, webhookId: string, body: string): Promise<void>;
  get(shop: string, webhookId: string): Promise<string | undefined>;
  drop(shop: string, webhookId: string): Promise<void>;
  dropShop(shop: string): Promise<number>;
  dropOrders(shop: string, orderIds: readonly string[]): Promise<number>;
}

/**
 * Fulfillment-service mode (docs/fulfillment.md): the store's service location and Shopify's requests to it. The app
 * builds it on ShopifyAdminApi and the stores' settings (src/adapters/fulfillment-requests.ts).
 */
export interface FulfillmentRequestsPort {
  /** The app's location on the store in service mode; undefined in merchant mode. */
  serviceLocation(shop: string): Promise<string | undefined>;
  pending(shop: string, kind: 'FULFILLMENT_REQUESTED' | 'CANCELLATION_REQUESTED', locationId: string): Promise<AssignedFulfillmentOrders>;
  accept(shop: string, fulfillmentOrderId: string, message: string, estimatedShippedAt?: string): Promise<void>;
  reject(shop: string, fulfillmentOrderId: string, rejection: RequestRejection): Promise<void>;
  acceptCancellation(shop: string, fulfillmentOrderId: string, message: string): Promise<void>;
  rejectCancellation(shop: string, fulfillmentOrderId: string, message: string): Promise<void>;
  /** The order in its webhook body's shape, for a request that came before (or without) the order's webhook. */
  orderBody(shop: string, orderId: string): Promise<string | undefined>;
  /** The app was uninstalled: Shopify removed its service, so the store is merchant-managed again. */
  forgetService(shop: string): Promise<void>;
}

export interface BridgeDeps {
  store: OrderStore;
  mapping: MappingPort;
  /** An order whose artwork host resolves inside a network is held, never sent (DESIGN section 9). */
  artworkHosts: ArtworkHostsPort;
  /** Which print-service account (and mode) serves each store, and the client an order already sent uses. */
  printAccounts: PrintAccountsPort;
  shopify: ShopifyEffects;
  scheduler: Scheduler;
  /** Fulfillment-service mode; absent: every store is merchant-managed. */
  fulfillmentRequests?: FulfillmentRequestsPort;
  sessions: SessionsPort;
  /** Orders of a store that is not connected are never sent to the printer (DESIGN section 9). */
  connections: ConnectionsPort;
  /**
   * print-bridge's own waits shown in Shopify as a hold of the app's (app-holds.ts), with each sync of an order;
   * absent: no holds are placed.
   */
  appHolds?: AppHoldsPort;
  /** Shopify Flow's triggers; absent, no trigger is sent. */
  flowTriggers?: FlowTriggersPort;
  /** Stores' own print set-up, removed by shop/redact. */
  shopSettings?: { redactShop(shop: string): Promise<void> };
  logger: Logger;
  clock: () => Date;
  /**
   * An order due now (no hold window) is submitted by the job that found it due instead of a submit job of its own
   * (issue 27). Off where every submission must pass the orders queue's limiter (PRINT_API_RATE_LIMIT) and in
   * tests that take the submit job step by step.
   */
  submitDueOrdersInline?: boolean;
  /**
   * How soon an order waiting for Shopify's hold or risk recommendation is read again when no webhook says it changed
   * (SHOPIFY_HOLD_RECHECK_SECONDS; each further look waits as long as the order has waited, up to six hours).
   */
  holdRecheckMs?: number;
}

export const TAGS = {
  submitted: 'print-bridge:submitted',
  needsMapping: 'print-bridge:needs-mapping',
  error: 'print-bridge:error',
  cancelled: 'print-bridge:cancelled',
  cancelRefused: 'print-bridge:cancel-refused',
  received: 'print-bridge:received',
  printReady: 'print-bridge:print-ready',
  partiallyShipped: 'print-bridge:partially-shipped',
  shipped: 'print-bridge:shipped',
  notPrinted: 'print-bridge:not-printed',
} as const;
