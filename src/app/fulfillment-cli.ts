import type { Command } from 'commander';
import { CliError } from '../cli/errors.js';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { openAppDatabase } from '../db/open.js';
import { createQueues } from '../queue/queues.js';
import { QueueScheduler } from '../queue/scheduler.js';
import { createRedis } from '../redis.js';
import { leaveRequestsToMerchant } from '../bridge/requests-left-to-merchant.js';
import { chooseFulfillmentMode } from '../shops/fulfillment-mode.js';
import { PostgresOrderStore } from '../storage/order-store.js';
import { FulfillmentServiceStore } from '../shops/fulfillment-services.js';
import { configureAdminApiOrigin } from '../shopify/admin/routing.js';
import { ShopSessions } from '../shopify/sessions.js';
import { shopifyApiFromConfig } from '../shopify/shopify-api.js';
import { ShopifyAdminClients } from '../adapters/shopify-effects.js';
import { storeDomain } from './shops-cli.js';

/** `print-bridge shops fulfillment DOMAIN service|merchant` (docs/fulfillment.md). */
export function registerFulfillmentCommand(shops: Command): void {
  shops
    .command('fulfillment')
    .description("service: print-bridge becomes the store's fulfillment service (Shopify requests what to print); merchant: it fulfils the store's own fulfillment orders (the default)")
    .argument('<domain>', 'the store')
    .argument('<mode>', 'service or merchant')
    .action(async (domain: string, mode: string) => {
      const shop = storeDomain(domain);
      if (mode !== 'service' && mode !== 'merchant') throw new CliError(`mode must be service or merchant, not "${mode}".`);
      const config = loadConfig({ require: ['APP_URL', 'SHOPIFY_API_KEY', 'SHOPIFY_API_SECRET'] });
      const database = await openAppDatabase(config).catch((error: Error) => {
        throw new CliError(`Could not open the database: ${error.message}`);
      });
      const redis = createRedis(config.REDIS_URL, 'request');
      const queues = createQueues(redis, config.REDIS_PREFIX);
      try {
        const adminOrigin = configureAdminApiOrigin(config);
        const shopify = shopifyApiFromConfig(config);
        const clients = new ShopifyAdminClients(shopify, new ShopSessions(shopify, database, config.ENCRYPTION_KEY ?? []), adminOrigin);
        const scheduler = new QueueScheduler(queues);
        const outcome = await chooseFulfillmentMode(
          {
            services: new FulfillmentServiceStore(database),
            shopify: (s) => clients.forShop(s),
            appUrl: config.APP_URL!,
            // The running workers read the requests already waiting, or send the orders that waited for one; a Redis
            // that does not answer must not hang this.
            takeRequests: (s) => queuedOrLater(scheduler.takeFulfillmentRequests(s, 'service mode chosen'), 'reads the waiting requests'),
            reexamine: (s, cause) => queuedOrLater(scheduler.reexamine(s, cause), 'sends the orders that waited for a request'),
            leaveToMerchant: (s, open, locationId) =>
              leaveRequestsToMerchant({ store: new PostgresOrderStore({ database, redis, prefix: config.REDIS_PREFIX }), scheduler, clock: () => new Date(), logger: createLogger({ level: config.LOG_LEVEL, name: 'print-bridge-shops', destination: process.stderr }) }, s, open, locationId),
            clock: () => new Date(),
          },
          shop,
          mode,
        );
        process.stdout.write(`${outcome.message}\n`);
      } catch (error) {
        if (error instanceof CliError) throw error;
        throw new CliError(`shops fulfillment ${shop} ${mode}: ${(error as Error).message}`);
      } finally {
        await database.close().catch(() => undefined);
        await queues.close().catch(() => undefined);
        redis.disconnect();
      }
    });
}

/** A job queued for the running app, or a warning after 5 s that the app's own schedule will do it. */
function queuedOrLater(queued: Promise<void>, what: string): Promise<void> {
  return Promise.race([
    queued,
    new Promise<void>((resolve) =>
      setTimeout(() => {
        process.stderr.write(`Warning: Redis did not answer; the app's schedule ${what} within RECONCILE_EVERY_MINUTES.\n`);
        resolve();
      }, 5_000).unref(),
    ),
  ]);
}
