import type { LookupAddress, LookupOptions } from 'node:dns';
import { SignedTransport } from './client-transport.js';
import {
  type PrintOperation,
  PrintRequestInvalidError,
  PrintServiceBadRequestError,
  type PrintServiceError,
  PrintServiceNotFoundError,
} from './errors.js';
import { backoffDelay, DEFAULT_RETRY, type RetryPolicy, withRetry } from './retry-policy.js';
import {
  type Acknowledgement,
  acknowledgementSchema,
  type OrderList,
  orderListSchema,
  type OrderRecord,
  orderRecordSchema,
  type ShipmentResource,
  shipmentResourceSchema,
  validateAnswerSchema,
} from './schema.js';

export interface PrintServiceClientOptions {
  baseUrl: string;
  /** Where creates go; defaults to baseUrl. */
  ordersUrl?: string;
  token: string;
  secret: string;
  /** The source account name used in the cancel path. */
  sourceAccount?: string;
  connectTimeoutMs?: number;
  responseTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** For tests: the clock used for `x-service-date`. */
  now?: () => Date;
  /** For tests: a random source for jitter (0 ≤ r < 1). */
  random?: () => number;
  /** Keep-alive connections per origin. */
  connections?: number;
  /** The address lookup of the client's sockets (a merchant's account refuses private addresses: src/shops/account-address.ts). */
  lookup?: (hostname: string, options: LookupOptions, callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => void;
  /** Called before each retry of a read or PUT; for logs and metrics. */
  onRetry?: (info: { operation: PrintOperation; attempt: number; delayMs: number; error: PrintServiceError }) => void;
  /** Called after every HTTP exchange (each attempt); `status` is the HTTP status, or `network` / `timeout`. */
  onCall?: (info: { operation: PrintOperation; status: string; durationMs: number }) => void;
}

const OBJECT_ID = /^[0-9a-f]{24}$/i;

/**
 * A typed, signed client for every operation of the print service. Reads and PUTs retry transient failures inside
 * the client; a create is sent exactly once per call, because only `submitOrder` knows how to make a repeated
 * create safe.
 */
export class PrintServiceClient {
  private readonly baseUrl: URL;
  private readonly ordersUrl: URL;
  private readonly transport: SignedTransport;
  private readonly retry: RetryPolicy;
  private readonly random: () => number;

  constructor(private readonly options: PrintServiceClientOptions) {
    this.baseUrl = parseBase(options.baseUrl, 'baseUrl');
    this.ordersUrl = parseBase(options.ordersUrl ?? options.baseUrl, 'ordersUrl');
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.random = options.random ?? Math.random;
    this.transport = new SignedTransport(options, {
      connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
      responseTimeoutMs: options.responseTimeoutMs ?? 30_000,
      now: options.now ?? (() => new Date()),
    });
  }

  get sourceAccount(): string | undefined {
    return this.options.sourceAccount;
  }

  /** Asks whether an order is suitable for submission. An invalid order throws `PrintServiceBadRequestError`. */
  async validate(order: unknown): Promise<{ valid: true }> {
    return this.withRetry('validate', () =>
      this.transport.call('validate', 'POST', this.transport.target(this.baseUrl, ['api', 'order', 'validate']), order, validateAnswerSchema),
    );
  }

  /**
   * Sends one create. Never retried here: when the outcome is unknown (`error.outcomeUnknown`), the caller must ask
   * get-by-source-id before sending it again. Use `submitOrder` for that.
   */
  async create(order: unknown): Promise<Acknowledgement> {
    return this.transport.call('create', 'POST', this.transport.target(this.ordersUrl, ['api', 'order']), order, acknowledgementSchema);
  }

  async list(query: { page?: number; pagesize?: number } = {}): Promise<OrderList> {
    const target = this.transport.target(this.baseUrl, ['api', 'order']);
    const search = new URLSearchParams();
    for (const key of ['page', 'pagesize'] as const) {
      const value = query[key];
      if (value === undefined) continue;
      if (!Number.isInteger(value) || value < 1) {
        throw new PrintRequestInvalidError('list', `${key} must be a whole number of 1 or more, got ${String(value)}.`);
      }
      search.set(key, String(value));
    }
    // The query string is sent, not signed (docs/print-service-api.md).
    const withQuery = search.size > 0 ? { ...target, path: `${target.path}?${search}` } : target;
    return this.withRetry('list', () => this.transport.call('list', 'GET', withQuery, undefined, orderListSchema));
  }

  async get(id: string): Promise<OrderRecord> {
    if (!OBJECT_ID.test(id)) {
      throw new PrintRequestInvalidError('get', `An order id is 24 hexadecimal characters; "${id}" is not one.`);
    }
    const url = this.transport.target(this.baseUrl, ['api', 'order', id]);
    return this.withRetry('get', () => this.transport.call('get', 'GET', url, undefined, orderRecordSchema, `order ${id}`));
  }

  async getBySourceId(sourceOrderId: string): Promise<OrderRecord> {
    requireText('getBySourceId', 'sourceOrderId', sourceOrderId);
    const url = this.transport.target(this.baseUrl, ['api', 'order', 'bysourceid', sourceOrderId]);
    return this.withRetry('getBySourceId', () =>
      this.transport.call('getBySourceId', 'GET', url, undefined, orderRecordSchema, `order with sourceOrderId "${sourceOrderId}"`),
    );
  }

  /** Like getBySourceId, but "not there" is an answer rather than an error. */
  async findBySourceId(sourceOrderId: string): Promise<OrderRecord | undefined> {
    try {
      return await this.getBySourceId(sourceOrderId);
    } catch (error) {
      if (error instanceof PrintServiceNotFoundError) return undefined;
      throw error;
    }
  }

  /**
   * Cancels an order. A retried cancel whose first attempt went through gets `OrderAlreadyCancelled`; that is our own
   * cancellation, so the cancelled order is fetched and returned instead of an error.
   */
  async cancel(sourceOrderId: string, sourceAccountName = this.options.sourceAccount): Promise<OrderRecord> {
    requireText('cancel', 'sourceOrderId', sourceOrderId);
    if (!sourceAccountName) {
      throw new PrintRequestInvalidError(
        'cancel',
        'Cancelling needs the source account name (PRINT_SOURCE_ACCOUNT), which is part of the cancel path.',
      );
    }
    const url = this.transport.target(this.baseUrl, ['api', 'order', sourceAccountName, sourceOrderId, 'cancel']);
    let attempts = 0;
    try {
      return await this.withRetry('cancel', () => {
        attempts += 1;
        return this.transport.call('cancel', 'PUT', url, undefined, orderRecordSchema, `order with sourceOrderId "${sourceOrderId}"`);
      });
    } catch (error) {
      if (attempts > 1 && isServiceError(error, 'OrderAlreadyCancelled')) return this.getBySourceId(sourceOrderId);
      throw error;
    }
  }

  async updateShipping(sourceOrderId: string, shipmentIndex: number, body: unknown): Promise<ShipmentResource> {
    requireText('updateShipping', 'sourceOrderId', sourceOrderId);
    if (!Number.isInteger(shipmentIndex) || shipmentIndex < 0) {
      throw new PrintRequestInvalidError(
        'updateShipping',
        `A shipment index is a whole number of 0 or more, got ${String(shipmentIndex)}.`,
      );
    }
    const url = this.transport.target(this.baseUrl, ['api', 'shipment', sourceOrderId, String(shipmentIndex), 'shipping']);
    return this.withRetry('updateShipping', () =>
      this.transport.call(
        'updateShipping',
        'PUT',
        url,
        body,
        shipmentResourceSchema,
        `shipment ${shipmentIndex} of order "${sourceOrderId}"`,
      ),
    );
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  /** Exposed for submitOrder's backoff, so both use one policy. */
  backoffDelay(attempt: number, error?: PrintServiceError): number {
    return backoffDelay(this.retry, attempt, this.random, error);
  }

  get retryPolicy(): RetryPolicy {
    return this.retry;
  }

  private withRetry<T>(operation: PrintOperation, send: () => Promise<T>): Promise<T> {
    return withRetry(this.retry, operation, send, (attempt, error) => this.backoffDelay(attempt, error), this.options.onRetry);
  }
}

function parseBase(value: string, name: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new PrintRequestInvalidError('get', `The print service ${name} "${value}" is not a URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new PrintRequestInvalidError('get', `The print service ${name} must be http(s), got "${value}".`);
  }
  url.search = '';
  url.hash = '';
  return url;
}

function requireText(operation: PrintOperation, name: string, value: string): void {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new PrintRequestInvalidError(operation, `${name} must be a non-empty string.`);
  }
}

export function isServiceError(error: unknown, name: string): error is PrintServiceBadRequestError {
  return error instanceof PrintServiceBadRequestError && error.serviceError.name === name;
}
