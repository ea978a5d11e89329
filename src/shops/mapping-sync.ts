import type { Logger } from 'pino';
import type { MappingRegistry } from '../mapping/registry.js';
import { formatFileProblem } from '../mapping/errors.js';
import { loadStoreMapping } from '../mapping/store-mapping.js';
import type { ShopSettingsStore } from './settings-store.js';

/**
 * Keeps the mapping registry of this process serving each store's current saved version: at start, right after a
 * save or rollback in this process (`refresh`), and within `pollMs` of one made by another process (a web process
 * saves, the workers map). A version that no longer loads (a stricter check in a newer release) is logged and the
 * files serve the store, as for a broken file.
 */
export class StoreMappingSync {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** The run that follows the one under way, shared by every call made meanwhile. */
  private next: Promise<void> | undefined;
  /** Versions found not to load, told once. */
  private readonly broken = new Set<string>();

  constructor(
    private readonly deps: {
      settings: Pick<ShopSettingsStore, 'mappingPointers' | 'mappingVersion'>;
      registry: Pick<MappingRegistry, 'storeVersions' | 'setStoreMapping'>;
      logger: Logger;
      pollMs?: number;
    },
  ) {}

  /**
   * Reads the stores' versions, then keeps reading them every `pollMs`. The polling starts whatever the first read
   * did: a database that did not answer at start must not leave the stores' own versions unserved until a restart
   * (the caller logs the first failure; the polls keep trying).
   */
  async start(): Promise<void> {
    try {
      await this.refresh();
    } finally {
      this.poll();
    }
  }

  private poll(): void {
    const pollMs = this.deps.pollMs ?? 2_000;
    if (this.timer) return;
    if (pollMs > 0) {
      this.timer = setInterval(() => {
        // A poll joins a run under way (it asks for nothing newer than that run reads); only saves and rollbacks wait
        // for a follow-up, so a sync slower than the interval does not queue runs back to back.
        void (this.running ?? this.refresh()).catch((error: unknown) => this.deps.logger.warn({ err: error }, "could not read the stores' mapping versions; keeping those in use"));
      }, pollMs);
      this.timer.unref();
    }
  }

  /**
   * Reads which version each store uses and loads the ones that changed. One run at a time; a call made while a run
   * is under way waits for a run that starts after it: the run under way may have read the pointers before the save
   * or rollback that asks for this refresh, and joining it would leave the old version serving the next order.
   */
  refresh(): Promise<void> {
    if (this.next) return this.next;
    if (this.running) {
      this.next ??= this.running.catch(() => undefined).then(() => {
        this.next = undefined;
        return this.refresh();
      });
      return this.next;
    }
    const run = this.sync().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async sync(): Promise<void> {
    const pointers = await this.deps.settings.mappingPointers();
    const inUse = this.deps.registry.storeVersions();
    for (const [shop, version] of pointers) {
      if (inUse.get(shop) === version) continue;
      const stored = await this.deps.settings.mappingVersion(shop, version);
      if (!stored) continue;
      const loaded = loadStoreMapping(stored.yaml, shop, version);
      if (!loaded.ok) {
        if (this.broken.has(`${shop}@${version}`)) continue;
        this.broken.add(`${shop}@${version}`);
        this.deps.logger.error({ shop, version, problems: loaded.problems.map(formatFileProblem) }, "a store's saved mapping version does not load; the mapping files serve it");
        this.deps.registry.setStoreMapping(shop, undefined);
        continue;
      }
      this.deps.registry.setStoreMapping(shop, { version, mapping: loaded.mapping });
    }
    for (const shop of inUse.keys()) if (!pointers.has(shop)) this.deps.registry.setStoreMapping(shop, undefined);
  }
}
