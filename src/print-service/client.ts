import type { LookupAddress, LookupOptions } from 'node:dns';
import { setTimeout as sleep } from 'node:timers/promises';
import { errors as undiciErrors, Pool, type Dispatcher } from 'undici';
import type { z } from 'zod';
import {
  type PrintOperation,
  PrintRequestInvalidError,
  PrintServiceBadRequestError,
  type PrintServiceError,
  PrintServiceForbiddenError,
  PrintServiceNetworkError,
  PrintServiceNotFoundError,
  PrintServiceProtocolError,
  PrintServiceTimeoutError,
  PrintServiceUnauthorizedError,
  PrintServiceUnavailableError,
  type ServiceErrorBody,
} from './errors.js';
import {
  type Acknowledgement,
  acknowledgementSchema,
  errorBodySchema,
  type OrderList,
  orderListSchema,
  type OrderRecord,
  orderRecordSchema,
  type ShipmentResource,
  shipmentResourceSchema,
  validateAnswerSchema,
} from './schema.js';
import { RequestSigner } from './signing.js';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** No retry starts once this much time has passed since the first attempt. */
  maxTotalMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 8_000, maxTotalMs: 30_000 };

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
/** Where a request goes: the origin's connection pool, the path as sent (encoded) and as signed (decoded). */
interface Target {
  origin: string;
  path: string;
  signedPath: string;
}

export class PrintServiceClient {
  private readonly baseUrl: URL;
  private readonly ordersUrl: URL;
  /** One keep-alive pool per origin (the base and orders URLs may differ): no per-request origin lookup. */
  private readonly pools = new Map<string, Pool>();
  private readonly signer: RequestSigner;
  private readonly retry: RetryPolicy;
  private readonly connectTimeoutMs: number;
  private readonly responseTimeoutMs: number;
  private readonly now: () => Date;
  private readonly random: () => number;

  constructor(private readonly options: PrintServiceClientOptions) {
    this.baseUrl = parseBase(options.baseUrl, 'baseUrl');
    this.ordersUrl = parseBase(options.ordersUrl ?? options.baseUrl, 'ordersUrl');
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
    this.responseTimeoutMs = options.responseTimeoutMs ?? 30_000;
    this.now = options.now ?? (() => new Date());
    this.random = options.random ?? Math.random;
    this.signer = new RequestSigner(options.token, options.secret);
  }

  get sourceAccount(): string | undefined {
    return this.options.sourceAccount;
  }

  /** Asks whether an order is suitable for submission. An invalid order throws `PrintServiceBadRequestError`. */
  async validate(order: unknown): Promise<{ valid: true }> {
    return this.withRetry('validate', () =>
      this.call('validate', 'POST', this.url(this.baseUrl, ['api', 'order', 'validate']), order, validateAnswerSchema),
    );
  }

  /**
   * Sends one create. Never retried here: when the outcome is unknown (`error.outcomeUnknown`), the caller must ask
   * get-by-source-id before sending it again. Use `submitOrder` for that.
   */
  async create(order: unknown): Promise<Acknowledgement> {
    return this.call('create', 'POST', this.url(this.ordersUrl, ['api', 'order']), order, acknowledgementSchema);
  }

  async list(query: { page?: number; pagesize?: number } = {}): Promise<OrderList> {
    const target = this.url(this.baseUrl, ['api', 'order']);
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
    return this.withRetry('list', () => this.call('list', 'GET', withQuery, undefined, orderListSchema));
  }

  async get(id: string): Promise<OrderRecord> {
    if (!OBJECT_ID.test(id)) {
      throw new PrintRequestInvalidError('get', `An order id is 24 hexadecimal characters; "${id}" is not one.`);
    }
    const url = this.url(this.baseUrl, ['api', 'order', id]);
    return this.withRetry('get', () => this.call('get', 'GET', url, undefined, orderRecordSchema, `order ${id}`));
  }

  async getBySourceId(sourceOrderId: string): Promise<OrderRecord> {
    requireText('getBySourceId', 'sourceOrderId', sourceOrderId);
    const url = this.url(this.baseUrl, ['api', 'order', 'bysourceid', sourceOrderId]);
    return this.withRetry('getBySourceId', () =>
      this.call('getBySourceId', 'GET', url, undefined, orderRecordSchema, `order with sourceOrderId "${sourceOrderId}"`),
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
    const url = this.url(this.baseUrl, ['api', 'order', sourceAccountName, sourceOrderId, 'cancel']);
    let attempts = 0;
    try {
      return await this.withRetry('cancel', () => {
        attempts += 1;
        return this.call('cancel', 'PUT', url, undefined, orderRecordSchema, `order with sourceOrderId "${sourceOrderId}"`);
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
    const url = this.url(this.baseUrl, ['api', 'shipment', sourceOrderId, String(shipmentIndex), 'shipping']);
    return this.withRetry('updateShipping', () =>
      this.call(
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
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
    this.pools.clear();
  }

  /** Exposed for submitOrder's backoff, so both use one policy. */
  backoffDelay(attempt: number, error?: PrintServiceError): number {
    return backoffDelay(this.retry, attempt, this.random, error);
  }

  get retryPolicy(): RetryPolicy {
    return this.retry;
  }

  private url(base: URL, segments: readonly string[]): Target {
    const prefix = base.pathname.replace(/\/+$/, '');
    const path = `${prefix}/${segments.map(encodeURIComponent).join('/')}`;
    return { origin: base.origin, path, signedPath: safeDecode(path) };
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.options.connections ?? 64,
        keepAliveTimeout: 10_000,
        keepAliveMaxTimeout: 60_000,
        connect: { timeout: this.connectTimeoutMs, ...(this.options.lookup ? { lookup: this.options.lookup } : {}) },
        headersTimeout: this.responseTimeoutMs,
        bodyTimeout: this.responseTimeoutMs,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  private async withRetry<T>(operation: PrintOperation, send: () => Promise<T>): Promise<T> {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return await send();
      } catch (error) {
        if (!isRetryable(error) || attempt >= this.retry.maxAttempts) throw error;
        const delayMs = this.backoffDelay(attempt, error);
        if (Date.now() - started + delayMs > this.retry.maxTotalMs) throw error;
        this.options.onRetry?.({ operation, attempt, delayMs, error });
        await sleep(delayMs);
      }
    }
  }

  private async call<S extends z.ZodType>(
    operation: PrintOperation,
    method: 'GET' | 'POST' | 'PUT',
    target: Target,
    body: unknown,
    schema: S,
    resource = 'resource',
  ): Promise<z.output<S>> {
    const signed = this.signer.sign(method, target.signedPath, this.now());
    const headers: Record<string, string> = {
      'x-service-date': signed['x-service-date'],
      'x-service-authorization': signed['x-service-authorization'],
      accept: 'application/json',
    };
    let payload: string | undefined;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }

    let response: Dispatcher.ResponseData;
    let text: string;
    const started = performance.now();
    try {
      response = await this.pool(target.origin).request({ path: target.path, method, headers, body: payload });
      text = await response.body.text();
    } catch (error) {
      const failure = this.transportError(operation, target, error);
      this.options.onCall?.({ operation, status: failure instanceof PrintServiceTimeoutError ? 'timeout' : 'network', durationMs: performance.now() - started });
      throw failure;
    }
    this.options.onCall?.({ operation, status: String(response.statusCode), durationMs: performance.now() - started });

    const status = response.statusCode;
    const json = parseJson(text);
    if (status >= 200 && status < 300) {
      if (json === undefined) throw new PrintServiceProtocolError(operation, status, `the body is not JSON: ${snippet(text)}`);
      const parsed = schema.safeParse(unwrapOrder(json));
      if (!parsed.success) {
        const detail = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
        throw new PrintServiceProtocolError(operation, status, detail);
      }
      return parsed.data;
    }

    const serviceError = toServiceError(status, json, text);
    if (status === 401) throw new PrintServiceUnauthorizedError(operation, serviceError);
    if (status === 403) throw new PrintServiceForbiddenError(operation, serviceError);
    if (status === 404) throw new PrintServiceNotFoundError(operation, resource, serviceError);
    if (status === 429 || status >= 500) {
      throw new PrintServiceUnavailableError(operation, status, retryAfterMs(response.headers['retry-after'], this.now()), serviceError);
    }
    throw new PrintServiceBadRequestError(operation, status, serviceError);
  }

  private transportError(operation: PrintOperation, target: Target, error: unknown): PrintServiceError {
    const where = target.origin + target.path.split('?')[0];
    if (error instanceof undiciErrors.ConnectTimeoutError) {
      return new PrintServiceTimeoutError(operation, where, this.connectTimeoutMs, 'connect');
    }
    if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
      return new PrintServiceTimeoutError(operation, where, this.responseTimeoutMs, 'response');
    }
    const code = errorCode(error);
    // Refused or unresolvable: the request never left this machine.
    const neverSent = code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH';
    return new PrintServiceNetworkError(operation, where, error, !neverSent);
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

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function requireText(operation: PrintOperation, name: string, value: string): void {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new PrintRequestInvalidError(operation, `${name} must be a non-empty string.`);
  }
}

function parseJson(text: string): unknown {
  // Empty or blank is "no JSON" (JSON.parse throws on both); no copy of the text is made to find out.
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A real service wraps records as `{order: {...}, success: true}`; the emulator answers the record itself. */
function unwrapOrder(json: unknown): unknown {
  if (json && typeof json === 'object' && !Array.isArray(json) && 'order' in json && !('_id' in json)) {
    const inner = (json as { order: unknown }).order;
    if (inner && typeof inner === 'object') return inner;
  }
  return json;
}

function toServiceError(status: number, json: unknown, text: string): ServiceErrorBody {
  const parsed = errorBodySchema.safeParse(json);
  if (parsed.success) return parsed.data.error;
  return { name: `HTTP ${status}`, code: status, message: text.trim() ? snippet(text) : '(no body)' };
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && !code.startsWith('UND_ERR')) return code;
    current = (current as { cause?: unknown }).cause;
  }
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Seconds or an HTTP date, as RFC 9110 allows; undefined when absent or unreadable. */
export function retryAfterMs(header: string | string[] | undefined, now: Date): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now.getTime());
}

export function isRetryable(error: unknown): error is PrintServiceError {
  return typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === true;
}

/** Exponential backoff with full jitter; a Retry-After from the service is a floor. */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number, error?: PrintServiceError): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  const jittered = Math.round(ceiling / 2 + random() * (ceiling / 2));
  const floor = error instanceof PrintServiceUnavailableError ? (error.retryAfterMs ?? 0) : 0;
  return Math.max(jittered, floor);
}

export function isServiceError(error: unknown, name: string): error is PrintServiceBadRequestError {
  return error instanceof PrintServiceBadRequestError && error.serviceError.name === name;
}
