import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { silentLogger, type Logger } from '../../logger.js';
import type { SchemaProfile } from '../../print-service/schema.js';
import { signaturePath } from '../../print-service/signing.js';
import { DEFAULT_ACCOUNTS, parseAccounts, type EmulatorAccount } from './accounts.js';
import { handleApi, matchApiRoute } from './api.js';
import { Authenticator, MAX_CLOCK_SKEW_MS } from './auth.js';
import { DeliveryService } from './deliveries.js';
import { createFileFetcher, type FetchMode } from './fetcher.js';
import { handleHook } from './hooks.js';
import { ApiError, apiErrors, sendError } from './http.js';
import { createIdGenerator, seededRandom, type RandomSource } from './ids.js';
import { DEFAULT_DELAYS, Processor, type StageDelays } from './processor.js';
import type { EmulatorRuntime, Faults } from './runtime.js';
import { EmulatorStore } from './store.js';
import type { Trigger } from './triggers.js';

export interface DeliverySettings {
  /** Attempts per delivery, the first included (default 5). */
  maxAttempts: number;
  /** Wait before the second attempt; doubles each time (default 1000 ms). */
  baseDelayMs: number;
  /** Longest wait between two attempts (default 30 s). */
  maxDelayMs: number;
  /** Connect and answer time-out per attempt (default 10 s). */
  timeoutMs: number;
}

/** The schema profile orders are checked with unless `profile` says otherwise (docs/emulator.md). */
export const DEFAULT_EMULATOR_PROFILE: SchemaProfile = 'strict';

export const DEFAULT_DELIVERY: DeliverySettings = { maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 30_000, timeoutMs: 10_000 };

export interface EmulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** `{base_url}`; default 0 (any free port). */
  port?: number;
  /** `{orders_url}`; undefined (or equal to a non-zero `port`): the base address serves create too. */
  ordersPort?: number;
  /** Parsed with parseAccounts / loadAccountsFile; default: the demo account. */
  accounts?: readonly EmulatorAccount[];
  /** Parsed with parseTriggers / loadTriggersFile; default: none. */
  triggers?: readonly Trigger[];
  /** Default strict (DEFAULT_EMULATOR_PROFILE). */
  profile?: SchemaProfile;
  fetch?: FetchMode;
  fetchTimeoutMs?: number;
  /** Divides the default stage delays (2 = twice as fast); 0 means manual. */
  speed?: number;
  /** Per-stage delays in ms; each wins over `speed`. */
  delays?: Partial<StageDelays>;
  /** Orders move only through `POST /_emulator/orders/:id/advance`. */
  manual?: boolean;
  failRate?: number;
  dropRate?: number;
  /** Decides fault injection; default Math.random, or a seeded sequence with `seed`. */
  random?: RandomSource;
  seed?: number;
  /** The emulator's clock (timestamps, the 15-minute skew rule). */
  now?: () => Date;
  maxClockSkewMs?: number;
  delivery?: Partial<DeliverySettings>;
  logger?: Logger;
}

export interface RunningEmulator {
  baseUrl: string;
  ordersUrl: string;
  hooksUrl: string;
  port: number;
  ordersPort: number;
  accounts: readonly EmulatorAccount[];
  store: EmulatorStore;
  processor: Processor;
  deliveries: DeliveryService;
  faults: Faults;
  delays: StageDelays;
  manual: boolean;
  close(): Promise<void>;
}

export function resolveDelays(speed: number | undefined, overrides: Partial<StageDelays> = {}): StageDelays {
  const factor = speed === undefined || speed <= 0 ? 1 : speed;
  const scaled = (ms: number) => Math.round(ms / factor);
  return {
    receivedMs: overrides.receivedMs ?? scaled(DEFAULT_DELAYS.receivedMs),
    printReadyMs: overrides.printReadyMs ?? scaled(DEFAULT_DELAYS.printReadyMs),
    shipMs: overrides.shipMs ?? scaled(DEFAULT_DELAYS.shipMs),
  };
}

type Role = 'both' | 'base' | 'orders';

/** Starts the emulator; resolves once it listens on every address. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 0;
  const separateOrders = options.ordersPort !== undefined && !(options.ordersPort === port && port !== 0);
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? (() => new Date());
  const accounts = options.accounts ?? parseAccounts(DEFAULT_ACCOUNTS);
  const delivery = { ...DEFAULT_DELIVERY, ...options.delivery };
  const manual = options.manual === true || options.speed === 0;
  const delays = resolveDelays(options.speed, options.delays);
  const random = options.random ?? (options.seed !== undefined ? seededRandom(options.seed) : Math.random);

  // Requests cannot arrive before listen, and the runtime needs the addresses that listen picks.
  const ready: { runtime?: EmulatorRuntime } = {};
  const sockets = new Set<Socket>();
  const servers: Server[] = [];
  const make = (role: Role) => {
    const server = createServer((req, res) => {
      const { runtime } = ready;
      if (!runtime) return sendError(res, apiErrors.unavailable('starting', 1));
      handle(runtime, role, req, res).catch((error: unknown) => answerFailure(logger, req, res, error));
    });
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
      if (!socket.writable || error.code === 'ECONNRESET') return socket.destroy();
      const body = JSON.stringify(apiErrors.badRequest(`malformed HTTP request: ${error.code ?? error.message}`).toBody());
      socket.end(
        `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    });
    servers.push(server);
    return server;
  };

  const baseServer = make(separateOrders ? 'base' : 'both');
  const ordersServer = separateOrders ? make('orders') : baseServer;
  try {
    await listen(baseServer, host, port);
    if (separateOrders) await listen(ordersServer, host, options.ordersPort as number);
  } catch (error) {
    await Promise.all(servers.map((s) => closeServer(s)));
    throw error;
  }
  const actualPort = (baseServer.address() as AddressInfo).port;
  const actualOrdersPort = (ordersServer.address() as AddressInfo).port;
  const baseUrl = `http://${urlHost(host)}:${actualPort}`;
  const ordersUrl = `http://${urlHost(host)}:${actualOrdersPort}`;

  // Strict unless asked: the later forms' fields, as print-bridge sends them. `--profile lenient` takes DESIGN section
  // 8's minimum valid order and the service's own sample orders as well (docs/print-service-api.md).
  const profile = options.profile ?? DEFAULT_EMULATOR_PROFILE;
  const store = new EmulatorStore();
  const fetcher = createFileFetcher(options.fetch ?? 'simulated', options.fetchTimeoutMs ?? 10_000);
  const deliveries = new DeliveryService({ triggers: options.triggers ?? [], ...delivery, logger, now });
  const processor = new Processor({
    store,
    profile,
    fetcher,
    deliveries,
    delays,
    manual,
    now,
    logger,
  });
  const faults: Faults = { failRate: options.failRate ?? 0, dropRate: options.dropRate ?? 0 };
  ready.runtime = {
    baseUrl,
    ordersUrl,
    accounts,
    auth: new Authenticator(accounts, now, options.maxClockSkewMs ?? MAX_CLOCK_SKEW_MS),
    store,
    processor,
    deliveries,
    profile,
    faults,
    random,
    now,
    newId: createIdGenerator(now),
  };

  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    ordersUrl,
    hooksUrl: `${baseUrl}/_emulator`,
    port: actualPort,
    ordersPort: actualOrdersPort,
    accounts,
    store,
    processor,
    deliveries,
    faults,
    delays,
    manual,
    close() {
      closing ??= (async () => {
        processor.close();
        for (const order of store.all()) processor.forget(order);
        const closed = Promise.all(servers.map((s) => closeServer(s)));
        for (const socket of sockets) socket.destroy();
        await closed;
        await deliveries.close();
        await fetcher.close();
      })();
      return closing;
    },
  };
}

async function handle(rt: EmulatorRuntime, role: Role, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q + 1);
  const method = req.method ?? 'GET';
  const segments = decodeSegments(rawPath);
  if (segments[0] === '_emulator' && role !== 'orders') return handleHook(rt, method, segments, query, req, res);
  const route = matchApiRoute(method, segments);
  if (!route) throw apiErrors.routeNotFound(`no route ${method} ${rawPath.slice(0, 200)}`);
  if (role === 'orders' && route.op !== 'create') {
    throw apiErrors.routeNotFound(`the orders address serves only POST /api/order; ${method} ${rawPath} is served at ${rt.baseUrl}`);
  }
  if (role === 'base' && route.op === 'create') {
    throw apiErrors.routeNotFound(`create is served at the orders address ${rt.ordersUrl}, not at the base address`);
  }
  const auth = rt.auth.authenticate(method, signaturePath(rawPath), req.headers);
  if (!auth.ok) throw apiErrors.unauthorized(auth.message);
  await handleApi(rt, route, auth.account, req, res, query);
}

function decodeSegments(rawPath: string): string[] {
  const parts = rawPath.split('/').filter((s) => s !== '');
  try {
    return parts.map((p) => decodeURIComponent(p));
  } catch {
    throw apiErrors.badRequest('the path has a malformed percent-encoding');
  }
}

function answerFailure(logger: Logger, req: IncomingMessage, res: ServerResponse, error: unknown): void {
  const apiError = error instanceof ApiError ? error : undefined;
  if (!apiError) logger.error({ err: error, method: req.method, url: req.url }, 'request failed');
  if (res.headersSent || req.socket.destroyed) return;
  sendError(res, apiError ?? apiErrors.internal('the emulator failed to answer; see its log'));
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
