import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Development } from '../app/cli.js';
import { configSchema } from '../config.js';
import { basicAuthHeader, postbackTriggers } from '../print-service/postback-triggers.js';
import { parseAccounts, parseTriggers, startEmulator, type RunningEmulator } from './emulator/index.js';
import { resolveRedis, type ResolvedRedis } from '../local-redis.js';

/**
 * `print-bridge start --dev` (the `npm run dev` that `shopify app dev` runs): what a developer's machine lacks with only
 * the Shopify CLI's variables (SHOPIFY_API_KEY, SHOPIFY_API_SECRET, SHOPIFY_APP_URL, PORT, SCOPES) is filled here, each
 * said in the log, and only where the variable is not set:
 *
 * - the database: the embedded one in DATA_DIR (already the default without DATABASE_URL);
 * - Redis: REDIS_URL's default when it answers, else a private redis-server for the run; keys under a prefix of
 *   this DATA_DIR's own, so two clones sharing one Redis never take each other's jobs;
 * - ENCRYPTION_KEY and POSTBACK_TOKEN: generated once and kept in DATA_DIR/dev-secrets.json;
 * - no PRINT_API_* at all: the print-service emulator in this process, its triggers posting to this app's own
 *   postback address; orders are printed nowhere.
 *
 * Never used by `start` without `--dev`: production keeps refusing to run without its settings.
 */

export const DEV_SECRETS_FILE = 'dev-secrets.json';

/** The print settings that make a print account; none set means "no print account configured". */
const PRINT_ACCOUNT_KEYS = ['PRINT_API_BASE_URL', 'PRINT_API_ORDERS_URL', 'PRINT_API_TOKEN', 'PRINT_API_SECRET', 'PRINT_SOURCE_ACCOUNT'] as const;

interface DevSecrets {
  encryptionKey: string;
  postbackToken: string;
  /** Names this data directory's Redis keys: `print-bridge-dev:<redisId>:`. */
  redisId: string;
}


export async function prepareDevelopment(raw: Record<string, string | undefined>, logger: Logger): Promise<Development> {
  const isSet = (key: string) => Boolean(raw[key]?.trim());
  const env: Record<string, string> = {};
  const cleanups: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  };
  const log = logger.child({ component: 'dev' });

  try {
    const dataDir = configSchema.shape.DATA_DIR.parse(raw.DATA_DIR);
    const { secrets, where } = devSecrets(dataDir);

    if (!isSet('ENCRYPTION_KEY')) {
      env.ENCRYPTION_KEY = secrets.encryptionKey;
      log.warn({ file: where }, `development: ENCRYPTION_KEY is the development key generated once and kept in ${where} (development only: production needs ENCRYPTION_KEY set)`);
    }
    if (!isSet('POSTBACK_TOKEN')) {
      env.POSTBACK_TOKEN = secrets.postbackToken;
      log.info({ file: where }, `development: POSTBACK_TOKEN is the development token generated once and kept in ${where}`);
    }
    if (!isSet('REDIS_PREFIX')) env.REDIS_PREFIX = `print-bridge-dev:${secrets.redisId}:`;

    let redis: ResolvedRedis;
    if (isSet('REDIS_URL')) {
      redis = { url: raw.REDIS_URL!.trim(), source: 'existing', stop: async () => undefined };
    } else {
      redis = await resolveRedis(configSchema.shape.REDIS_URL.parse(undefined));
      cleanups.push(() => redis.stop());
      env.REDIS_URL = redis.url;
    }
    log.info(
      { redis: redis.url, prefix: env.REDIS_PREFIX ?? raw.REDIS_PREFIX },
      redis.source === 'private'
        ? `development: no Redis answered at the default address; started a private redis-server at ${redis.url} for this run (its jobs end with it)`
        : `development: Redis at ${redis.url}, keys under ${env.REDIS_PREFIX ?? raw.REDIS_PREFIX}`,
    );
    // A developer's Redis rarely has AOF on; /readyz would fail for a reason that does not matter here.
    if (!isSet('REDIS_ALLOW_VOLATILE')) env.REDIS_ALLOW_VOLATILE = 'true';
    // The developer's machine: print accounts entered in the app and artwork may be local (the emulator, a file server).
    if (!isSet('PRINT_ACCOUNT_PRIVATE_HOSTS')) env.PRINT_ACCOUNT_PRIVATE_HOSTS = 'true';
    if (!isSet('ARTWORK_PRIVATE_ADDRESSES')) env.ARTWORK_PRIVATE_ADDRESSES = 'true';

    let emulator: RunningEmulator | undefined;
    let stopEmulator = async () => undefined as void;
    let account: string | undefined;
    if (!PRINT_ACCOUNT_KEYS.some(isSet)) {
      account = 'dev-brand';
      const token = 'dev-token';
      const secret = randomBytes(16).toString('hex');
      const emulatorLog = logger.child({ component: 'emulator' });
      const options = {
        port: 0,
        accounts: parseAccounts([{ name: account, token, secret, accountId: randomBytes(12).toString('hex') }]),
        delivery: { baseDelayMs: 500 },
        logger: emulatorLog,
      };
      // Any free port, but never one of the app's own: PORT and METRICS_PORT are free until the app listens, so the
      // system may hand them out.
      const appPorts = new Set([configSchema.shape.PORT.safeParse(raw.PORT).data, configSchema.shape.METRICS_PORT.safeParse(raw.METRICS_PORT).data]);
      for (let tries = 0; !emulator; tries++) {
        const started = await startEmulator(options);
        if (!appPorts.has(started.port)) emulator = started;
        else {
          await started.close();
          if (tries === 4) throw new Error(`the print-service emulator was given the app's own port ${started.port} five times`);
        }
      }
      const running = emulator;
      cleanups.push(() => running.close());
      stopEmulator = () => running.close();
      Object.assign(env, {
        PRINT_API_BASE_URL: emulator.baseUrl,
        PRINT_API_ORDERS_URL: emulator.ordersUrl,
        PRINT_API_TOKEN: token,
        PRINT_API_SECRET: secret,
        PRINT_SOURCE_ACCOUNT: account,
      });
      // The emulator fetches no artwork (simulated): resolving the mapping's artwork hosts would only hold orders
      // whose example hosts do not exist.
      if (!isSet('ARTWORK_RESOLVE')) env.ARTWORK_RESOLVE = 'false';
      log.warn(
        { emulator: emulator.baseUrl, hooks: emulator.hooksUrl, account },
        `no print account configured: using the local print-service emulator at ${emulator.baseUrl}; orders are printed nowhere ` +
          `(its orders: ${emulator.hooksUrl}/orders; set PRINT_API_BASE_URL, PRINT_API_TOKEN, PRINT_API_SECRET and PRINT_SOURCE_ACCOUNT for a real one)`,
      );
    }

    const postbackToken = (env.POSTBACK_TOKEN ?? raw.POSTBACK_TOKEN ?? '').split(',')[0]!.trim();
    const basicAuth = raw.POSTBACK_BASIC_AUTH?.trim();
    return {
      env,
      listening(localUrl) {
        if (!emulator || !account) return;
        const url = `${localUrl}/postbacks/${postbackToken}`;
        const headers = basicAuth ? { authorization: basicAuthHeader(basicAuth) } : undefined;
        emulator.deliveries.setTriggers(parseTriggers(postbackTriggers(url, headers).map((t) => ({ ...t, account }))));
        log.info({ postbacks: `${localUrl}/postbacks/***` }, "development: the emulator's triggers post to this app's own postback address");
      },
      stopEmulator,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The development secrets of a data directory, made on first use; in memory (new each run) for `memory://`. */
function devSecrets(dataDir: string): { secrets: DevSecrets; where: string } {
  const fresh = (): DevSecrets => ({
    encryptionKey: randomBytes(32).toString('base64'),
    postbackToken: randomBytes(24).toString('hex'),
    redisId: randomBytes(4).toString('hex'),
  });
  if (dataDir.startsWith('memory://')) return { secrets: fresh(), where: 'memory (new each run, DATA_DIR is memory://)' };
  const file = resolve(join(dataDir, DEV_SECRETS_FILE));
  let kept: Partial<DevSecrets> = {};
  if (existsSync(file)) {
    try {
      kept = JSON.parse(readFileSync(file, 'utf8')) as Partial<DevSecrets>;
    } catch (error) {
      throw new Error(`${file} is not readable JSON (delete it to make new development secrets): ${(error as Error).message}`);
    }
  }
  const made = fresh();
  const secrets: DevSecrets = {
    encryptionKey: typeof kept.encryptionKey === 'string' ? kept.encryptionKey : made.encryptionKey,
    postbackToken: typeof kept.postbackToken === 'string' ? kept.postbackToken : made.postbackToken,
    redisId: typeof kept.redisId === 'string' ? kept.redisId : made.redisId,
  };
  if (JSON.stringify(secrets) !== JSON.stringify(kept)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  }
  return { secrets, where: file };
}
