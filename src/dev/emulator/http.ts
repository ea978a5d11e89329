import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SchemaProblem } from '../../print-service/schema.js';

/** An answer in the service's error shape, `{success:false, error:{message, name, code}}` (docs/print-service-api.md). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorName: string,
    readonly code: number,
    message: string,
    readonly validations?: SchemaProblem[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody() {
    return {
      success: false as const,
      error: {
        message: this.message,
        name: this.errorName,
        code: this.code,
        ...(this.validations ? { validations: this.validations } : {}),
      },
    };
  }
}

export const apiErrors = {
  badRequest: (message: string) => new ApiError(400, 'BadRequest', 4000, message),
  validation: (message: string, validations: SchemaProblem[]) =>
    new ApiError(400, 'ValidationError', 4001, message, validations),
  invalidQuery: (message: string) => new ApiError(400, 'InvalidQuery', 4002, message),
  invalidOrderId: (message: string) => new ApiError(400, 'InvalidOrderId', 4003, message),
  alreadyCancelled: (message: string) => new ApiError(400, 'OrderAlreadyCancelled', 4004, message),
  notCancellable: (message: string) => new ApiError(400, 'OrderNotCancellable', 4005, message),
  notAmendable: (message: string) => new ApiError(400, 'ShipmentNotAmendable', 4006, message),
  invalidShipmentIndex: (message: string) => new ApiError(400, 'InvalidShipmentIndex', 4007, message),
  unauthorized: (message: string) => new ApiError(401, 'AuthenticationError', 4010, message),
  forbidden: (message: string) => new ApiError(403, 'Forbidden', 4030, message),
  orderNotFound: (message: string) => new ApiError(404, 'OrderNotFound', 4040, message),
  shipmentNotFound: (message: string) => new ApiError(404, 'ShipmentNotFound', 4040, message),
  routeNotFound: (message: string) => new ApiError(404, 'RouteNotFound', 4040, message),
  invalidTransition: (message: string) => new ApiError(409, 'InvalidTransition', 4090, message),
  payloadTooLarge: (message: string) => new ApiError(413, 'PayloadTooLarge', 4130, message),
  internal: (message: string) => new ApiError(500, 'InternalError', 5000, message),
  unavailable: (message: string, retryAfterSeconds: number) =>
    new ApiError(503, 'ServiceUnavailable', 5030, message, undefined, { 'retry-after': String(retryAfterSeconds) }),
};

export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendError(res: ServerResponse, error: ApiError): void {
  sendJson(res, error.status, error.toBody(), error.headers);
}

/** Reads the whole body, refusing more than `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(apiErrors.payloadTooLarge(`the body is larger than ${limit} bytes`));
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function parseJson(body: Buffer): unknown {
  const text = body.toString('utf8');
  if (text.trim() === '') throw apiErrors.badRequest('the body is empty; send a JSON document');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw apiErrors.badRequest(`the body is not JSON: ${(error as Error).message}`);
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
