import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type Database, openDatabase } from '../../src/db/database.js';

/** The PostgreSQL the tests use (CI starts one on 127.0.0.1:5432 with trust auth). */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh schema name of this test's own. */
export function testSchemaName(label: string): string {
  return `pbtest_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase().slice(0, 30)}_${randomBytes(4).toString('hex')}`;
}

/** Drops a test schema and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * A migrated schema of this test file's own in the test PostgreSQL (or, with `pglite`, an in-memory PGlite);
 * `cleanup` drops it and closes the connections.
 */
export async function testDatabase(label: string, options: { engine?: 'postgres' | 'pglite' } = {}): Promise<{ database: Database; schema: string; cleanup: () => Promise<void> }> {
  if (options.engine === 'pglite') {
    const database = await openDatabase({ dataDir: 'memory://' });
    await database.migrate();
    return { database, schema: 'public', cleanup: () => database.close() };
  }
  const schema = testSchemaName(label);
  const database = await openDatabase({ url: TEST_DATABASE_URL, schema, poolSize: 5 });
  await database.migrate();
  return {
    database,
    schema,
    cleanup: async () => {
      await database.close();
      await dropSchema(schema);
    },
  };
}

/**
 * The same, usable at once (module scope, like `testRedis`): the schema is created and migrated before the first
 * query runs.
 */
export function lazyTestDatabase(label: string): { database: Database; schema: string; cleanup: () => Promise<void> } {
  const schema = testSchemaName(label);
  const opened = openDatabase({ url: TEST_DATABASE_URL, schema, poolSize: 5 }).then(async (database) => {
    await database.migrate();
    return database;
  });
  // Unhandled until first used; a failure surfaces in the first query.
  opened.catch(() => undefined);
  const database: Database = {
    kind: 'postgres',
    schema,
    get db(): Database['db'] {
      throw new Error('lazyTestDatabase: use rows() (or testDatabase for the drizzle handle)');
    },
    rows: async (query) => (await opened).rows(query),
    transaction: async (work) => (await opened).transaction(work),
    migrate: async () => (await opened).migrate(),
    close: async () => (await opened).close(),
  };
  return {
    database,
    schema,
    cleanup: async () => {
      await (await opened).close();
      await dropSchema(schema);
    },
  };
}
