/**
 * One class per way a call to the print service can fail. `retryable` tells a job whether trying again later can
 * succeed; `outcomeUnknown` tells `submitOrder` that the service may have stored a create despite the failure.
 */

export type PrintOperation =
  | 'validate'
  | 'create'
  | 'list'
  | 'get'
  | 'getBySourceId'
  | 'cancel'
  | 'updateShipping';

export interface ServiceErrorBody {
  name: string;
  code: number;
  message: string;
  validations?: { path: string; message: string }[];
}

export abstract class PrintServiceError extends Error {
  abstract readonly retryable: boolean;
  /** True when the request may have reached the service and been acted on (matters for create). */
  readonly outcomeUnknown: boolean = false;
  readonly status?: number;

  protected constructor(
    readonly operation: PrintOperation,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** 400 (and other 4xx without a class of their own): the request is wrong and sending it again will not help. */
export class PrintServiceBadRequestError extends PrintServiceError {
  readonly retryable = false;
  constructor(
    operation: PrintOperation,
    override readonly status: number,
    readonly serviceError: ServiceErrorBody,
  ) {
    super(
      operation,
      `The print service refused ${operation} (HTTP ${status}, ${serviceError.name} ${serviceError.code}): ${serviceError.message}` +
        (serviceError.validations?.length
          ? '\n' + serviceError.validations.map((v) => `  - ${v.path}: ${v.message}`).join('\n')
          : ''),
    );
  }
}

export class PrintServiceUnauthorizedError extends PrintServiceError {
  readonly retryable = false;
  override readonly status = 401;
  constructor(
    operation: PrintOperation,
    readonly serviceError?: ServiceErrorBody,
  ) {
    super(
      operation,
      `The print service did not accept our credentials for ${operation} (HTTP 401${serviceError ? `: ${serviceError.message}` : ''}). ` +
        `Check PRINT_API_TOKEN and PRINT_API_SECRET, and that this machine's clock is right.`,
    );
  }
}

export class PrintServiceForbiddenError extends PrintServiceError {
  readonly retryable = false;
  override readonly status = 403;
  constructor(
    operation: PrintOperation,
    readonly serviceError?: ServiceErrorBody,
  ) {
    super(
      operation,
      `The print service says this account may not ${operation} that resource (HTTP 403${serviceError ? `: ${serviceError.message}` : ''}). ` +
        `Check PRINT_SOURCE_ACCOUNT and that the order belongs to this account.`,
    );
  }
}

export class PrintServiceNotFoundError extends PrintServiceError {
  readonly retryable = false;
  override readonly status = 404;
  constructor(
    operation: PrintOperation,
    readonly resource: string,
    readonly serviceError?: ServiceErrorBody,
  ) {
    super(operation, `The print service has no ${resource} (HTTP 404${serviceError ? `: ${serviceError.message}` : ''}).`);
  }
}

/** 5xx or 429: the service is overloaded, scaling up or down for maintenance; try again after a pause. */
export class PrintServiceUnavailableError extends PrintServiceError {
  readonly retryable = true;
  override readonly outcomeUnknown: boolean;
  constructor(
    operation: PrintOperation,
    override readonly status: number,
    readonly retryAfterMs: number | undefined,
    readonly serviceError?: ServiceErrorBody,
  ) {
    super(
      operation,
      `The print service is unavailable for ${operation} (HTTP ${status}${serviceError ? `: ${serviceError.message}` : ''}): a temporary failure, worth trying again.`,
    );
    // 503 and 429 are refusals before any work; a 500 may come after the order was stored.
    this.outcomeUnknown = status !== 503 && status !== 429;
  }
}

/** The connection failed or was dropped. */
export class PrintServiceNetworkError extends PrintServiceError {
  readonly retryable = true;
  override readonly outcomeUnknown: boolean;
  constructor(
    operation: PrintOperation,
    readonly url: string,
    cause: unknown,
    /** False only when the request is known not to have been sent (connection refused, DNS failure). */
    requestMaybeSent: boolean,
  ) {
    super(
      operation,
      `Could not reach the print service at ${url} for ${operation}: ${describeCause(cause)}.`,
      { cause },
    );
    this.outcomeUnknown = requestMaybeSent;
  }
}

export class PrintServiceTimeoutError extends PrintServiceError {
  readonly retryable = true;
  override readonly outcomeUnknown: boolean;
  constructor(
    operation: PrintOperation,
    readonly url: string,
    readonly timeoutMs: number,
    readonly phase: 'connect' | 'response',
  ) {
    super(
      operation,
      `The print service at ${url} did not ${phase === 'connect' ? 'accept a connection' : 'answer'} within ${timeoutMs} ms for ${operation}.`,
    );
    // A request that never got a connection was never sent.
    this.outcomeUnknown = phase === 'response';
  }
}

/** The service answered, but not with what the interface promises (bad JSON, a missing field). */
export class PrintServiceProtocolError extends PrintServiceError {
  readonly retryable = false;
  constructor(
    operation: PrintOperation,
    override readonly status: number,
    detail: string,
  ) {
    super(operation, `The print service's answer to ${operation} (HTTP ${status}) was not understood: ${detail}`);
  }
}

/**
 * The caller asked for something that cannot be sent (a malformed id, a page number of 0, an order that fails the
 * schema). Nothing reached the service.
 */
export class PrintRequestInvalidError extends PrintServiceError {
  readonly retryable = false;
  constructor(
    operation: PrintOperation,
    message: string,
    readonly problems: readonly { path: string; message: string }[] = [],
  ) {
    super(
      operation,
      message + (problems.length ? '\n' + problems.map((p) => `  - ${p.path ? `${p.path}: ` : ''}${p.message}`).join('\n') : ''),
    );
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === 'string' ? `${code} (${cause.message})` : cause.message;
  }
  return String(cause);
}
