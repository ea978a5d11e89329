import type { AddressInfo } from 'node:net';
import express from 'express';
import { createAdminRouter, type AdminDeps } from '../../src/admin/router.js';
import type { OperatorActionDeps } from '../../src/bridge/operator-actions.js';
import { silentLogger } from '../../src/logger.js';
import type { PostgresOrderStore } from '../../src/storage/order-store.js';
import { ADMIN_TOKEN, AdminClient } from './helpers.js';

/**
 * The admin pages alone on a real order store, without the rest of the app: for tests of what the pages read and
 * how they answer (no queues, no mapping files, no failed jobs).
 */
export async function startAdminApp(store: PostgresOrderStore, extra: Partial<AdminDeps> = {}): Promise<{ url: string; operator: AdminClient; close(): Promise<void> }> {
  const app = express();
  app.use(
    createAdminRouter({
      store,
      actions: {} as OperatorActionDeps,
      failedJobs: { list: async () => [], forOrder: async () => [] } as unknown as AdminDeps['failedJobs'],
      mappings: { files: () => [], problems: () => [], warnings: () => [] } as unknown as AdminDeps['mappings'],
      queues: [],
      adminToken: ADMIN_TOKEN,
      sessionSecrets: [ADMIN_TOKEN],
      logger: silentLogger,
      ...extra,
    }),
  );
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    operator: await AdminClient.login(url),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
