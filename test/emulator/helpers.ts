import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { DEMO_ACCOUNT_ID, parseAccounts, type AccountInput } from '../../src/dev/emulator/accounts.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/dev/emulator/server.js';
import type { PrintOrderInput } from '../../src/print-service/schema.js';
import { signRequest } from '../../src/print-service/signing.js';

export const DEMO = { name: 'demo-brand', token: 'demo-token', secret: 'demo-secret', accountId: DEMO_ACCOUNT_ID };

export const TWO_ACCOUNTS: AccountInput[] = [
  {
    name: 'brand-a',
    token: 'token-a',
    secret: 'secret-a',
    accountId: 'aaaaaaaaaaaaaaaaaaaaaaaa',
    destinations: [{ name: 'printer-a', skus: ['A5-BOOK', 'POSTER'] }],
    carriers: { express: { code: 'dhl', service: 'express-worldwide' } },
  },
  { name: 'brand-b', token: 'token-b', secret: 'secret-b', accountId: 'bbbbbbbbbbbbbbbbbbbbbbbb' },
];
export const A = { name: 'brand-a', token: 'token-a', secret: 'secret-a' };
export const B = { name: 'brand-b', token: 'token-b', secret: 'secret-b' };

/** Starts an emulator on a free port with fast, manual-free defaults suited to tests; closed by the caller. */
export function startTestEmulator(options: EmulatorOptions & { accountInputs?: AccountInput[] } = {}): Promise<RunningEmulator> {
  const { accountInputs, ...rest } = options;
  return startEmulator({
    delays: { receivedMs: 5, printReadyMs: 5, shipMs: 5 },
    delivery: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 40, timeoutMs: 2000 },
    ...(accountInputs ? { accounts: parseAccounts(accountInputs, 'test accounts') } : {}),
    ...rest,
  });
}

/** A strict-valid order for the demo account. */
export function validOrder(sourceOrderId: string, extra: { shipments?: number; path?: string; destination?: string; sku?: string } = {}): PrintOrderInput {
  const shipmentCount = extra.shipments ?? 1;
  return {
    destination: { name: extra.destination ?? 'demo-printer' },
    orderData: {
      sourceOrderId,
      customerName: 'Ada Lovelace',
      items: Array.from({ length: shipmentCount }, (_, i) => ({
        sourceItemId: `${sourceOrderId}-item-${i}`,
        sku: extra.sku ?? 'A5-BOOK',
        quantity: 2,
        shipmentIndex: i,
        components: [{ code: 'cover', path: extra.path ?? `https://files.example.test/${sourceOrderId}/cover.pdf`, fetch: true, preflight: true }],
      })),
      shipments: Array.from({ length: shipmentCount }, (_, i) => ({
        shipTo: { name: 'Ada Lovelace', address1: `${i + 1} Mill Lane`, town: 'Leeds', postcode: 'LS1 1AA', isoCountry: 'GB' },
        returnAddress: { name: 'Acme Returns', address1: '1 Mill Lane', town: 'Leeds', postcode: 'LS1 1AA', isoCountry: 'GB' },
        carrier: { alias: i === 0 ? 'standard' : 'express' },
      })),
    },
  };
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as is, instead of JSON of `body`. */
  raw?: string;
  account?: { token: string; secret: string };
  /** The date to sign with. */
  now?: Date;
  /** No signature headers at all. */
  unsigned?: boolean;
  headers?: Record<string, string>;
  /** The path signed, when it should differ from the one requested. */
  signPath?: string;
}

/** One signed request to `origin + path`, as the real client would send it. */
export async function call(origin: string, method: string, path: string, options: CallOptions = {}): Promise<Reply> {
  const url = origin + path;
  const account = options.account ?? DEMO;
  const signed = options.unsigned
    ? {}
    : signRequest({ method, url: options.signPath ? origin + options.signPath : url, token: account.token, secret: account.secret, now: options.now });
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const res = await request(url, {
    method: method as 'GET',
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...signed, ...options.headers },
    body,
  });
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, body: parsed };
}

/** Unsigned call to a test hook. */
export function hook(emu: RunningEmulator, method: string, path: string, body?: unknown): Promise<Reply> {
  return call(emu.baseUrl, method, `/_emulator${path}`, { unsigned: true, body });
}

export async function createOrder(emu: RunningEmulator, order: unknown, account: { token: string; secret: string } = DEMO): Promise<string> {
  const res = await call(emu.ordersUrl, 'POST', '/api/order', { body: order, account });
  if (res.status !== 200) throw new Error(`create answered ${res.status}: ${res.text}`);
  return res.body._id as string;
}

export async function waitFor<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Status codes for the next requests, in order; then 200. */
  failNext(...statuses: number[]): void;
  close(): Promise<void>;
}

/** A local HTTP server standing in for the app's postback endpoint. */
export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const queue: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = queue.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 200 ? '{"ok":true}' : '{"ok":false}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    failNext: (...statuses) => queue.push(...statuses),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
