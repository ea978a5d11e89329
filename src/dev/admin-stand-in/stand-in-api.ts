import type { ThrottleStatus } from './cost.js';
import type { FaultPlan, FaultScope, InjectedFailure } from './faults.js';
import type { FlowActionInput, FlowAnswer, FlowLifecycleInput, FlowTriggerCall } from './flow.js';
import type { FulfillmentPing } from './fulfillment-pings.js';
import type { RequestInput } from './fulfillment-requests.js';
import type { FulfillmentServiceRecord } from './fulfillment-services.js';
import type { ManualFulfillmentInput } from './fulfillments.js';
import type { MoveInput } from './moves.js';
import type { HoldInput, ReleaseInput, ScheduleInput, SentWebhook, WebhookTarget } from './holds.js';
import type { StandInApp } from './oauth.js';
import type { FulfillmentRecord, OrderSnapshot, Result, RiskRecommendation } from './records.js';
import type { RequestLogEntry } from './request-log.js';
import type { StandInStore } from './store.js';

/** What a test or the demo gets from `startAdminStandIn` (server.ts): its options, and the stand-in it drives. */

export interface AdminStandInOptions {
  port?: number;
  host?: string;
  /** shop domain → Admin API access token. More can be added with `registerShop`. */
  accessTokens?: Record<string, string>;
  /** The one Admin API version answered (others get 404, as a retired version would); see `apiVersions`. */
  apiVersion?: string;
  /** Admin API versions answered; any `YYYY-MM` or `unstable` when neither this nor `apiVersion` is given. */
  apiVersions?: readonly string[];
  bucket?: { maximumAvailable?: number; restoreRate?: number };
  /** How many GraphQL calls the request log keeps. */
  requestLogSize?: number;
  /** Where to deliver the fulfillment-order webhooks (holds, scheduled orders); none are sent without it. */
  webhooks?: WebhookTarget;
  /** The app whose session tokens `POST /admin/oauth/access_token` exchanges (see oauth.ts); also `configureApp`. */
  app?: StandInApp;
}

export interface AdminStandIn {
  readonly origin: string;
  readonly port: number;
  readonly store: StandInStore;
  readonly faults: FaultPlan;
  registerShop(shop: string, accessToken: string): void;
  /** The app (client id and secret) the OAuth endpoint answers for: token exchange and refresh. */
  configureApp(app: StandInApp): void;
  /** The access token the stand-in accepts for a shop now (after an exchange or refresh, the newest). */
  accessTokenOf(shop: string): string | undefined;
  /**
   * What uninstalling the app does in Shopify, before the app/uninstalled webhook is sent: the app's access and
   * refresh tokens stop working (calls answer 401, as Shopify's do) and its fulfillment services are deleted. A
   * re-install issues a new token (token exchange or `registerShop`).
   */
  uninstallApp(shop: string): void;
  /** Token exchanges (of session tokens) answered with a token so far. */
  tokenExchanges(): number;
  /** Non-expiring offline tokens exchanged for expiring ones so far (Shopify's migration grant). */
  tokenMigrations(): number;
  /** Whether the stand-in issued this access token as an expiring one (with a refresh token). */
  isExpiringToken(accessToken: string): boolean;
  /**
   * The merchant approves the install at Shopify's `/admin/oauth/authorize` address the app redirected to (its
   * `https://<shop>/admin/oauth/authorize?...`): the app's `redirect_uri` with the signed `code`, as Shopify sends the
   * browser back. Also answered over HTTP (`GET /admin/oauth/authorize`, 302).
   */
  approveInstall(authorizeUrl: string): string;
  /** Seeds an order from a webhook body (REST JSON); see seed.ts. */
  seedOrder(shop: string, body: unknown, options?: { replace?: boolean }): { order: OrderSnapshot; created: boolean };
  getOrder(shop: string, id: string): OrderSnapshot | undefined;
  listOrders(shop: string): OrderSnapshot[];
  /** A merchant fulfilling by hand in Shopify admin. */
  fulfillByHand(shop: string, orderId: string, input?: ManualFulfillmentInput): Result<FulfillmentRecord>;
  cancelOrder(shop: string, orderId: string): Result<OrderSnapshot>;
  /** Places a fulfillment hold (status ON_HOLD) and sends `fulfillment_orders/placed_on_hold`. */
  placeHold(shop: string, orderId: string, input?: HoldInput): Result<OrderSnapshot>;
  /** A fraud analysis (Shopify's or an app's) recommends what to do with the order (`Order.risk.recommendation`). */
  setRisk(shop: string, orderId: string, recommendation: RiskRecommendation): Result<OrderSnapshot>;
  /** Releases holds; a fulfillment order without any left sends `fulfillment_orders/hold_released`. */
  releaseHold(shop: string, orderId: string, input?: ReleaseInput): Result<OrderSnapshot>;
  /** Makes a fulfillment order SCHEDULED until `fulfillAt`; then OPEN with `fulfillment_orders/scheduled_fulfillment_order_ready`. */
  scheduleFulfillmentOrder(shop: string, orderId: string, input: ScheduleInput): Result<OrderSnapshot>;
  /** The merchant's "Change location": the fulfillment order goes to another location, with `fulfillment_orders/moved`. */
  moveFulfillmentOrder(shop: string, orderId: string, input: MoveInput): Result<OrderSnapshot>;
  /** Opens the scheduled fulfillment orders that are due now (it also happens by itself at `fulfillAt`). */
  openDueFulfillmentOrders(): number;
  /** Where webhooks go; `paused` keeps them from being delivered (logged all the same), as a lost delivery. */
  configureWebhooks(target: WebhookTarget | undefined, options?: { paused?: boolean }): void;
  pauseWebhooks(paused: boolean): void;
  sentWebhooks(): SentWebhook[];
  /** Resolves when every webhook delivery started so far has been answered. */
  webhooksSettled(): Promise<void>;
  /** The app's fulfillment services on a shop (`fulfillmentServiceCreate` makes them), with the SKUs their locations stock. */
  listFulfillmentServices(shop: string): FulfillmentServiceRecord[];
  /** Which SKUs a service's location stocks (the whole list): orders created afterwards send those lines there. */
  stockFulfillmentService(shop: string, serviceId: string, skus: string[]): Result<FulfillmentServiceRecord>;
  /** Whether a new order's service fulfillment orders are requested at once (true, the default) or wait for `requestFulfillment`. */
  setAutomaticFulfillmentRequests(on: boolean): void;
  /** The merchant's "Request fulfillment": SUBMITTED, then a FULFILLMENT_REQUEST ping to the service. */
  requestFulfillment(shop: string, input: RequestInput): Result<OrderSnapshot>;
  /** The merchant asks to cancel an accepted one: CANCELLATION_REQUESTED, then a CANCELLATION_REQUEST ping. */
  requestCancellation(shop: string, input: RequestInput): Result<OrderSnapshot>;
  /** The callback pings sent to fulfillment services (the last 1000), with the service's HTTP status. */
  fulfillmentPings(): FulfillmentPing[];
  /** The next `n` pings are lost (logged, not delivered). */
  dropNextFulfillmentPings(n: number): void;
  /** Resolves when every ping started so far has been answered. */
  fulfillmentPingsSettled(): Promise<void>;
  /** What an uninstall of the app does to its fulfillment services: deletes them (their open fulfillment orders go to the primary location). */
  removeFulfillmentServices(shop: string): void;
  /** The next `n` GraphQL calls (of `scope.shop` only, when given) answer THROTTLED. */
  throttleNext(n: number, scope?: FaultScope): void;
  setForcedThrottle(on: boolean): void;
  /** The next `n` GraphQL and token calls (of `options.shop` only, when given) answer this status or drop. */
  failNext(n: number, failure: InjectedFailure, options?: { retryAfterSeconds?: number } & FaultScope): void;
  /** Empties a shop's bucket down to `level` points, as a burst of other apps' calls would. */
  drainBucket(shop: string, level?: number): void;
  throttleStatus(shop: string): ThrottleStatus;
  requests(): RequestLogEntry[];
  /** The app's `flowTriggerReceive` calls of a shop (every shop's without one), oldest first, refused ones included. */
  flowTriggerCalls(shop?: string): FlowTriggerCall[];
  /** Flow's lifecycle callback of a trigger to the app (`POST /flow/lifecycle`), signed with the app's secret. */
  sendFlowLifecycle(input: FlowLifecycleInput): Promise<FlowAnswer>;
  /** A Flow action's run to the app (`POST /flow/actions/:action`), signed with the app's secret unless told otherwise. */
  sendFlowAction(input: FlowActionInput): Promise<FlowAnswer>;
  /** Forgets orders, fulfillment services, pings, requests, buckets and injected faults; with `shops`, registered shops too. */
  reset(options?: { shops?: boolean }): void;
  close(): Promise<void>;
}
