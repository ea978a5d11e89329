import type { Config } from '../config.js';
import { type Database, DatabaseInUseError, openDatabase } from './database.js';

/** Where the configuration points the app's database, in words for logs and errors (no password). */
export function describeDatabase(config: Pick<Config, 'DATABASE_URL' | 'DATABASE_SCHEMA' | 'DATA_DIR'>): string {
  if (!config.DATABASE_URL) return `the embedded database (PGlite) in ${config.DATA_DIR}`;
  const url = new URL(config.DATABASE_URL);
  url.password = url.password ? '***' : '';
  return `PostgreSQL at ${url.host}${url.pathname}${config.DATABASE_SCHEMA !== 'public' ? ` (schema ${config.DATABASE_SCHEMA})` : ''}`;
}

/**
 * Opens the configured database and applies the migrations not applied yet (`start` does it, as `db migrate` does),
 * with the reason in words when it cannot.
 */
export async function openAppDatabase(
  config: Pick<Config, 'DATABASE_URL' | 'DATABASE_SCHEMA' | 'DATA_DIR'> & Partial<Pick<Config, 'DATABASE_PREPARED_STATEMENTS'>>,
  options: { migrate?: boolean; poolSize?: number } = {},
): Promise<Database> {
  let database: Database;
  try {
    database = await openDatabase({
      url: config.DATABASE_URL,
      schema: config.DATABASE_SCHEMA,
      dataDir: config.DATA_DIR,
      poolSize: options.poolSize,
      preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
    });
  } catch (error) {
    if (error instanceof DatabaseInUseError) throw error;
    throw new Error(`${describeDatabase(config)} could not be opened: ${(error as Error).message}`);
  }
  if (options.migrate === false) return database;
  try {
    await database.migrate();
  } catch (error) {
    await database.close().catch(() => undefined);
    throw new Error(`${describeDatabase(config)}: the migrations could not be applied: ${(error as Error).message}`);
  }
  return database;
}
