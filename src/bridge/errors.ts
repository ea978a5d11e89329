/** Failures of the pipeline's own use cases, each saying whether a retry can help. */

export class MappingProblemsError extends Error {
  readonly retryable = false;
  constructor(
    readonly orderName: string,
    readonly problems: readonly { message: string; subject?: string }[],
  ) {
    super(
      `Order ${orderName} cannot be mapped to a print order; it is held until the mapping is fixed and it is resubmitted:\n` +
        problems.map((p) => `  - ${p.subject ? `${p.subject}: ` : ''}${p.message}`).join('\n'),
    );
    this.name = 'MappingProblemsError';
  }
}

export class OrderDataMissingError extends Error {
  readonly retryable = false;
  constructor(shop: string, orderId: string, what: string) {
    super(`Order ${orderId} of ${shop}: ${what}. Nothing was sent; resend the order's webhook or resubmit it from the admin page.`);
    this.name = 'OrderDataMissingError';
  }
}

/** The order is in a state where this step must wait for another to finish (e.g. a cancel while a create is in flight). */
export class OrderBusyError extends Error {
  readonly retryable = true;
  constructor(
    message: string,
    /** When the order is held only for a moment (a lease), a short wait instead of the job's exponential backoff. */
    readonly retryInMs?: number,
  ) {
    super(message);
    this.name = 'OrderBusyError';
  }
}

export class PrintRefusedError extends Error {
  readonly retryable = false;
  constructor(message: string) {
    super(message);
    this.name = 'PrintRefusedError';
  }
}

/**
 * Shopify does not show the order in the store yet, moments after it was placed: asked again shortly. An older order
 * the store does not have is refused instead (`submitShopifyOrder`).
 */
export class OrderNotInShopYetError extends Error {
  readonly retryable = true;
  readonly retryInMs = 15_000;
  constructor(shop: string, orderName: string) {
    super(`Order ${orderName} is not (yet) in ${shop}'s Shopify admin; asking again before anything is printed.`);
    this.name = 'OrderNotInShopYetError';
  }
}

/** The store's Admin API cannot show the order (older than Shopify lets the app see): held, never printed unconfirmed. */
export class OrderUnconfirmedError extends Error {
  readonly retryable = false;
  constructor(
    readonly orderName: string,
    reason: string,
  ) {
    super(reason);
    this.name = 'OrderUnconfirmedError';
  }
}

/** What a failure says about trying again, read from the fields the errors here (and the clients') carry. */
export interface RetryHint {
  retryable: boolean;
  /** A wait the failing side asked for (Retry-After, Shopify's bucket refill). */
  retryAfterMs?: number;
  /**
   * The failure is a moment's contention (another job holds the order): try again after about this long instead of
   * the exponential backoff, for the first SHORT_RETRIES attempts (src/queue/retry.ts), then back off as usual so that a long hold does
   * not use up every attempt in a minute.
   */
  retryInMs?: number;
}

export function retryHintOf(error: unknown): RetryHint {
  if (error && typeof error === 'object') {
    const e = error as { retryable?: unknown; retryAfterMs?: unknown; retryInMs?: unknown };
    return {
      // Errors we did not classify (a bug, a Redis hiccup) are retried: losing an order is worse than a retry.
      retryable: e.retryable !== false,
      retryAfterMs: typeof e.retryAfterMs === 'number' ? e.retryAfterMs : undefined,
      retryInMs: typeof e.retryInMs === 'number' ? e.retryInMs : undefined,
    };
  }
  return { retryable: true };
}
