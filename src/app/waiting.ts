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

/** The shops a registry change concerns; `*` when it may concern any (a "*" file, or a change that does not say). */
export function changedShops(change: RegistryChange & { shops?: readonly string[] | '*' }): readonly string[] | '*' {
  const shops = change.shops;
  if (shops === undefined || shops === '*' || shops.includes('*')) return '*';
  return shops;
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
