import type { Command } from 'commander';
import { CliError } from '../cli/errors.js';
import type { Logger } from 'pino';
import { type Config, loadConfig, readEnvironment, REQUIRED_FOR } from '../config.js';
import { createLogger } from '../logger.js';
import { normaliseShopDomain, ShopSessions } from '../shopify/sessions.js';
import { shopifyApiFromConfig } from '../shopify/shopify-api.js';
import { createQueues, enqueueReexamine } from '../queue/queues.js';
import { createRedis } from '../redis.js';
import { configureAdminApiOrigin } from '../shopify/admin/routing.js';
import { ShopifyUnauthorizedError, ShopifyUnavailableError } from '../shopify/admin/errors.js';
import { isShopDomain } from '../shopify/webhook-agreement.js';
import { ShopifyAdminClients } from '../adapters/shopify-effects.js';
import { openAppDatabase } from '../db/open.js';
import { startRuntime } from './runtime.js';
import { registerShopSetupCommands } from './shops-cli.js';

/** What `start --dev` fills in before the app starts (src/dev/start-dev.ts), stopped with the app. */
export interface Development {
  /** Variables laid over the environment before the configuration is loaded. */
  env: Record<string, string>;
  /** Once the web role listens at `localUrl`: the emulator's triggers post there. */
  listening(localUrl: string): void;
  /** Stops the emulator: first, so no postback arrives at an app that is stopping. */
  stopEmulator(): Promise<void>;
  /** Stops the emulator and a private Redis (after the app has stopped). */
  close(): Promise<void>;
}

/** `start --dev`'s preparation; the command root passes it (src/cli.ts), so the app imports nothing of src/dev/. */
export type PrepareDevelopment = (raw: Record<string, string | undefined>, logger: Logger) => Promise<Development>;

/** `start`, `web`, `worker` and `shops add` (DESIGN section 3). */
export function registerAppCommands(program: Command, options: { prepareDevelopment?: PrepareDevelopment } = {}): void {
  const { prepareDevelopment } = options;
  const roles = {
    start: { web: true, worker: true, description: 'web and worker in one process (the default deployment)' },
    web: { web: true, worker: false, description: 'the web role alone: webhooks, postbacks, OAuth, admin pages (scale out behind a load balancer)' },
    worker: { web: false, worker: true, description: 'the worker role alone: submits orders and applies print events (scale out freely)' },
  } as const;

  for (const [name, role] of Object.entries(roles)) {
    const command = program.command(name).description(role.description);
    if (name === 'start' && prepareDevelopment) {
      command.option(
        '--dev',
        'development on this machine (`npm run dev`, which `shopify app dev` runs): fills what is not set — a private ' +
          'Redis when none answers, ENCRYPTION_KEY and POSTBACK_TOKEN kept in DATA_DIR, and without PRINT_API_* the ' +
          'local print-service emulator — each said in the log (docs/shopify-dev.md). Never in production.',
      );
    }
    command.action(async (opts: { dev?: boolean }) => {
      let config: Config;
      let logger: Logger;
      let dev: Development | undefined;
      if (opts.dev && prepareDevelopment) {
        const raw = readEnvironment();
        logger = createLogger({ level: loadConfig({ env: raw, dotenvPath: false }).LOG_LEVEL, name: `print-bridge-${name}` });
        dev = await prepareDevelopment(raw, logger).catch((error: Error) => {
          throw new CliError(`start --dev: ${error.message}`);
        });
        try {
          config = loadConfig({ env: { ...raw, ...dev.env }, dotenvPath: false, require: REQUIRED_FOR.app });
        } catch (error) {
          await dev.close();
          throw error;
        }
      } else {
        config = loadConfig({ require: REQUIRED_FOR.app });
        logger = createLogger({ level: config.LOG_LEVEL, name: `print-bridge-${name}` });
      }
      const started = startRuntime({ config, roles: role, logger });
      const stop = (signal: string) => {
        logger.info({ signal }, 'stopping: no new requests or jobs; running jobs finish');
        // A second signal means the operator wants out now.
        process.once(signal, () => process.exit(1));
        // In development the emulator stops first, so no postback arrives at an app that is stopping.
        void (dev?.stopEmulator() ?? Promise.resolve())
          .then(() => started)
          .then((runtime) => runtime.close())
          .then(() => dev?.close())
          .then(
            () => {
              logger.info('stopped');
              process.exit(0);
            },
            (error: Error) => {
              logger.error({ err: error }, 'error while stopping');
              process.exit(1);
            },
          );
      };
      // Listening before the start-up ends: `docker stop` right after "worker: taking jobs" (logged inside the
      // start-up) stops it cleanly instead of killing it; a start-up that fails ends the command with its message.
      const onTerm = () => stop('SIGTERM');
      const onInt = () => stop('SIGINT');
      process.once('SIGTERM', onTerm);
      process.once('SIGINT', onInt);
      const runtime = await started.catch(async (error: Error) => {
        process.off('SIGTERM', onTerm);
        process.off('SIGINT', onInt);
        await dev?.close();
        throw new CliError(error.message);
      });
      if (dev && runtime.url) dev.listening(runtime.url);
    });
  }

  const shops = program.command('shops').description("stores: custom-app tokens, each store's own print account, postback URL and mode");
  shops
    .command('add')
    .description("registers a store with a custom app's Admin API access token")
    .argument('<domain>', 'the store, e.g. acme.myshopify.com (or just acme)')
    .requiredOption('--token <token>', "the custom app's Admin API access token (shpat_...)")
    .option('--no-check', 'store the token without checking it with Shopify first')
    .action(async (domain: string, opts: { token: string; check: boolean }) => {
      const config = loadConfig({ require: ['SHOPIFY_API_SECRET'] });
      const shopify = shopifyApiFromConfig(config);
      const shop = normaliseShopDomain(shopify, domain);
      if (!shop || !isShopDomain(shop)) throw new CliError(`"${domain}" is not a store domain; expected something like acme.myshopify.com.`);
      if (!opts.token.trim()) throw new CliError('--token must not be empty.');
      if (opts.check) {
        // One Admin API call with the new token before it replaces anything: a wrong token is refused with Shopify's
        // answer, and the token already stored (if any) keeps working.
        try {
          await new ShopifyAdminClients(shopify, undefined, configureAdminApiOrigin(config)).forToken(shop, opts.token.trim()).checkAccess();
        } catch (error) {
          // Refused (401/403) is about the token; no answer (5xx, 429, the network) is worth trying again; any other
          // answer (404 for a store that does not exist, 402/423 for a frozen or locked one) is about the store.
          if (error instanceof ShopifyUnauthorizedError) throw new CliError(`Shopify refused the token for ${shop}; nothing was stored: ${error.message}`);
          if (error instanceof ShopifyUnavailableError) {
            throw new CliError(`Could not reach Shopify to check the token for ${shop}; nothing was stored. Try again, or skip the check with --no-check: ${error.message}`);
          }
          throw new CliError(`Shopify did not accept the check of ${shop} (is the store's domain right?); nothing was stored: ${(error as Error).message}`);
        }
      }
      if (!config.ENCRYPTION_KEY?.length) throw new CliError('ENCRYPTION_KEY is not set: the token would be stored in clear. Make a key with: openssl rand -base64 32');
      const database = await openAppDatabase(config).catch((error: Error) => {
        throw new CliError(`Could not register ${shop}: ${error.message}`);
      });
      const sessions = new ShopSessions(shopify, database, config.ENCRYPTION_KEY);
      // Orders that waited for this store to be connected go out now (the running workers take the job).
      const redis = createRedis(config.REDIS_URL, 'request');
      const queues = createQueues(redis, config.REDIS_PREFIX);
      sessions.onStored((stored) =>
        Promise.race([
          enqueueReexamine(queues.orders, stored, 'store connected (shops add)', false),
          new Promise<void>((_, reject) => setTimeout(() => reject(new Error(`Redis at ${config.REDIS_URL} is not reachable`)), 5_000).unref()),
        ]),
      );
      try {
        await sessions.addCustomAppToken(shop, opts.token.trim(), config.SHOPIFY_SCOPES);
      } catch (error) {
        throw new CliError(`Could not register ${shop}: ${(error as Error).message}`);
      } finally {
        await database.close().catch(() => undefined);
        await queues.close().catch(() => undefined);
        redis.disconnect();
      }
      process.stdout.write(`Registered ${shop}: print-bridge will use this token for its Admin API calls.\n`);
    });
  registerShopSetupCommands(program, shops);
}
