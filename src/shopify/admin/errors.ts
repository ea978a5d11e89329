/**
 * One class per way an Admin API call can fail. `retryable` tells a job whether trying again later can succeed;
 * `retryAfterMs`, when known, how long to wait first.
 */

export interface ShopifyUserErrorDetail {
  field: string[] | null;
  message: string;
  code?: string | null;
}

export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

export abstract class ShopifyAdminError extends Error {
  abstract readonly retryable: boolean;
  /** How long to wait before trying again, when Shopify said or the throttle status tells. */
  readonly retryAfterMs: number | undefined;

  protected constructor(
    /** The app's name for the call, e.g. `createFulfillment`. */
    readonly operation: string,
    readonly shop: string,
    message: string,
    options?: { cause?: unknown; retryAfterMs?: number | undefined },
  ) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = new.target.name;
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/** Shopify refused the mutation's input (`userErrors`): the same call will be refused again. */
export class ShopifyUserError extends ShopifyAdminError {
  readonly retryable = false;
  constructor(
    operation: string,
    shop: string,
    /** The record the call was about (an order or fulfillment gid). */
    readonly subject: string,
    readonly userErrors: ShopifyUserErrorDetail[],
  ) {
    super(
      operation,
      shop,
      `Shopify refused ${operation} for ${subject} on ${shop}: ` +
        userErrors.map((e) => (e.field && e.field.length > 0 ? `${e.field.join('.')}: ${e.message}` : e.message)).join('; '),
    );
  }
}

/** The shop's query-cost bucket cannot pay for the call yet; it can after `retryAfterMs`. */
export class ShopifyThrottledError extends ShopifyAdminError {
  readonly retryable = true;
  constructor(
    operation: string,
    shop: string,
    readonly requestedQueryCost: number,
    readonly throttleStatus: ThrottleStatus | undefined,
  ) {
    const wait = throttleWaitMs(requestedQueryCost, throttleStatus);
    super(operation, shop, `Shopify throttled ${operation} on ${shop} (cost ${requestedQueryCost}); retry in ${wait} ms.`, {
      retryAfterMs: wait,
    });
  }
}

/**
 * The call was not sent: the shop's bucket, as the pacer estimates it, cannot pay for it within the wait a worker
 * slot may spend (`maxInlineWaitMs`). A job gives its slot back and runs again after `retryAfterMs` (queue/fairness.ts).
 */
export class ShopifyBudgetWaitError extends ShopifyAdminError {
  readonly retryable = true;
  constructor(operation: string, shop: string, waitMs: number, options?: { cause?: unknown }) {
    super(operation, shop, `${shop}'s Admin API budget cannot pay for ${operation} for about ${waitMs} ms; the job waits outside its worker slot.`, {
      retryAfterMs: waitMs,
      cause: options?.cause,
    });
  }
}

/** HTTP 429 or 5xx, or no answer at all: Shopify may answer later. */
export class ShopifyUnavailableError extends ShopifyAdminError {
  readonly retryable = true;
  /**
   * True when Shopify may have carried out the call despite the failure (500, 502, 504, a dropped connection);
   * 429 and 503 are refusals before any work. A non-idempotent mutation must re-read before it is sent again.
   */
  readonly outcomeUnknown: boolean;
  constructor(
    operation: string,
    shop: string,
    /** HTTP status, or undefined when the connection failed. */
    readonly status: number | undefined,
    detail: string,
    retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(
      operation,
      shop,
      `Shopify was unavailable for ${operation} on ${shop} (${status === undefined ? 'no answer' : `HTTP ${status}`}): ${detail}`,
      { ...options, retryAfterMs },
    );
    this.outcomeUnknown = status !== 429 && status !== 503;
  }
}

/** HTTP 401 (or 403): the shop's access token is wrong or revoked; the shop must reinstall or re-register it. */
export class ShopifyUnauthorizedError extends ShopifyAdminError {
  readonly retryable = false;
  constructor(
    operation: string,
    shop: string,
    readonly status: number,
  ) {
    super(
      operation,
      shop,
      `Shopify did not accept the access token of ${shop} for ${operation} (HTTP ${status}). ` +
        `Reinstall the app on the shop, or register a new token with \`print-bridge shops add\`.`,
    );
  }
}

/**
 * Shopify answered, but not with what the operation expects: GraphQL errors other than throttling (a query the API
 * version does not know, a cost above the single-query limit), or data of the wrong shape. Retrying will not help.
 */
export class ShopifyProtocolError extends ShopifyAdminError {
  readonly retryable = false;
  /** The HTTP status when Shopify answered one the other errors do not cover (404, 402, 423, ...). */
  readonly httpStatus: number | undefined;
  /** The codes of the GraphQL errors Shopify answered with (ACCESS_DENIED, …); none when the answer did not parse. */
  readonly graphqlCodes: readonly string[];
  constructor(operation: string, shop: string, detail: string, options?: { cause?: unknown; httpStatus?: number; graphqlCodes?: readonly string[] }) {
    super(operation, shop, `Shopify's answer to ${operation} on ${shop} was not usable: ${detail}`, options);
    this.httpStatus = options?.httpStatus;
    this.graphqlCodes = options?.graphqlCodes ?? [];
  }

  /**
   * Whether what went wrong is this one answer's content (a record print-bridge cannot read), not the store (a status,
   * a refused scope) or Shopify's side: only then is it about one order alone.
   */
  get unreadableAnswer(): boolean {
    return this.httpStatus === undefined && this.graphqlCodes.length === 0;
  }
}

/**
 * How long until the bucket holds `requestedCost` points: (requested − available) / restoreRate seconds, at least a
 * little so a retry never spins.
 */
export function throttleWaitMs(requestedCost: number, status: ThrottleStatus | undefined, minimumMs = 50): number {
  if (!status || status.restoreRate <= 0) return 1000;
  const missing = Math.max(0, requestedCost - status.currentlyAvailable);
  return Math.max(minimumMs, Math.ceil((missing / status.restoreRate) * 1000));
}
