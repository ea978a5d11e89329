import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { sql, type SQL } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import * as schema from './schema.js';

/**
 * One database handle for both engines: PostgreSQL through `pg` when DATABASE_URL is set, the embedded PGlite in
 * DATA_DIR otherwise. The same drizzle schema, migrations and SQL run on both.
 */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface Database {
  readonly db: Db;
  readonly kind: 'postgres' | 'pglite';
  /** The schema the tables live in. */
  readonly schema: string;
  /** Rows of a raw statement (both drivers answer `{ rows }`). */
  rows<T extends Record<string, unknown>>(query: SQL, options?: RowsOptions): Promise<T[]>;
  /** Runs statements in one transaction (committed when `work` resolves, rolled back when it throws). */
  transaction<T>(work: (tx: Pick<Database, 'rows'>) => Promise<T>): Promise<T>;
  /** Applies the migrations not applied yet; safe to call from several processes at once. */
  migrate(): Promise<{ applied: number }>;
  close(): Promise<void>;
}

export interface RowsOptions {
  /**
   * Run as a named prepared statement on PostgreSQL: parsed once per connection and, after its first five runs,
   * planned once (PostgreSQL keeps the generic plan when it costs no more than the plans made for the values; issue
   * 27: parse and plan of the order path's statements were half the server's CPU an order). Only for a statement that
   * finds its rows by key (so the generic plan is the one a value would get) and whose text never varies (no lists of varying length): each distinct text stays prepared on every connection that ran
   * it, so past PREPARED_TEXTS_KEPT texts a process runs the rest unnamed. It names its columns (never `*`): a
   * migration that only adds columns then leaves a running process's statements valid. PGlite ignores it.
   */
  prepared?: boolean;
}

/** The hot path's fixed statements (the order's read and write, its body, its sourceOrderId claim). */
export const PREPARED: RowsOptions = { prepared: true };

/** Distinct statement texts a process prepares at most; more would be a caller preparing a text that varies. */
const PREPARED_TEXTS_KEPT = 64;

export interface DatabaseOptions {
  /** postgres:// URL; unset: PGlite in `dataDir`. */
  url?: string;
  schema?: string;
  /** PGlite's directory; `memory://` keeps it in memory (the demo and tests). */
  dataDir?: string;
  /** Connections in the pool (PostgreSQL only). */
  poolSize?: number;
  /** Whether statements asked to run prepared do (RowsOptions; default true): false behind a pooler that cannot. */
  preparedStatements?: boolean;
}

/** The committed drizzle-kit migrations (next to `src/` and `dist/` alike). */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../drizzle', import.meta.url));

const MIGRATION_LOCK = 7_244_901_337;

export class DatabaseInUseError extends Error {
  readonly retryable = false;
  constructor(dir: string, pid: string) {
    super(
      `the embedded database in ${dir} is in use by process ${pid}: PGlite serves one process. Stop that process, or run the app, its workers and commands against PostgreSQL (DATABASE_URL).`,
    );
    this.name = 'DatabaseInUseError';
  }
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const schemaName = options.schema ?? 'public';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schemaName)) throw new Error(`DATABASE_SCHEMA ${JSON.stringify(schemaName)} is not a lower-case SQL identifier`);
  return options.url
    ? openPostgres(options.url, schemaName, options.poolSize ?? 10, options.preparedStatements ?? true)
    : openPglite(options.dataDir ?? './data', schemaName);
}

async function openPostgres(url: string, schemaName: string, max: number, prepared: boolean): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // Every connection works in the app's schema; `public` stays on the path for extensions.
    options: `-c search_path=${schemaName},public`,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its server (a restart) emits on the pool; without a listener that would end the process.
  pool.on('error', () => undefined);
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  return {
    ...handle(db, 'postgres', schemaName, prepared),
    async migrate() {
      const client = await pool.connect();
      try {
        // Web and worker processes start together: one applies the migrations, the others wait for it.
        await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
        try {
          await client.query(`CREATE SCHEMA IF NOT EXISTS "${schemaName}"`);
          const before = await appliedCount(client, schemaName);
          await migratePg(drizzlePg(client), { migrationsFolder: MIGRATIONS_DIR, migrationsSchema: schemaName });
          return { applied: (await appliedCount(client, schemaName)) - before };
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
        }
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}

/** What both engines share: the drizzle handle and raw statements answered as `{ rows }` by both drivers. */
function handle(db: Db, kind: Database['kind'], schemaName: string, prepared = false): Pick<Database, 'db' | 'kind' | 'schema' | 'rows' | 'transaction'> {
  const names = new Map<string, string>();
  /** The statement's name when it runs prepared: its text's digest, so one name never stands for two texts. */
  const nameOf = (text: string): string | undefined => {
    const known = names.get(text);
    if (known !== undefined || names.size >= PREPARED_TEXTS_KEPT) return known;
    const name = `pb_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
    return name;
  };
  const run = async <T extends Record<string, unknown>>(target: Pick<Db, 'execute'>, query: SQL, options?: RowsOptions): Promise<T[]> => {
    if (options?.prepared && prepared) {
      // drizzle's `execute` always runs unnamed; its session prepares a named one (with the same result types).
      const { session, dialect } = target as unknown as DrizzleInternals;
      const built = dialect.sqlToQuery(query);
      const name = nameOf(built.sql);
      if (name) return ((await session.prepareQuery(built, undefined, name, false).execute()) as { rows: T[] }).rows;
    }
    return ((await target.execute(query)) as unknown as { rows: T[] }).rows;
  };
  return {
    db,
    kind,
    schema: schemaName,
    rows: (query, options) => run(db, query, options),
    transaction(work) {
      return db.transaction((tx) => work({ rows: (query, options) => run(tx, query, options) }));
    },
  };
}

/** The parts of a drizzle database or transaction that prepare a named statement (not in its public types). */
interface DrizzleInternals {
  dialect: { sqlToQuery(query: SQL): { sql: string; params: unknown[] } };
  session: {
    prepareQuery(query: { sql: string; params: unknown[] }, fields: undefined, name: string, arrayMode: false): { execute(): Promise<unknown> };
  };
}

async function appliedCount(client: pg.PoolClient, schemaName: string): Promise<number> {
  const found = await client.query(`SELECT to_regclass('"${schemaName}".__drizzle_migrations') AS t`);
  if (!(found.rows[0] as { t: string | null }).t) return 0;
  const result = await client.query(`SELECT count(*)::int AS n FROM "${schemaName}".__drizzle_migrations`);
  return (result.rows[0] as { n: number }).n;
}

async function openPglite(dataDir: string, schemaName: string): Promise<Database> {
  const inMemory = dataDir === 'memory://' || dataDir.startsWith('memory://');
  const dir = inMemory ? undefined : resolve(dataDir);
  const releaseLock = dir ? lockDataDir(dir) : () => undefined;
  let client: PGlite;
  try {
    client = new PGlite(dir ? join(dir, 'pglite') : 'memory://');
    await client.waitReady;
    await client.exec(`CREATE SCHEMA IF NOT EXISTS "${schemaName}"; SET search_path TO "${schemaName}", public;`);
  } catch (error) {
    releaseLock();
    throw error;
  }
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    ...handle(db, 'pglite', schemaName),
    async migrate() {
      const count = async () => {
        const found = await client.query<{ t: string | null }>(`SELECT to_regclass('"${schemaName}".__drizzle_migrations') AS t`);
        if (!found.rows[0]?.t) return 0;
        return (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schemaName}".__drizzle_migrations`)).rows[0]?.n ?? 0;
      };
      const before = await count();
      await migratePglite(drizzlePglite(client), { migrationsFolder: MIGRATIONS_DIR, migrationsSchema: schemaName });
      return { applied: (await count()) - before };
    },
    async close() {
      try {
        await client.close();
      } finally {
        releaseLock();
      }
    },
  };
}

/**
 * PGlite is one process's database: a second process opening the same files would corrupt them. A lock file with
 * the holder's pid refuses the second opener with the reason; a lock left by a process that is gone is taken over.
 */
function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const lockFile = join(dir, 'print-bridge.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(lockFile, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readFileSync(lockFile, 'utf8').trim();
      if (holder && holder !== String(process.pid) && isAlive(Number(holder))) throw new DatabaseInUseError(dir, holder);
      rmSync(lockFile, { force: true });
    }
  }
  throw new Error(`could not lock the embedded database in ${dir}`);
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `SELECT 1` for readiness checks. */
export async function pingDatabase(database: Database): Promise<boolean> {
  await database.db.execute(sql`SELECT 1`);
  return true;
}
