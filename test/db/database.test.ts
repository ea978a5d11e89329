import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { Session } from '@shopify/shopify-api';
import { PostgresOrderStore } from '../../src/storage/order-store.js';
import { DatabaseInUseError, MIGRATIONS_DIR, openDatabase, PREPARED } from '../../src/db/database.js';

/** Every migration in the repository: a fresh schema gets them all. */
const MIGRATIONS = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).length;
import { importFromRedis } from '../../src/db/import-redis.js';
import { SessionTable } from '../../src/shopify/session-table.js';
import { dropSchema, TEST_DATABASE_URL, testDatabase, testSchemaName } from '../helpers/database.js';
import { testRedis } from '../helpers/redis.js';
import { runCliInProcess } from '../helpers/run-cli.js';

describe('print-bridge db migrate', () => {
  const schema = testSchemaName('migrate_cli');
  afterAll(() => dropSchema(schema));

  it('creates the schema, and a second run has nothing left to apply', async () => {
    const env = { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema };
    const first = await runCliInProcess(['db', 'migrate'], env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/PostgreSQL at 127\.0\.0\.1:5432\/test \(schema pbtest_migrate_cli_[0-9a-f]+\): \d+ migration\(s\) applied/);
    expect(first.stdout).toContain(`${MIGRATIONS} migration(s) applied`);
    const second = await runCliInProcess(['db', 'migrate'], env);
    expect(second.stdout).toContain('0 migration(s) applied');
  });

  it('says what is wrong when the database cannot be reached', async () => {
    const result = await runCliInProcess(['db', 'migrate'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:9/none' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PostgreSQL at 127.0.0.1:9/none');
  });

  it('migrates from several processes at once without tripping over each other', async () => {
    const parallel = testSchemaName('migrate_parallel');
    try {
      const opened = await Promise.all([1, 2, 3].map(() => openDatabase({ url: TEST_DATABASE_URL, schema: parallel, poolSize: 1 })));
      const applied = await Promise.all(opened.map((d) => d.migrate()));
      expect(applied.map((a) => a.applied).sort()).toEqual([0, 0, MIGRATIONS]);
      await Promise.all(opened.map((d) => d.close()));
    } finally {
      await dropSchema(parallel);
    }
  });
});

describe('prepared statements (issue 27)', () => {
  const schema = testSchemaName('prepared');
  afterAll(() => dropSchema(schema));

  it('runs a fixed statement prepared on PostgreSQL with the same answers and types, parsed once per connection', async () => {
    // One connection, so the statements it has prepared can be listed on it.
    const database = await openDatabase({ url: TEST_DATABASE_URL, schema, poolSize: 1 });
    try {
      await database.migrate();
      const read = (n: number) => sql`SELECT ${n}::int AS n, '2026-11-25T10:00:00Z'::timestamptz AS at, '{"a":1}'::jsonb AS doc`;
      const unnamed = await database.rows(read(1));
      const first = await database.rows(read(1), PREPARED);
      const second = await database.rows(read(2), PREPARED);
      // The same rows as unnamed: timestamps stay text (drizzle's types), jsonb is parsed.
      expect(first).toEqual(unnamed);
      expect(typeof first[0]!.at).toBe('string');
      expect(second).toEqual([{ ...unnamed[0], n: 2 }]);
      const prepared = await database.rows<{ name: string }>(sql`SELECT name FROM pg_prepared_statements`);
      expect(prepared.map((p) => p.name)).toEqual([expect.stringMatching(/^pb_[0-9a-f]{24}$/)]);
      // In a transaction too, on the same prepared statement; a rollback leaves nothing behind.
      await expect(
        database.transaction(async (tx) => {
          expect(await tx.rows(read(3), PREPARED)).toEqual([{ ...unnamed[0], n: 3 }]);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect((await database.rows<{ name: string }>(sql`SELECT name FROM pg_prepared_statements`)).length).toBe(1);
      // Planned for the values five times, then PostgreSQL keeps the generic plan: no more planning. The connection's
      // plan_cache_mode stays `auto`: forcing generic plans would also give them to the unnamed statements (the lists
      // and searches), whose best plan depends on their values.
      expect(await database.rows(sql`SELECT current_setting('plan_cache_mode') AS mode`)).toEqual([{ mode: 'auto' }]);
      for (let n = 4; n <= 8; n++) await database.rows(read(n), PREPARED);
      const [plans] = await database.rows<{ generic: number; custom: number }>(sql`SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements`);
      expect(plans).toEqual({ generic: 3, custom: 5 });
      // A statement first prepared in a transaction that rolls back stays prepared, and runs after it.
      const other = sql`SELECT ${'x'}::text AS t`;
      await expect(
        database.transaction(async (tx) => {
          expect(await tx.rows(other, PREPARED)).toEqual([{ t: 'x' }]);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await database.rows(other, PREPARED)).toEqual([{ t: 'x' }]);
      expect((await database.rows<{ name: string }>(sql`SELECT name FROM pg_prepared_statements`)).length).toBe(2);
      // A caller preparing texts that vary is capped: past the cap they run unnamed, and still answer.
      for (let i = 0; i < 69; i++) expect(await database.rows(sql.raw(`SELECT ${i} AS n`), PREPARED)).toEqual([{ n: i }]);
      expect((await database.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM pg_prepared_statements`))[0]!.n).toBe(64);
    } finally {
      await database.close();
    }
  });

  it('runs them unnamed when the operator turns prepared statements off (a pooler that cannot keep them)', async () => {
    const database = await openDatabase({ url: TEST_DATABASE_URL, schema, poolSize: 1, preparedStatements: false });
    try {
      expect(await database.rows(sql`SELECT ${7}::int AS n`, PREPARED)).toEqual([{ n: 7 }]);
      expect(await database.rows(sql`SELECT name FROM pg_prepared_statements`)).toEqual([]);
      expect(await database.rows(sql`SELECT current_setting('plan_cache_mode') AS mode`)).toEqual([{ mode: 'auto' }]);
    } finally {
      await database.close();
    }
  });
});

describe('the embedded database (PGlite)', () => {
  it('keeps its data in DATA_DIR across restarts, and refuses a second process with the reason', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pb-pglite-'));
    const first = await openDatabase({ dataDir: dir });
    await first.migrate();
    const store = new PostgresOrderStore({ database: first, redis: undefined as never, prefix: 'x:' });
    await store.update('a.myshopify.com', 'gid://shopify/Order/1', () => ({ link: store.blank('a.myshopify.com', 'gid://shopify/Order/1') }));
    // Another process holding the files: simulated with a lock file naming a live pid (this test runner's parent).
    const { writeFileSync } = await import('node:fs');
    await first.close();
    writeFileSync(join(dir, 'print-bridge.lock'), String(process.ppid));
    await expect(openDatabase({ dataDir: dir })).rejects.toBeInstanceOf(DatabaseInUseError);
    // A lock left by a process that is gone is taken over.
    writeFileSync(join(dir, 'print-bridge.lock'), '999999999');
    const again = await openDatabase({ dataDir: dir });
    expect((await again.migrate()).applied).toBe(0);
    const reopened = new PostgresOrderStore({ database: again, redis: undefined as never, prefix: 'x:' });
    expect((await reopened.get('a.myshopify.com', 'gid://shopify/Order/1'))?.version).toBe(1);
    await again.close();
  });
});

describe('print-bridge db import-redis', () => {
  const { redis, prefix, cleanup: cleanupRedis } = testRedis('import');
  afterAll(cleanupRedis);

  it('copies a Redis-only install into the database once, however often it runs, and can delete what it copied', async () => {
    const { database, cleanup } = await testDatabase('import');
    try {
      const link = (n: number, extra: Record<string, unknown> = {}) => ({
        shop: 'old.myshopify.com', orderId: `gid://shopify/Order/${n}`, orderName: `#${n}`, status: 'shipped', statusAt: '2026-01-02T00:00:00.000Z',
        sourceOrderId: `old-${n}`, submitAttempts: 1, problems: [], shipments: [], createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-02T00:00:00.000Z', version: 4, ...extra,
      });
      for (const n of [1, 2]) {
        await redis.set(`${prefix}link:old.myshopify.com:gid://shopify/Order/${n}`, JSON.stringify(link(n)));
        await redis.lpush(`${prefix}history:old.myshopify.com:gid://shopify/Order/${n}`, JSON.stringify({ at: '2026-01-01T00:00:00.000Z', event: 'received', source: 'shopify' }), JSON.stringify({ at: '2026-01-02T00:00:00.000Z', event: 'shipped', source: 'print-service' }));
        await redis.hset(`${prefix}body:old.myshopify.com:gid://shopify/Order/${n}`, 'updatedAt', '2026-01-01T00:00:00.000Z', 'body', `{"id":${n}}`);
        await redis.set(`${prefix}source:old-${n}`, `old.myshopify.com|gid://shopify/Order/${n}`);
      }
      await redis.set(`${prefix}shop-since:old.myshopify.com`, '2025-12-01T00:00:00.000Z');
      await redis.set(`${prefix}data-request:old.myshopify.com:req-9`, JSON.stringify([{ orderId: 'gid://shopify/Order/1' }]), 'EX', 3600 * 24);
      await redis.lpush(`${prefix}postbacks:unreadable`, JSON.stringify({ id: 'u-1', receivedAt: '2026-01-03T00:00:00.000Z', headers: {}, body: 'junk', error: 'not JSON' }));
      const session = new Session({ id: 'offline_old.myshopify.com', shop: 'old.myshopify.com', state: '', isOnline: false, accessToken: 'v1.k.iv.tag.ct', scope: 'read_orders' });
      await redis.set(`${prefix}shopify-session_offline_old.myshopify.com`, JSON.stringify(session.toPropertyArray(true)));
      await redis.set(`${prefix}shopify-session_old.myshopify.com`, JSON.stringify([`${prefix}shopify-session_offline_old.myshopify.com`]));

      const first = await importFromRedis({ redis, prefix, database });
      expect(first).toMatchObject({ orders: 2, history: 4, bodies: 2, sourceOrderIds: 2, shops: 1, sessions: 1, dataRequests: 1, unreadablePostbacks: 1, deletedKeys: 0 });
      const again = await importFromRedis({ redis, prefix, database });
      expect(again).toMatchObject({ orders: 0, ordersAlreadyThere: 2, history: 0, bodies: 0, sourceOrderIds: 0, shops: 0, sessions: 0, dataRequests: 0, unreadablePostbacks: 0 });

      const store = new PostgresOrderStore({ database, redis, prefix });
      expect(await store.get('old.myshopify.com', 'gid://shopify/Order/1')).toMatchObject({ status: 'shipped', version: 4, orderName: '#1' });
      expect((await store.history('old.myshopify.com', 'gid://shopify/Order/1')).map((h) => h.event)).toEqual(['shipped', 'received']);
      expect((await store.findBySourceOrderId('old-2'))?.orderId).toBe('gid://shopify/Order/2');
      expect(await store.getOrderBody('old.myshopify.com', 'gid://shopify/Order/2')).toEqual({ updatedAt: '2026-01-01T00:00:00.000Z', body: '{"id":2}' });
      expect(await store.shopActiveSince('old.myshopify.com')).toBe('2025-12-01T00:00:00.000Z');
      expect(await store.getDataRequest('old.myshopify.com', 'req-9')).toEqual([{ orderId: 'gid://shopify/Order/1' }]);
      expect((await store.listUnreadablePostbacks()).entries.map((e) => e.id)).toEqual(['u-1']);
      expect((await new SessionTable(database).loadSession('offline_old.myshopify.com'))?.accessToken).toBe('v1.k.iv.tag.ct');

      const deleting = await importFromRedis({ redis, prefix, database, deleteCopied: true });
      expect(deleting.orders).toBe(0);
      expect(deleting.deletedKeys).toBeGreaterThanOrEqual(12);
      expect(await redis.keys(`${prefix}*`)).toEqual([]);
      expect((await database.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM orders`))[0]!.n).toBe(2);
    } finally {
      await cleanup();
    }
  });
});
