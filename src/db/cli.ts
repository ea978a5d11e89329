import type { Command } from 'commander';
import { CliError } from '../cli/errors.js';
import { loadConfig } from '../config.js';
import { createRedis, waitForRedis } from '../redis.js';
import { importFromRedis } from './import-redis.js';
import { describeDatabase, openAppDatabase } from './open.js';

/** `db migrate` (DESIGN section 3) and `db import-redis`, the one-off move of a Redis-only install. */
export function registerDbCommands(program: Command): void {
  const db = program.command('db').description('the database: migrations, and moving an install from before it');

  db.command('migrate')
    .description('applies the database migrations (start does it too)')
    .action(async () => {
      const config = loadConfig();
      const database = await openAppDatabase(config, { migrate: false }).catch((error: Error) => {
        throw new CliError(error.message);
      });
      try {
        const { applied } = await database.migrate();
        process.stdout.write(`${describeDatabase(config)}: ${applied} migration(s) applied, the schema is current.\n`);
      } catch (error) {
        throw new CliError(`${describeDatabase(config)}: the migrations could not be applied: ${(error as Error).message}`);
      } finally {
        await database.close();
      }
    });

  db.command('import-redis')
    .description('copies the order store of an install from before the database (Redis, REDIS_PREFIX) into the database; safe to run again')
    .option('--delete', 'delete each copied key from Redis once it is in the database')
    .action(async (opts: { delete?: boolean }) => {
      const config = loadConfig();
      const redis = createRedis(config.REDIS_URL, 'worker');
      try {
        await waitForRedis(redis, 5_000).catch((error: Error) => {
          throw new CliError(`Redis at ${config.REDIS_URL} is not reachable: ${error.message}`);
        });
        const database = await openAppDatabase(config).catch((error: Error) => {
          throw new CliError(error.message);
        });
        try {
          const counts = await importFromRedis({ redis, prefix: config.REDIS_PREFIX, database, deleteCopied: opts.delete });
          process.stdout.write(`Copied into ${describeDatabase(config)}:\n`);
          for (const [name, count] of Object.entries(counts)) process.stdout.write(`  ${name.padEnd(20)} ${count}\n`);
        } finally {
          await database.close();
        }
      } finally {
        redis.disconnect();
      }
    });
}
