import { errors as undiciErrors, Pool, type Dispatcher } from 'undici';
import type { z } from 'zod';
import type { PrintServiceClientOptions } from './client.js';
import {
  type PrintOperation,
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
import { retryAfterMs } from './retry-policy.js';
import { errorBodySchema, quickCheckOf } from './schema.js';
import { RequestSigner } from './signing.js';

/** Where a request goes: the origin's connection pool, the path as sent (encoded) and as signed (decoded). */
export interface Target {
  origin: string;
  path: string;
  signedPath: string;
}

/** The client's options the transport reads (when it reads them), and the settings resolved from them. */
export type TransportOptions = Pick<PrintServiceClientOptions, 'token' | 'secret' | 'connections' | 'lookup' | 'onCall'>;

export interface TransportSettings {
  connectTimeoutMs: number;
  responseTimeoutMs: number;
  /** The clock used for `x-service-date` and to read a Retry-After date. */
  now: () => Date;
}

/**
 * One signed HTTP exchange with the print service and its answer read: a record checked against its schema, or the
 * error the status and body call for. No retries here (retry-policy.ts).
 */
export class SignedTransport {
  /** One keep-alive pool per origin (the base and orders URLs may differ): no per-request origin lookup. */
  private readonly pools = new Map<string, Pool>();
  private readonly signer: RequestSigner;
  private readonly connectTimeoutMs: number;
  private readonly responseTimeoutMs: number;
  private readonly now: () => Date;

  constructor(
    private readonly options: TransportOptions,
    settings: TransportSettings,
  ) {
    this.connectTimeoutMs = settings.connectTimeoutMs;
    this.responseTimeoutMs = settings.responseTimeoutMs;
    this.now = settings.now;
    this.signer = new RequestSigner(options.token, options.secret);
  }

  target(base: URL, segments: readonly string[]): Target {
    const prefix = base.pathname.replace(/\/+$/, '');
    const path = `${prefix}/${segments.map(encodeURIComponent).join('/')}`;
    return { origin: base.origin, path, signedPath: safeDecode(path) };
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
    this.pools.clear();
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

  async call<S extends z.ZodType>(
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
      // A success status whose body says it failed is not a success: nothing of it is taken (for a create, the outcome is
      // unknown and is settled by asking get-by-source-id).
      if (json && typeof json === 'object' && (json as { success?: unknown }).success === false) {
        throw new PrintServiceProtocolError(operation, status, `the answer says it did not succeed: ${snippet(text)}`);
      }
      const answer = unwrapOrder(json);
      // A large record is checked without being copied when it passes (schema.ts, "Quick checks"); zod decides otherwise.
      if (quickCheckOf(schema)?.(answer)) return answer as z.output<S>;
      const parsed = schema.safeParse(answer);
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

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
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
