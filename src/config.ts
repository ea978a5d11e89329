import { PINNED_ADMIN_API_VERSION } from './shopify/api-version.js';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { z } from 'zod';

/**
 * The one place that reads the environment. Every variable of DESIGN section 4 (plus a few tuning knobs) is parsed
 * here; callers say which ones their role needs, so `print-bridge emulator` runs with nothing set while
 * `print-bridge start` refuses to run without Shopify credentials.
 */

const emptyToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

const optionalString = z.preprocess(emptyToUndefined, z.string().optional());
const optionalUrl = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .refine((v) => /^https?:\/\//i.test(v) && URL.canParse(v), 'must be an http(s) URL, e.g. https://api.example.com')
    .optional(),
);
const port = (fallback: number) =>
  z.preprocess(
    emptyToUndefined,
    z.coerce
      .number({ error: 'must be a port number' })
      .int('must be a whole number')
      .min(0, 'must be between 0 and 65535')
      .max(65535, 'must be between 0 and 65535')
      .default(fallback),
  );
const wholeAtLeastZero = (fallback: number) =>
  z.preprocess(
    emptyToUndefined,
    z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(0, 'must be 0 or more').default(fallback),
  );
/** A yes/no variable: true, false, 1, 0, yes or no; unset or empty takes the default. */
const flag = (fallback: boolean) =>
  z.preprocess(
    emptyToUndefined,
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  );
const positiveInt = (fallback: number) =>
  z.preprocess(
    emptyToUndefined,
    z.coerce.number({ error: 'must be a number' }).int('must be a whole number').positive('must be above 0').default(fallback),
  );
const commaList = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0),
    )
    .optional(),
);

/**
 * Orders (read, and tags, notes and the status metafield written), the merchant-managed fulfillment orders the printer
 * ships, and for fulfillment-service mode (docs/fulfillment.md): `write_fulfillments` (register the app's fulfillment
 * service and its location) and `write_assigned_fulfillment_orders` (accept or reject the fulfillment requests Shopify
 * sends it and fulfil them). A store that installed with fewer is asked again on its next visit (app/scopes_update
 * records what it grants).
 */
export const DEFAULT_SHOPIFY_SCOPES =
  'read_orders,write_orders,read_merchant_managed_fulfillment_orders,write_merchant_managed_fulfillment_orders,write_fulfillments,write_assigned_fulfillment_orders';
/**
 * The Admin API version the app is pinned to (src/shopify/api-version.ts): the one whose schema the Admin stand-in
 * validates every document against; shopify.app.toml's webhooks api_version is
 * checked against it in the tests. Named here rather than taken from `@shopify/shopify-api`: its major that knows
 * 2026-10 (15) needs Node 22, and the app runs on Node 20 (docs/shopify-dev.md); the version is only a URL segment to
 * the library.
 */
export const DEFAULT_SHOPIFY_API_VERSION = PINNED_ADMIN_API_VERSION;

export const configSchema = z.object({
  PORT: port(3000),
  APP_URL: optionalUrl,
  REDIS_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .refine((v) => /^rediss?:\/\//i.test(v) && URL.canParse(v), 'must be a redis:// or rediss:// URL')
      .default('redis://127.0.0.1:6379'),
  ),
  /** PostgreSQL, the system of record; unset: an embedded PGlite database in DATA_DIR. */
  DATABASE_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .refine((v) => /^postgres(ql)?:\/\//i.test(v) && URL.canParse(v), 'must be a postgres:// or postgresql:// URL')
      .optional(),
  ),
  /** The schema the app's tables live in (one database shared by several installs, or a test per schema). */
  DATABASE_SCHEMA: z.preprocess(emptyToUndefined, z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a lower-case SQL identifier').default('public')),
  /**
   * The order path's statements run as named prepared statements on PostgreSQL (parsed once per connection, one plan
   * kept after five runs). Set false behind a connection pooler in transaction mode that does not keep prepared statements
   * (PgBouncer before 1.21, or without max_prepared_statements).
   */
  DATABASE_PREPARED_STATEMENTS: flag(true),
  /** Where the embedded database keeps its files when DATABASE_URL is unset. */
  DATA_DIR: z.preprocess(emptyToUndefined, z.string().default('./data')),
  /** Days after an order's last change at the printer that its full Shopify body is kept; links and history stay. */
  RETENTION_DAYS: positiveInt(90),
  /**
   * Worker threads that render stores' mappings (each stopped hard at an order's render budget, heap capped at
   * MAPPING_RENDER_MEMORY_MB): a slow template holds one of them, never the process's event loop.
   */
  MAPPING_RENDER_THREADS: positiveInt(2),
  MAPPING_RENDER_MEMORY_MB: positiveInt(128),
  /** Prefix of every key the app writes, queues included. In Redis Cluster give it a hash tag: `{print-bridge}:`. */
  REDIS_PREFIX: z.preprocess(emptyToUndefined, z.string().min(1).default('print-bridge:')),
  SHOPIFY_API_KEY: optionalString,
  SHOPIFY_API_SECRET: optionalString,
  SHOPIFY_SCOPES: z.preprocess(emptyToUndefined, z.string().default(DEFAULT_SHOPIFY_SCOPES)).transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ),
  SHOPIFY_API_VERSION: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^(\d{4}-(01|04|07|10)|unstable)$/, 'must be an Admin API version such as 2026-01')
      .default(DEFAULT_SHOPIFY_API_VERSION),
  ),
  SHOPIFY_ADMIN_API_ORIGIN: optionalUrl,
  PRINT_API_BASE_URL: optionalUrl,
  PRINT_API_ORDERS_URL: optionalUrl,
  PRINT_API_TOKEN: optionalString,
  PRINT_API_SECRET: optionalString,
  PRINT_SOURCE_ACCOUNT: optionalString,
  /** Connect time-out towards the print service. */
  PRINT_API_CONNECT_TIMEOUT_MS: positiveInt(5_000),
  /** Time allowed for the print service's answer (headers and body) once connected. */
  PRINT_API_TIMEOUT_MS: positiveInt(30_000),
  POSTBACK_TOKEN: commaList.pipe(
    z.array(z.string().min(32, 'each token must be at least 32 characters (openssl rand -hex 24): it is all that guards the postback URL')).optional(),
  ),
  /** Whether Shopify e-mails the customer when a shipment becomes a fulfillment with tracking. */
  SHOPIFY_NOTIFY_CUSTOMER: flag(true),
  /** Jobs one worker process runs at once, per queue. */
  WORKER_CONCURRENCY: positiveInt(16),
  /** Most print-service jobs (submit, cancel, amend) started per second across all workers; unset: no limit. */
  PRINT_API_RATE_LIMIT: z.preprocess(emptyToUndefined, z.coerce.number({ error: 'must be a number' }).int('must be a whole number').positive('must be above 0').optional()),
  /** Submitted orders silent at the printer for this long are checked with get-by-source-id (0: never). */
  RECONCILE_SILENT_MINUTES: wholeAtLeastZero(60),
  /** Shopify orders created in this many past hours are looked for in the order store, to catch lost webhooks (0: never). */
  RECONCILE_LOOKBACK_HOURS: wholeAtLeastZero(72),
  /** Younger orders may still have their webhooks on the way (Shopify retries for hours) and are left alone. */
  RECONCILE_LOST_MIN_AGE_MINUTES: wholeAtLeastZero(15),
  /** How often the reconciliation runs. */
  RECONCILE_EVERY_MINUTES: positiveInt(10),
  /**
   * Fulfillment-service mode: the least time between two reads of one store's pending requests. Shopify's ping names
   * nothing, so a burst of pings (or one captured ping sent again and again) is one read per interval; a request waits
   * at most this long. 0: reads follow each other without a pause (still one at a time per store).
   */
  FULFILLMENT_READ_INTERVAL_MS: wholeAtLeastZero(1_000),
  /** How long a running job stays locked; a worker that dies gives its jobs back after about this long. */
  JOB_LOCK_MS: positiveInt(30_000),
  /** First re-check of a shipment whose fulfillment order Shopify holds (doubling up to 6 h); webhooks usually come first. */
  SHOPIFY_HOLD_RECHECK_SECONDS: positiveInt(900),
  MAPPINGS_DIR: z.preprocess(emptyToUndefined, z.string().default('./mappings')),
  /** Allow-list of artwork and attachment URL hosts (`files.example.com`, `*.example.com`); unset: any public https host. */
  ARTWORK_HOSTS: commaList.pipe(
    z
      .array(z.string().regex(/^(\*\.)?([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z][a-z0-9-]*[a-z0-9]\.?$/i, 'each entry must be a host name or *.domain'))
      .optional(),
  ),
  /**
   * Development and the demo only: artwork and attachment hosts may resolve to private addresses (artwork served on
   * the developer's machine). Off: an order whose artwork host resolves to a private, loopback, link-local or other
   * non-public address is held (docs/mappings.md). Names are resolved either way; one that does not exist is a problem.
   */
  ARTWORK_PRIVATE_ADDRESSES: flag(false),
  /**
   * Off: artwork and attachment hosts are not resolved when an order is sent (only the URL rules apply). For machines
   * without DNS (test and benchmark runs whose artwork hosts are made up); never in production.
   */
  ARTWORK_RESOLVE: flag(true),
  ADMIN_TOKEN: z.preprocess(emptyToUndefined, z.string().min(32, 'must be at least 32 characters (openssl rand -hex 24)').optional()),
  /** Accept a Redis that would lose acknowledged jobs on a crash (no AOF, no replica) or evicts keys; demo and tests only. */
  REDIS_ALLOW_VOLATILE: flag(false),
  /**
   * Development and tests only: merchants may point their own print account at a local or private address (the
   * emulator on 127.0.0.1). Off: an account entered in the app must be https to a public host name, and its
   * connections refuse private, loopback and link-local addresses (docs/stores.md).
   */
  PRINT_ACCOUNT_PRIVATE_HOSTS: flag(false),
  /** Bearer token that `GET /metrics` requires; unset: /metrics is not served on the public port. */
  METRICS_TOKEN: z.preprocess(emptyToUndefined, z.string().min(32, 'must be at least 32 characters (openssl rand -hex 24)').optional()),
  /** A separate port for `GET /metrics` without a token, bound to METRICS_HOST (127.0.0.1 by default). */
  METRICS_PORT: z.preprocess(emptyToUndefined, z.coerce.number({ error: 'must be a number' }).int().min(1).max(65535).optional()),
  METRICS_HOST: z.preprocess(emptyToUndefined, z.string().default('127.0.0.1')),
  /**
   * 32-byte keys, base64, comma-separated: the first encrypts stored secrets (Shopify access tokens), every one
   * decrypts (rotation). Required once a secret is stored.
   */
  ENCRYPTION_KEY: commaList.pipe(
    z
      .array(z.string().refine((v) => Buffer.from(v, 'base64').length === 32 && /^[A-Za-z0-9+/]+=*$/.test(v), 'each key must be 32 bytes of base64 (openssl rand -base64 32)'))
      .optional(),
  ),
  /** Confirm shipped, cancelled and errored postbacks by reading the order at the print service before they act. */
  PRINT_CONFIRM_EVENTS: flag(true),
  /** Proxy hops in front of the app whose X-Forwarded-* headers are believed (Express `trust proxy` as a number). */
  TRUST_PROXY: wholeAtLeastZero(0),
  /** Optional `user:password` the print service's triggers must send as HTTP basic auth on postbacks. */
  POSTBACK_BASIC_AUTH: z.preprocess(emptyToUndefined, z.string().regex(/^[^:]+:.+$/, 'must be user:password').optional()),
  LOG_LEVEL: z.preprocess(
    emptyToUndefined,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
});

export type Config = z.infer<typeof configSchema>;
export type ConfigKey = keyof Config;

/** Groups of variables that a role cannot run without. */
export const REQUIRED_FOR = {
  printApi: ['PRINT_API_BASE_URL', 'PRINT_API_TOKEN', 'PRINT_API_SECRET'],
  printApiCancel: ['PRINT_API_BASE_URL', 'PRINT_API_TOKEN', 'PRINT_API_SECRET', 'PRINT_SOURCE_ACCOUNT'],
  app: [
    'APP_URL',
    'SHOPIFY_API_KEY',
    'SHOPIFY_API_SECRET',
    'PRINT_API_BASE_URL',
    'PRINT_API_TOKEN',
    'PRINT_API_SECRET',
    'PRINT_SOURCE_ACCOUNT',
    'POSTBACK_TOKEN',
  ],
} as const satisfies Record<string, readonly ConfigKey[]>;

export class ConfigError extends Error {
  readonly retryable = false;
  constructor(readonly problems: string[]) {
    super(
      `The configuration is incomplete or malformed (set these in the environment or in .env):\n` +
        problems.map((p) => `  - ${p}`).join('\n'),
    );
    this.name = 'ConfigError';
  }
}

export interface LoadConfigOptions {
  /** Defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Variables this role needs; a missing one is a problem. */
  require?: readonly ConfigKey[];
  /** Defaults to ./.env; values already in the environment win over the file. */
  dotenvPath?: string | false;
}

/**
 * The raw variables loadConfig parses: `.env` under the environment, and the Shopify CLI's names filling ours. For a
 * caller that must know what was set, not what the defaults made of it (`start --dev`, src/dev/start-dev.ts).
 */
export function readEnvironment(options: Pick<LoadConfigOptions, 'env' | 'dotenvPath'> = {}): Record<string, string | undefined> {
  return withShopifyCliNames({ ...readDotenv(options.dotenvPath), ...(options.env ?? process.env) });
}

export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = readEnvironment(options);
  const parsed = configSchema.safeParse(env);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? '');
      const shown = key && env[key] !== undefined ? ` (got ${JSON.stringify(redact(key, env[key]))})` : '';
      problems.push(`${key}: ${issue.message}${shown}`);
    }
  }
  for (const key of options.require ?? []) {
    const raw = env[key];
    if (raw === undefined || raw.trim() === '') problems.push(`${key}: required but not set`);
  }
  if (problems.length > 0 || !parsed.success) throw new ConfigError([...new Set(problems)]);
  return parsed.data;
}

/**
 * `shopify app dev` (shopify.web.toml) starts the app with its own variable names: the tunnel URL as SHOPIFY_APP_URL
 * (HOST in older CLIs), the port as PORT, FRONTEND_PORT or BACKEND_PORT, the scopes as SCOPES. They fill ours when ours
 * are not set, so the same binary runs under the CLI and in production.
 */
function withShopifyCliNames(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const filled = { ...env };
  const fallback = (ours: string, ...theirs: string[]) => {
    if (filled[ours]?.trim()) return;
    const found = theirs.map((name) => filled[name]).find((value) => value?.trim());
    if (found) filled[ours] = found;
  };
  fallback('APP_URL', 'SHOPIFY_APP_URL', 'HOST');
  fallback('PORT', 'FRONTEND_PORT', 'BACKEND_PORT');
  fallback('SHOPIFY_SCOPES', 'SCOPES');
  return filled;
}

function readDotenv(path: string | false | undefined): Record<string, string> {
  if (path === false) return {};
  const file = resolve(path ?? '.env');
  if (!existsSync(file)) return {};
  return parseDotenv(readFileSync(file));
}

// POSTBACK_BASIC_AUTH holds a password too.
const SECRET_KEYS = /SECRET|TOKEN|PASSWORD|BASIC_AUTH/;
function redact(key: string, value: string | undefined): string | undefined {
  return SECRET_KEYS.test(key) ? '[hidden]' : value;
}

/** The orders address defaults to the base address, as DESIGN section 4 says. */
export function printApiSettings(config: Config) {
  if (!config.PRINT_API_BASE_URL || !config.PRINT_API_TOKEN || !config.PRINT_API_SECRET) {
    throw new ConfigError(
      (['PRINT_API_BASE_URL', 'PRINT_API_TOKEN', 'PRINT_API_SECRET'] as const)
        .filter((k) => !config[k])
        .map((k) => `${k}: required but not set`),
    );
  }
  return {
    baseUrl: config.PRINT_API_BASE_URL,
    ordersUrl: config.PRINT_API_ORDERS_URL ?? config.PRINT_API_BASE_URL,
    token: config.PRINT_API_TOKEN,
    secret: config.PRINT_API_SECRET,
    sourceAccount: config.PRINT_SOURCE_ACCOUNT,
    connectTimeoutMs: config.PRINT_API_CONNECT_TIMEOUT_MS,
    responseTimeoutMs: config.PRINT_API_TIMEOUT_MS,
  };
}

/**
 * What `print-bridge demo` takes from the environment: only `REDIS_URL` (same rule and default as the app's) and
 * `NO_COLOR`. Everything else the demo generates, so neither a `.env` file nor other variables can change it.
 */
export function demoEnvironment(env: Record<string, string | undefined> = process.env): { redisUrl: string; noColor: boolean; adminToken?: string } {
  const parsed = configSchema.shape.REDIS_URL.safeParse(env.REDIS_URL);
  if (!parsed.success) {
    throw new ConfigError([`REDIS_URL: ${parsed.error.issues[0]?.message ?? 'invalid'} (got ${JSON.stringify(env.REDIS_URL)})`]);
  }
  const adminToken = env.ADMIN_TOKEN?.trim() || undefined;
  return { redisUrl: parsed.data, noColor: env.NO_COLOR !== undefined && env.NO_COLOR !== '', ...(adminToken ? { adminToken } : {}) };
}
