import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { normalizeShop } from './store.js';

/** The stand-in's HTTP plumbing: which shop a call is for, reading JSON bodies, answering, and refusing with a status. */

/** The header that names the shop when calls arrive at the stand-in's own host (see routing.ts in ../admin). */
export const SHOP_DOMAIN_HEADER = 'x-shopify-shop-domain';
export const ACCESS_TOKEN_HEADER = 'x-shopify-access-token';

const MAX_BODY_BYTES = 5 * 1024 * 1024;

/** Thrown by a handler: answered with its status and body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(typeof body === 'string' ? body : JSON.stringify(body));
  }
}

export function shopOf(req: IncomingMessage): string | null {
  const named = req.headers[SHOP_DOMAIN_HEADER];
  if (typeof named === 'string' && named.trim() !== '') return normalizeShop(named);
  // Calls that reach the stand-in under the shop's own name (a hosts-file entry, a proxy) carry it in Host.
  const host = req.headers.host?.replace(/:\d+$/, '');
  if (host && /[a-z]/i.test(host) && host !== 'localhost') return normalizeShop(host);
  return null;
}

/** Accepts a gid, or the numeric tail of an Order gid (handy in a URL). */
export function orderGid(id: string): string {
  return /^\d+$/.test(id) ? `gid://shopify/Order/${id}` : id;
}

/** The body Shopify answers an injected failure (faults.ts) with. */
export function failureMessage(status: number): string {
  if (status === 429) return 'Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.';
  if (status === 503) return 'Service Unavailable';
  if (status >= 500) return 'Internal Server Error';
  return 'Error';
}

export function parseBody<T>(schema: z.ZodType<T>, raw: unknown): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new HttpError(400, { error: parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ') });
  }
  return parsed.data;
}

export async function readJson(req: IncomingMessage, emptyIsObject = false): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, { error: 'body too large' });
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') {
    if (emptyIsObject) return {};
    throw new HttpError(400, { error: 'a JSON body is required' });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, { error: 'the body is not valid JSON' });
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeAllConnections();
  });
}
