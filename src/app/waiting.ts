import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import type { ConnectionsPort } from '../bridge/ports.js';
import type { MappingRegistry, RegistryChange } from '../mapping/registry.js';
import { enqueueReexamine, type OrderJob } from '../queue/queues.js';
import type { ShopSessions } from '../shopify/sessions.js';

/**
 * What releases orders that wait (src/bridge/waiting-orders.ts), wired in the composition root: a store connected
 * (a session stored by OAuth or `shops add`) and a mapping change each queue a look at the affected orders.
 */

/** A store is connected when the app holds its offline access token. */
export function sessionConnections(sessions: Pick<ShopSessions, 'accessToken'>): ConnectionsPort {
  return { isConnected: async (shop) => (await sessions.accessToken(shop)) !== undefined };
}

/**
 * The shops a registry change concerns: those the changed files served before or serve now; `*` when a catch-all
 * file changed (it serves every store without a file of its own).
 */
export function changedShops(change: Pick<RegistryChange, 'shops'>): readonly string[] | '*' {
  if (change.shops.includes('*')) return '*';
  return [...new Set(change.shops.map((shop) => shop.trim().toLowerCase()))];
}

export function releaseWaitingOrders(deps: {
  registry: Pick<MappingRegistry, 'on'>;
  sessions: Pick<ShopSessions, 'onStored'>;
  queue: Queue<OrderJob>;
  logger: Logger;
}): void {
  const enqueue = (shop: string, cause: string, remap: boolean) =>
    enqueueReexamine(deps.queue, shop, cause, remap).catch((error: unknown) =>
      // The periodic sweep (maintenance) releases what a lost request would have.
      deps.logger.warn({ err: error, shop, cause }, 'could not queue a look at waiting orders'),
    );
  deps.sessions.onStored((shop) => enqueue(shop, 'store connected', false));
  deps.registry.on('change', (change) => {
    const shops = changedShops(change);
    if (shops === '*') void enqueue('*', 'mapping changed', true);
    else for (const shop of shops) void enqueue(shop, 'mapping changed', true);
  });
}
